//! The four colours of the board.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::track::{TrackField, TRACK_FIELDS};

/// One of the four colours, 0..=3, in board order; colour c starts on track field 13·c.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(transparent)]
#[schema(value_type = u8)]
pub struct Colour(pub u8);

impl Colour {
    /// The number of colours on the board.
    pub const COUNT: u8 = 4;

    /// Whether this names a colour of the board.
    pub fn is_valid(self) -> bool {
        self.0 < Self::COUNT
    }

    /// The colour's start globe on the shared track.
    pub fn start(self) -> TrackField {
        TrackField((self.0 % Self::COUNT) * (TRACK_FIELDS / Self::COUNT))
    }

    /// The default colours for a number of seats **(decision of RULES.md)**: 2 seats play
    /// opposite colours 0 and 2, 3 seats 0, 1, 2, 4 seats 0..=3.
    pub fn defaults(seats: u8) -> Vec<Colour> {
        match seats {
            2 => vec![Colour(0), Colour(2)],
            n => (0..n.min(Self::COUNT)).map(Colour).collect(),
        }
    }
}
