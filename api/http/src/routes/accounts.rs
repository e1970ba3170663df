//! Credentials: passwords and recovery codes, the first token, personal access tokens,
//! and the apps a player authorised. Web sessions are in `sessions.rs`.

use actix_web::{delete, get, post, web, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::auth::scope::{AccountRead, AccountWrite};
use crate::auth::Caller;
use crate::body::Body;
use crate::problem::{ApiError, Problem};
use worp_domain::access::{CredentialKind, Scope, Scopes};
use worp_service::accounts::oauth::AppView;
use worp_service::accounts::CredentialView;
use worp_service::Worp;

/// `POST /v1/players/me/password`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SetPassword {
    /// At least 8 characters, not easy to guess (no rules of composition).
    pub password: String,
    /// The password now, when one is set.
    pub current_password: Option<String>,
}

/// Sets or changes the caller's password, with which they sign in on any device.
/// Changing it signs out every other session.
#[utoipa::path(
    tag = "accounts",
    request_body = SetPassword,
    security(("bearer" = ["account:write"])),
    responses(
        (status = 204, description = "Set"),
        (status = 400, description = "Too short, too easy to guess, or the current password is missing", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "The current password is wrong; or a personal access token or an app's token: only the player, signed in or with their first token, does this", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/players/me/password")]
pub async fn set_password(
    worp: web::Data<Worp>,
    caller: Caller<AccountWrite>,
    body: Body<SetPassword>,
) -> Result<HttpResponse, ApiError> {
    caller.first_party()?;
    let body = body.into_inner()?;
    worp.set_password(
        &caller.0,
        &caller.1,
        &body.password,
        body.current_password.as_deref(),
    )
    .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Revokes the caller's first token (the one `POST /v1/players` gave), at once and for
/// good; the player signs in with their password or a passkey from then on.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = ["account:write"])),
    responses(
        (status = 204, description = "Revoked"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "A personal access token or an app's token: only the player, signed in or with their first token, does this", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "No password and no passkey: the first token is the only way in", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/v1/players/me/token")]
pub async fn revoke_first_token(
    worp: web::Data<Worp>,
    caller: Caller<AccountWrite>,
) -> Result<HttpResponse, ApiError> {
    caller.first_party()?;
    worp.revoke_first_token(&caller.0).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Recovery codes, shown only now.
#[derive(Debug, Serialize, ToSchema)]
pub struct RecoveryCodes {
    /// Ten codes; each signs in once in place of the password. Any earlier ones no
    /// longer work.
    pub codes: Vec<String>,
}

/// Makes ten new single-use recovery codes, replacing any left.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = ["account:write"])),
    responses(
        (status = 201, description = "The codes, shown only now", body = RecoveryCodes),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "A personal access token or an app's token: only the player, signed in or with their first token, does this", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/players/me/recovery-codes")]
pub async fn new_recovery_codes(
    worp: web::Data<Worp>,
    caller: Caller<AccountWrite>,
) -> Result<HttpResponse, ApiError> {
    caller.first_party()?;
    let codes = worp.new_recovery_codes(&caller.0).await?;
    Ok(HttpResponse::Created()
        .insert_header(("cache-control", "no-store"))
        .json(RecoveryCodes { codes }))
}

/// `POST /v1/players/me/tokens`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "my bot", "scopes": ["game:read", "game:play"], "expires_in_days": 90}))]
pub struct NewTokenRequest {
    /// What the token is for (1 to 100 characters).
    pub name: String,
    /// What it may do: no more than the credential making it grants.
    pub scopes: Vec<Scope>,
    /// Days it works (1 to 366); absent: until revoked.
    pub expires_in_days: Option<u32>,
}

/// A personal access token just made.
#[derive(Debug, Serialize, ToSchema)]
pub struct NewTokenView {
    /// Send as `Authorization: Bearer <token>`. Shown only now: keep it.
    pub token: String,
    #[serde(flatten)]
    pub credential: CredentialView,
}

/// Makes a personal access token with the scopes given.
#[utoipa::path(
    tag = "accounts",
    request_body = NewTokenRequest,
    security(("bearer" = ["account:write"])),
    responses(
        (status = 201, description = "The token, shown only now", body = NewTokenView),
        (status = 400, description = "Bad name, scopes or expiry, or too many tokens", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "A scope the credential making it does not grant", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/players/me/tokens")]
pub async fn create_token(
    worp: web::Data<Worp>,
    caller: Caller<AccountWrite>,
    body: Body<NewTokenRequest>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner()?;
    let mut scopes = Scopes::NONE;
    for s in &body.scopes {
        if scopes.allows(*s) {
            return Err(ApiError::BadRequest(format!("scope {s} is named twice")));
        }
        scopes = scopes.with(*s);
    }
    let made = worp
        .create_personal_token(
            &caller.0,
            &caller.1,
            &body.name,
            scopes,
            body.expires_in_days,
        )
        .await?;
    Ok(HttpResponse::Created()
        .insert_header(("cache-control", "no-store"))
        .json(NewTokenView {
            token: made.secret,
            credential: CredentialView::of(&made.credential, None),
        }))
}

/// The caller's personal access tokens (never their secrets).
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = ["account:read"])),
    responses(
        (status = 200, description = "The tokens, oldest first", body = Vec<CredentialView>),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/players/me/tokens")]
pub async fn list_tokens(
    worp: web::Data<Worp>,
    caller: Caller<AccountRead>,
) -> Result<HttpResponse, ApiError> {
    let list = worp
        .credentials(&caller.0, CredentialKind::Personal, &caller.1)
        .await?;
    Ok(HttpResponse::Ok().json(list))
}

/// Revokes one of the caller's personal access tokens, at once.
#[utoipa::path(
    tag = "accounts",
    params(("id" = Uuid, Path, description = "The token")),
    security(("bearer" = ["account:write"])),
    responses(
        (status = 204, description = "Revoked"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such token of yours", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/v1/players/me/tokens/{id}")]
pub async fn revoke_token(
    worp: web::Data<Worp>,
    caller: Caller<AccountWrite>,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    worp.revoke_credential(&caller.0, CredentialKind::Personal, id.into_inner())
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// The apps (third-party front-ends) the caller authorised through OAuth.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = ["account:read"])),
    responses(
        (status = 200, description = "The apps, oldest first", body = Vec<AppView>),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/players/me/apps")]
pub async fn list_apps(
    worp: web::Data<Worp>,
    caller: Caller<AccountRead>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(worp.apps(&caller.0).await?))
}

/// Revokes an app: every token it holds stops working at once.
#[utoipa::path(
    tag = "accounts",
    params(("id" = Uuid, Path, description = "The app's grant")),
    security(("bearer" = ["account:write"])),
    responses(
        (status = 204, description = "Revoked"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such app of yours", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/v1/players/me/apps/{id}")]
pub async fn revoke_app(
    worp: web::Data<Worp>,
    caller: Caller<AccountWrite>,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    worp.revoke_app(&caller.0, id.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}
