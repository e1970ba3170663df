//! Colours (numbered round the board: colour c's A is track field 10·c on the
//! four-colour side, 8·c on the six-colour side), pawns and where a pawn stands.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

pub use crate::colour::Colour;

/// One of a colour's four pawns, numbered 0 to 3.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(transparent)]
#[schema(value_type = u8)]
pub struct Pawn(pub u8);

impl Pawn {
    /// The pawn as an index into a colour's pawns.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

/// A home circle: a, b, c or d, from the track inwards.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Circle {
    A,
    B,
    C,
    D,
}

impl Circle {
    /// The circles in order from a to d.
    pub const ALL: [Circle; 4] = [Circle::A, Circle::B, Circle::C, Circle::D];

    /// 0 for a up to 3 for d.
    pub fn number(self) -> u8 {
        self as u8
    }

    /// The circle numbered `n` (0 = a), if there is one.
    pub fn from_number(n: u8) -> Option<Circle> {
        Circle::ALL.get(usize::from(n)).copied()
    }
}

/// Where a pawn stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(tag = "at", rename_all = "snake_case")]
pub enum Place {
    /// In the colour's waiting area B.
    #[serde(rename = "B")]
    Waiting,
    /// On the track, `step` fields on from the colour's own A (0 = A), which is track
    /// field `field` of the board.
    Track {
        /// Fields counted from the colour's own A: 0..39 (0..47 on the six-colour side).
        step: u8,
        /// The board's track field, counted from colour 0's A.
        field: u8,
    },
    /// On one of the colour's home circles.
    Home {
        /// The circle: a, b, c or d.
        circle: Circle,
    },
}

impl Place {
    /// Whether the pawn is home (on a-d).
    pub fn is_home(self) -> bool {
        matches!(self, Place::Home { .. })
    }

    /// Whether the pawn waits in B.
    pub fn is_waiting(self) -> bool {
        matches!(self, Place::Waiting)
    }

    /// The board's track field under the pawn, if it is on the track.
    pub fn track_field(self) -> Option<u8> {
        match self {
            Place::Track { field, .. } => Some(field),
            _ => None,
        }
    }
}
