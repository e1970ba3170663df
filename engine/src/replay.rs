//! Replaying a game record without a server (`worp replay`).
//!
//! A record is `{"variant", "options", "seats", "steps": [{"dice": [...]}, {"move": ...},
//! {"retire": seat}, ...]}`. Each step is applied in order; the report after each one
//! carries the state, what is awaited and the legal moves.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

pub use crate::step::Step;
use crate::{variant, AnyGame, Awaiting, EngineError};

/// A game record: how it was created and every input in order.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = GameRecord)]
pub struct Record {
    /// The registered variant name.
    pub variant: String,
    /// The creation options (`null` or absent: the defaults).
    #[serde(default)]
    pub options: Value,
    /// The number of seats.
    pub seats: u8,
    /// The inputs, in order.
    #[serde(default)]
    pub steps: Vec<Step>,
}

/// The game right after a step.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct StepReport {
    /// The step's index in the record, from 0.
    pub step: usize,
    /// The state after the step.
    pub state: Value,
    /// What the game waits for next.
    pub awaiting: Awaiting,
    /// The legal moves, when a move is awaited.
    pub legal_moves: Vec<Value>,
}

/// Why a record could not be replayed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The game could not be created.
    #[error("cannot create the game: {0}")]
    Create(EngineError),
    /// A step was refused.
    #[error("step {step} is not allowed: {error}")]
    Step { step: usize, error: EngineError },
    /// The game after a step could not be written as JSON for its report.
    #[error("the game after step {step} cannot be reported: {error}")]
    Report { step: usize, error: EngineError },
}

/// Applies one step to a game.
pub fn apply_step(game: &mut dyn AnyGame, step: &Step) -> Result<(), EngineError> {
    match step {
        Step::Dice(values) => game.apply_dice(values),
        Step::Move(mv) => game.apply_move(mv),
        Step::Retire(seat) => game.retire(*seat),
    }
}

/// What a game looks like now, as a report for step `step`.
pub fn report(game: &dyn AnyGame, step: usize) -> Result<StepReport, EngineError> {
    Ok(StepReport {
        step,
        state: game.state()?,
        awaiting: game.awaiting(),
        legal_moves: game.legal_moves()?,
    })
}

/// Replays `record`, calling `each` with the report after every step. Stops at the first
/// step that is refused.
pub fn replay(
    record: &Record,
    mut each: impl FnMut(StepReport),
) -> Result<Box<dyn AnyGame>, ReplayError> {
    let v = variant(&record.variant).map_err(ReplayError::Create)?;
    let mut game = v
        .create(&record.options, record.seats)
        .map_err(ReplayError::Create)?;
    for (i, step) in record.steps.iter().enumerate() {
        apply_step(game.as_mut(), step).map_err(|error| ReplayError::Step { step: i, error })?;
        each(report(game.as_ref(), i).map_err(|error| ReplayError::Report { step: i, error })?);
    }
    Ok(game)
}
