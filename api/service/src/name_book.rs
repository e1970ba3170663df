//! The names learnt so far. A name never changes once registered but when its player
//! deletes their account, so each is read from the store once and kept (the least
//! recently used go first beyond `NAMES_KEPT`), and forgotten when its player leaves.

use std::num::NonZeroUsize;
use std::sync::Mutex;

use lru::LruCache;
use uuid::Uuid;

/// How many names are kept in memory.
const NAMES_KEPT: usize = 100_000;

/// The names learnt so far.
#[derive(Debug)]
pub struct NameBook(Mutex<LruCache<Uuid, String>>);

impl Default for NameBook {
    fn default() -> Self {
        let kept = NonZeroUsize::new(NAMES_KEPT).unwrap_or(NonZeroUsize::MIN);
        NameBook(Mutex::new(LruCache::new(kept)))
    }
}

impl NameBook {
    /// The name of player `id`, if learnt.
    pub fn get(&self, id: Uuid) -> Option<String> {
        let mut names = self.0.lock().unwrap_or_else(|e| e.into_inner());
        names.get(&id).cloned()
    }

    pub(super) fn put(&self, id: Uuid, name: String) {
        let mut names = self.0.lock().unwrap_or_else(|e| e.into_inner());
        names.put(id, name);
    }

    /// Forgets player `id`'s name.
    pub(super) fn forget(&self, id: Uuid) {
        let mut names = self.0.lock().unwrap_or_else(|e| e.into_inner());
        names.pop(&id);
    }
}
