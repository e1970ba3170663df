//! What the hub carries: a game reached a new version, with the notices for players.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::store::PlayerNotice;

/// A game reached a new version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    /// The process that wrote it.
    pub origin: Uuid,
    pub game_id: Uuid,
    pub version: i64,
    /// What players should hear about.
    #[serde(default)]
    pub notices: Vec<PlayerNotice>,
}
