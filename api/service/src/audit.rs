//! Checking a game's log without trusting whoever stored it: the hash chain, the
//! sequence, every roll against the revealed seed, every move against the rules, and
//! every vacation (a seat with a player, an `until` after its start, an end only after a
//! start, none in a finished game): the clock is a fold of the log, so the replay gives
//! the deadline after every event.

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use worp_domain::dice;
use worp_domain::events::{Event, StoredEvent};
use worp_domain::table::Table;

/// What an audit found.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct AuditReport {
    /// Events checked.
    pub events: usize,
    /// Dice values recomputed from the revealed seed (0 while the seed is secret).
    pub rolls_verified: usize,
    /// Moves replayed through the engine.
    pub moves_replayed: usize,
    /// Whether the server seed was revealed (the game is finished).
    pub seed_revealed: bool,
    /// The result the log ends with, if the game is over.
    pub result: Option<worp_engine::GameResult>,
    /// Vacations' starts and ends checked (`vacation_started`, `vacation_ended`).
    pub vacation_events: usize,
    /// When the seat to move runs out of time, as the log alone gives it (paused
    /// clocks included); absent without a clock or a seat to move.
    #[serde(serialize_with = "worp_domain::clock::rfc3339_option")]
    pub deadline: Option<DateTime<Utc>>,
}

/// The first broken link.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("event {seq}: {reason}")]
pub struct AuditError {
    pub seq: i64,
    pub reason: String,
}

fn broken(seq: i64, reason: impl Into<String>) -> AuditError {
    AuditError {
        seq,
        reason: reason.into(),
    }
}

/// Checks a whole log, in order, and stops at the first broken link.
pub fn audit(events: &[StoredEvent]) -> Result<AuditReport, AuditError> {
    let first = events
        .first()
        .ok_or_else(|| broken(1, "the log is empty"))?;
    // The seed, if revealed, is in the final event; check it against the commitment first.
    let seed = match events.last().map(StoredEvent::event) {
        Some(Ok(Event::GameFinished { server_seed, .. })) => Some(
            hex::decode(&server_seed)
                .map_err(|_| broken(events.len() as i64, "the revealed seed is not hex"))?,
        ),
        _ => None,
    };
    let mut prev_hash = String::new();
    let mut table: Option<Table> = None;
    let mut report = AuditReport {
        events: 0,
        rolls_verified: 0,
        moves_replayed: 0,
        seed_revealed: seed.is_some(),
        result: None,
        vacation_events: 0,
        deadline: None,
    };
    for (i, e) in events.iter().enumerate() {
        let expected_seq = i as i64 + 1;
        if e.seq != expected_seq {
            return Err(broken(e.seq, format!("expected sequence {expected_seq}")));
        }
        if e.game_id != first.game_id {
            return Err(broken(e.seq, "belongs to another game"));
        }
        // The rules versions that exist are 1 to this engine's.
        if !(1..=i64::from(worp_engine::RULES_VERSION)).contains(&i64::from(e.rules_version)) {
            return Err(broken(
                e.seq,
                format!(
                    "rules version {} does not exist (this engine knows 1 to {})",
                    e.rules_version,
                    worp_engine::RULES_VERSION
                ),
            ));
        }
        if e.chain_hash(&prev_hash) != e.hash {
            return Err(broken(
                e.seq,
                "the hash does not match the event and its predecessor",
            ));
        }
        let event = e
            .event()
            .map_err(|err| broken(e.seq, format!("unreadable: {err}")))?;
        match (&mut table, &event) {
            (
                None,
                Event::GameCreated {
                    dice_commitment, ..
                },
            ) => {
                if let Some(seed) = &seed {
                    if dice::commitment(seed) != *dice_commitment {
                        return Err(broken(
                            events.len() as i64,
                            "the revealed seed does not match the dice commitment",
                        ));
                    }
                }
                table = Some(
                    Table::from_events(std::slice::from_ref(e))
                        .map_err(|err| broken(e.seq, err.to_string()))?,
                );
            }
            (None, _) => return Err(broken(e.seq, "the first event must be game_created")),
            (Some(t), _) => {
                if let (Some(seed), Event::DiceRolled { values, index, .. }) = (&seed, &event) {
                    let worp_engine::Awaiting::Dice { die, .. } = t.game.awaiting() else {
                        return Err(broken(e.seq, "dice were rolled when none were awaited"));
                    };
                    let seeds = t.client_seeds();
                    for (k, v) in values.iter().enumerate() {
                        let expected = dice::roll(seed, &seeds, index + k as u64, &die);
                        if expected != *v {
                            return Err(broken(
                                e.seq,
                                format!(
                                    "die {} shows {v}; the seed gives {expected}",
                                    index + k as u64
                                ),
                            ));
                        }
                        report.rolls_verified += 1;
                    }
                }
                match event {
                    Event::MovePlayed { .. } => report.moves_replayed += 1,
                    Event::VacationStarted { .. } | Event::VacationEnded { .. } => {
                        report.vacation_events += 1;
                    }
                    _ => {}
                }
                t.apply(e).map_err(|err| broken(e.seq, err.to_string()))?;
            }
        }
        prev_hash = e.hash.clone();
        report.events += 1;
    }
    if let Some(t) = &table {
        if seed.is_some() && t.result.is_none() {
            return Err(broken(
                events.len() as i64,
                "the seed is revealed but the game is not over",
            ));
        }
        report.result = t.result.clone();
        report.deadline = t.deadline();
    }
    Ok(report)
}
