//! What the hub carries: a game reached a new version, with the notices for players.

use std::sync::{Arc, OnceLock};

use bytes::Bytes;
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
    /// The version before the change, when known: another process that hears of it
    /// reads the events after it once for all its streams of the game. Absent from
    /// announcements of older servers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<i64>,
    /// What players should hear about.
    #[serde(default)]
    pub notices: Vec<PlayerNotice>,
    /// The events the change appended, as the store wrote them (positions included),
    /// for this process's streams: a stream that has every event before them sends
    /// them without reading the log, so a move costs no read per watcher. Not relayed:
    /// a process that hears of the change reads them from the log, once.
    #[serde(skip)]
    pub events: Option<Arc<[StoredEvent]>>,
    /// The events as the streams send them, written by the first stream that sends
    /// them and shared by the others: `[0]` whole, `[1]` with the players' messages
    /// withheld.
    #[serde(skip)]
    pub wire: [OnceLock<Bytes>; 2],
}

impl Change {
    /// The change of `game_id` to `version` that appended `events` (when known).
    pub fn new(
        origin: Uuid,
        game_id: Uuid,
        version: i64,
        notices: Vec<PlayerNotice>,
        events: Option<Arc<[StoredEvent]>>,
    ) -> Change {
        let from = events.as_deref().and_then(|e| e.first()).map(|e| e.seq - 1);
        Change {
            origin,
            game_id,
            version,
            from,
            notices,
            events,
            wire: Default::default(),
        }
    }
}
