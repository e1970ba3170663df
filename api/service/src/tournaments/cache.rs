//! The tournaments folded lately, by id: a page, a registration or a step of the driver
//! folds only the events appended since (`Worp::tournament`).

use std::num::NonZeroUsize;
use std::sync::Mutex;

use lru::LruCache;
use uuid::Uuid;

use super::log::Folded;

/// How many folded tournaments are kept.
const KEPT: usize = 256;

#[derive(Debug)]
pub struct TournamentCache(Mutex<LruCache<Uuid, Folded>>);

impl Default for TournamentCache {
    fn default() -> Self {
        TournamentCache(Mutex::new(LruCache::new(
            NonZeroUsize::new(KEPT).unwrap_or(NonZeroUsize::MIN),
        )))
    }
}

impl TournamentCache {
    /// A copy of the fold of `id`, if kept (rounds are shared, not copied).
    pub fn get(&self, id: Uuid) -> Option<Folded> {
        self.0.lock().ok()?.get(&id).cloned()
    }

    /// Keeps `t` unless a fold further along is kept.
    pub fn put(&self, t: &Folded) {
        if let Ok(mut kept) = self.0.lock() {
            if kept.peek(&t.id).is_none_or(|k| k.version < t.version) {
                kept.put(t.id, t.clone());
            }
        }
    }
}
