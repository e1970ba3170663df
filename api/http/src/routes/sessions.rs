//! Web sessions: signing in (with a password or a recovery code; passkeys are in
//! `passkeys.rs`), the session of a request, signing out, and a player's sessions.

use actix_web::cookie::{time, Cookie, SameSite};
use actix_web::{delete, get, post, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::auth::scope::{AccountRead, AccountWrite};
use crate::auth::{refuse_cross_site, Caller, Session, SESSION_COOKIE};
use crate::problem::{ApiError, Problem};
use worp_domain::access::CredentialKind;
use worp_service::accounts::passwords::Proof;
use worp_service::accounts::tokens::{csrf_token, NewSession};
use worp_service::accounts::CredentialView;
use worp_service::Worp;

/// The caller's web sessions: device, created, last used.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = ["account:read"])),
    responses(
        (status = 200, description = "The sessions, oldest first", body = Vec<CredentialView>),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/players/me/sessions")]
pub async fn list_sessions(
    worp: web::Data<Worp>,
    caller: Caller<AccountRead>,
) -> Result<HttpResponse, ApiError> {
    let list = worp
        .credentials(&caller.0, CredentialKind::Session, &caller.1)
        .await?;
    Ok(HttpResponse::Ok().json(list))
}

/// Signs one of the caller's sessions out, at once.
#[utoipa::path(
    tag = "accounts",
    params(("id" = Uuid, Path, description = "The session")),
    security(("bearer" = ["account:write"])),
    responses(
        (status = 204, description = "Signed out"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such session of yours", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/v1/players/me/sessions/{id}")]
pub async fn end_session(
    worp: web::Data<Worp>,
    caller: Caller<AccountWrite>,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    worp.revoke_credential(&caller.0, CredentialKind::Session, id.into_inner())
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// How many sessions were signed out.
#[derive(Debug, Serialize, ToSchema)]
pub struct SignedOut {
    pub signed_out: u64,
}

/// Signs every session of the caller out, the one this request came with too.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = ["account:write"])),
    responses(
        (status = 200, description = "Signed out", body = SignedOut),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/v1/players/me/sessions")]
pub async fn end_all_sessions(
    worp: web::Data<Worp>,
    caller: Caller<AccountWrite>,
) -> Result<HttpResponse, ApiError> {
    let n = worp
        .revoke_credentials(&caller.0, CredentialKind::Session, None)
        .await?;
    let mut resp = HttpResponse::Ok();
    if caller.1.kind == CredentialKind::Session {
        resp.cookie(removal_cookie());
    }
    Ok(resp.json(SignedOut { signed_out: n }))
}

/// `POST /v1/sessions`: a name (or player id) with a password or a recovery code.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "alice", "password": "gloomy otter paints the quay", "device": "Firefox on Linux"}))]
pub struct SignIn {
    pub name: String,
    pub password: Option<String>,
    /// One of the recovery codes, in place of the password; it is used up.
    pub recovery_code: Option<String>,
    /// What to call this session in the list of sessions (default: from the browser).
    pub device: Option<String>,
}

/// The web session of the request.
#[derive(Debug, Serialize, ToSchema)]
pub struct SessionView {
    pub player_id: Uuid,
    pub player_name: String,
    pub session: CredentialView,
    /// Send in `X-CSRF-Token` with every request that changes anything.
    pub csrf_token: String,
}

/// How long the browser keeps the session cookie, in days: as long as any browser keeps
/// one, so that the session's sliding expiry (on the server) is what ends it.
const COOKIE_DAYS: i64 = 400;

/// The cookie carrying a session's secret.
pub(super) fn session_cookie(secret: String) -> Cookie<'static> {
    Cookie::build(SESSION_COOKIE, secret)
        .path("/")
        .secure(true)
        .http_only(true)
        .same_site(SameSite::Lax)
        // The server ends a session unused for SESSION_IDLE, however often it is used
        // before: the cookie itself outlives it (400 days, the most browsers keep one).
        .max_age(time::Duration::days(COOKIE_DAYS))
        .finish()
}

/// The cookie that removes the session's.
pub(super) fn removal_cookie() -> Cookie<'static> {
    let mut c = session_cookie(String::new());
    c.make_removal();
    c
}

/// A device name from the `User-Agent`: browser and system, as a person would say it.
pub(super) fn device_of(req: &HttpRequest) -> String {
    let ua = req
        .headers()
        .get("user-agent")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let browser = [
        ("Edg/", "Edge"),
        ("OPR/", "Opera"),
        ("Firefox/", "Firefox"),
        ("Chrome/", "Chrome"),
        ("Safari/", "Safari"),
    ]
    .iter()
    .find(|(k, _)| ua.contains(k))
    .map(|(_, n)| *n);
    let system = [
        ("Android", "Android"),
        ("iPhone", "iPhone"),
        ("iPad", "iPad"),
        ("Windows", "Windows"),
        ("Mac OS", "macOS"),
        ("CrOS", "ChromeOS"),
        ("Linux", "Linux"),
    ]
    .iter()
    .find(|(k, _)| ua.contains(k))
    .map(|(_, n)| *n);
    match (browser, system) {
        (Some(b), Some(s)) => format!("{b} on {s}"),
        (Some(b), None) => b.to_owned(),
        (None, Some(s)) => s.to_owned(),
        (None, None) => "Unknown device".to_owned(),
    }
}

pub(super) fn session_view(s: &NewSession) -> SessionView {
    SessionView {
        player_id: s.player.id,
        player_name: s.player.name.clone(),
        session: CredentialView::of(&s.credential, Some(s.credential.id)),
        csrf_token: s.csrf_token.clone(),
    }
}

/// Signs in with a password or a recovery code: the session's cookie is set, and the
/// CSRF token to send with it is in the answer. Failures are counted per account and
/// per address; past a few, each try must wait longer (429 with `Retry-After`).
#[utoipa::path(
    tag = "accounts",
    request_body = SignIn,
    responses(
        (status = 201, description = "Signed in; the cookie is set", body = SessionView,
         headers(("Set-Cookie" = String, description = "The session, HttpOnly, Secure, SameSite=Lax"))),
        (status = 400, description = "Malformed body, or neither or both of password and recovery_code", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Wrong name, password or recovery code (the same answer for each)", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Sent from another site's page", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many failures: wait Retry-After seconds", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/sessions")]
pub async fn sign_in(
    worp: web::Data<Worp>,
    req: HttpRequest,
    body: web::Json<SignIn>,
) -> Result<HttpResponse, ApiError> {
    refuse_cross_site(&req)?;
    let body = body.into_inner();
    let proof = match (body.password, body.recovery_code) {
        (Some(p), None) => Proof::Password(p),
        (None, Some(c)) => Proof::RecoveryCode(c),
        _ => {
            return Err(ApiError::BadRequest(
                "send either password or recovery_code".into(),
            ))
        }
    };
    let device = body.device.unwrap_or_else(|| device_of(&req));
    let address = req.peer_addr().map(|a| a.ip());
    let session = worp.sign_in(&body.name, proof, address, &device).await?;
    Ok(HttpResponse::Created()
        .insert_header(("cache-control", "no-store"))
        .cookie(session_cookie(session.secret.clone()))
        .json(session_view(&session)))
}

/// The web session the request's cookie belongs to, with its CSRF token: what the web
/// client asks when a page opens.
#[utoipa::path(
    tag = "accounts",
    responses(
        (status = 200, description = "The session", body = SessionView),
        (status = 401, description = "No session, or one that ended", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/session")]
pub async fn current_session(
    worp: web::Data<Worp>,
    session: Session,
) -> Result<HttpResponse, ApiError> {
    let list = worp
        .credentials(&session.player, CredentialKind::Session, &session.grant)
        .await?;
    let view = list
        .into_iter()
        .find(|c| c.current)
        .ok_or_else(|| ApiError::Unauthorized("the session ended".into()))?;
    Ok(HttpResponse::Ok()
        .insert_header(("cache-control", "no-store"))
        .json(SessionView {
            player_id: session.player.id,
            player_name: session.player.name.clone(),
            session: view,
            csrf_token: csrf_token(&session.secret),
        }))
}

/// Signs this session out and removes its cookie.
#[utoipa::path(
    tag = "accounts",
    responses(
        (status = 204, description = "Signed out"),
        (status = 401, description = "No session", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "No CSRF token, or from another site", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/v1/session")]
pub async fn sign_out(worp: web::Data<Worp>, session: Session) -> Result<HttpResponse, ApiError> {
    if let Some(id) = session.grant.credential {
        match worp
            .revoke_credential(&session.player, CredentialKind::Session, id)
            .await
        {
            // Already gone (signed out elsewhere meanwhile) is as good as signed out.
            Ok(()) | Err(worp_service::Refusal::NotFound(_)) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(HttpResponse::NoContent().cookie(removal_cookie()).finish())
}
