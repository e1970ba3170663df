//! A game's history: its event log, and the game as it was after any event.

use actix_web::{get, web, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::auth::scope::GameRead;
use crate::auth::MaybeCaller;
use crate::problem::{ApiError, Problem};
use crate::routes::games::game_response;
use crate::routes::paging::log_page;
use worp_domain::events::StoredEvent;
use worp_service::views::GameView;
use worp_service::Worp;

/// Paging through a game's events.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct EventsQuery {
    /// Only events with a sequence number above this (default 0).
    #[param(minimum = 0)]
    pub after: Option<i64>,
    /// At most this many (1 to 1000, default 100).
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<i64>,
}

/// A page of a game's event log.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct EventPage {
    pub events: Vec<StoredEvent>,
    /// Pass as `after` for the next page, when there may be one.
    pub next_after: Option<i64>,
}

/// The game's event log, oldest first: each event with its sequence number, type,
/// payload, time and hash.
#[utoipa::path(
    security((), ("bearer" = ["game:read"])),
    tag = "games",
    params(("id" = Uuid, Path, description = "The game"), EventsQuery),
    responses(
        (status = 200, description = "A page of events", body = EventPage),
        (status = 400, description = "Malformed parameters", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/games/{id}/events")]
pub async fn list_events(
    worp: web::Data<Worp>,
    caller: MaybeCaller<GameRead>,
    id: web::Path<Uuid>,
    q: web::Query<EventsQuery>,
) -> Result<HttpResponse, ApiError> {
    let (after, limit) = log_page(q.after, q.limit, 100)?;
    let reader = caller.0.map(|p| p.id);
    let events = worp
        .readable_events(id.into_inner(), after, limit, reader)
        .await?;
    let next_after = (events.len() as i64 == limit).then(|| events.last().map_or(after, |e| e.seq));
    Ok(HttpResponse::Ok().json(EventPage { events, next_after }))
}

/// Which point of the log to show.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct StateQuery {
    /// The sequence number of the event after which to show the game (default: the newest).
    #[param(minimum = 1)]
    pub at: Option<i64>,
}

/// The game as it was right after event `at`, rebuilt from the log.
#[utoipa::path(
    operation_id = "get_game_state",
    tag = "games",
    params(("id" = Uuid, Path, description = "The game"), StateQuery),
    responses(
        (status = 200, description = "The game at that point", body = GameView),
        (status = 400, description = "Malformed parameters", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game or event", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/games/{id}/state")]
pub async fn state_at(
    worp: web::Data<Worp>,
    id: web::Path<Uuid>,
    q: web::Query<StateQuery>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let table = match q.at {
        Some(at) => worp.load_at(id, at).await?,
        None => worp.load(id).await?,
    };
    game_response(&worp, actix_web::http::StatusCode::OK, &table).await
}
