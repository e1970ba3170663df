//! The track: a ring of 52 track fields, and each colour's own count of it.
//!
//! Every pawn counts its way from its own start globe: field 0 is its start, field 50 the
//! star in front of its home column. With the plain die the home column follows as fields
//! 51..=55 and home is 56. Colour c's field 0 is track field 13·c.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::colour::COLOURS;
use super::Colour;

/// The number of fields of the shared track.
pub const TRACK_FIELDS: u8 = 52;
/// The last track field of a pawn's own count: the star in front of its home column.
pub const LAST_TRACK_FIELD: u8 = 50;
/// The last field of the home column (plain die only).
pub const LAST_HOME_COLUMN_FIELD: u8 = 55;
/// Where a pawn is home when counted on from its start (plain die: 50 + 6).
pub const HOME_COUNT: u8 = 56;

/// The globe fields, counted from a pawn's own start globe (0).
pub const GLOBES: [u8; 8] = [0, 8, 13, 21, 26, 34, 39, 47];
/// The star fields, counted from a pawn's own start globe; 50 is the star in front of the
/// home column.
pub const STARS: [u8; 8] = [4, 11, 17, 24, 30, 37, 43, 50];

/// The colour's start globe on the shared track: colour c starts on track field 13·c.
fn start(colour: Colour) -> TrackField {
    TrackField((colour.0 % COLOURS) * (TRACK_FIELDS / COLOURS))
}

/// A field counted from the pawn's own start globe: 0..=50 on the track, 51..=55 in the
/// home column (plain die only).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(transparent)]
#[schema(value_type = u8)]
pub struct Field(pub u8);

impl Field {
    /// The start globe.
    pub const START: Field = Field(0);
    /// The star in front of the home column.
    pub const LAST: Field = Field(LAST_TRACK_FIELD);

    /// Whether this field lies on the shared track (0..=50) rather than in the home column.
    pub fn is_on_track(self) -> bool {
        self.0 <= LAST_TRACK_FIELD
    }

    /// The shared track field this is for a pawn of `colour` (meaningful on the track only).
    pub fn track_field(self, colour: Colour) -> TrackField {
        TrackField((start(colour).0 + self.0) % TRACK_FIELDS)
    }

    /// Where a globe takes a track pawn from here: the next globe field ahead; `None` from
    /// 47, 48, 49 (no globe ahead) and from 50 (there the globe takes the pawn home,
    /// which is not a field).
    pub fn next_globe(self) -> Option<Field> {
        GLOBES.iter().copied().find(|g| *g > self.0).map(Field)
    }

    /// Where a star takes a track pawn from here: the next star field ahead, unless a
    /// globe field lies strictly between the two (leaving a globe is not passing it);
    /// `None` from 50.
    pub fn next_star(self) -> Option<Field> {
        let star = STARS.iter().copied().find(|s| *s > self.0)?;
        let blocked = GLOBES.iter().any(|g| *g > self.0 && *g < star);
        (!blocked).then_some(Field(star))
    }
}

/// A field of the shared 52-field track, numbered from colour 0's start globe.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(transparent)]
#[schema(value_type = u8)]
pub struct TrackField(pub u8);

impl TrackField {
    /// The field as an index into per-track-field arrays (always below 52).
    pub fn index(self) -> usize {
        usize::from(self.0 % TRACK_FIELDS)
    }
}
