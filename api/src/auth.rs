//! Bearer-token authentication: `Authorization: Bearer <token>`.

use std::future::Future;
use std::pin::Pin;

use actix_web::{dev::Payload, http::header, web, FromRequest, HttpRequest};

use crate::problem::ApiError;
use crate::service::Worp;
use crate::store::Player;

/// The player who sent the request.
#[derive(Debug, Clone)]
pub struct Caller(pub Player);

impl FromRequest for Caller {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Caller, ApiError>>>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let worp = req.app_data::<web::Data<Worp>>().cloned();
        let token = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|h| h.to_str().ok())
            .and_then(|h| {
                let (scheme, token) = h.trim().split_once(' ')?;
                scheme
                    .eq_ignore_ascii_case("bearer")
                    .then(|| token.trim().to_owned())
            });
        Box::pin(async move {
            let worp = worp.ok_or_else(|| ApiError::Internal("no application state".into()))?;
            let token = token.filter(|t| !t.is_empty()).ok_or_else(|| {
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
