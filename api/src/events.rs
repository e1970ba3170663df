//! The events of a game: what each one says, and how they chain.
//!
//! An event is stored as a kind (`game_created`, `dice_rolled`, …) and a JSON payload.
//! Its hash is SHA-256 over the previous event's hash (32 zero bytes for the first
//! event) followed by the event's canonical bytes: the JSON object
//! `{game_id, seq, type, payload, rules_version, recorded_at}` with object keys sorted,
//! no white space, and `recorded_at` in RFC 3339 with microseconds and `Z`.

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use utoipa::ToSchema;
use uuid::Uuid;
use worp_engine::GameResult;

use crate::bots::BotKind;

/// What happened in a game, one fact per event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// The game was created. Only the SHA-256 of the server's dice seed is published.
    GameCreated {
        variant: String,
        /// The options with every default filled in.
        options: Value,
        /// The player of each seat; `null` for an open seat.
        seats: Vec<Option<Uuid>>,
        /// Client seeds given at creation by the creator, per seat (`null`: none).
        #[serde(default)]
        client_seeds: Vec<Option<String>>,
        /// The bot of each seat played by the computer (`null`: a person or open).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        bots: Vec<Option<BotKind>>,
        /// Days each seat has for each move; absent: no clock.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        days_per_move: Option<u32>,
        /// Hex SHA-256 of the secret 32-byte server seed.
        dice_commitment: String,
        created_by: Uuid,
    },
    /// A player took an open seat.
    SeatTaken {
        seat: u8,
        player_id: Uuid,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        client_seed: Option<String>,
    },
    /// The server rolled dice: `values[i]` is die number `index + i` of the game.
    DiceRolled {
        seat: u8,
        die: String,
        values: Vec<u8>,
        index: u64,
    },
    /// A seat played a move.
    MovePlayed {
        seat: u8,
        #[serde(rename = "move")]
        mv: Value,
    },
    /// A seat left the game.
    SeatRetired { seat: u8, reason: RetireReason },
    /// The game is over; the server seed is revealed so anyone can recompute every roll.
    GameFinished {
        result: GameResult,
        server_seed: String,
    },
}

/// Why a seat left a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RetireReason {
    Resigned,
    TimedOut,
}

impl Event {
    /// The kind stored beside the payload.
    pub fn kind(&self) -> &'static str {
        match self {
            Event::GameCreated { .. } => "game_created",
            Event::SeatTaken { .. } => "seat_taken",
            Event::DiceRolled { .. } => "dice_rolled",
            Event::MovePlayed { .. } => "move_played",
            Event::SeatRetired { .. } => "seat_retired",
            Event::GameFinished { .. } => "game_finished",
        }
    }

    /// The payload: the event's fields without its kind.
    pub fn payload(&self) -> Value {
        let mut v = serde_json::to_value(self).unwrap_or(Value::Null);
        if let Value::Object(map) = &mut v {
            map.remove("type");
        }
        v
    }

    /// Reads an event back from its kind and payload.
    pub fn from_parts(kind: &str, payload: &Value) -> Result<Event, serde_json::Error> {
        let mut map = match payload {
            Value::Object(m) => m.clone(),
            _ => Map::new(),
        };
        map.insert("type".into(), Value::String(kind.to_owned()));
        serde_json::from_value(Value::Object(map))
    }
}

/// An event as stored in the log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct StoredEvent {
    pub game_id: Uuid,
    /// 1, 2, 3, … within the game.
    pub seq: i64,
    /// Position in the log of all games (assigned by the database; 0 before it is stored).
    pub position: i64,
    /// The event type, e.g. `dice_rolled`.
    #[serde(rename = "type")]
    pub kind: String,
    pub payload: Value,
    /// The engine's rules version that produced the event.
    pub rules_version: i32,
    pub recorded_at: DateTime<Utc>,
    /// Hex SHA-256 chaining this event to the previous one of its game.
    pub hash: String,
}

impl StoredEvent {
    /// A new event, hashed onto `prev_hash` (the hex hash of the previous event, or the
    /// empty string for the first).
    pub fn new(
        game_id: Uuid,
        seq: i64,
        event: &Event,
        recorded_at: DateTime<Utc>,
        prev_hash: &str,
    ) -> StoredEvent {
        let mut e = StoredEvent {
            game_id,
            seq,
            position: 0,
            kind: event.kind().to_owned(),
            payload: event.payload(),
            rules_version: worp_engine::RULES_VERSION as i32,
            recorded_at,
            hash: String::new(),
        };
        e.hash = e.chain_hash(prev_hash);
        e
    }

    /// The event's fields, decoded.
    pub fn event(&self) -> Result<Event, serde_json::Error> {
        Event::from_parts(&self.kind, &self.payload)
    }

    /// The canonical bytes that are hashed.
    pub fn canonical_bytes(&self) -> Vec<u8> {
        let v = serde_json::json!({
            "game_id": self.game_id.to_string(),
            "seq": self.seq,
            "type": self.kind,
            "payload": self.payload,
            "rules_version": self.rules_version,
            "recorded_at": format_time(&self.recorded_at),
        });
        canonical_json(&v).into_bytes()
    }

    /// SHA-256(previous hash bytes || canonical bytes), hex. An empty or malformed
    /// `prev_hash` counts as 32 zero bytes (the start of the chain).
    pub fn chain_hash(&self, prev_hash: &str) -> String {
        let prev = hex::decode(prev_hash).unwrap_or_default();
        let mut h = Sha256::new();
        if prev.len() == 32 {
            h.update(&prev);
        } else {
            h.update([0u8; 32]);
        }
        h.update(self.canonical_bytes());
        hex::encode(h.finalize())
    }
}

/// The time format of canonical bytes: RFC 3339, microseconds, `Z`.
pub fn format_time(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Micros, true)
}

/// JSON with object keys sorted and no white space.
pub fn canonical_json(v: &Value) -> String {
    let mut out = String::new();
    write_canonical(v, &mut out);
    out
}

fn write_canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String((*k).clone()).to_string());
                out.push(':');
                if let Some(val) = map.get(*k) {
                    write_canonical(val, out);
                }
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn canonical_json_sorts_keys_at_every_depth() {
        let v = serde_json::json!({"b": 1, "a": {"d": [2, {"z": 0, "y": 1}], "c": "x"}});
        assert_eq!(
            canonical_json(&v),
            r#"{"a":{"c":"x","d":[2,{"y":1,"z":0}]},"b":1}"#
        );
    }

    #[test]
    fn hash_chains_to_previous_event() {
        let t = Utc.with_ymd_and_hms(2026, 11, 22, 5, 0, 0).unwrap();
        let id = Uuid::nil();
        let e1 = StoredEvent::new(
            id,
            1,
            &Event::SeatTaken {
                seat: 1,
                player_id: id,
                client_seed: None,
            },
            t,
            "",
        );
        let e2 = StoredEvent::new(
            id,
            2,
            &Event::MovePlayed {
                seat: 0,
                mv: serde_json::json!({"x": 1}),
            },
            t,
            &e1.hash,
        );
        assert_eq!(e2.chain_hash(&e1.hash), e2.hash);
        assert_ne!(e2.chain_hash(""), e2.hash);
        let mut tampered = e2.clone();
        tampered.payload = serde_json::json!({"seat": 0, "move": {"x": 2}});
        assert_ne!(tampered.chain_hash(&e1.hash), e2.hash);
    }

    #[test]
    fn events_round_trip_through_kind_and_payload() {
        let e = Event::DiceRolled {
            seat: 1,
            die: "d6".into(),
            values: vec![3, 5],
            index: 7,
        };
        assert_eq!(e.kind(), "dice_rolled");
        assert_eq!(Event::from_parts(e.kind(), &e.payload()).unwrap(), e);
    }
}
