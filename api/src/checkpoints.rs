//! Historical states of games, apart from the live ones: checkpoints every
//! [`CHECKPOINT_EVERY`] events and the last few states a reader visited.
//!
//! They are made only as a side effect of replays (a cold load, `state?at=N`): a table
//! folded past event 64, 128, … is kept here as a checkpoint, so the next replay of that
//! game starts at the nearest checkpoint at or before where it must end, and reads and
//! folds at most the events after it: `state?at=N` costs O(K + events since the
//! checkpoint), not O(N). `state?at=N` folds on to the next checkpoint and keeps the
//! states after N too, so a reader walking a game state by state (the web client's replay
//! slider) finds the next states kept: one query and one fold per 64 states.
//!
//! Everything here is derived and in memory only: a table is a copy of what folding the
//! log from event 1 gave (the log is append-only, so the state right after event `v`
//! never changes), and emptying this cache changes no answer, only its cost. It is
//! bounded by its own count of tables, separate from the cache of live games
//! (`cache.rs`), so scrubbing old states never evicts a live game.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use lru::LruCache;
use uuid::Uuid;

use crate::table::Table;

/// A checkpoint is kept after every this many events of a game.
pub const CHECKPOINT_EVERY: i64 = 64;

/// The states kept per game that are not checkpoints: those a reader visited and those
/// folded after them up to the next checkpoint (one stretch between checkpoints).
const RECENT_PER_GAME: usize = CHECKPOINT_EVERY as usize;

/// Whether the state right after event `version` is a checkpoint.
pub fn is_checkpoint(version: i64) -> bool {
    version > 0 && version % CHECKPOINT_EVERY == 0
}

/// The first checkpoint at or after event `version`.
pub fn next_checkpoint(version: i64) -> i64 {
    version.div_euclid(CHECKPOINT_EVERY) * CHECKPOINT_EVERY
        + if version.rem_euclid(CHECKPOINT_EVERY) == 0 {
            0
        } else {
            CHECKPOINT_EVERY
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
