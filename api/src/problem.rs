//! Errors as RFC 9457 `application/problem+json`.

use actix_web::http::{header, StatusCode};
use actix_web::{HttpResponse, ResponseError};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use worp_engine::EngineError;

use crate::store::StoreError;

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
}

/// Everything a request can fail with.
#[derive(Debug, thiserror::Error)]
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
    #[error("{0}")]
    Unavailable(String),
    #[error("{0}")]
    Internal(String),
}

impl ApiError {
    fn kind_and_title(&self) -> (&'static str, &'static str) {
        match self {
            ApiError::BadRequest(_) => ("bad-request", "Bad request"),
            ApiError::Unauthorized(_) => ("unauthorized", "Missing or unknown token"),
            ApiError::Forbidden(_) => ("forbidden", "Not your seat"),
            ApiError::NotFound(_) => ("not-found", "Not found"),
            ApiError::Conflict(_) => ("conflict", "Conflict"),
            ApiError::PreconditionFailed(_) => ("stale-version", "Stale version"),
            ApiError::PayloadTooLarge(_) => ("payload-too-large", "Request body too large"),
            ApiError::Unprocessable(_) => ("illegal-move", "Illegal move"),
            ApiError::Unavailable(_) => ("unavailable", "Service unavailable"),
            ApiError::Internal(_) => ("internal", "Internal error"),
        }
    }

    /// The problem document of this error.
    pub fn problem(&self) -> Problem {
        let (kind, title) = self.kind_and_title();
        Problem {
            kind: format!("/problems/{kind}"),
            title: title.to_owned(),
            status: self.status_code().as_u16(),
            detail: self.to_string(),
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::PreconditionFailed(_) => StatusCode::PRECONDITION_FAILED,
            ApiError::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::Unprocessable(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let mut resp = HttpResponse::build(self.status_code());
        resp.content_type("application/problem+json");
        if matches!(self, ApiError::Unauthorized(_)) {
            resp.insert_header((header::WWW_AUTHENTICATE, "Bearer"));
        }
        if matches!(self, ApiError::Unavailable(_)) {
            resp.insert_header((header::RETRY_AFTER, "1"));
        }
        resp.json(self.problem())
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Conflict => ApiError::Conflict(
                "another change to this game was recorded first; fetch the game and try again"
                    .into(),
            ),
            StoreError::Database(ref db) if database_unavailable(db) => {
                tracing::warn!("database unavailable: {e}");
                ApiError::Unavailable("the database is unavailable; try again shortly".into())
            }
            other => {
                tracing::error!("store error: {other}");
                ApiError::Internal("the server could not complete the request".into())
            }
        }
    }
}

/// Whether a database error means "the database is not there now" (503, try again),
/// rather than a fault of the request or the server (500).
pub fn database_unavailable(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(db) => db.code().is_some_and(|code| {
            // Class 08: connection exception; 57P01-57P03: the server shuts down, was
            // shut down or cannot take connections yet; 53300: too many connections;
            // 55000: the database does not accept connections now.
            code.starts_with("08")
                || matches!(&*code, "57P01" | "57P02" | "57P03" | "53300" | "55000")
        }),
        // A connection the server closed mid-conversation.
        sqlx::Error::Protocol(msg) => msg.contains("EOF") || msg.contains("closed"),
        _ => false,
    }
}

impl From<EngineError> for ApiError {
    fn from(e: EngineError) -> Self {
        match e {
            EngineError::InvalidOptions { .. }
            | EngineError::SeatCount { .. }
            | EngineError::UnknownVariant { .. } => ApiError::BadRequest(e.to_string()),
            EngineError::IllegalMove { .. } | EngineError::MalformedMove { .. } => {
                ApiError::Unprocessable(e.to_string())
            }
            EngineError::NotAwaitingMove | EngineError::NotAwaitingDice | EngineError::Finished => {
                ApiError::Conflict(e.to_string())
            }
            EngineError::NoSuchSeat { .. } => ApiError::BadRequest(e.to_string()),
            EngineError::DiceCount { .. } | EngineError::ImpossibleDieValue { .. } => {
                ApiError::Internal(e.to_string())
            }
        }
    }
}
