//! The heads a pawn wears, and the combat die of each.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::Die;

/// The combat die of a blue head: 1 to 6.
pub const COMBAT_BLUE: Die = Die {
    name: "combat_blue",
    faces: &[1, 2, 3, 4, 5, 6],
    labels: &[],
};

/// The combat die of a green head: 2 to 7.
pub const COMBAT_GREEN: Die = Die {
    name: "combat_green",
    faces: &[2, 3, 4, 5, 6, 7],
    labels: &[],
};

/// The combat die of a red head: 3 to 8.
pub const COMBAT_RED: Die = Die {
    name: "combat_red",
    faces: &[3, 4, 5, 6, 7, 8],
    labels: &[],
};

/// The combat die of a yellow head: 4 to 9.
pub const COMBAT_YELLOW: Die = Die {
    name: "combat_yellow",
    faces: &[4, 5, 6, 7, 8, 9],
    labels: &[],
};

/// The colour of a pawn's head, lowest to highest.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Head {
    /// The lowest head.
    Blue,
    /// Above blue.
    Green,
    /// Above green.
    Red,
    /// The highest head.
    Yellow,
}

impl std::fmt::Display for Head {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Head::Blue => "blue",
            Head::Green => "green",
            Head::Red => "red",
            Head::Yellow => "yellow",
        })
    }
}

impl Head {
    /// The head one colour higher; yellow stays yellow.
    pub fn up(self) -> Head {
        match self {
            Head::Blue => Head::Green,
            Head::Green => Head::Red,
            Head::Red | Head::Yellow => Head::Yellow,
        }
    }

    /// The head one colour lower; `None` for blue (the pawn is removed).
    pub fn down(self) -> Option<Head> {
        match self {
            Head::Blue => None,
            Head::Green => Some(Head::Blue),
            Head::Red => Some(Head::Green),
            Head::Yellow => Some(Head::Red),
        }
    }

    /// The combat die this head rolls in a fight.
    pub fn die(self) -> &'static Die {
        match self {
            Head::Blue => &COMBAT_BLUE,
            Head::Green => &COMBAT_GREEN,
            Head::Red => &COMBAT_RED,
            Head::Yellow => &COMBAT_YELLOW,
        }
    }

    /// How many diagonal steps a pawn with this head makes under `movement = by_head`.
    pub fn steps(self) -> u8 {
        match self {
            Head::Blue => 1,
            Head::Green => 2,
            Head::Red => 3,
            Head::Yellow => 4,
        }
    }
}
