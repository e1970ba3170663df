//! The dice: Ludo's special die (globe and star instead of 3 and 5) and the plain d6.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::Die;

/// Ludo's special die. Its faces have the values 1..=6; the value **3 is the globe** and
/// the value **5 is the star**, as its labels say. Roll values are given as those numbers.
pub const SPECIAL_DIE: Die = Die {
    name: "ludo",
    faces: &[1, 2, 3, 4, 5, 6],
    labels: &["1", "2", "globe", "4", "star", "6"],
};

/// The value of the globe face of [`SPECIAL_DIE`].
pub const GLOBE: u8 = 3;
/// The value of the star face of [`SPECIAL_DIE`].
pub const STAR: u8 = 5;
/// The plain die's six: it enters a pawn and gives an extra roll.
pub const SIX: u8 = 6;

/// Which die the game is played with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DieKind {
    /// The special die ([`SPECIAL_DIE`]): faces 1, 2, globe (value 3), 4, star (value 5),
    /// 6. A globe enters a pawn, moves one to the next globe or takes a pawn on 50 home,
    /// and always gives an extra roll; a star moves a pawn to the next star.
    #[default]
    Special,
    /// The plain d6: a 6 enters a pawn or moves 6 and gives an extra roll; home column
    /// 51..=55, home on exactly 56.
    Plain,
}

impl DieKind {
    /// The die rolled for turns (the roll-off always uses the plain d6).
    pub fn die(self) -> Die {
        match self {
            DieKind::Special => SPECIAL_DIE,
            DieKind::Plain => Die::D6,
        }
    }

    /// Whether this roll enters a pawn from the yard.
    pub fn enters(self, value: u8) -> bool {
        match self {
            DieKind::Special => value == GLOBE,
            DieKind::Plain => value == SIX,
        }
    }

    /// Whether this roll gives an extra roll, used or not.
    pub fn gives_extra_roll(self, value: u8) -> bool {
        self.enters(value)
    }

    /// The symbol a rolled value shows, if it is not a number.
    pub fn symbol(self, value: u8) -> Option<Symbol> {
        match (self, value) {
            (DieKind::Special, GLOBE) => Some(Symbol::Globe),
            (DieKind::Special, STAR) => Some(Symbol::Star),
            _ => None,
        }
    }
}

/// A symbol on the special die.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Symbol {
    /// The globe (value 3).
    Globe,
    /// The star (value 5).
    Star,
}
