//! One input of a game record: dice, a move or a retirement. Replays read steps, and a
//! game's match file writes them.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::seat::Seat;

/// One input of a record.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Step {
    /// Values shown by the awaited dice.
    Dice(Vec<u8>),
    /// A move, exactly as listed among the legal moves.
    Move(Value),
    /// A seat leaves the game (resignation or time-out).
    Retire(Seat),
}
