//! JSON request bodies read before the route runs but judged after its credential: a
//! request whose credential is missing or lacks the route's scope is answered 401 or
//! 403 whatever its body, as the OpenAPI document says. (actix polls a route's
//! extractors together; with `web::Json`, a malformed body answered 400 before the
//! credential was looked up.)

use std::future::Future;
use std::pin::Pin;

use actix_web::{dev::Payload, web, FromRequest, HttpRequest};
use serde::de::DeserializeOwned;

use crate::problem::ApiError;

/// A JSON body, or why it could not be read (the error of `web::Json`, as its
/// configured error handler made it).
#[derive(Debug)]
pub struct Body<T>(Result<T, ApiError>);

impl<T> Body<T> {
    /// The body, or the problem with it.
    pub fn into_inner(self) -> Result<T, ApiError> {
        self.0
    }
}

impl<T: DeserializeOwned + 'static> FromRequest for Body<T> {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Body<T>, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let json = web::Json::<T>::from_request(req, payload);
        Box::pin(async move {
            Ok(Body(json.await.map(web::Json::into_inner).map_err(|e| {
                e.as_error::<ApiError>()
                    .cloned()
                    .unwrap_or_else(|| ApiError::BadRequest(e.to_string()))
            })))
        })
    }
}
