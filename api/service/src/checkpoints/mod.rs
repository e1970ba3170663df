//! Historical states of games, apart from the live ones: checkpoints every
//! [`CHECKPOINT_EVERY`] events and the last few states a reader visited.
//!
//! They are made only as a side effect of replays (a cold load, `state?at=N`): a table
//! folded past event 64, 128, … is kept here as a checkpoint, so the next replay of that
//! game starts at the nearest checkpoint at or before where it must end, and reads and
//! folds at most the events after it: `state?at=N` costs O(K + events since the
//! checkpoint), not O(N). `state?at=N` folds on to the next checkpoint and keeps the
//! other states of that stretch too, so a reader walking a game state by state (the web
//! client's replay slider), either way, finds the next states kept: one query and one
//! fold per 64 states.
//!
//! Everything here is derived and in memory (a checkpoint every 256 events of each game
//! is also kept in the database, [`stored`], for folds after a restart): a table is a copy
//! of what folding the log from event 1 gave (the log is append-only, so the state right after event `v`
//! never changes), and emptying this cache changes no answer, only its cost. It is
//! bounded by its own count of tables, separate from the cache of live games
//! (`cache.rs`), so scrubbing old states never evicts a live game.

pub mod stored;

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use lru::LruCache;
use uuid::Uuid;

use worp_domain::table::Table;

/// A checkpoint is kept after every this many events of a game.
pub const CHECKPOINT_EVERY: i64 = 64;

/// The states kept per game that are not checkpoints: the stretch between two
/// checkpoints a reader visited.
const RECENT_PER_GAME: usize = CHECKPOINT_EVERY as usize;

/// Whether the state right after event `version` is a checkpoint.
pub fn is_checkpoint(version: i64) -> bool {
    version > 0 && version % CHECKPOINT_EVERY == 0
}

/// The first checkpoint at or after event `version` (`i64::MAX` past the last one: a
/// version from a request may be any number).
pub fn next_checkpoint(version: i64) -> i64 {
    let below = version.div_euclid(CHECKPOINT_EVERY) * CHECKPOINT_EVERY;
    if version.rem_euclid(CHECKPOINT_EVERY) == 0 {
        below
    } else {
        below.saturating_add(CHECKPOINT_EVERY)
    }
}

/// The historical states of games, least recently used games dropped first.
#[derive(Debug)]
pub struct Checkpoints {
    inner: Mutex<Inner>,
}

#[derive(Debug)]
struct Inner {
    games: LruCache<Uuid, History>,
    /// Tables held, over all games.
    tables: usize,
    capacity: usize,
}

/// One game's historical states.
#[derive(Debug, Default)]
struct History {
    checkpoints: BTreeMap<i64, Arc<Table>>,
    /// Oldest first.
    recent: VecDeque<Arc<Table>>,
}

impl History {
    fn len(&self) -> usize {
        self.checkpoints.len() + self.recent.len()
    }

    /// The newest state at or before `at`.
    fn nearest(&self, at: i64) -> Option<&Arc<Table>> {
        let checkpoint = self.checkpoints.range(..=at).next_back().map(|(_, t)| t);
        let recent = self
            .recent
            .iter()
            .filter(|t| t.version <= at)
            .max_by_key(|t| t.version);
        match (checkpoint, recent) {
            (Some(c), Some(r)) if r.version > c.version => Some(r),
            (Some(c), _) => Some(c),
            (None, r) => r,
        }
    }

    /// Keeps `table`; returns how many tables more the history holds (0 or 1).
    fn keep(&mut self, table: Arc<Table>) -> usize {
        let version = table.version;
        if is_checkpoint(version) {
            return usize::from(self.checkpoints.insert(version, table).is_none());
        }
        if let Some(i) = self.recent.iter().position(|t| t.version == version) {
            // Visited again: now the most recent.
            self.recent.remove(i);
            self.recent.push_back(table);
            return 0;
        }
        self.recent.push_back(table);
        if self.recent.len() > RECENT_PER_GAME {
            self.recent.pop_front();
            return 0;
        }
        1
    }

    /// Drops one table (a visited state first, then the oldest checkpoint).
    fn shed(&mut self) -> bool {
        self.recent.pop_front().is_some() || self.checkpoints.pop_first().is_some()
    }
}

impl Checkpoints {
    /// Holding at most `capacity` tables (at least 1).
    pub fn new(capacity: usize) -> Self {
        Checkpoints {
            inner: Mutex::new(Inner {
                games: LruCache::unbounded(),
                tables: 0,
                capacity: capacity.max(1),
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The newest state of `game` kept here right after event `at` or before it.
    pub fn nearest(&self, game: Uuid, at: i64) -> Option<Arc<Table>> {
        self.lock().games.get(&game)?.nearest(at).cloned()
    }

    /// Keeps `table`: as a checkpoint if its version is one, else as a visited state.
    pub fn keep(&self, table: Arc<Table>) {
        let mut inner = self.lock();
        let game = table.id;
        let added = inner
            .games
            .get_or_insert_mut(game, History::default)
            .keep(table);
        inner.tables += added;
        while inner.tables > inner.capacity {
            let Some((oldest, mut history)) = inner.games.pop_lru() else {
                inner.tables = 0;
                break;
            };
            if oldest != game {
                inner.tables -= history.len();
                continue;
            }
            // Only this game is left and it alone is over the bound: it loses its
            // oldest states.
            while inner.tables > inner.capacity && history.shed() {
                inner.tables -= 1;
            }
            inner.games.put(game, history);
            break;
        }
    }

    /// How many tables are kept, over all games.
    pub fn len(&self) -> usize {
        self.lock().tables
    }

    /// Nothing is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The most tables kept.
    pub fn capacity(&self) -> usize {
        self.lock().capacity
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_next_checkpoint_of_any_version_is_found_without_overflow() {
        assert_eq!(next_checkpoint(1), CHECKPOINT_EVERY);
        assert_eq!(next_checkpoint(CHECKPOINT_EVERY), CHECKPOINT_EVERY);
        assert_eq!(next_checkpoint(i64::MAX - 1), i64::MAX);
        assert_eq!(next_checkpoint(i64::MAX), i64::MAX);
    }

    use super::*;
    use worp_domain::events::{Event, EventRow};

    /// A table of game `game` that says it is at `version` (only the id and the version
    /// matter here).
    fn table(game: u128, version: i64) -> Arc<Table> {
        let created = Event::GameCreated {
            variant: "backgammon".into(),
            options: serde_json::Value::Null,
            seats: vec![None, None],
            invited: Vec::new(),
            client_seeds: Vec::new(),
            bots: Vec::new(),
            days_per_move: None,
            dice_commitment: String::new(),
            created_by: Uuid::nil(),
            rated: false,
            public_chat: false,
            tournament: None,
        };
        let e = EventRow::new(Uuid::from_u128(game), 1, &created, chrono::Utc::now(), "")
            .expect("an event serialises")
            .event;
        let mut t = Table::from_events(&[e]).expect("a new game");
        t.version = version;
        Arc::new(t)
    }

    fn version(kept: Option<Arc<Table>>) -> Option<i64> {
        kept.map(|t| t.version)
    }

    #[test]
    fn the_nearest_state_is_the_newest_at_or_before() {
        let c = Checkpoints::new(100);
        for v in [64, 128, 130, 131] {
            c.keep(table(1, v));
        }
        let game = Uuid::from_u128(1);
        assert_eq!(version(c.nearest(game, 63)), None);
        assert_eq!(version(c.nearest(game, 64)), Some(64));
        assert_eq!(version(c.nearest(game, 129)), Some(128));
        assert_eq!(version(c.nearest(game, 130)), Some(130));
        assert_eq!(version(c.nearest(game, 1000)), Some(131));
        assert_eq!(version(c.nearest(Uuid::from_u128(2), 1000)), None);
        // Keeping a state again counts it once.
        c.keep(table(1, 130));
        c.keep(table(1, 64));
        assert_eq!(c.len(), 4);
    }

    #[test]
    fn a_game_keeps_one_stretch_of_states_besides_its_checkpoints() {
        let c = Checkpoints::new(1000);
        for v in 1..=200 {
            c.keep(table(1, v));
        }
        // Checkpoints 64, 128, 192; the last 64 other states: 136..=200 less 192.
        assert_eq!(c.len(), 3 + RECENT_PER_GAME);
        let game = Uuid::from_u128(1);
        assert_eq!(version(c.nearest(game, 135)), Some(128));
        assert_eq!(version(c.nearest(game, 136)), Some(136));
        assert_eq!(version(c.nearest(game, 100)), Some(64));
    }

    #[test]
    fn the_least_recently_used_game_goes_first_and_the_bound_holds() {
        let c = Checkpoints::new(3);
        c.keep(table(1, 64));
        c.keep(table(1, 128));
        c.keep(table(2, 64));
        // Game 1 was used last: game 2 goes when game 3 arrives.
        assert!(c.nearest(Uuid::from_u128(1), 64).is_some());
        c.keep(table(3, 64));
        assert_eq!(c.len(), 3);
        assert!(c.nearest(Uuid::from_u128(2), 64).is_none());
        assert!(c.nearest(Uuid::from_u128(1), 128).is_some());
        assert!(c.nearest(Uuid::from_u128(3), 64).is_some());
        // One game alone over the bound loses its oldest states, not its newest.
        for v in [192, 256, 320] {
            c.keep(table(3, v));
        }
        assert_eq!(c.len(), 3);
        assert_eq!(version(c.nearest(Uuid::from_u128(3), 200)), Some(192));
        assert_eq!(version(c.nearest(Uuid::from_u128(3), 100)), None);
        assert!(c.nearest(Uuid::from_u128(1), 128).is_none());
    }

    #[test]
    fn the_next_checkpoint_is_at_or_after() {
        assert_eq!(next_checkpoint(1), CHECKPOINT_EVERY);
        assert_eq!(next_checkpoint(CHECKPOINT_EVERY), CHECKPOINT_EVERY);
        assert_eq!(next_checkpoint(CHECKPOINT_EVERY + 1), 2 * CHECKPOINT_EVERY);
        assert!(!is_checkpoint(0) && is_checkpoint(CHECKPOINT_EVERY));
    }
}
