//! Who sent a request, and whether their credential grants what the route needs.
//!
//! A credential is a bearer token (`Authorization: Bearer <token>`: a player's first
//! token, a personal access token or an OAuth access token) or, from the web client, the
//! session cookie [`SESSION_COOKIE`]. A request with a session cookie that changes
//! anything must carry the session's CSRF token in [`CSRF_HEADER`] and must not come
//! from another site (`Sec-Fetch-Site`); a bearer token needs neither, as no browser
//! sends one by itself.
//!
//! Each route names the scope it needs in its extractor's type: `Caller<GamePlay>` takes
//! only a credential granting `game:play` and answers 403 `insufficient_scope` to
//! others (RFC 6750 §3.1). The OpenAPI document states the same per operation, and a
//! test holds every operation to it.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;

use actix_web::http::header::{self, HeaderMap};
use actix_web::http::Method;
use actix_web::{dev::Payload, web, FromRequest, HttpRequest};

use crate::problem::ApiError;
use worp_domain::access::{CredentialKind, Grant, Scope};
use worp_domain::records::Player;
use worp_service::accounts::tokens::csrf_token;
use worp_service::Worp;

/// The web session's cookie. `__Host-`: only ever set `Secure`, for this host, on `/`.
pub const SESSION_COOKIE: &str = "__Host-worp_session";
/// The header carrying a session's CSRF token.
pub const CSRF_HEADER: &str = "x-csrf-token";

/// The token of `Authorization: Bearer <token>`, however the header spells it: the scheme
/// in any case, whitespace around the scheme and the token trimmed. `None` without one. The
/// rate limiter keys its buckets on this too, so a respelt header is the same token.
pub fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// The session cookie's value, if the request has one.
pub fn session_secret(req: &HttpRequest) -> Option<String> {
    req.cookie(SESSION_COOKIE)
        .map(|c| c.value().to_owned())
        .filter(|v| CredentialKind::of_secret(v) == CredentialKind::Session)
}

/// What a route needs of a credential.
pub trait Needs {
    /// The scope, or `None` where any credential of the player will do.
    const SCOPE: Option<Scope>;
}

/// The scopes as types, for [`Caller`]'s parameter.
pub mod scope {
    use super::{Needs, Scope};

    macro_rules! scopes {
        ($($name:ident),*) => {$(
            #[doc = concat!("Needs [`Scope::", stringify!($name), "`].")]
            #[derive(Debug, Clone, Copy)]
            pub struct $name;
            impl Needs for $name {
                const SCOPE: Option<Scope> = Some(Scope::$name);
            }
        )*};
    }
    scopes!(
        GameRead,
        GamePlay,
        ChatWrite,
        ChallengeWrite,
        WebhookWrite,
        AccountRead,
        AccountWrite
    );

    /// Any credential of the player, whatever it grants.
    #[derive(Debug, Clone, Copy)]
    pub struct Signed;
    impl Needs for Signed {
        const SCOPE: Option<Scope> = None;
    }
}

/// The player who sent the request, with what their credential grants, which includes
/// `S`'s scope.
#[derive(Debug, Clone)]
pub struct Caller<S: Needs = scope::Signed>(pub Player, pub Grant, PhantomData<S>);

impl<S: Needs> Caller<S> {
    /// Refuses a credential made for something narrower than the player: a personal
    /// access token or an app's. What gives a way in with every scope (a password,
    /// recovery codes, a passkey) or takes the account away is the player's own doing,
    /// with their first token or signed in.
    pub fn first_party(&self) -> Result<(), ApiError> {
        if matches!(
            self.1.kind,
            CredentialKind::Legacy | CredentialKind::Session
        ) {
            Ok(())
        } else {
            Err(ApiError::Forbidden(
                "only the player does this, signed in or with their first token; not with a personal access token or an app's"
                    .into(),
            ))
        }
    }
}

/// How a request presents its credential.
enum Presented {
    Bearer(String),
    /// The session cookie; `checked`: whether it passed the CSRF checks (or needed none).
    Session {
        secret: String,
        checked: Result<(), String>,
    },
    None,
}

/// Refuses a request the browser says comes from another site (`Sec-Fetch-Site:
/// cross-site`): signing in from another site's page is never the player's doing.
pub fn refuse_cross_site(req: &HttpRequest) -> Result<(), ApiError> {
    let site = req
        .headers()
        .get("sec-fetch-site")
        .and_then(|v| v.to_str().ok());
    if site.is_some_and(|s| s.eq_ignore_ascii_case("cross-site")) {
        return Err(ApiError::CrossSite(
            "signing in from another site's page is refused".into(),
        ));
    }
    Ok(())
}

/// Whether a cookie-carried request proves it came from this site: a safe method, or
/// the session's CSRF token in its header and no `Sec-Fetch-Site: cross-site`.
fn csrf_check(req: &HttpRequest, secret: &str) -> Result<(), String> {
    if matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS) {
        return Ok(());
    }
    let site = req
        .headers()
        .get("sec-fetch-site")
        .and_then(|v| v.to_str().ok());
    if site.is_some_and(|s| s.eq_ignore_ascii_case("cross-site")) {
        return Err("a request from another site may not use this site's session".into());
    }
    let sent = req
        .headers()
        .get(CSRF_HEADER)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let expected = csrf_token(secret);
    // Compared in constant time: the token is a secret of the session.
    let same = sent.len() == expected.len()
        && sent
            .bytes()
            .zip(expected.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0;
    if same {
        Ok(())
    } else {
        Err(format!(
            "a request with the session cookie that changes anything must send the session's CSRF token in {CSRF_HEADER}"
        ))
    }
}

fn presented(req: &HttpRequest) -> Presented {
    if req.headers().contains_key(header::AUTHORIZATION) {
        return match bearer_token(req.headers()) {
            Some(t) => Presented::Bearer(t.to_owned()),
            None => Presented::Bearer(String::new()),
        };
    }
    match session_secret(req) {
        Some(secret) => {
            let checked = csrf_check(req, &secret);
            Presented::Session { secret, checked }
        }
        None => Presented::None,
    }
}

/// The caller of `presented`, checked against `S`; `Ok(None)` when there is no
/// credential (or, if `stale_session_is_anonymous`, a session that no longer works).
async fn caller_of<S: Needs>(
    worp: Option<web::Data<Worp>>,
    presented: Presented,
    stale_session_is_anonymous: bool,
) -> Result<Option<Caller<S>>, ApiError> {
    let worp = worp.ok_or_else(|| ApiError::Internal("no application state".into()))?;
    let (player, grant) = match presented {
        Presented::None => return Ok(None),
        Presented::Bearer(token) if token.is_empty() => {
            return Err(ApiError::Unauthorized(
                "send Authorization: Bearer <token>".into(),
            ))
        }
        Presented::Bearer(token) => worp.authenticate(&token).await?,
        Presented::Session { secret, checked } => match worp.authenticate(&secret).await {
            Ok(found) => {
                checked.map_err(ApiError::CrossSite)?;
                found
            }
            Err(_) if stale_session_is_anonymous => return Ok(None),
            Err(e) => return Err(e.into()),
        },
    };
    if let Some(scope) = S::SCOPE {
        if !grant.scopes.allows(scope) {
            return Err(ApiError::InsufficientScope(scope));
        }
    }
    Ok(Some(Caller(player, grant, PhantomData)))
}

impl<S: Needs + 'static> FromRequest for Caller<S> {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Caller<S>, ApiError>>>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let worp = req.app_data::<web::Data<Worp>>().cloned();
        let presented = presented(req);
        Box::pin(async move {
            caller_of::<S>(worp, presented, false)
                .await?
                .ok_or_else(|| {
                    ApiError::Unauthorized("send Authorization: Bearer <token>, or sign in".into())
                })
        })
    }
}

/// The caller, when the request carries a credential (listings work without one). A
/// session cookie that no longer works is no credential here: the page is public.
#[derive(Debug, Clone)]
pub struct MaybeCaller<S: Needs = scope::Signed>(pub Option<Player>, PhantomData<S>);

impl<S: Needs + 'static> FromRequest for MaybeCaller<S> {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<MaybeCaller<S>, ApiError>>>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let presented = presented(req);
        if matches!(presented, Presented::None) {
            return Box::pin(async { Ok(MaybeCaller(None, PhantomData)) });
        }
        let worp = req.app_data::<web::Data<Worp>>().cloned();
        Box::pin(async move {
            let caller = caller_of::<S>(worp, presented, true).await?;
            Ok(MaybeCaller(caller.map(|c| c.0), PhantomData))
        })
    }
}

/// The web session the request came with (its cookie, checked against CSRF), for the
/// routes that act on the session itself: who it is, signing out.
#[derive(Debug, Clone)]
pub struct Session {
    pub player: Player,
    pub grant: Grant,
    pub secret: String,
}

impl FromRequest for Session {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Session, ApiError>>>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let worp = req.app_data::<web::Data<Worp>>().cloned();
        let secret = session_secret(req);
        let checked = secret.as_deref().map(|s| csrf_check(req, s));
        Box::pin(async move {
            let worp = worp.ok_or_else(|| ApiError::Internal("no application state".into()))?;
            let secret =
                secret.ok_or_else(|| ApiError::Unauthorized("no session: sign in first".into()))?;
            let (player, grant) = worp.authenticate(&secret).await?;
            if let Some(Err(e)) = checked {
                return Err(ApiError::CrossSite(e));
            }
            Ok(Session {
                player,
                grant,
                secret,
            })
        })
    }
}
