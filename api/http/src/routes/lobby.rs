//! Finding opponents and seeing who is best: the lobby of games waiting for players, and
//! the leaderboard of each variant.

use actix_web::{get, web, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::problem::{ApiError, Problem};
use crate::routes::paging::{next_offset, page};
use worp_domain::ratings::Standing;
use worp_service::{GameSummary, Worp, LEADERBOARD_MAX_DEVIATION};

/// Which waiting games to list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct LobbyQuery {
    /// Only games of this variant.
    pub variant: Option<String>,
    /// At most this many (1 to 200, default 50).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
    /// Skip this many (for paging; 0 to 10,000).
    #[param(minimum = 0, maximum = 10000)]
    pub offset: Option<i64>,
}

/// A game waiting for players, with its creator's standing in its variant.
#[derive(Debug, Serialize, ToSchema)]
pub struct LobbyGame {
    pub game: GameSummary,
    /// The creator's name.
    pub creator_name: Option<String>,
    /// The creator's rating in this variant (absent: no rated game yet).
    pub creator_rating: Option<f64>,
}

/// A page of the lobby, newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct LobbyPage {
    pub games: Vec<LobbyGame>,
    /// The offset of the next page, when there may be one.
    pub next_offset: Option<i64>,
}

/// Games waiting for players with a seat anyone may take, newest first: their variant,
/// options, clock, open seats and the creator's rating. Join one by taking an open seat
/// (`POST /v1/games/{id}/seats/{seat}`).
#[utoipa::path(
    tag = "games",
    operation_id = "list_lobby",
    params(LobbyQuery),
    responses(
        (status = 200, description = "A page of waiting games", body = LobbyPage),
        (status = 400, description = "Malformed parameters or unknown variant", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/lobby")]
pub async fn lobby(
    worp: web::Data<Worp>,
    q: web::Query<LobbyQuery>,
) -> Result<HttpResponse, ApiError> {
    let (limit, offset) = page(q.limit, q.offset, 50, 200)?;
    if let Some(variant) = &q.variant {
        // As the leaderboard does: an unknown variant is a mistake, not an empty lobby.
        worp_engine::variant(variant).map_err(|e| ApiError::BadRequest(e.to_string()))?;
    }
    let (games, more) = worp.lobby(q.variant.as_deref(), limit, offset).await?;
    let book = worp.rating_book().await?;
    let creators: Vec<Uuid> = games.iter().filter_map(|g| g.created_by).collect();
    worp.learn_names(creators).await?;
    let games = games
        .into_iter()
        .map(|game| {
            let creator = game.created_by;
            LobbyGame {
                creator_name: creator.and_then(|c| worp.names().get(c)),
                creator_rating: creator
                    .and_then(|c| book.standing(c, &game.variant))
                    .map(|s| s.rating),
                game,
            }
        })
        .collect();
    Ok(HttpResponse::Ok().json(LobbyPage {
        games,
        next_offset: next_offset(offset, limit).filter(|_| more),
    }))
}

/// The leaderboard of one variant.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct LeaderboardQuery {
    /// The variant.
    pub variant: String,
    /// At most this many players (1 to 200, default 50).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<usize>,
}

/// A player on a leaderboard.
#[derive(Debug, Serialize, ToSchema)]
pub struct Leader {
    pub player_id: Uuid,
    pub name: Option<String>,
    #[serde(flatten)]
    pub standing: Standing,
}

/// The best rated players of a variant.
#[derive(Debug, Serialize, ToSchema)]
pub struct Leaderboard {
    pub variant: String,
    /// Only players whose rating deviation is below this (their rating is settled).
    pub max_deviation: f64,
    /// Best first.
    pub players: Vec<Leader>,
}

/// The top rated players of a variant whose rating deviation is below
/// `max_deviation` (150: about ten rated games), best first.
#[utoipa::path(
    tag = "players",
    operation_id = "get_leaderboard",
    params(LeaderboardQuery),
    responses(
        (status = 200, description = "The leaderboard", body = Leaderboard),
        (status = 400, description = "Malformed parameters or unknown variant", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/leaderboard")]
pub async fn leaderboard(
    worp: web::Data<Worp>,
    q: web::Query<LeaderboardQuery>,
) -> Result<HttpResponse, ApiError> {
    let limit = q.limit.unwrap_or(50);
    if !(1..=200).contains(&limit) {
        return Err(ApiError::BadRequest("limit must be 1 to 200".into()));
    }
    worp_engine::variant(&q.variant).map_err(|e| ApiError::BadRequest(e.to_string()))?;
    let book = worp.rating_book().await?;
    // Players who deleted their account are not shown.
    let deleted = worp.deleted_players().await?;
    let mut leaders = book.leaders(&q.variant, limit + deleted.len());
    leaders.retain(|(p, _)| !deleted.contains(p));
    leaders.truncate(limit);
    worp.learn_names(leaders.iter().map(|(p, _)| *p).collect())
        .await?;
    Ok(HttpResponse::Ok().json(Leaderboard {
        variant: q.variant.clone(),
        max_deviation: LEADERBOARD_MAX_DEVIATION,
        players: leaders
            .into_iter()
            .map(|(player_id, standing)| Leader {
                player_id,
                name: worp.names().get(player_id),
                standing,
            })
            .collect(),
    }))
}
