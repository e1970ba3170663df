//! Why the service did not do what it was asked: the domain's refusals. Only
//! `problem.rs`, at the HTTP edge, turns them into statuses and problem documents.

use worp_engine::{CapabilityError, EngineError};

use worp_domain::table::ReplayError;
use worp_store::StoreError;

/// A request the service refused, or could not carry out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The request itself is malformed or out of range (a name, a seed, options, seats).
    #[error("{0}")]
    Invalid(String),
    /// No player has that token.
    #[error("{0}")]
    UnknownToken(String),
    /// The caller may not act here (no seat in the game, someone else's seat).
    #[error("{0}")]
    NotYours(String),
    /// No such game, seat, event or webhook.
    #[error("{0}")]
    NotFound(String),
    /// The game is not in a state that allows it (not your turn, the seat is taken, the
    /// game is over, another change was recorded first).
    #[error("{0}")]
    Conflict(String),
    /// The caller named a version the game has moved past.
    #[error("{0}")]
    Stale(String),
    /// The rules refuse the move.
    #[error("{0}")]
    IllegalMove(String),
    /// More than the caller's allowance (days of vacation left this year).
    #[error("{0}")]
    OutOfAllowance(String),
    /// The caller has reached a limit (open games per player); try again later.
    #[error("{0}")]
    TooMany(String),
    /// Too many failed attempts (sign-ins): try again after `retry_after` seconds.
    #[error("{message}")]
    SlowDown { message: String, retry_after: u64 },
    /// The credential is known but does not grant what the request needs.
    #[error("this credential does not grant the scope {0}, which this operation needs")]
    InsufficientScope(worp_domain::access::Scope),
    /// The database is not there now; try again shortly.
    #[error("{0}")]
    Unavailable(String),
    /// A fault of the server (a stored game that does not replay, no randomness).
    #[error("{0}")]
    Internal(String),
}

impl From<StoreError> for Refusal {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Conflict => Refusal::Conflict(
                "another change to this game was recorded first; fetch the game and try again"
                    .into(),
            ),
            StoreError::NameTaken => Refusal::Conflict(
                "another player's name looks the same as this one; choose another".into(),
            ),
            StoreError::Overloaded => {
                worp_telemetry::metrics::db_unavailable();
                tracing::warn!("overloaded: the write queue is full");
                Refusal::Unavailable("the server is overloaded; try again shortly".into())
            }
            e if e.is_unavailable() => {
                worp_telemetry::metrics::db_unavailable();
                tracing::warn!("database unavailable: {e}");
                Refusal::Unavailable("the database is unavailable; try again shortly".into())
            }
            other => {
                tracing::error!("store error: {other}");
                Refusal::Internal("the server could not complete the request".into())
            }
        }
    }
}

impl From<EngineError> for Refusal {
    fn from(e: EngineError) -> Self {
        match e {
            EngineError::InvalidOptions { .. }
            | EngineError::SeatCount { .. }
            | EngineError::UnknownVariant { .. }
            | EngineError::NoSuchSeat { .. } => Refusal::Invalid(e.to_string()),
            EngineError::IllegalMove { .. } | EngineError::MalformedMove { .. } => {
                Refusal::IllegalMove(e.to_string())
            }
            EngineError::NotAwaitingMove | EngineError::NotAwaitingDice | EngineError::Finished => {
                Refusal::Conflict(e.to_string())
            }
            EngineError::DiceCount { .. }
            | EngineError::ImpossibleDieValue { .. }
            | EngineError::UnreadableState { .. }
            | EngineError::Unserialisable { .. } => Refusal::Internal(e.to_string()),
        }
    }
}

impl From<CapabilityError> for Refusal {
    fn from(e: CapabilityError) -> Self {
        match e {
            CapabilityError::Unsupported { .. } => Refusal::Invalid(e.to_string()),
            CapabilityError::Engine(e) => Refusal::from(e),
        }
    }
}

impl Refusal {
    /// An event the server made whose payload does not serialise: nothing is stored.
    pub fn unwritable_event(e: serde_json::Error) -> Refusal {
        tracing::error!("an event the server made does not serialise: {e}");
        Refusal::Internal(format!("an event the server made does not serialise: {e}"))
    }

    /// `what`, something the server made (a view, a row, a notice), could not be
    /// written as JSON: logged, and refused as the server's fault.
    pub fn unwritable(what: &str, e: serde_json::Error) -> Refusal {
        tracing::error!("could not write {what} as JSON: {e}");
        Refusal::Internal(format!("could not write {what} as JSON: {e}"))
    }
}

impl From<ReplayError> for Refusal {
    /// A stored game that does not replay: the log or the engine is broken.
    fn from(e: ReplayError) -> Self {
        tracing::error!("a stored game does not replay: {e}");
        Refusal::Internal(format!("the stored game does not replay: {e}"))
    }
}
