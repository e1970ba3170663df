//! The HTTP edge of every error: statuses and RFC 9457 `application/problem+json`. The
//! service's [`Refusal`]s become problems here and nowhere else.

use actix_web::http::{header, StatusCode};
use actix_web::{HttpResponse, ResponseError};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use worp_engine::EngineError;

use worp_service::Refusal;

/// An RFC 9457 problem document.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "type": "/problems/illegal-move",
    "title": "Illegal move",
    "status": 422,
    "detail": "illegal move: that move is not among the legal moves"
}))]
pub struct Problem {
    /// A URI reference naming the kind of problem.
    #[serde(rename = "type")]
    pub kind: String,
    /// A short summary of the kind of problem.
    pub title: String,
    /// The HTTP status code.
    pub status: u16,
    /// What went wrong this time.
    pub detail: String,
    /// The id of the request (as in its `X-Request-Id` answer header and log lines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
}

impl Problem {
    /// A problem of kind `/problems/{kind}`, naming the request being served.
    pub fn new(kind: &str, title: &str, status: u16, detail: String) -> Problem {
        Problem {
            kind: format!("/problems/{kind}"),
            title: title.to_owned(),
            status,
            detail,
            request_id: worp_telemetry::request_id::current(),
        }
    }
}

/// Everything a request can fail with: a refusal of the service, or a fault of the
/// request found at the edge (an unreadable body, a body too large, an unknown route).
#[derive(Debug, Clone, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    Unauthorized(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    PreconditionFailed(String),
    #[error("{0}")]
    PayloadTooLarge(String),
    #[error("{0}")]
    Unprocessable(String),
    /// More than the caller's allowance (days of vacation left this year).
    #[error("{0}")]
    OutOfAllowance(String),
    /// An `Idempotency-Key` sent again with another request than the one it answered.
    #[error("{0}")]
    KeyReused(String),
    /// A push subscription the server cannot use (its endpoint or keys).
    #[error("{0}")]
    InvalidSubscription(String),
    #[error("{0}")]
    Unavailable(String),
    #[error("{0}")]
    TooManyRequests(String),
    #[error("{0}")]
    Internal(String),
    /// The credential does not grant the scope the operation needs (RFC 6750 §3.1).
    #[error("this credential does not grant the scope {0}, which this operation needs")]
    InsufficientScope(worp_domain::access::Scope),
    /// A request made with a session cookie that does not prove it came from this site.
    #[error("{0}")]
    CrossSite(String),
    /// Too many failed attempts: try again after `.1` seconds.
    #[error("{0}")]
    SlowDown(String, u64),
}

impl ApiError {
    fn kind_and_title(&self) -> (&'static str, &'static str) {
        match self {
            ApiError::BadRequest(_) => ("bad-request", "Bad request"),
            ApiError::Unauthorized(_) => ("unauthorized", "Missing or unknown token"),
            ApiError::Forbidden(_) => ("forbidden", "Forbidden"),
            ApiError::NotFound(_) => ("not-found", "Not found"),
            ApiError::Conflict(_) => ("conflict", "Conflict"),
            ApiError::PreconditionFailed(_) => ("stale-version", "Stale version"),
            ApiError::PayloadTooLarge(_) => ("payload-too-large", "Request body too large"),
            ApiError::Unprocessable(_) => ("illegal-move", "Illegal move"),
            ApiError::OutOfAllowance(_) => ("out-of-allowance", "Not enough days left"),
            ApiError::KeyReused(_) => ("idempotency-key-reused", "Idempotency-Key reused"),
            ApiError::InvalidSubscription(_) => {
                ("invalid-push-subscription", "Unusable push subscription")
            }
            ApiError::Unavailable(_) => ("unavailable", "Service unavailable"),
            ApiError::TooManyRequests(_) => ("rate-limited", "Too many requests"),
            ApiError::Internal(_) => ("internal", "Internal error"),
            ApiError::InsufficientScope(_) => ("insufficient-scope", "Insufficient scope"),
            ApiError::CrossSite(_) => ("cross-site-request", "Cross-site request refused"),
            ApiError::SlowDown(..) => ("slow-down", "Too many failed attempts"),
        }
    }

    /// The problem document of this error.
    pub fn problem(&self) -> Problem {
        let (kind, title) = self.kind_and_title();
        Problem::new(kind, title, self.status_code().as_u16(), self.to_string())
    }

    /// `what`, part of an answer, could not be serialised: logged, and answered 500 (an
    /// answer is never sent with `null` or an empty body in its place).
    pub fn unserialisable(what: &str, e: serde_json::Error) -> ApiError {
        tracing::error!("could not serialise {what}: {e}");
        ApiError::Internal(format!("could not write {what}"))
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) | ApiError::InsufficientScope(_) | ApiError::CrossSite(_) => {
                StatusCode::FORBIDDEN
            }
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::PreconditionFailed(_) => StatusCode::PRECONDITION_FAILED,
            ApiError::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::Unprocessable(_)
            | ApiError::KeyReused(_)
            | ApiError::OutOfAllowance(_)
            | ApiError::InvalidSubscription(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::TooManyRequests(_) | ApiError::SlowDown(..) => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let mut resp = HttpResponse::build(self.status_code());
        resp.content_type("application/problem+json");
        if matches!(self, ApiError::Unauthorized(_)) {
            resp.insert_header((header::WWW_AUTHENTICATE, "Bearer"));
        }
        if let ApiError::InsufficientScope(scope) = self {
            resp.insert_header((
                header::WWW_AUTHENTICATE,
                format!("Bearer error=\"insufficient_scope\", scope=\"{scope}\""),
            ));
        }
        if let ApiError::SlowDown(_, secs) = self {
            resp.insert_header((header::RETRY_AFTER, secs.to_string()));
        }
        if matches!(self, ApiError::Unavailable(_)) {
            resp.insert_header((header::RETRY_AFTER, "1"));
        }
        if matches!(self, ApiError::TooManyRequests(_)) {
            // A limit on what the caller holds (open games), freed by no clock: a minute.
            resp.insert_header((header::RETRY_AFTER, "60"));
        }
        resp.json(self.problem())
    }
}

impl From<Refusal> for ApiError {
    fn from(r: Refusal) -> Self {
        match r {
            Refusal::Invalid(m) => ApiError::BadRequest(m),
            Refusal::UnknownToken(m) => ApiError::Unauthorized(m),
            Refusal::NotYours(m) => ApiError::Forbidden(m),
            Refusal::NotFound(m) => ApiError::NotFound(m),
            Refusal::Conflict(m) => ApiError::Conflict(m),
            Refusal::Stale(m) => ApiError::PreconditionFailed(m),
            Refusal::IllegalMove(m) => ApiError::Unprocessable(m),
            Refusal::Unavailable(m) => ApiError::Unavailable(m),
            Refusal::TooMany(m) => ApiError::TooManyRequests(m),
            Refusal::OutOfAllowance(m) => ApiError::OutOfAllowance(m),
            Refusal::Internal(m) => ApiError::Internal(m),
            Refusal::InsufficientScope(s) => ApiError::InsufficientScope(s),
            Refusal::SlowDown {
                message,
                retry_after,
            } => ApiError::SlowDown(message, retry_after),
        }
    }
}

impl From<EngineError> for ApiError {
    fn from(e: EngineError) -> Self {
        ApiError::from(Refusal::from(e))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use actix_web::body::MessageBody as _;

    use super::*;

    #[test]
    fn an_answer_that_does_not_serialise_is_a_500_problem() {
        // JSON object keys must be strings: a map keyed by pairs does not serialise.
        let unwritable = BTreeMap::from([((1u8, 2u8), "x")]);
        let err = serde_json::to_vec(&unwritable)
            .map_err(|e| ApiError::unserialisable("the test's answer", e))
            .expect_err("a map with non-string keys does not serialise");
        let resp = err.error_response();
        assert_eq!(resp.status(), StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(
            resp.headers()
                .get(header::CONTENT_TYPE)
                .map(|v| v.as_bytes()),
            Some(&b"application/problem+json"[..])
        );
        let body = resp.into_body().try_into_bytes().expect("a whole body");
        let problem: Problem = serde_json::from_slice(&body).expect("a problem");
        assert_eq!(problem.kind, "/problems/internal");
        assert_eq!(problem.detail, "could not write the test's answer");
    }
}
