//! A bounded in-memory cache of game states by (game, sequence number).
//!
//! A request that finds the game's newest cached state only reads the events recorded
//! after it, instead of replaying the whole game. The cache never decides anything: the
//! log is read on every request, so a state written by another process is seen.

use std::collections::HashMap;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};

use lru::LruCache;
use uuid::Uuid;

use crate::table::Table;

/// Recent tables by (game, version).
#[derive(Debug)]
pub struct StateCache {
    inner: Mutex<Inner>,
}

#[derive(Debug)]
struct Inner {
    states: LruCache<(Uuid, i64), Arc<Table>>,
    /// The newest version cached per game (may point at an evicted entry).
    newest: HashMap<Uuid, i64>,
    capacity: usize,
}

impl StateCache {
    /// A cache holding at most `capacity` states (at least 1).
    pub fn new(capacity: usize) -> Self {
        let cap = NonZeroUsize::new(capacity.max(1)).unwrap_or(NonZeroUsize::MIN);
        StateCache {
            inner: Mutex::new(Inner {
                states: LruCache::new(cap),
                newest: HashMap::new(),
                capacity: cap.get(),
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The state of `game` right after event `version`, if cached.
    pub fn get(&self, game: Uuid, version: i64) -> Option<Arc<Table>> {
        self.lock().states.get(&(game, version)).cloned()
    }

    /// The newest cached state of `game`.
    pub fn newest(&self, game: Uuid) -> Option<Arc<Table>> {
        let mut inner = self.lock();
        let v = *inner.newest.get(&game)?;
        inner.states.get(&(game, v)).cloned()
    }

    /// Keeps `table` (at its version).
    pub fn put(&self, table: Arc<Table>) {
        let mut inner = self.lock();
        let key = (table.id, table.version);
        let newest = inner.newest.entry(table.id).or_insert(table.version);
        if *newest < table.version {
            *newest = table.version;
        }
        inner.states.put(key, table);
        if inner.newest.len() > inner.capacity * 2 {
            let Inner { states, newest, .. } = &mut *inner;
            newest.retain(|g, v| states.contains(&(*g, *v)));
        }
    }

    /// How many states are held.
    pub fn len(&self) -> usize {
        self.lock().states.len()
    }

    /// Whether the cache is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
