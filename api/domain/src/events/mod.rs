//! The events of a game: what each one says, and how they chain.
//!
//! An event is stored as a kind (`game_created`, `dice_rolled`, …) and a JSON payload.
//! Its hash is SHA-256 over the previous event's hash (32 zero bytes for the first
//! event) followed by the event's canonical bytes: the JSON object
//! `{game_id, seq, type, payload, rules_version, recorded_at}` with object keys sorted,
//! no white space, and `recorded_at` in RFC 3339 with microseconds and `Z`.

use chrono::{DateTime, SecondsFormat, Utc};
use serde::de::value::MapDeserializer;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use utoipa::ToSchema;
use uuid::Uuid;
use worp_engine::GameResult;

use crate::bots::BotKind;

mod row;
pub use row::EventRow;

/// What happened in a game, one fact per event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// The game was created. Only the SHA-256 of the server's dice seed is published.
    GameCreated {
        variant: String,
        /// The options as the rules store them: each default written out, but for those
        /// that follow other options or the seats (left out or `null` when not given).
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
        /// The tournament table this game is (absent: not a tournament's game).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tournament: Option<TournamentTable>,
    },
    /// A seated player wrote a message. The chain covers `text_sha256`, not `text` or
    /// `salt`, so a reader they are withheld from (a spectator, unless the chat is
    /// public) still verifies the whole chain, and a player checks the text against
    /// its commitment. The salt, fresh and random for each message, keeps a withheld
    /// text from being guessed back from its hash ("gg", "thanks").
    MessagePosted {
        seat: u8,
        /// Absent where it is withheld from the reader.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// Hex of 16 random bytes; withheld with the text. Absent in messages written
        /// before salts were (their commitment is of the text alone).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        salt: Option<String>,
        /// Hex SHA-256 of the salt's bytes followed by the text's UTF-8 bytes (of the
        /// text's bytes alone where there is no salt).
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
    /// The player of a seat went on vacation until `until`: while it lasts the seat's
    /// clock is paused (docs/vacation.md). Recorded in each unfinished game with a clock
    /// where the player holds a seat that has not retired, when the vacation starts or
    /// the seat is taken during it.
    VacationStarted {
        seat: u8,
        /// When the vacation ends at the latest (RFC 3339); after the event's time.
        #[serde(serialize_with = "crate::clock::rfc3339")]
        until: DateTime<Utc>,
    },
    /// The vacation of a seat's player ended (at its `until`, or early): the time the seat
    /// had left runs again from this event's time.
    VacationEnded { seat: u8 },
    /// The game is over; the server seed is revealed so anyone can recompute every roll.
    GameFinished {
        result: GameResult,
        server_seed: String,
    },
}

/// Where a tournament's game is played: the tournament, its round and its table
/// (`docs/tournaments.md`). The tournament's log names the game the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TournamentTable {
    pub tournament_id: Uuid,
    pub round: u32,
    pub table: u32,
}

/// Why a seat left a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RetireReason {
    Resigned,
    TimedOut,
}

/// The commitment to a message's `text` that the chain covers: hex SHA-256 of the
/// salt's bytes then the text's (of the text alone without a salt). `None` when the
/// salt is not hex.
pub fn message_commitment(salt: Option<&str>, text: &str) -> Option<String> {
    let mut h = Sha256::new();
    if let Some(salt) = salt {
        h.update(hex::decode(salt).ok()?);
    }
    h.update(text.as_bytes());
    Some(hex::encode(h.finalize()))
}

impl Event {
    /// Whether the event changes the game's state (its board, seats, dice or result).
    /// A message does not, nor does a vacation's start or end: they move the game's
    /// version, never its board, so they make no move stale (and restart no clock).
    pub fn changes_the_game(&self) -> bool {
        !matches!(
            self,
            Event::MessagePosted { .. }
                | Event::VacationStarted { .. }
                | Event::VacationEnded { .. }
        )
    }

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
            Event::VacationStarted { .. } => "vacation_started",
            Event::VacationEnded { .. } => "vacation_ended",
            Event::GameFinished { .. } => "game_finished",
        }
    }

    /// The payload: the event's fields without its kind; an error if they do not
    /// serialise.
    pub fn payload(&self) -> Result<Value, serde_json::Error> {
        let mut v = serde_json::to_value(self)?;
        if let Value::Object(map) = &mut v {
            map.remove("type");
        }
        Ok(v)
    }

    /// Reads an event back from its kind and payload: the payload's fields (a payload
    /// that is not an object has none) with the kind as `type`, which a `type` field of
    /// the payload does not override. The fields are read where they lie, not copied
    /// (audits, exports and the rating book read stored events this way; folds read
    /// the payload's text, [`Event::from_text`]).
    pub fn from_parts(kind: &str, payload: &Value) -> Result<Event, serde_json::Error> {
        let kind = Value::String(kind.to_owned());
        let fields = match payload {
            Value::Object(m) => Some(m),
            _ => None,
        };
        let entries = std::iter::once(("type", &kind)).chain(
            fields
                .into_iter()
                .flatten()
                .filter(|(key, _)| key.as_str() != "type")
                .map(|(key, value)| (key.as_str(), value)),
        );
        Event::deserialize(MapDeserializer::<_, serde_json::Error>::new(entries))
    }

    /// [`Event::from_parts`] of a payload given as its JSON text, without building its
    /// tree: the text is read as one object with the kind put first as `type`. Where
    /// that reading is refused (a payload that is not an object, or has a `type` or any
    /// field twice), the text is read as `from_parts` reads it, so both always agree.
    pub fn from_text(kind: &str, payload: &str) -> Result<Event, serde_json::Error> {
        let fields = payload.trim_start().strip_prefix('{').map(str::trim_start);
        if let Some(fields) = fields {
            let mut object = String::with_capacity(payload.len() + kind.len() + 12);
            object.push_str("{\"type\":");
            object.push_str(&serde_json::to_string(kind)?);
            if !fields.starts_with('}') {
                object.push(',');
            }
            object.push_str(fields);
            if let Ok(event) = serde_json::from_str(&object) {
                return Ok(event);
            }
        }
        Event::from_parts(kind, &serde_json::from_str(payload)?)
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
    #[serde(serialize_with = "crate::clock::rfc3339")]
    pub recorded_at: DateTime<Utc>,
    /// Hex SHA-256 chaining this event to the previous one of its game.
    pub hash: String,
}

/// An event of the log as a fold reads it, raw: its place in the chain, and its payload as
/// the JSON text stored (decoded by the fold, [`Event::from_text`], never built into a
/// tree). Reading a long game's log this way costs a fraction of [`StoredEvent`]'s.
#[derive(Debug, Clone)]
pub struct RawEvent {
    pub game_id: Uuid,
    /// 1, 2, 3, … within the game.
    pub seq: i64,
    /// The event type, e.g. `dice_rolled`.
    pub kind: String,
    /// The payload, as stored.
    pub payload: Box<serde_json::value::RawValue>,
    pub recorded_at: DateTime<Utc>,
    /// Hex SHA-256 chaining this event to the previous one of its game.
    pub hash: String,
}

/// An event as a fold of the log reads it ([`crate::table::Table`]): its place in the
/// chain and what it says. A [`StoredEvent`] (its payload a tree) or a [`RawEvent`]
/// (its payload the text stored).
pub trait LogEntry {
    fn game_id(&self) -> Uuid;
    fn seq(&self) -> i64;
    fn hash(&self) -> &str;
    fn recorded_at(&self) -> DateTime<Utc>;
    /// The event's fields, decoded.
    fn event(&self) -> Result<Event, serde_json::Error>;
}

/// [`LogEntry`] for an event type with the fields `game_id`, `seq`, `hash` and
/// `recorded_at`, its payload decoded by `$decode`.
macro_rules! log_entry {
    ($Type:ty, $decode:expr) => {
        impl LogEntry for $Type {
            fn game_id(&self) -> Uuid {
                self.game_id
            }
            fn seq(&self) -> i64 {
                self.seq
            }
            fn hash(&self) -> &str {
                &self.hash
            }
            fn recorded_at(&self) -> DateTime<Utc> {
                self.recorded_at
            }
            fn event(&self) -> Result<Event, serde_json::Error> {
                $decode(self)
            }
        }
    };
}

log_entry!(RawEvent, |e: &RawEvent| Event::from_text(
    &e.kind,
    e.payload.get()
));
log_entry!(StoredEvent, StoredEvent::event);

impl StoredEvent {
    /// The event's fields, decoded.
    pub fn event(&self) -> Result<Event, serde_json::Error> {
        Event::from_parts(&self.kind, &self.payload)
    }

    /// Whether the payload holds a message's text or salt, which the chain does not
    /// cover (its commitment is covered instead).
    pub(crate) fn withholds_text(&self) -> bool {
        self.kind == "message_posted"
            && matches!(&self.payload, Value::Object(map)
                if map.contains_key("text") || map.contains_key("salt"))
    }

    /// The canonical bytes that are hashed: written field by field (the keys in sorted
    /// order), without building a JSON tree first.
    pub fn canonical_bytes(&self) -> Vec<u8> {
        let mut payload = Vec::with_capacity(128);
        match &self.payload {
            // A message's text and salt are outside the chain (its commitment is inside).
            Value::Object(map) if self.withholds_text() => {
                let mut without = map.clone();
                without.remove("text");
                without.remove("salt");
                write_canonical(&Value::Object(without), &mut payload);
            }
            _ => write_canonical(&self.payload, &mut payload),
        }
        self.canonical_bytes_with(&payload)
    }

    /// The canonical bytes of this event with `payload` as its payload's canonical text.
    pub(crate) fn canonical_bytes_with(&self, payload: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(160 + payload.len() + 2 * self.kind.len());
        out.extend_from_slice(b"{\"game_id\":\"");
        out.extend_from_slice(
            self.game_id
                .hyphenated()
                .encode_lower(&mut Uuid::encode_buffer())
                .as_bytes(),
        );
        out.extend_from_slice(b"\",\"payload\":");
        out.extend_from_slice(payload);
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
        chain_hash_over(prev_hash, &self.canonical_bytes())
    }
}

/// SHA-256(previous hash bytes || `canonical`), hex; an empty or malformed `prev_hash`
/// counts as 32 zero bytes.
pub(crate) fn chain_hash_over(prev_hash: &str, canonical: &[u8]) -> String {
    let mut prev = [0u8; 32];
    if hex::decode_to_slice(prev_hash, &mut prev).is_err() {
        prev = [0u8; 32];
    }
    let mut h = Sha256::new();
    h.update(prev);
    h.update(canonical);
    hex_lower(&h.finalize())
}

/// `bytes` as lowercase hex, as `hex::encode` writes them, through a table into a buffer
/// of the right length (`hex::encode` pushes the digits one `char` at a time: some 1,600
/// instructions for a hash, twice a move).
pub fn hex_lower(bytes: &[u8]) -> String {
    let mut text = vec![0u8; bytes.len() * 2];
    // The buffer holds exactly two digits a byte, the one length `encode_to_slice` takes.
    if hex::encode_to_slice(bytes, &mut text).is_err() {
        return hex::encode(bytes);
    }
    String::from_utf8(text).unwrap_or_else(|_| hex::encode(bytes))
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
mod tests;
