//! Checkpoints kept in the database, beside the in-memory ones: the state at each
//! multiple of [`STORED_EVERY`] events of a game (stored once the change that passed it
//! is committed, or by a cold fold that passes it), and the newest state a cold load
//! folded, so that a cold load after a restart, or of a game this process has not kept,
//! folds only the events after the newest, and `state?at=N` only those after the newest
//! at or before N.
//!
//! A stored checkpoint is derived, as the in-memory ones are: a copy of what folding the
//! log gave, which the log never depends on. Its body is the table's own fields and the
//! engine's state JSON, the same text the API shows ([`worp_engine::Game::from_state`]
//! reads it back). A checkpoint that does not fit is ignored, and the game is folded as
//! if there were none: one written under other rules (`rules_version`) or in another
//! layout ([`FORMAT`]), one of another game, one whose state does not read back as the
//! same text, or one whose last event's hash is not the log's at its version (checked by
//! the fold, [`fits_the_log`]). The fold that passes its version stores the right one in
//! its place. A game whose `from_state` is the trait's default, which refuses (a game
//! registered from outside the engine may keep it), reads back no stored state: its
//! folds start from the checkpoints in memory.
//!
//! A stored checkpoint is trusted as the read models are (the database is the server's):
//! one altered by someone who can write the database would make the game go on from the
//! altered state. The audit replays the log from event 1 and never reads a checkpoint,
//! so it then finds every move that broke the rules.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::watch;
use uuid::Uuid;
use worp_engine::json::RawJson;
use worp_engine::GameResult;

use worp_domain::events::{LogEntry, RetireReason, TournamentTable};
use worp_domain::table::{LastDice, MoveClock, SeatInfo, Table};
use worp_store::{Store, StoredCheckpoint};

/// A game's checkpoint is stored each time it passes a multiple of this many events: a
/// cold load, or `state?at=N`, folds at most this many events less one.
pub const STORED_EVERY: i64 = 256;

/// Whether the state right after event `version` is one the store keeps (a multiple of
/// [`STORED_EVERY`]).
pub fn is_stored(version: i64) -> bool {
    version > 0 && version % STORED_EVERY == 0
}

/// The most checkpoints waiting to be stored; one beyond them is left for a later fold.
pub const MOST_WAITING: usize = 10_000;

/// The layout of a body; a body of another layout is ignored (the fold starts from an
/// earlier one, or from the log). 2: with `board_version` and the moves per seat; 3: with
/// the clock of the seat to move and the seats' vacations.
pub const FORMAT: i32 = 3;

/// The rules a checkpoint is written under: the engine's.
pub fn rules_version() -> i32 {
    i32::try_from(worp_engine::RULES_VERSION).unwrap_or(i32::MAX)
}

/// Why a stored checkpoint was not used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unfit {
    #[error("it was written under rules {0}, not these")]
    Rules(i32),
    #[error("its layout is {0}, not {FORMAT}")]
    Format(i32),
    #[error("it is unreadable: {0}")]
    Unreadable(String),
    #[error("it is the checkpoint of game {0}")]
    OtherGame(Uuid),
    #[error("its row says version {row}, its body {body}")]
    Version { row: i64, body: i64 },
    #[error("its state does not read back as the same text")]
    StateChanged,
    #[error("the log has no event {0} with the checkpoint's hash")]
    NotTheLog(i64),
}

/// Everything a [`Table`] holds, its engine game as that game's state JSON.
#[derive(Debug, Serialize, Deserialize)]
struct Body {
    id: Uuid,
    variant: String,
    options: Value,
    seats: Vec<SeatInfo>,
    version: i64,
    board_version: i64,
    head_hash: String,
    dice_commitment: String,
    dice_rolled: u64,
    last_dice: Option<LastDice>,
    result: Option<GameResult>,
    server_seed: Option<String>,
    created_by: Uuid,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    last_move_at: Option<DateTime<Utc>>,
    clock: MoveClock,
    days_per_move: Option<u32>,
    last_retirement: Option<RetireReason>,
    rated: bool,
    public_chat: bool,
    messages: u32,
    last_message_seat: Option<u8>,
    moves: Vec<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tournament: Option<TournamentTable>,
    state: RawJson,
}

/// The checkpoint of `t` as the store writes it.
pub fn stored(t: &Table) -> Result<StoredCheckpoint, serde_json::Error> {
    let body = Body {
        id: t.id,
        variant: t.variant.to_owned(),
        options: t.options.clone(),
        seats: t.seats.clone(),
        version: t.version,
        board_version: t.board_version,
        head_hash: t.head_hash.clone(),
        dice_commitment: t.dice_commitment.clone(),
        dice_rolled: t.dice_rolled,
        last_dice: t.last_dice.clone(),
        result: t.result.clone(),
        server_seed: t.server_seed.clone(),
        created_by: t.created_by,
        created_at: t.created_at,
        updated_at: t.updated_at,
        last_move_at: t.last_move_at,
        clock: t.clock,
        days_per_move: t.days_per_move,
        last_retirement: t.last_retirement,
        rated: t.rated,
        public_chat: t.public_chat,
        messages: t.messages,
        last_message_seat: t.last_message_seat,
        moves: t.moves.clone(),
        tournament: t.tournament,
        state: t.game.state_json().map_err(serde::ser::Error::custom)?,
    };
    Ok(StoredCheckpoint {
        game_id: t.id,
        version: t.version,
        rules_version: rules_version(),
        format: FORMAT,
        body: serde_json::to_string(&body)?,
    })
}

/// The table `c` holds, if it fits game `game` under these rules. Whether it fits the
/// log is for the fold to check ([`fits_the_log`]).
pub fn table(game: Uuid, c: &StoredCheckpoint) -> Result<Table, Unfit> {
    if c.rules_version != rules_version() {
        return Err(Unfit::Rules(c.rules_version));
    }
    if c.format != FORMAT {
        return Err(Unfit::Format(c.format));
    }
    let b: Body = serde_json::from_str(&c.body).map_err(|e| Unfit::Unreadable(e.to_string()))?;
    if b.id != game || c.game_id != game {
        return Err(Unfit::OtherGame(b.id));
    }
    if b.version != c.version || b.version < 1 {
        return Err(Unfit::Version {
            row: c.version,
            body: b.version,
        });
    }
    let variant = worp_engine::variant(&b.variant).map_err(|e| Unfit::Unreadable(e.to_string()))?;
    let engine = variant
        .from_state(b.state.get())
        .map_err(|e| Unfit::Unreadable(e.to_string()))?;
    let state = engine
        .state_json()
        .map_err(|e| Unfit::Unreadable(e.to_string()))?;
    if state.get() != b.state.get() {
        return Err(Unfit::StateChanged);
    }
    Ok(Table {
        id: b.id,
        variant: variant.name,
        options: b.options,
        seats: b.seats,
        game: engine,
        version: b.version,
        board_version: b.board_version,
        head_hash: b.head_hash,
        dice_commitment: b.dice_commitment,
        dice_rolled: b.dice_rolled,
        last_dice: b.last_dice,
        result: b.result,
        server_seed: b.server_seed,
        created_by: b.created_by,
        created_at: b.created_at,
        updated_at: b.updated_at,
        last_move_at: b.last_move_at,
        clock: b.clock,
        days_per_move: b.days_per_move,
        last_retirement: b.last_retirement,
        rated: b.rated,
        public_chat: b.public_chat,
        messages: b.messages,
        last_message_seat: b.last_message_seat,
        moves: b.moves,
        tournament: b.tournament,
    })
}

/// Whether `first`, the log's event at the checkpoint's version, is the one the table
/// was folded to: the same number and the same hash.
pub fn fits_the_log(table: &Table, first: Option<&impl LogEntry>) -> Result<(), Unfit> {
    match first {
        Some(e) if e.seq() == table.version && e.hash() == table.head_hash => Ok(()),
        _ => Err(Unfit::NotTheLog(table.version)),
    }
}

/// The checkpoints waiting to be stored, written one at a time by a task that runs while
/// any wait: off the path of the change or load that made them, and never holding one
/// up. A game's checkpoint at a version already waiting is not queued twice.
#[derive(Debug)]
pub struct Queue {
    waiting: Arc<Mutex<Waiting>>,
    /// `true` while nothing waits and nothing is being written.
    idle: Arc<watch::Sender<bool>>,
}

#[derive(Debug, Default)]
struct Waiting {
    tables: HashMap<(Uuid, i64), Queued>,
    writing: bool,
}

#[derive(Debug)]
struct Queued {
    table: Arc<Table>,
    replace_any: bool,
    at: DateTime<Utc>,
}

fn lock(waiting: &Mutex<Waiting>) -> MutexGuard<'_, Waiting> {
    waiting
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Default for Queue {
    fn default() -> Self {
        Queue {
            waiting: Arc::default(),
            idle: Arc::new(watch::Sender::new(true)),
        }
    }
}

impl Queue {
    /// Queues `table` (made at `at`) to be stored in `store` at its version: in place of
    /// a checkpoint stored there only with `replace_any` (that one did not fit), or when
    /// it was written under other rules or in another layout. Starts the writing task if
    /// it is not running.
    pub fn push(&self, store: &Store, table: Arc<Table>, replace_any: bool, at: DateTime<Utc>) {
        let mut w = lock(&self.waiting);
        let waiting = w.tables.len();
        match w.tables.entry((table.id, table.version)) {
            Entry::Occupied(mut e) => {
                e.get_mut().replace_any |= replace_any;
            }
            Entry::Vacant(e) if waiting < MOST_WAITING => {
                e.insert(Queued {
                    table,
                    replace_any,
                    at,
                });
            }
            Entry::Vacant(_) => {
                tracing::debug!(game = %table.id, "a checkpoint is left for later: {waiting} wait");
                return;
            }
        }
        if !w.writing {
            w.writing = true;
            self.idle.send_replace(false);
            tokio::spawn(write_waiting(
                store.clone(),
                self.waiting.clone(),
                self.idle.clone(),
            ));
        }
    }

    /// Waits until nothing waits to be stored and nothing is being written.
    pub async fn written(&self) {
        let mut idle = self.idle.subscribe();
        // The sender lives as long as `self`: the wait cannot end unanswered.
        let _ = idle.wait_for(|idle| *idle).await;
    }
}

/// Stores the checkpoints waiting, one at a time, until none is left.
async fn write_waiting(store: Store, waiting: Arc<Mutex<Waiting>>, idle: Arc<watch::Sender<bool>>) {
    loop {
        let next = {
            let mut w = lock(&waiting);
            let next = w.tables.keys().next().copied();
            match next.and_then(|id| w.tables.remove(&id)) {
                Some(q) => q,
                None => {
                    w.writing = false;
                    idle.send_replace(true);
                    return;
                }
            }
        };
        let written = match stored(&next.table) {
            Ok(c) => store
                .store_checkpoint(&c, next.at, next.replace_any)
                .await
                .map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        if let Err(e) = written {
            tracing::warn!(
                game = %next.table.id,
                "the checkpoint at event {} was not stored: {e}",
                next.table.version
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_store_keeps_the_state_at_each_multiple_of_the_interval() {
        assert!(!is_stored(0));
        assert!(!is_stored(STORED_EVERY - 1));
        assert!(is_stored(STORED_EVERY));
        assert!(!is_stored(STORED_EVERY + 1));
        assert!(is_stored(3 * STORED_EVERY));
        assert!(!is_stored(-STORED_EVERY));
    }

    #[test]
    fn a_vacation_in_progress_and_the_clock_round_trip() {
        use worp_domain::events::{Event, EventRow};
        let (game, a, b) = (Uuid::from_u128(1), Uuid::from_u128(2), Uuid::from_u128(3));
        let t0 = chrono::Utc::now();
        let created = Event::GameCreated {
            variant: "backgammon".into(),
            options: serde_json::json!({}),
            seats: vec![Some(a), Some(b)],
            invited: Vec::new(),
            client_seeds: Vec::new(),
            bots: Vec::new(),
            days_per_move: Some(3),
            dice_commitment: "00".repeat(32),
            created_by: a,
            rated: false,
            public_chat: false,
            tournament: None,
        };
        let first = EventRow::new(game, 1, &created, t0, "").expect("an event");
        let mut t = Table::from_events(&[first.event]).expect("a game");
        let away = Event::VacationStarted {
            seat: 1,
            until: t0 + chrono::Duration::days(7),
        };
        let second = EventRow::new(
            game,
            2,
            &away,
            t0 + chrono::Duration::hours(5),
            &t.head_hash,
        )
        .expect("an event");
        t.apply(&second.event).expect("a vacation");
        let back = table(game, &stored(&t).expect("stored")).expect("it fits");
        assert_eq!(back.seats, t.seats);
        assert!(back.seats[1].vacation.is_some());
        assert_eq!(back.clock, t.clock);
        assert_eq!(back.deadline(), t.deadline());
        assert_eq!(back.version, 2);
        // A checkpoint of the layout before vacations is not used.
        let mut old = stored(&t).expect("stored");
        old.format = 2;
        assert!(matches!(table(game, &old), Err(Unfit::Format(2))));
    }
}
