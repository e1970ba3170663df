//! What the hub carries: a game reached a new version, with the notices for players.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use worp_domain::events::StoredEvent;
use worp_store::PlayerNotice;

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
    /// The events the change appended, as the store wrote them (positions included),
    /// for this process's streams: a stream that has every event before them sends
    /// them without reading the log, so a move costs no read per watcher. Not relayed:
    /// other processes' streams read the log.
    #[serde(skip)]
    pub events: Option<Arc<[StoredEvent]>>,
}
