//! The caller's vacation: days each year when the clocks of their correspondence games
//! are paused (docs/vacation.md).

use actix_web::{delete, get, post, web, HttpResponse};
use serde::Deserialize;
use utoipa::ToSchema;

use crate::auth::scope::{AccountRead, AccountWrite};
use crate::auth::Caller;
use crate::body::Body;
use crate::problem::{ApiError, Problem};
use worp_service::vacation::VacationStatus;
use worp_service::Worp;

/// `POST /v1/players/me/vacation`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"days": 7}))]
pub struct StartVacation {
    /// Whole days, from now: 1 to the days left this year.
    #[schema(minimum = 1)]
    pub days: u32,
}

/// The caller's vacation days this year, and the vacation they are on.
#[utoipa::path(
    tag = "players",
    security(("bearer" = ["account:read"])),
    responses(
        (status = 200, description = "The allowance, the days used and left, and the current vacation", body = VacationStatus),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/players/me/vacation")]
pub async fn get_vacation(
    worp: web::Data<Worp>,
    caller: Caller<AccountRead>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(worp.vacation(&caller.0).await?))
}

/// Starts a vacation of `days` days: the clocks of the caller's unfinished correspondence
/// games are paused until it ends (each game records `vacation_started`), and opponents
/// see "on vacation until …". Seats taken meanwhile start paused.
#[utoipa::path(
    tag = "players",
    request_body = StartVacation,
    security(("bearer" = ["account:write"])),
    responses(
        (status = 201, description = "On vacation", body = VacationStatus),
        (status = 400, description = "Malformed body", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "On vacation already", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`days` is not 1 to the days left this year", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/players/me/vacation")]
pub async fn start_vacation(
    worp: web::Data<Worp>,
    caller: Caller<AccountWrite>,
    body: Body<StartVacation>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner()?;
    Ok(HttpResponse::Created().json(worp.start_vacation(&caller.0, body.days).await?))
}

/// Ends the caller's vacation now: each paused clock runs again with the time it had left
/// (each game records `vacation_ended`). The days begun count against the allowance.
#[utoipa::path(
    tag = "players",
    security(("bearer" = ["account:write"])),
    responses(
        (status = 204, description = "Ended"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Not on vacation", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/v1/players/me/vacation")]
pub async fn end_vacation(
    worp: web::Data<Worp>,
    caller: Caller<AccountWrite>,
) -> Result<HttpResponse, ApiError> {
    worp.end_vacation(&caller.0).await?;
    Ok(HttpResponse::NoContent().finish())
}
