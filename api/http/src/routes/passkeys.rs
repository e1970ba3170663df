//! Passkeys: registering one to the caller's account, listing and removing them, and
//! signing in with one (no name needed: the authenticator says whose passkey it is).

use actix_web::{delete, get, post, web, HttpRequest, HttpResponse};
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

use super::sessions::{device_of, session_cookie, session_view, SessionView};
use crate::auth::scope::{AccountRead, AccountWrite};
use crate::auth::{refuse_cross_site, Caller};
use crate::body::Body;
use crate::problem::{ApiError, Problem};
use worp_service::accounts::passkeys::{CeremonyOptions, PasskeyView};
use worp_service::Worp;

/// The options to register a passkey: pass `options` to `navigator.credentials.create`.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = ["account:write"])),
    responses(
        (status = 200, description = "The ceremony and its options, good for five minutes", body = CeremonyOptions),
        (status = 400, description = "Too many passkeys, or passkeys are not set up here", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "A personal access token or an app's token: only the player, signed in or with their first token, does this", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/players/me/passkeys/options")]
pub async fn passkey_options(
    worp: web::Data<Worp>,
    caller: Caller<AccountWrite>,
) -> Result<HttpResponse, ApiError> {
    caller.first_party()?;
    Ok(HttpResponse::Ok()
        .insert_header(("cache-control", "no-store"))
        .json(worp.passkey_registration(&caller.0).await?))
}

/// `POST /v1/players/me/passkeys`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewPasskey {
    /// The ceremony of the options.
    pub ceremony: Uuid,
    /// What `navigator.credentials.create` answered, as JSON (binary fields base64url).
    #[schema(value_type = Object)]
    pub credential: Value,
    /// What to call it (default: from the browser).
    pub name: Option<String>,
}

/// Registers the passkey an authenticator made for the options.
#[utoipa::path(
    tag = "accounts",
    request_body = NewPasskey,
    security(("bearer" = ["account:write"])),
    responses(
        (status = 201, description = "Registered", body = PasskeyView),
        (status = 400, description = "An unknown, used or expired ceremony, or a credential that does not verify", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "A personal access token or an app's token: only the player, signed in or with their first token, does this", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "That passkey is registered already", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/players/me/passkeys")]
pub async fn register_passkey(
    worp: web::Data<Worp>,
    req: HttpRequest,
    caller: Caller<AccountWrite>,
    body: Body<NewPasskey>,
) -> Result<HttpResponse, ApiError> {
    caller.first_party()?;
    let body = body.into_inner()?;
    let name = body.name.unwrap_or_else(|| device_of(&req));
    let made = worp
        .register_passkey(&caller.0, body.ceremony, body.credential, &name)
        .await?;
    Ok(HttpResponse::Created().json(made))
}

/// The caller's passkeys.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = ["account:read"])),
    responses(
        (status = 200, description = "The passkeys, oldest first", body = Vec<PasskeyView>),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/players/me/passkeys")]
pub async fn list_passkeys(
    worp: web::Data<Worp>,
    caller: Caller<AccountRead>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(worp.passkeys(&caller.0).await?))
}

/// Removes one of the caller's passkeys: it signs in no more.
#[utoipa::path(
    tag = "accounts",
    params(("id" = String, Path, description = "The passkey's credential id, base64url")),
    security(("bearer" = ["account:write"])),
    responses(
        (status = 204, description = "Removed"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such passkey of yours", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The only passkey of a player without a password or recovery codes: their last way in", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/v1/players/me/passkeys/{id}")]
pub async fn remove_passkey(
    worp: web::Data<Worp>,
    caller: Caller<AccountWrite>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    worp.remove_passkey(&caller.0, &id).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// The options to sign in with a passkey: pass `options` to `navigator.credentials.get`.
#[utoipa::path(
    tag = "accounts",
    responses(
        (status = 200, description = "The ceremony and its options, good for five minutes", body = CeremonyOptions),
        (status = 400, description = "Passkeys are not set up here", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/sessions/passkey/options")]
pub async fn sign_in_options(worp: web::Data<Worp>) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok()
        .insert_header(("cache-control", "no-store"))
        .json(worp.passkey_sign_in().await?))
}

/// `POST /v1/sessions/passkey`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PasskeySignIn {
    pub ceremony: Uuid,
    /// What `navigator.credentials.get` answered, as JSON (binary fields base64url).
    #[schema(value_type = Object)]
    pub credential: Value,
    /// What to call this session (default: from the browser).
    pub device: Option<String>,
}

/// Signs in with a passkey: the session's cookie is set, as by `POST /v1/sessions`.
#[utoipa::path(
    tag = "accounts",
    request_body = PasskeySignIn,
    responses(
        (status = 201, description = "Signed in; the cookie is set", body = SessionView,
         headers(("Set-Cookie" = String, description = "The session, HttpOnly, Secure, SameSite=Lax"))),
        (status = 400, description = "An unknown, used or expired ceremony, or a malformed credential", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "The passkey was not accepted", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Sent from another site's page", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/sessions/passkey")]
pub async fn sign_in_with_passkey(
    worp: web::Data<Worp>,
    req: HttpRequest,
    body: web::Json<PasskeySignIn>,
) -> Result<HttpResponse, ApiError> {
    refuse_cross_site(&req)?;
    let body = body.into_inner();
    let device = body.device.unwrap_or_else(|| device_of(&req));
    let session = worp
        .sign_in_with_passkey(body.ceremony, body.credential, &device)
        .await?;
    Ok(HttpResponse::Created()
        .insert_header(("cache-control", "no-store"))
        .cookie(session_cookie(session.secret.clone()))
        .json(session_view(&session)))
}
