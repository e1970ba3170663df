//! A tournament as stored: its events, hash-chained like a game's, and its read model.
//! What the events say is the service's (`worp_service::tournaments`); the pairing
//! rules are the crate `worp-tournament`'s.
//!
//! An event's hash is SHA-256 over the previous event's hash (its hex text; empty for the
//! first event) followed by its canonical bytes: the lines `tournament_id`, `seq`,
//! `kind`, `recorded_at` (RFC 3339, microseconds, `Z`) and the payload's text, each
//! ended by a newline.

use chrono::{DateTime, SecondsFormat, Utc};
use sha2::{Digest, Sha256};
use uuid::Uuid;

/// One stored event of a tournament.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TournamentEventRow {
    pub tournament_id: Uuid,
    /// 1, 2, 3, … without gaps.
    pub seq: i64,
    pub kind: String,
    /// The payload's JSON text, as the hash covers it.
    pub payload: String,
    pub recorded_at: DateTime<Utc>,
    pub hash: String,
}

impl TournamentEventRow {
    /// The event `seq` of `tournament_id`, chained to `previous_hash`.
    pub fn new(
        tournament_id: Uuid,
        seq: i64,
        kind: &str,
        payload: String,
        recorded_at: DateTime<Utc>,
        previous_hash: &str,
    ) -> Self {
        // Stored times keep microseconds: the hash covers what is read back.
        let recorded_at =
            DateTime::from_timestamp_micros(recorded_at.timestamp_micros()).unwrap_or(recorded_at);
        let hash = chain_hash(
            previous_hash,
            tournament_id,
            seq,
            kind,
            &payload,
            recorded_at,
        );
        TournamentEventRow {
            tournament_id,
            seq,
            kind: kind.to_owned(),
            payload,
            recorded_at,
            hash,
        }
    }

    /// Whether the stored hash is the one its fields and `previous_hash` give.
    pub fn hash_holds(&self, previous_hash: &str) -> bool {
        self.hash
            == chain_hash(
                previous_hash,
                self.tournament_id,
                self.seq,
                &self.kind,
                &self.payload,
                self.recorded_at,
            )
    }
}

/// The hex SHA-256 of `previous_hash` followed by the event's canonical bytes.
pub fn chain_hash(
    previous_hash: &str,
    tournament_id: Uuid,
    seq: i64,
    kind: &str,
    payload: &str,
    recorded_at: DateTime<Utc>,
) -> String {
    let mut h = Sha256::new();
    h.update(previous_hash.as_bytes());
    for line in [
        tournament_id.to_string().as_str(),
        seq.to_string().as_str(),
        kind,
        recorded_at
            .to_rfc3339_opts(SecondsFormat::Micros, true)
            .as_str(),
        payload,
    ] {
        h.update(line.as_bytes());
        h.update(b"\n");
    }
    hex::encode(h.finalize())
}

/// The `tournaments` row of a tournament: what listings read without its log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TournamentRow {
    pub id: Uuid,
    pub name: String,
    pub variant: String,
    /// `registering`, `running` or `finished`.
    pub status: String,
    pub created_by: Uuid,
    pub version: i64,
    /// The tournament's view as JSON text.
    pub summary: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A game of a tournament: its round and table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TournamentGame {
    pub game_id: Uuid,
    pub tournament_id: Uuid,
    pub round: u32,
    pub table: u32,
}

/// A change of a tournament: its new events (written only if its log ends at
/// `expected_version`), its new row, and the games its new round pairs.
#[derive(Debug, Clone)]
pub struct TournamentAppend {
    pub expected_version: i64,
    pub events: Vec<TournamentEventRow>,
    pub row: TournamentRow,
    pub games: Vec<TournamentGame>,
}
