//! The doubling cube (RULES.md §2b): its value and who owns it.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::Side;

/// The highest value a cube reaches; a cube at this value cannot be doubled.
pub const MAX_CUBE: u8 = 64;

/// The doubling cube: centred at 1 at the start of every game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = BackgammonCube)]
pub struct Cube {
    /// 1, 2, 4, … 64.
    pub value: u8,
    /// The player who owns it (may double next); `null` while centred.
    pub owner: Option<Side>,
}

impl Default for Cube {
    fn default() -> Self {
        Cube::CENTRED
    }
}

impl Cube {
    /// The cube at the start of a game.
    pub const CENTRED: Cube = Cube {
        value: 1,
        owner: None,
    };

    /// Whether `side` has access to the cube (it is centred or his) and it can still
    /// be doubled.
    pub fn can_double(&self, side: Side) -> bool {
        self.value < MAX_CUBE && self.owner.is_none_or(|o| o == side)
    }

    /// The cube after `taker` took a double.
    pub fn taken_by(self, taker: Side) -> Cube {
        Cube {
            value: self.value.saturating_mul(2).min(MAX_CUBE),
            owner: Some(taker),
        }
    }

    /// Whether it was ever turned in this game.
    pub fn turned(&self) -> bool {
        self.value > 1
    }

    /// log2 of the value, as GNU Backgammon's Match ID stores it.
    pub fn log2(&self) -> u8 {
        self.value.max(1).trailing_zeros() as u8
    }
}
