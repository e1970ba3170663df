//! Notifications: the caller's e-mail address (confirmed through a link), their
//! preferences per kind of notice and channel, muted games; and the two pages a mail
//! links to, which need no credential: confirming an address and unsubscribing from a
//! kind of mail (RFC 8058's one-click `POST`).

use actix_web::{delete, get, post, put, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::admission::client_key;
use crate::auth::scope::{AccountRead, AccountWrite};
use crate::auth::Caller;
use crate::body::Body;
use crate::problem::{ApiError, Problem};
use worp_service::notifications::{EmailView, Preferences};
use worp_service::Worp;

/// The caller's e-mail address.
#[utoipa::path(
    tag = "notifications",
    security(("bearer" = ["account:read"])),
    responses(
        (status = 200, description = "The address, whether it is confirmed, and whether it was disabled", body = EmailView),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No address given", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/players/me/email")]
pub async fn get_email(
    worp: web::Data<Worp>,
    caller: Caller<AccountRead>,
) -> Result<HttpResponse, ApiError> {
    match worp.email(caller.0.id).await? {
        Some(view) => Ok(HttpResponse::Ok().json(view)),
        None => Err(ApiError::NotFound(
            "you have given no e-mail address".into(),
        )),
    }
}

/// `PUT /v1/players/me/email`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SetEmail {
    #[schema(example = "ada@example.org")]
    pub address: String,
}

/// Gives the caller's e-mail address (in place of any other) and mails it a link to
/// confirm it, valid 24 hours; nothing else is sent to it before. The same address again
/// sends a new link. At most 5 such mails a day per player, 20 per network address and
/// 3 per target address.
#[utoipa::path(
    tag = "notifications",
    request_body = SetEmail,
    security(("bearer" = ["account:write"])),
    responses(
        (status = 202, description = "The address, unconfirmed; the confirmation mail is on its way", body = EmailView),
        (status = 400, description = "Not an e-mail address", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many confirmation mails today", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "This server sends no mail (no `WORP_SMTP_URL`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[put("/v1/players/me/email")]
pub async fn set_email(
    worp: web::Data<Worp>,
    caller: Caller<AccountWrite>,
    body: Body<SetEmail>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner()?;
    let client = req
        .peer_addr()
        .map(|a| client_key(a.ip()).to_string())
        .unwrap_or_default();
    let view = worp.set_email(caller.0.id, &body.address, &client).await?;
    Ok(HttpResponse::Accepted().json(view))
}

/// Removes the caller's e-mail address, and the mails waiting for it.
#[utoipa::path(
    tag = "notifications",
    security(("bearer" = ["account:write"])),
    responses(
        (status = 204, description = "Removed"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No address given", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/v1/players/me/email")]
pub async fn delete_email(
    worp: web::Data<Worp>,
    caller: Caller<AccountWrite>,
) -> Result<HttpResponse, ApiError> {
    if worp.delete_email(caller.0.id).await? {
        Ok(HttpResponse::NoContent().finish())
    } else {
        Err(ApiError::NotFound(
            "you have given no e-mail address".into(),
        ))
    }
}

/// The link of a confirmation mail.
#[derive(Debug, Deserialize, IntoParams)]
pub struct ConfirmLink {
    /// The secret of the confirmation mail's link.
    pub token: String,
}

/// The page a confirmation link opens: a button that confirms (a page, so that a mail
/// scanner that follows links confirms nothing).
#[utoipa::path(
    tag = "notifications",
    params(ConfirmLink),
    responses(
        (status = 200, description = "An HTML page with the button", content_type = "text/html"),
        (status = 400, description = "No token", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/email/confirm")]
pub async fn confirm_page(link: web::Query<ConfirmLink>) -> HttpResponse {
    let _ = &link.token;
    page(
        "Confirm your e-mail address",
        "<p>Press the button to confirm that this address is yours and may hear about your games on Worp.</p>\
         <form method=\"post\"><button type=\"submit\">Confirm</button></form>",
    )
}

/// Confirms the address whose confirmation link carries `token`: from then on it gets
/// the notices its player chose. An HTML page for a browser's form, JSON otherwise.
#[utoipa::path(
    tag = "notifications",
    params(ConfirmLink),
    responses(
        (status = 200, description = "Confirmed", body = EmailView),
        (status = 400, description = "No token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "An unknown, used or expired link", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/email/confirm")]
pub async fn confirm_email(
    worp: web::Data<Worp>,
    link: web::Query<ConfirmLink>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let view = worp.confirm_email(&link.token).await?;
    if wants_html(&req) {
        return Ok(page(
            "Address confirmed",
            &format!(
                "<p>{} is confirmed. <a href=\"/#/account\">Choose what you hear, and how.</a></p>",
                escape(&view.address)
            ),
        ));
    }
    Ok(HttpResponse::Ok().json(view))
}

/// An unsubscribe link of a mail.
#[derive(Debug, Deserialize, IntoParams)]
pub struct UnsubscribeLink {
    /// The address's unsubscribe secret.
    pub key: String,
    /// The kinds of notice to stop by e-mail, comma-separated (`your_turn`, `invited`,
    /// `game_finished`, `message`, `clock_reminder`), or `all`.
    pub kinds: String,
}

/// The kinds of notice no longer sent by e-mail.
#[derive(Debug, Serialize, ToSchema)]
pub struct Unsubscribed {
    pub unsubscribed: Vec<String>,
}

/// The page an unsubscribe link opens in a browser, with the button that unsubscribes.
#[utoipa::path(
    tag = "notifications",
    params(UnsubscribeLink),
    responses(
        (status = 200, description = "An HTML page with the button", content_type = "text/html"),
        (status = 400, description = "No key or kinds", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/email/unsubscribe")]
pub async fn unsubscribe_page(link: web::Query<UnsubscribeLink>) -> HttpResponse {
    page(
        "Unsubscribe",
        &format!(
            "<p>Stop e-mails about: {}.</p><form method=\"post\"><button type=\"submit\">Unsubscribe</button></form>",
            escape(&link.kinds.replace(',', ", ").replace('_', " "))
        ),
    )
}

/// Stops e-mail of the link's kinds: the one-click unsubscribe of RFC 8058 (a mail
/// client `POST`s `List-Unsubscribe=One-Click` here; the body is not needed).
#[utoipa::path(
    tag = "notifications",
    params(UnsubscribeLink),
    responses(
        (status = 200, description = "Unsubscribed", body = Unsubscribed),
        (status = 400, description = "No key, or a kind that does not exist", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "An unknown key (the address was removed or changed)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/email/unsubscribe")]
pub async fn unsubscribe(
    worp: web::Data<Worp>,
    link: web::Query<UnsubscribeLink>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let stopped = worp.unsubscribe(&link.key, &link.kinds).await?;
    if wants_html(&req) {
        return Ok(page(
            "Unsubscribed",
            "<p>Done: those mails stop. <a href=\"/#/account\">Choose what you hear, and how.</a></p>",
        ));
    }
    Ok(HttpResponse::Ok().json(Unsubscribed {
        unsubscribed: stopped,
    }))
}

/// The caller's notification preferences (the defaults until they set theirs).
#[utoipa::path(
    tag = "notifications",
    security(("bearer" = ["account:read"])),
    responses(
        (status = 200, description = "The preferences", body = Preferences),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/players/me/notifications")]
pub async fn get_preferences(
    worp: web::Data<Worp>,
    caller: Caller<AccountRead>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(worp.preferences(caller.0.id).await?))
}

/// Replaces the caller's notification preferences.
#[utoipa::path(
    tag = "notifications",
    request_body = Preferences,
    security(("bearer" = ["account:write"])),
    responses(
        (status = 200, description = "The preferences", body = Preferences),
        (status = 400, description = "An unknown time zone, a time not HH:MM, an hour past 23", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
    )
)]
#[put("/v1/players/me/notifications")]
pub async fn set_preferences(
    worp: web::Data<Worp>,
    caller: Caller<AccountWrite>,
    body: Body<Preferences>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner()?;
    Ok(HttpResponse::Ok().json(worp.set_preferences(caller.0.id, &body).await?))
}

/// The games the caller muted.
#[utoipa::path(
    tag = "notifications",
    security(("bearer" = ["account:read"])),
    responses(
        (status = 200, description = "The games' ids", body = Vec<Uuid>),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/players/me/muted-games")]
pub async fn muted_games(
    worp: web::Data<Worp>,
    caller: Caller<AccountRead>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(worp.muted_games(caller.0.id).await?))
}

/// Mutes one of the caller's games: no mail or push about it.
#[utoipa::path(
    tag = "notifications",
    params(("id" = Uuid, Path, description = "The game")),
    security(("bearer" = ["account:write"])),
    responses(
        (status = 204, description = "Muted"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not a game of the caller's", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
    )
)]
#[put("/v1/players/me/muted-games/{id}")]
pub async fn mute_game(
    worp: web::Data<Worp>,
    caller: Caller<AccountWrite>,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    worp.mute_game(caller.0.id, id.into_inner(), true).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Unmutes a game.
#[utoipa::path(
    tag = "notifications",
    params(("id" = Uuid, Path, description = "The game")),
    security(("bearer" = ["account:write"])),
    responses(
        (status = 204, description = "Not muted (whether it was or not)"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "Not a game's id", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/v1/players/me/muted-games/{id}")]
pub async fn unmute_game(
    worp: web::Data<Worp>,
    caller: Caller<AccountWrite>,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    worp.mute_game(caller.0.id, id.into_inner(), false).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Whether the request came from a browser's form (it accepts HTML).
fn wants_html(req: &HttpRequest) -> bool {
    req.headers()
        .get(actix_web::http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/html"))
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A small page of the server's own, that no one can frame.
fn page(title: &str, body: &str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header(("cache-control", "no-store"))
        .insert_header(("x-frame-options", "DENY"))
        .insert_header((
            "content-security-policy",
            "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
        ))
        .insert_header(("referrer-policy", "no-referrer"))
        .body(format!(
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
             <title>{title} · Worp</title></head><body style=\"font-family: sans-serif; max-width: 36rem; margin: 2rem auto; padding: 0 1rem\">\
             <h1>{title}</h1>{body}</body></html>"
        ))
}

/// `POST /v1/password-reset`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ForgotPassword {
    /// The account's name (or id).
    pub name: String,
}

/// Mails a link to choose a new password, valid an hour, to the account's confirmed
/// address (at most three a day). The answer is the same whether or not the account
/// exists or has an address.
#[utoipa::path(
    tag = "notifications",
    request_body = ForgotPassword,
    responses(
        (status = 202, description = "If the account has a confirmed address, a link is on its way"),
        (status = 400, description = "No name", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/password-reset")]
pub async fn forgot_password(
    worp: web::Data<Worp>,
    body: web::Json<ForgotPassword>,
) -> Result<HttpResponse, ApiError> {
    worp.request_password_reset(&body.name).await?;
    Ok(HttpResponse::Accepted().finish())
}

/// The page a reset link opens: a form for the new password.
#[utoipa::path(
    tag = "notifications",
    params(ConfirmLink),
    responses(
        (status = 200, description = "An HTML page with the form", content_type = "text/html"),
        (status = 400, description = "No token", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/password-reset")]
pub async fn reset_page(link: web::Query<ConfirmLink>) -> HttpResponse {
    page(
        "Choose a new password",
        &format!(
            "<form method=\"post\" action=\"/v1/password-reset/complete\">\
             <input type=\"hidden\" name=\"token\" value=\"{}\">\
             <p><label for=\"password\">New password (at least 8 characters, not easy to guess)</label><br>\
             <input id=\"password\" name=\"password\" type=\"password\" autocomplete=\"new-password\" minlength=\"8\" required></p>\
             <button type=\"submit\">Set the password</button></form>",
            escape(&link.token)
        ),
    )
}

/// `POST /v1/password-reset/complete`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ResetPassword {
    /// The secret of the reset link.
    pub token: String,
    pub password: String,
}

/// Sets a new password with a reset link's secret (JSON, or the reset page's form), and
/// signs every session of the account out.
#[utoipa::path(
    tag = "notifications",
    request_body = ResetPassword,
    responses(
        (status = 204, description = "The password is set"),
        (status = 400, description = "A password too short or too easy to guess", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "An unknown, used or expired link", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/password-reset/complete")]
pub async fn reset_password(
    worp: web::Data<Worp>,
    body: web::Either<web::Json<ResetPassword>, web::Form<ResetPassword>>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let body = match body {
        web::Either::Left(json) => json.into_inner(),
        web::Either::Right(form) => form.into_inner(),
    };
    let done = worp
        .complete_password_reset(&body.token, &body.password)
        .await;
    if wants_html(&req) {
        return Ok(match done {
            Ok(()) => page(
                "Password set",
                "<p>Your new password is set. <a href=\"/#/account\">Sign in.</a></p>",
            ),
            Err(e) => {
                let e = ApiError::from(e);
                let mut resp = page(
                    "The password was not set",
                    &format!("<p role=\"alert\">{}</p>", escape(&e.to_string())),
                );
                *resp.status_mut() = actix_web::ResponseError::status_code(&e);
                resp
            }
        });
    }
    done?;
    Ok(HttpResponse::NoContent().finish())
}
