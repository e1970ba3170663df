//! What the game is doing now.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::rolloff::RollOff;
use crate::{GameResult, Seat};

/// The stage of the game, with whose turn it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[schema(as = AliBabaStage)]
pub enum Stage {
    /// Deciding who starts: the contenders roll a plain d6 each, in seat order.
    RollOff {
        /// The roll-off so far.
        roll_off: RollOff,
    },
    /// `seat` is to roll the Ali Baba die.
    Roll {
        /// Whose turn it is.
        seat: Seat,
        /// Whether this roll is an extra roll earned by beating a figure.
        extra: bool,
    },
    /// `seat` rolled `roll` and is to move a figure that many planks forward.
    Move {
        /// Whose turn it is.
        seat: Seat,
        /// The roll to move.
        roll: u8,
        /// Whether this roll was an extra roll earned by beating a figure.
        extra: bool,
    },
    /// The game is over.
    Finished {
        /// How it ended.
        result: GameResult,
    },
}
