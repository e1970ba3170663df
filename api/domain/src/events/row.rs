//! A new event as every write path of the store takes it: the event and its payload's
//! one canonical text.

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use uuid::Uuid;

use super::{chain_hash_over, write_canonical, Event, LogEntry, StoredEvent};

/// A new event as every write path stores it: the event, and its payload as the one
/// JSON text written for it, canonical (keys sorted, no white space), which its hash
/// covers and the log stores.
#[derive(Debug, Clone)]
pub struct EventRow {
    pub event: StoredEvent,
    /// The payload's canonical text.
    pub payload: String,
}

/// An event already hashed (read back, or copied), with its payload written canonical.
impl From<StoredEvent> for EventRow {
    fn from(event: StoredEvent) -> EventRow {
        let mut text = Vec::with_capacity(128);
        write_canonical(&event.payload, &mut text);
        // Canonical JSON is UTF-8: serde_json writes every string and number of it.
        let payload = String::from_utf8(text).unwrap_or_else(|_| event.payload.to_string());
        EventRow { event, payload }
    }
}

impl EventRow {
    /// A new event, hashed onto `prev_hash` (the hex hash of the previous event, or the
    /// empty string for the first); an error if its payload does not serialise.
    pub fn new(
        game_id: Uuid,
        seq: i64,
        event: &Event,
        recorded_at: DateTime<Utc>,
        prev_hash: &str,
    ) -> Result<EventRow, serde_json::Error> {
        let payload = event.payload()?;
        Ok(EventRow::hashed(
            game_id,
            seq,
            event.kind(),
            payload,
            recorded_at,
            prev_hash,
        ))
    }

    /// A new `move_played` of `mv` by `seat`: [`EventRow::new`] of that event, with the
    /// move moved into the payload, not copied.
    pub fn move_played(
        game_id: Uuid,
        seq: i64,
        seat: u8,
        mv: Value,
        recorded_at: DateTime<Utc>,
        prev_hash: &str,
    ) -> EventRow {
        let payload = Map::from_iter([("move".to_owned(), mv), ("seat".to_owned(), seat.into())]);
        let kind = "move_played";
        let payload = Value::Object(payload);
        EventRow::hashed(game_id, seq, kind, payload, recorded_at, prev_hash)
    }

    /// The move of a `move_played` row, as it lies in the payload (`null` in a row of
    /// another kind).
    pub fn played_move(&self) -> &Value {
        &self.event.payload["move"]
    }

    /// A new event of `kind` with `payload`, its text written and hashed onto
    /// `prev_hash`.
    fn hashed(
        game_id: Uuid,
        seq: i64,
        kind: &str,
        payload: Value,
        recorded_at: DateTime<Utc>,
        prev_hash: &str,
    ) -> EventRow {
        let stored = StoredEvent {
            game_id,
            seq,
            position: 0,
            kind: kind.to_owned(),
            payload,
            rules_version: worp_engine::RULES_VERSION as i32,
            recorded_at,
            hash: String::new(),
        };
        let mut row = EventRow::from(stored);
        let e = &row.event;
        row.event.hash = if e.withholds_text() {
            e.chain_hash(prev_hash)
        } else {
            chain_hash_over(prev_hash, &e.canonical_bytes_with(row.payload.as_bytes()))
        };
        row
    }
}

/// A new event reads as the event it holds.
impl LogEntry for EventRow {
    fn game_id(&self) -> Uuid {
        self.event.game_id
    }
    fn seq(&self) -> i64 {
        self.event.seq
    }
    fn hash(&self) -> &str {
        &self.event.hash
    }
    fn recorded_at(&self) -> DateTime<Utc> {
        self.event.recorded_at
    }
    fn event(&self) -> Result<Event, serde_json::Error> {
        self.event.event()
    }
}
