//! Bearer-token authentication: `Authorization: Bearer <token>`.

use std::future::Future;
use std::pin::Pin;

use actix_web::http::header::{self, HeaderMap};
use actix_web::{dev::Payload, web, FromRequest, HttpRequest};

use crate::problem::ApiError;
use worp_domain::records::Player;
use worp_service::Worp;

/// The token of `Authorization: Bearer <token>`, however the header spells it: the scheme
/// in any case, whitespace around the scheme and the token trimmed. `None` without one. The
/// rate limiter keys its buckets on this too, so a respelt header is the same token.
pub fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// The player who sent the request.
#[derive(Debug, Clone)]
pub struct Caller(pub Player);

impl FromRequest for Caller {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Caller, ApiError>>>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let worp = req.app_data::<web::Data<Worp>>().cloned();
        let token = bearer_token(req.headers()).map(str::to_owned);
        Box::pin(async move {
            let worp = worp.ok_or_else(|| ApiError::Internal("no application state".into()))?;
            let token = token.ok_or_else(|| {
                ApiError::Unauthorized("send Authorization: Bearer <token>".into())
            })?;
            Ok(Caller(worp.authenticate(&token).await?))
        })
    }
}

/// The caller, when the request carries a token (listings work without one).
#[derive(Debug, Clone)]
pub struct MaybeCaller(pub Option<Player>);

impl FromRequest for MaybeCaller {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<MaybeCaller, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        if req.headers().contains_key(header::AUTHORIZATION) {
            let fut = Caller::from_request(req, payload);
            Box::pin(async move { Ok(MaybeCaller(Some(fut.await?.0))) })
        } else {
            Box::pin(async { Ok(MaybeCaller(None)) })
        }
    }
}
