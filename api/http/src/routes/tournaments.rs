//! Tournaments: create, list, register, withdraw, start, change the rules, see the
//! standings and pairings, export for `worp audit` (docs/tournaments.md).

use actix_web::{delete, get, post, put, web, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::auth::scope::ChallengeWrite;
use crate::auth::Caller;
use crate::body::Body;
use crate::problem::{ApiError, Problem};
use crate::routes::paging::{next_offset, page};
use worp_service::tournaments::views::TournamentExport;
use worp_service::tournaments::{ChangeRules, CreateTournament, TournamentSummary, TournamentView};
use worp_service::Worp;

/// Which tournaments to list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct TournamentQuery {
    /// `registering` (open to join), `running` or `finished`; absent: all.
    pub status: Option<TournamentStatus>,
    /// At most this many (1 to 200, default 50).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
    /// Skip this many (0 to 10,000).
    #[param(minimum = 0, maximum = 10000)]
    pub offset: Option<i64>,
}

/// A tournament's status.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TournamentStatus {
    Registering,
    Running,
    Finished,
}

/// A page of tournaments, newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct TournamentPage {
    pub tournaments: Vec<TournamentSummary>,
    /// The offset of the next page, when there may be one.
    pub next_offset: Option<i64>,
}

/// Creates a tournament: a variant and its options for every game, a format (round
/// robin, Swiss, knockout), the clock, the player limits, open or by invitation. The
/// creator registers like anyone else if they want to play, and starts it.
#[utoipa::path(
    tag = "tournaments",
    request_body = CreateTournament,
    security(("bearer" = ["challenge:write"])),
    responses(
        (status = 201, description = "Created", body = TournamentView,
         headers(("Location" = String, description = "`/v1/tournaments/{id}`"))),
        (status = 400, description = "Malformed body, unknown variant, invalid options or rules", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "The caller has 10 tournaments that are not finished, or the rate limit", body = Problem, content_type = "application/problem+json",
         headers(("Retry-After" = u64, description = "Seconds to wait before trying again"))),
    )
)]
#[post("/v1/tournaments")]
pub async fn create_tournament(
    worp: web::Data<Worp>,
    caller: Caller<ChallengeWrite>,
    body: Body<CreateTournament>,
) -> Result<HttpResponse, ApiError> {
    let view = worp
        .create_tournament(&caller.0, body.into_inner()?)
        .await?;
    Ok(HttpResponse::Created()
        .insert_header(("Location", format!("/v1/tournaments/{}", view.summary.id)))
        .json(&view))
}

/// Lists tournaments, newest first; `status=registering` is the lobby of those open to
/// join.
#[utoipa::path(
    tag = "tournaments",
    params(TournamentQuery),
    responses(
        (status = 200, description = "A page of tournaments", body = TournamentPage),
        (status = 400, description = "Malformed parameters", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/tournaments")]
pub async fn list_tournaments(
    worp: web::Data<Worp>,
    q: web::Query<TournamentQuery>,
) -> Result<HttpResponse, ApiError> {
    let (limit, offset) = page(q.limit, q.offset, 50, 200)?;
    let status = q.status.map(|s| match s {
        TournamentStatus::Registering => "registering",
        TournamentStatus::Running => "running",
        TournamentStatus::Finished => "finished",
    });
    let mut tournaments = worp.list_tournaments(status, limit + 1, offset).await?;
    let more = tournaments.len() as i64 > limit;
    tournaments.truncate(limit as usize);
    Ok(HttpResponse::Ok().json(TournamentPage {
        tournaments,
        next_offset: next_offset(offset, limit).filter(|_| more),
    }))
}

/// A tournament: its settings, players, standings with their tie-breaks, and every
/// round's tables with links to their games and their results.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = Uuid, Path, description = "The tournament")),
    responses(
        (status = 200, description = "The tournament", body = TournamentView),
        (status = 404, description = "No such tournament", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/tournaments/{id}")]
pub async fn get_tournament(
    worp: web::Data<Worp>,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(worp.tournament_page(id.into_inner()).await?))
}

/// Registers the caller. Refused when registered already, when the tournament is full,
/// has started (unless a Swiss takes late registrations) or is by invitation and the
/// caller is not invited.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = Uuid, Path, description = "The tournament")),
    security(("bearer" = ["challenge:write"])),
    responses(
        (status = 200, description = "Registered", body = TournamentView),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "By invitation, and the caller is not invited", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Registered already, full, started or finished", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/tournaments/{id}/players")]
pub async fn register(
    worp: web::Data<Worp>,
    caller: Caller<ChallengeWrite>,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let view = worp
        .register_for_tournament(&caller.0, id.into_inner())
        .await?;
    Ok(HttpResponse::Ok().json(&view))
}

/// Withdraws the caller: before the start they leave the list; after it they are paired
/// in no later round, and their unfinished game of the round is resigned (a loss).
#[utoipa::path(
    tag = "tournaments",
    params(("id" = Uuid, Path, description = "The tournament")),
    security(("bearer" = ["challenge:write"])),
    responses(
        (status = 200, description = "Withdrawn", body = TournamentView),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Not registered, withdrawn already, or finished", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/v1/tournaments/{id}/players/me")]
pub async fn withdraw(
    worp: web::Data<Worp>,
    caller: Caller<ChallengeWrite>,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let view = worp
        .withdraw_from_tournament(&caller.0, id.into_inner())
        .await?;
    Ok(HttpResponse::Ok().json(&view))
}

/// The creator starts the tournament: the first round is paired and its games begin.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = Uuid, Path, description = "The tournament")),
    security(("bearer" = ["challenge:write"])),
    responses(
        (status = 200, description = "Started", body = TournamentView),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not the tournament's creator", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Started already, or too few players", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/tournaments/{id}/start")]
pub async fn start(
    worp: web::Data<Worp>,
    caller: Caller<ChallengeWrite>,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let view = worp.start_tournament(&caller.0, id.into_inner()).await?;
    Ok(HttpResponse::Ok().json(&view))
}

/// The creator changes the format and limits, before the first round only.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = Uuid, Path, description = "The tournament")),
    request_body = ChangeRules,
    security(("bearer" = ["challenge:write"])),
    responses(
        (status = 200, description = "Changed", body = TournamentView),
        (status = 400, description = "Malformed body or invalid rules", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not the tournament's creator", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The first round is paired", body = Problem, content_type = "application/problem+json"),
    )
)]
#[put("/v1/tournaments/{id}/rules")]
pub async fn change_rules(
    worp: web::Data<Worp>,
    caller: Caller<ChallengeWrite>,
    id: web::Path<Uuid>,
    body: Body<ChangeRules>,
) -> Result<HttpResponse, ApiError> {
    let view = worp
        .change_tournament_rules(&caller.0, id.into_inner(), body.into_inner()?)
        .await?;
    Ok(HttpResponse::Ok().json(&view))
}

/// The tournament's log and the export of every game it paired: `worp audit` checks
/// that each round is the pairing the rules give and each result is its game's.
#[utoipa::path(
    tag = "tournaments",
    params(("id" = Uuid, Path, description = "The tournament")),
    responses(
        (status = 200, description = "The export", body = TournamentExport),
        (status = 404, description = "No such tournament", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/tournaments/{id}/export")]
pub async fn export(worp: web::Data<Worp>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(worp.export_tournament(id.into_inner()).await?))
}
