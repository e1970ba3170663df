//! A seat at the board: its colour and its pawns.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::pawn::{Pawns, Place};
use super::Colour;

/// One seat: its colour and where each of its pawns stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Player {
    /// The seat's colour, 0..=3; it starts on track field 13·colour.
    pub colour: Colour,
    /// Each pawn's place, in pawn order (pawn 0 first).
    #[schema(value_type = Vec<Place>)]
    pub pawns: Pawns,
    /// Whether the seat has left the game (resigned or timed out); its pawns are off the
    /// board and it is skipped.
    pub retired: bool,
}

impl Player {
    /// A seat of `colour` with `pawns` pawns in the yard.
    pub fn new(colour: Colour, pawns: u8) -> Self {
        Player {
            colour,
            pawns: Pawns::in_yard(pawns),
            retired: false,
        }
    }

    /// How many of its pawns stand on this shared track field.
    pub fn count_on(&self, track_field: super::TrackField) -> usize {
        if self.retired {
            return 0;
        }
        self.pawns
            .places()
            .iter()
            .filter(|p| p.track_field() == Some(track_field))
            .count()
    }
}
