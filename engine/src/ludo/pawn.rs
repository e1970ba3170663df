//! Pawns and where they stand.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use utoipa::ToSchema;

use super::options::MAX_PAWNS;
use super::track::{Field, TrackField, HOME_COUNT, LAST_HOME_COLUMN_FIELD};
use super::Colour;

/// A pawn of a seat, numbered 0..pawns.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(transparent)]
#[schema(value_type = u8)]
pub struct PawnId(pub u8);

impl PawnId {
    /// The pawn as an index into a seat's pawns.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

/// Where a pawn stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(tag = "at", rename_all = "snake_case")]
pub enum Place {
    /// In its yard (the corner circles), waiting to enter.
    #[default]
    Yard,
    /// On the shared track.
    Track {
        /// Counted from the pawn's own start globe: 0..=50 (50 is the star in front of
        /// its home column).
        field: Field,
        /// The same field on the shared track, 0..=51, counted from colour 0's start.
        track_field: TrackField,
    },
    /// In its home column (plain die only).
    HomeColumn {
        /// Counted from the pawn's own start globe: 51..=55.
        field: Field,
    },
    /// Home: the pawn has finished.
    Home,
}

impl Place {
    /// The place of a pawn of `colour` that has counted to `field` from its start globe:
    /// the track up to 50, the home column up to 55, home beyond.
    pub fn counted(colour: Colour, field: Field) -> Place {
        if field.is_on_track() {
            Place::Track {
                field,
                track_field: field.track_field(colour),
            }
        } else if field.0 <= LAST_HOME_COLUMN_FIELD {
            Place::HomeColumn { field }
        } else {
            Place::Home
        }
    }

    /// How far the pawn has counted from its start globe (home counts as 56); `None` in
    /// the yard.
    pub fn count(self) -> Option<u8> {
        match self {
            Place::Yard => None,
            Place::Track { field, .. } | Place::HomeColumn { field } => Some(field.0),
            Place::Home => Some(HOME_COUNT),
        }
    }

    /// The shared track field the pawn stands on, if it is on the track.
    pub fn track_field(self) -> Option<TrackField> {
        match self {
            Place::Track { track_field, .. } => Some(track_field),
            _ => None,
        }
    }
}

/// A seat's pawns (1..=4 of them), each with its place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pawns {
    len: u8,
    places: [Place; MAX_PAWNS as usize],
}

impl Pawns {
    /// `len` pawns (at most 4), all in the yard.
    pub fn in_yard(len: u8) -> Self {
        Pawns {
            len: len.min(MAX_PAWNS),
            places: [Place::Yard; MAX_PAWNS as usize],
        }
    }

    /// The place of every pawn, in pawn order.
    pub fn places(&self) -> &[Place] {
        let len = usize::from(self.len).min(self.places.len());
        &self.places[..len]
    }

    /// The place of one pawn, if the seat has it.
    pub fn get(&self, pawn: PawnId) -> Option<Place> {
        self.places().get(pawn.index()).copied()
    }

    /// Puts a pawn on a place (ignored for a pawn the seat does not have).
    pub fn set(&mut self, pawn: PawnId, place: Place) {
        if pawn.0 < self.len {
            if let Some(p) = self.places.get_mut(pawn.index()) {
                *p = place;
            }
        }
    }

    /// The pawns with their ids.
    pub fn iter(&self) -> impl Iterator<Item = (PawnId, Place)> + '_ {
        self.places()
            .iter()
            .enumerate()
            .map(|(i, p)| (PawnId(i as u8), *p))
    }

    /// The lowest-numbered pawn standing on `place`: the one that names the group of
    /// interchangeable pawns there.
    pub fn first_on(&self, place: Place) -> Option<PawnId> {
        self.iter().find(|(_, p)| *p == place).map(|(id, _)| id)
    }

    /// Whether every pawn is home.
    pub fn all_home(&self) -> bool {
        self.places().iter().all(|p| *p == Place::Home)
    }

    /// Sends every pawn back to the yard (a seat that retires leaves the board).
    pub fn clear(&mut self) {
        self.places = [Place::Yard; MAX_PAWNS as usize];
    }
}

impl Serialize for Pawns {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.places())
    }
}

/// The pawns as [`Pawns`]' `Serialize` writes them: the place of each, 1 to 4 of them.
impl<'de> Deserialize<'de> for Pawns {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let places = Vec::<Place>::deserialize(deserializer)?;
        let len = u8::try_from(places.len())
            .ok()
            .filter(|n| (1..=MAX_PAWNS).contains(n))
            .ok_or_else(|| {
                D::Error::custom(format!(
                    "a seat has 1 to {MAX_PAWNS} pawns, not {}",
                    places.len()
                ))
            })?;
        let mut pawns = Pawns::in_yard(len);
        for (slot, place) in pawns.places.iter_mut().zip(places) {
            *slot = place;
        }
        Ok(pawns)
    }
}
