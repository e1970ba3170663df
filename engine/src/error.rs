//! The engine's typed errors. A rejected input never changes the game.

use serde::Serialize;

/// Why the engine refused an input, or could not write a value as JSON. The game is
/// unchanged after any of these.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EngineError {
    /// The options do not describe a playable game.
    #[error("invalid options: {reason}")]
    InvalidOptions { reason: String },
    /// The number of seats is outside what the game allows.
    #[error("this game is played by {min} to {max} seats, not {got}")]
    SeatCount { min: u8, max: u8, got: usize },
    /// No game of that name is registered.
    #[error("unknown variant {name:?}")]
    UnknownVariant { name: String },
    /// Dice were given while the game awaits something else.
    #[error("the game does not await dice now")]
    NotAwaitingDice,
    /// A move was given while the game awaits something else.
    #[error("the game does not await a move now")]
    NotAwaitingMove,
    /// The game is over; it takes no more input.
    #[error("the game is finished")]
    Finished,
    /// The wrong number of dice values.
    #[error("expected {expected} dice values, got {got}")]
    DiceCount { expected: u8, got: usize },
    /// A value the awaited die cannot show.
    #[error("the {die} die has no face {value}")]
    ImpossibleDieValue { die: &'static str, value: u8 },
    /// The move could not be read as a move of this game.
    #[error("malformed move: {reason}")]
    MalformedMove { reason: String },
    /// A well-formed move that the rules do not allow now.
    #[error("illegal move: {reason}")]
    IllegalMove { reason: String },
    /// A seat number outside the game, or a seat that has already left it.
    #[error("seat {seat} is not playing in this game")]
    NoSuchSeat { seat: u8 },
    /// A state given to [`crate::Game::from_state`] is not one this game could be in, or
    /// the game cannot be rebuilt from its state at all.
    #[error("unreadable state: {reason}")]
    UnreadableState { reason: String },
    /// Something of the game could not be written as JSON: its `Serialize` failed (an
    /// error of a hand-written impl, a map key that is not a string). A fault of the
    /// game's types, not of the input.
    #[error("{what} could not be written as JSON: {reason}")]
    Unserialisable { what: &'static str, reason: String },
}

impl EngineError {
    /// An [`EngineError::IllegalMove`] with the given reason.
    pub fn illegal(reason: impl Into<String>) -> Self {
        EngineError::IllegalMove {
            reason: reason.into(),
        }
    }

    /// An [`EngineError::UnreadableState`] with the given reason.
    pub fn state(reason: impl Into<String>) -> Self {
        EngineError::UnreadableState {
            reason: reason.into(),
        }
    }

    /// An [`EngineError::Unserialisable`]: `what` could not be written as JSON.
    pub fn unserialisable(what: &'static str, reason: impl std::fmt::Display) -> Self {
        EngineError::Unserialisable {
            what,
            reason: reason.to_string(),
        }
    }

    /// An [`EngineError::InvalidOptions`] with the given reason.
    pub fn options(reason: impl Into<String>) -> Self {
        EngineError::InvalidOptions {
            reason: reason.into(),
        }
    }
}
