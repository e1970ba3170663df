//! Leaving: downloading everything the server holds about you, and deleting the account.

use actix_web::{delete, get, web, HttpResponse};
use serde::Deserialize;
use utoipa::ToSchema;

use crate::auth::scope::{AccountRead, AccountWrite};
use crate::auth::Caller;
use crate::body::Body;
use crate::problem::{ApiError, Problem};
use worp_domain::access::CredentialKind;
use worp_service::accounts::leaving::AccountExport;
use worp_service::Worp;

/// Everything the server holds about the caller, as one JSON document: the account,
/// its credentials (never their secrets), apps, webhooks, ratings, games and messages.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = ["account:read"])),
    responses(
        (status = 200, description = "The caller's data", body = AccountExport,
         headers(("Content-Disposition" = String, description = "attachment; filename=\"worp-account.json\""))),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/players/me/export")]
pub async fn export_account(
    worp: web::Data<Worp>,
    caller: Caller<AccountRead>,
) -> Result<HttpResponse, ApiError> {
    let export = worp.export_account(&caller.0, &caller.1).await?;
    Ok(HttpResponse::Ok()
        .insert_header(("cache-control", "no-store"))
        .insert_header((
            "content-disposition",
            "attachment; filename=\"worp-account.json\"",
        ))
        .json(export))
}

/// `DELETE /v1/players/me`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteAccount {
    /// Your name exactly as shown: deleting cannot be undone.
    pub confirm_name: String,
}

/// Deletes the caller's account. First nothing is left waiting for them: they withdraw
/// from their unfinished tournaments, invitations to them are declined, and their seats
/// of unfinished games resign (a game nobody is left to play ends, aborted). Then
/// credentials, sessions, tokens, apps and webhooks are removed, the name is replaced by
/// "Deleted player" wherever it is shown and is free again, the ratings leave the
/// leaderboard. The games' logs are only appended to (they hold ids, not names), so every
/// audit still verifies.
#[utoipa::path(
    tag = "accounts",
    request_body = DeleteAccount,
    security(("bearer" = ["account:write"])),
    responses(
        (status = 204, description = "Deleted"),
        (status = 400, description = "confirm_name is not the caller's name", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "A personal access token or an app's token: only the player, signed in or with their first token, deletes the account", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "A game or tournament of the player changed twice while it was being left: nothing of the account was deleted (what it left stays left); try again", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/v1/players/me")]
pub async fn delete_account(
    worp: web::Data<Worp>,
    caller: Caller<AccountWrite>,
    body: Body<DeleteAccount>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner()?;
    caller.first_party()?;
    worp.delete_account(&caller.0, &body.confirm_name).await?;
    let mut resp = HttpResponse::NoContent();
    if caller.1.kind == CredentialKind::Session {
        resp.cookie(super::sessions::removal_cookie());
    }
    Ok(resp.finish())
}
