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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// The game was created. Only the SHA-256 of the server's dice seed is published.
    GameCreated {
        variant: String,
        /// The options with every default filled in.
        options: Value,
        /// The player of each seat; `null` for an open (or reserved) seat.
        seats: Vec<Option<Uuid>>,
        /// The player each seat is reserved for until they accept or decline (`null`:
        /// not reserved).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        invited: Vec<Option<Uuid>>,
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
        /// Whether the result changes the players' ratings (absent: no; games created
        /// before ratings existed were not announced as rated).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        rated: bool,
        /// Whether anyone may read the players' messages (absent: only the players).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        public_chat: bool,
    },
    /// A seated player wrote a message. The chain covers `text_sha256`, not `text`, so a
    /// reader the text is withheld from (a spectator, unless the chat is public) still
    /// verifies the whole chain, and a player checks the text against its hash.
    MessagePosted {
        seat: u8,
        /// Absent where it is withheld from the reader.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// Hex SHA-256 of the text's UTF-8 bytes.
        text_sha256: String,
    },
    /// A player took an open seat, or the seat reserved for them (accepting the invitation).
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
    /// The player a seat was reserved for declined: the seat is open again.
    InvitationDeclined { seat: u8, player_id: Uuid },
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
            Event::InvitationDeclined { .. } => "invitation_declined",
            Event::DiceRolled { .. } => "dice_rolled",
            Event::MovePlayed { .. } => "move_played",
            Event::SeatRetired { .. } => "seat_retired",
            Event::MessagePosted { .. } => "message_posted",
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

    /// The canonical bytes that are hashed: written field by field (the keys in sorted
    /// order), without building a JSON tree first.
    pub fn canonical_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(160 + 2 * self.kind.len());
        out.extend_from_slice(b"{\"game_id\":\"");
        out.extend_from_slice(
            self.game_id
                .hyphenated()
                .encode_lower(&mut Uuid::encode_buffer())
                .as_bytes(),
        );
        out.extend_from_slice(b"\",\"payload\":");
        match (self.kind.as_str(), &self.payload) {
            // A message's text is outside the chain (its hash is inside).
            ("message_posted", Value::Object(map)) if map.contains_key("text") => {
                let mut without = map.clone();
                without.remove("text");
                write_canonical(&Value::Object(without), &mut out);
            }
            _ => write_canonical(&self.payload, &mut out),
        }
        out.extend_from_slice(b",\"recorded_at\":\"");
        out.extend_from_slice(format_time(&self.recorded_at).as_bytes());
        out.extend_from_slice(b"\",\"rules_version\":");
        out.extend_from_slice(self.rules_version.to_string().as_bytes());
        out.extend_from_slice(b",\"seq\":");
        out.extend_from_slice(self.seq.to_string().as_bytes());
        out.extend_from_slice(b",\"type\":");
        // Writing into a Vec cannot fail.
        let _ = serde_json::to_writer(&mut out, &self.kind);
        out.push(b'}');
        out
    }

    /// SHA-256(previous hash bytes || canonical bytes), hex. An empty or malformed
    /// `prev_hash` counts as 32 zero bytes (the start of the chain).
    pub fn chain_hash(&self, prev_hash: &str) -> String {
        let mut prev = [0u8; 32];
        if hex::decode_to_slice(prev_hash, &mut prev).is_err() {
            prev = [0u8; 32];
        }
        let mut h = Sha256::new();
        h.update(prev);
        h.update(self.canonical_bytes());
        hex::encode(h.finalize())
    }
}

/// The time format of canonical bytes: RFC 3339, microseconds, `Z`.
pub fn format_time(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Micros, true)
}

/// Writes `v` as canonical JSON: object keys sorted, no white space; strings and numbers
/// exactly as serde_json writes them.
pub fn write_canonical(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Object(map) => {
            out.push(b'{');
            // serde_json's map iterates in key order unless its `preserve_order` feature
            // is on somewhere in the build: sort only then.
            if map.keys().is_sorted() {
                for (i, (k, val)) in map.iter().enumerate() {
                    write_member(i, k, val, out);
                }
            } else {
                let mut members: Vec<(&String, &Value)> = map.iter().collect();
                members.sort_by(|a, b| a.0.cmp(b.0));
                for (i, (k, val)) in members.into_iter().enumerate() {
                    write_member(i, k, val, out);
                }
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_canonical(item, out);
            }
            out.push(b']');
        }
        // Writing into a Vec cannot fail, and a scalar always serialises.
        scalar => {
            let _ = serde_json::to_writer(&mut *out, scalar);
        }
    }
}

fn write_member(i: usize, key: &str, val: &Value, out: &mut Vec<u8>) {
    if i > 0 {
        out.push(b',');
    }
    let _ = serde_json::to_writer(&mut *out, key);
    out.push(b':');
    write_canonical(val, out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn canonical_bytes_sort_keys_at_every_depth() {
        let v = serde_json::json!({"b": 1, "a": {"d": [2, {"z": 0, "y": 1}], "c": "x"}});
        let mut out = Vec::new();
        write_canonical(&v, &mut out);
        assert_eq!(out, br#"{"a":{"c":"x","d":[2,{"y":1,"z":0}]},"b":1}"#);
    }

    /// The canonical bytes by their definition: a JSON object built with every
    /// field, then written with keys sorted. The streaming writer must match it byte for
    /// byte, or stored chains and exported games would stop verifying.
    fn reference_canonical_bytes(e: &StoredEvent) -> Vec<u8> {
        fn write(v: &Value, out: &mut String) {
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
                        write(&map[k.as_str()], out);
                    }
                    out.push('}');
                }
                Value::Array(items) => {
                    out.push('[');
                    for (i, item) in items.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        write(item, out);
                    }
                    out.push(']');
                }
                other => out.push_str(&other.to_string()),
            }
        }
        let v = serde_json::json!({
            "game_id": e.game_id.to_string(),
            "seq": e.seq,
            "type": e.kind,
            "payload": e.payload,
            "rules_version": e.rules_version,
            "recorded_at": format_time(&e.recorded_at),
        });
        let mut out = String::new();
        write(&v, &mut out);
        out.into_bytes()
    }

    #[test]
    fn canonical_bytes_match_the_reference_definition() {
        let t = Utc.with_ymd_and_hms(2026, 11, 22, 5, 0, 0).unwrap()
            + chrono::Duration::microseconds(123_456);
        let id = Uuid::from_u128(0x0123_4567_89ab_cdef_0123_4567_89ab_cdef);
        let payloads = [
            serde_json::json!({}),
            serde_json::json!({"seat": 0, "move": {"steps": [{"from": 24, "to": 18}]}}),
            serde_json::json!({"z": -1, "a": 1.5, "m": [true, false, null, "é\"\\\n\u{1}"]}),
            serde_json::json!({"name": "Ünïcødé 🎲", "deep": {"b": {"d": 1, "c": [{"y": 2, "x": 3}]}}}),
            serde_json::json!({"big": u64::MAX, "neg": i64::MIN, "tiny": 1e-300}),
        ];
        for (n, payload) in payloads.into_iter().enumerate() {
            let mut e = StoredEvent::new(
                id,
                n as i64 + 1,
                &Event::MovePlayed {
                    seat: 0,
                    mv: Value::Null,
                },
                t,
                "",
            );
            e.payload = payload;
            e.kind = format!("kind_{n}_\"quoted\"");
            assert_eq!(
                String::from_utf8_lossy(&e.canonical_bytes()),
                String::from_utf8_lossy(&reference_canonical_bytes(&e)),
            );
        }
    }

    #[test]
    fn the_first_hash_of_a_chain_is_pinned() {
        // Computed independently (Python: sha256(32 zero bytes + json.dumps(sort_keys=True,
        // separators=(",", ":")))); guards the format for good.
        let t = Utc.with_ymd_and_hms(2026, 11, 22, 5, 0, 0).unwrap();
        let e = StoredEvent::new(
            Uuid::nil(),
            1,
            &Event::SeatTaken {
                seat: 1,
                player_id: Uuid::nil(),
                client_seed: None,
            },
            t,
            "",
        );
        assert_eq!(e.hash, PINNED_FIRST_HASH);
    }

    const PINNED_FIRST_HASH: &str =
        "b2ef4682bf8ce8c984d57e632813877a219d39ec46b4dfb3d849672d8c242ecc";

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
