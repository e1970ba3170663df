//! `PlayerId`: who plays in a tournament, as the server names its players.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// A player, opaque to the tournament: the server's player id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PlayerId(pub Uuid);

impl PlayerId {
    /// A player id made from a number: for tests and examples.
    pub const fn from_u128(n: u128) -> Self {
        PlayerId(Uuid::from_u128(n))
    }
}

impl std::fmt::Display for PlayerId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}
