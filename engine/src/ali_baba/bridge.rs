//! The bridge: the near bank, the planks and the far bank, and a place on it.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Where a figure stands: 0 is the near bank (the start), 1..=planks are the planks of
/// the bridge, planks + 1 is the far bank (the goal).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(transparent)]
#[schema(value_type = u8, as = AliBabaPosition)]
pub struct Position(pub u8);

impl Position {
    /// The near bank, where every figure starts and where beaten figures go back to.
    pub const NEAR_BANK: Position = Position(0);
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A bridge of some number of planks between the two banks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bridge {
    planks: u8,
}

impl Bridge {
    /// The fewest planks a bridge may have.
    pub const MIN_PLANKS: u8 = 1;
    /// The most planks a bridge may have.
    pub const MAX_PLANKS: u8 = 20;

    /// A bridge of `planks` planks, if that number is within `MIN_PLANKS..=MAX_PLANKS`.
    pub const fn new(planks: u8) -> Option<Bridge> {
        if planks >= Self::MIN_PLANKS && planks <= Self::MAX_PLANKS {
            Some(Bridge { planks })
        } else {
            None
        }
    }

    /// The number of planks.
    pub const fn planks(self) -> u8 {
        self.planks
    }

    /// The far bank, right after the last plank.
    pub const fn far_bank(self) -> Position {
        Position(self.planks + 1)
    }

    /// Whether `at` is a plank (not a bank): the only places where figures are beaten.
    pub const fn is_plank(self, at: Position) -> bool {
        at.0 >= 1 && at.0 <= self.planks
    }

    /// Where a figure at `from` lands after `roll` planks forward, if it may go there:
    /// it must not stand on the far bank yet, and the far bank needs the exact number.
    pub const fn advance(self, from: Position, roll: u8) -> Option<Position> {
        let far = self.planks + 1;
        if roll == 0 || from.0 >= far || roll > far - from.0 {
            None
        } else {
            Some(Position(from.0 + roll))
        }
    }
}
