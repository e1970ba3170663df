//! The bots a server offers, and GNU Backgammon's analysis of finished backgammon games.

use actix_web::{get, web, HttpResponse};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;
use worp_domain::bots::BotKind;
use worp_engine::variants;
use worp_service::analysis::{AnalysisState, AnalysisView};
use worp_service::Worp;

use crate::auth::scope::GameRead;
use crate::auth::MaybeCaller;
use crate::problem::{ApiError, Problem};

/// A bot a seat can be given (`{"bot": name}` in `POST /v1/games`).
#[derive(Debug, Serialize, ToSchema)]
pub struct BotInfo {
    pub name: &'static str,
    /// The games it plays.
    pub variants: Vec<&'static str>,
    /// Whether its moves are chosen in the background, a moment after it is its turn
    /// (expectimax and GNU Backgammon's), rather than within the change that gave it
    /// the turn.
    pub thinks: bool,
}

/// Lists the bots this server offers: GNU Backgammon's only where it is installed.
#[utoipa::path(
    tag = "variants",
    responses((status = 200, description = "The bots offered", body = Vec<BotInfo>))
)]
#[get("/v1/bots")]
pub async fn list_bots(worp: web::Data<Worp>) -> HttpResponse {
    let bots: Vec<BotInfo> = worp
        .bots_offered()
        .into_iter()
        .map(|k: BotKind| BotInfo {
            name: k.name(),
            variants: variants()
                .iter()
                .map(|v| v.name)
                .filter(|v| k.plays(v))
                .collect(),
            thinks: k.thinks(),
        })
        .collect();
    HttpResponse::Ok().json(bots)
}

/// GNU Backgammon's analysis of a finished backgammon game or match: every checker play
/// and cube decision with the played choice's equity, the best choice's and the equity
/// lost, marked doubtful, error or blunder by gnubg's thresholds, and each player's
/// error rate and PR. A player's first read asks for it (202, `pending`; a read of one
/// that failed asks again); it is made in the background and kept, not in the game's
/// log. Anyone may read an analysis once asked for.
#[utoipa::path(
    tag = "games",
    security((), ("bearer" = ["game:read"])),
    params(("id" = Uuid, Path, description = "The game")),
    responses(
        (status = 200, description = "The analysis, ready (or failed, with why)", body = AnalysisView),
        (status = 202, description = "Being analysed: ask again", body = AnalysisView),
        (status = 400, description = "Not a backgammon game", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Never asked for, and no player asks now (a token is needed to ask)", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The game is still being played, or this server has no GNU Backgammon", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/games/{id}/analysis")]
pub async fn game_analysis(
    worp: web::Data<Worp>,
    caller: MaybeCaller<GameRead>,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let view = worp.analysis(id.into_inner(), caller.0.as_ref()).await?;
    Ok(match view.state {
        AnalysisState::Pending => HttpResponse::Accepted().json(view),
        _ => HttpResponse::Ok().json(view),
    })
}
