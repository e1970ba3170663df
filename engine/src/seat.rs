//! A seat: a participant's place at the table, as every game and record names it.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A participant's place at the table, numbered from 0 in the order the seats were given.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(transparent)]
#[schema(value_type = u8)]
pub struct Seat(pub u8);

impl Seat {
    /// The seat as an index into per-seat arrays.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

impl std::fmt::Display for Seat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}
