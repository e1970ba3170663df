//! The two sides of the board: four colours round 40 track fields, or six round 48.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::colour::Colour;

/// Each colour has four pawns.
pub const PAWNS: usize = 4;

/// Which side of the board is played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// Four colours, 40 track fields, 10 per colour.
    FourColours,
    /// Six colours, 48 track fields, 8 per colour.
    SixColours,
}

impl Side {
    /// The side with `colours` colours, if the board has one.
    pub fn with_colours(colours: u8) -> Option<Side> {
        match colours {
            4 => Some(Side::FourColours),
            6 => Some(Side::SixColours),
            _ => None,
        }
    }

    /// How many colours this side has.
    pub fn colours(self) -> u8 {
        match self {
            Side::FourColours => 4,
            Side::SixColours => 6,
        }
    }

    /// How many fields the track round the board has (40 or 48).
    pub fn track_fields(self) -> u8 {
        match self {
            Side::FourColours => 40,
            Side::SixColours => 48,
        }
    }

    /// The track fields between one colour's A and the next (10 or 8).
    pub fn fields_per_colour(self) -> u8 {
        match self {
            Side::FourColours => 10,
            Side::SixColours => 8,
        }
    }

    /// The track field of `colour`'s field A.
    pub fn field_a(self, colour: Colour) -> u8 {
        self.fields_per_colour() * colour.0
    }

    /// The track field a pawn of `colour` stands on after `step` steps from its own A.
    pub fn field(self, colour: Colour, step: u8) -> u8 {
        (self.field_a(colour) + step) % self.track_fields()
    }
}
