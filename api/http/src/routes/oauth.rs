//! OAuth 2.0 for third-party front-ends: the authorisation page, the consent the web
//! client posts, the token and revocation endpoints, and the server's metadata. The
//! token and revocation endpoints answer in OAuth's own terms (RFC 6749 §5.2: `error`,
//! `error_description`), which every OAuth client parses; everything else answers
//! problem documents.

use actix_web::http::header;
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;

use crate::auth::Session;
use crate::body::Body;
use crate::problem::{ApiError, Problem};
use worp_domain::access::Scopes;
use worp_service::accounts::oauth::{
    check_authorization, AuthorizeParams, ConsentView, Issuer, OauthError, OauthFailure,
    TokenResponse,
};
use worp_service::Worp;

/// An OAuth error answer (RFC 6749 §5.2).
fn oauth_error(e: &OauthError) -> HttpResponse {
    let mut resp = if e.error == "invalid_client" {
        HttpResponse::Unauthorized()
    } else {
        HttpResponse::BadRequest()
    };
    resp.insert_header((header::CACHE_CONTROL, "no-store"))
        .json(json!({"error": e.error, "error_description": e.description}))
}

fn failure(f: OauthFailure) -> Result<HttpResponse, ApiError> {
    match f {
        OauthFailure::Protocol(e) => Ok(oauth_error(&e)),
        OauthFailure::Refusal(r) => Err(r.into()),
    }
}

/// The form of a token or revocation request: every parameter at most once; one sent
/// empty counts as absent (RFC 6749 §3.1, §3.2).
fn form(req: &HttpRequest, body: &[u8]) -> Result<Vec<(String, String)>, OauthError> {
    let ct = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !ct.split(';').next().is_some_and(|t| {
        t.trim()
            .eq_ignore_ascii_case("application/x-www-form-urlencoded")
    }) {
        return Err(OauthError {
            error: "invalid_request",
            description: "send the parameters as application/x-www-form-urlencoded".into(),
        });
    }
    let mut pairs: Vec<(String, String)> = Vec::new();
    for (k, v) in form_urlencoded::parse(body) {
        if v.is_empty() {
            continue;
        }
        if pairs.iter().any(|(name, _)| *name == k) {
            return Err(OauthError {
                error: "invalid_request",
                description: format!("{k} is sent more than once"),
            });
        }
        pairs.push((k.into_owned(), v.into_owned()));
    }
    Ok(pairs)
}

fn param<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

fn required<'a>(pairs: &'a [(String, String)], name: &str) -> Result<&'a str, OauthError> {
    param(pairs, name).ok_or_else(|| OauthError {
        error: "invalid_request",
        description: format!("{name} is required"),
    })
}

/// `GET /oauth/authorize`: the page where a player consents. A bad request is refused
/// here and never redirected: clients do not register, so the redirect URI is whatever
/// the link says, and following it at once would bounce browsers anywhere through this
/// server (`check_authorization`). A good one opens the consent screen of the web client
/// (which asks the player to sign in first if needed).
pub async fn authorize_page(req: HttpRequest, q: web::Query<AuthorizeParams>) -> HttpResponse {
    match check_authorization(&q) {
        Err(e) => HttpResponse::BadRequest()
            .content_type("text/plain; charset=utf-8")
            .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .body(format!(
                "This authorisation request cannot be answered: {e}. Tell the app that sent you here."
            )),
        Ok(_) => {
            // The consent screen is never shown inside another site's frame, where its
            // button could be clicked through a disguise.
            let mut page = super::web_client::page_for(&req);
            let headers = page.headers_mut();
            headers.insert(
                header::X_FRAME_OPTIONS,
                header::HeaderValue::from_static("DENY"),
            );
            headers.insert(
                header::CONTENT_SECURITY_POLICY,
                header::HeaderValue::from_static("frame-ancestors 'none'"),
            );
            page
        }
    }
}

/// What the consent screen shows for an authorisation request, checked as
/// `/oauth/authorize` checks it.
#[utoipa::path(
    tag = "oauth",
    params(AuthorizeParams),
    responses(
        (status = 200, description = "The client, its redirect's origin and the scopes asked", body = ConsentView),
        (status = 400, description = "A request that cannot be answered", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/oauth/authorize")]
pub async fn consent(q: web::Query<AuthorizeParams>) -> Result<HttpResponse, ApiError> {
    let auth = check_authorization(&q).map_err(|e| ApiError::BadRequest(e.to_string()))?;
    let view = auth
        .consent()
        .map_err(|e| ApiError::BadRequest(e.to_string()))?;
    Ok(HttpResponse::Ok().json(view))
}

/// `POST /v1/oauth/authorize`: the player's answer on the consent screen.
#[derive(Debug, Deserialize, ToSchema)]
pub struct ConsentAnswer {
    #[serde(flatten)]
    pub request: AuthorizeParams,
    /// Whether the player authorises the app.
    pub approve: bool,
}

/// Where the player's browser goes next.
#[derive(Debug, Serialize, ToSchema)]
pub struct Redirect {
    /// The client's redirect URI with `code` and `state`, or with `error`.
    pub redirect_uri: String,
}

/// The signed-in player authorises (or not) an app. Only a web session may answer, with
/// its CSRF token: a token cannot consent for its player.
#[utoipa::path(
    tag = "oauth",
    request_body = ConsentAnswer,
    responses(
        (status = 200, description = "Where to send the browser", body = Redirect),
        (status = 400, description = "A request that cannot be answered", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Not signed in", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "No CSRF token, or from another site", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/oauth/authorize")]
pub async fn answer_consent(
    worp: web::Data<Worp>,
    session: Session,
    body: Body<ConsentAnswer>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner()?;
    let auth =
        check_authorization(&body.request).map_err(|e| ApiError::BadRequest(e.to_string()))?;
    let redirect_uri = worp.authorize(&session.player, &auth, body.approve).await?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(Redirect { redirect_uri }))
}

/// Exchanges an authorisation code (with its PKCE verifier) or a refresh token for
/// tokens (RFC 6749 §4.1.3, §6). Form-encoded; errors are OAuth's (`error`,
/// `error_description`).
pub async fn token(
    worp: web::Data<Worp>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let result: Result<TokenResponse, OauthFailure> = async {
        let pairs = form(&req, &body)?;
        match required(&pairs, "grant_type")? {
            "authorization_code" => {
                worp.exchange_code(
                    required(&pairs, "code")?,
                    required(&pairs, "client_id")?,
                    required(&pairs, "redirect_uri")?,
                    required(&pairs, "code_verifier")?,
                )
                .await
            }
            "refresh_token" => {
                worp.refresh(
                    required(&pairs, "refresh_token")?,
                    required(&pairs, "client_id")?,
                    param(&pairs, "scope"),
                )
                .await
            }
            other => Err(OauthError {
                error: "unsupported_grant_type",
                description: format!(
                    "grant_type {other:?}: this server grants authorization_code and refresh_token"
                ),
            }
            .into()),
        }
    }
    .await;
    match result {
        Ok(tokens) => Ok(HttpResponse::Ok()
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .insert_header((header::PRAGMA, "no-cache"))
            .json(tokens)),
        Err(f) => failure(f),
    }
}

/// Revokes a token (RFC 7009): an OAuth token with its whole grant, or a personal
/// access token or session. Answers 200 whether or not the token was known.
pub async fn revoke(
    worp: web::Data<Worp>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let result: Result<(), OauthFailure> = async {
        let pairs = form(&req, &body)?;
        let token = required(&pairs, "token")?;
        Ok(worp.revoke_token(token, param(&pairs, "client_id")).await?)
    }
    .await;
    match result {
        Ok(()) => Ok(HttpResponse::Ok().finish()),
        Err(f) => failure(f),
    }
}

/// The authorisation server's metadata (RFC 8414), on the configured public URL
/// (`WORP_PUBLIC_URL`): the same for every request, whatever its `Host` or forwarded
/// headers say.
pub async fn metadata(issuer: web::Data<Issuer>) -> HttpResponse {
    HttpResponse::Ok().json(json!({
        "issuer": issuer.as_str(),
        "authorization_endpoint": issuer.url("/oauth/authorize"),
        "token_endpoint": issuer.url("/oauth/token"),
        "revocation_endpoint": issuer.url("/oauth/revoke"),
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
        "revocation_endpoint_auth_methods_supported": ["none"],
        "scopes_supported": Scopes::ALL.names(),
        "service_documentation": issuer.url("/docs/"),
    }))
}

/// Registers the routes outside `/v1` (the `/v1` ones are registered with the API's).
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/oauth/authorize", web::get().to(authorize_page))
        .route("/oauth/token", web::post().to(token))
        .route("/oauth/revoke", web::post().to(revoke))
        .route(
            "/.well-known/oauth-authorization-server",
            web::get().to(metadata),
        );
}
