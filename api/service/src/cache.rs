//! A bounded in-memory cache of the newest state of each recent game, by (game, sequence
//! number).
//!
//! A read that finds the game's newest cached state only reads the events recorded after
//! it, instead of replaying the whole game, so a state written by another process is
//! seen. A move is judged on the newest cached state without reading the log first; the
//! cache still decides nothing: the append's version check refuses a move judged on a
//! state another process has moved past, and the move is then judged on the log's.
//!
//! It also keeps what rarely or never changes once stored, to save a query per request:
//! players by their first token's hash (forgotten when a player deletes their account,
//! here or, through PostgreSQL's notifications, in another process) and the dice secret
//! of each game.
//!
//! Historical states (`state?at=N`, checkpoints) are kept apart, in [`Checkpoints`], a
//! quarter of its size: walking an old game never evicts a live one from here. A game
//! whose newest state is evicted from here leaves it there.

use std::collections::HashMap;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};

use lru::LruCache;
use uuid::Uuid;

use crate::checkpoints::Checkpoints;
use worp_domain::table::Table;
use worp_store::Player;

/// The newest table of each recent game, by (game, version).
#[derive(Debug)]
pub struct StateCache {
    inner: Mutex<Inner>,
    players: Mutex<LruCache<Vec<u8>, Player>>,
    secrets: Mutex<LruCache<Uuid, Vec<u8>>>,
    history: Checkpoints,
}

#[derive(Debug)]
struct Inner {
    states: LruCache<(Uuid, i64), Arc<Table>>,
    /// The newest version cached per game (may point at an evicted entry); `states`
    /// holds no other version of it.
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
            players: Mutex::new(LruCache::new(cap)),
            secrets: Mutex::new(LruCache::new(cap)),
            history: Checkpoints::new(cap.get() / 4),
        }
    }

    /// The player whose token has this hash, if cached.
    pub fn player(&self, token_hash: &[u8]) -> Option<Player> {
        let mut players = self.players.lock().unwrap_or_else(|e| e.into_inner());
        players.get(token_hash).cloned()
    }

    /// Keeps a player (by token hash).
    pub fn put_player(&self, player: &Player) {
        let mut players = self.players.lock().unwrap_or_else(|e| e.into_inner());
        players.put(player.token_hash.clone(), player.clone());
    }

    /// Forgets player `id`, whatever token hash they are kept by.
    pub fn forget_player(&self, id: Uuid) {
        let mut players = self.players.lock().unwrap_or_else(|e| e.into_inner());
        let hashes: Vec<Vec<u8>> = players
            .iter()
            .filter(|(_, p)| p.id == id)
            .map(|(h, _)| h.clone())
            .collect();
        for h in hashes {
            players.pop(&h);
        }
    }

    /// The dice secret of a game, if cached.
    pub fn secret(&self, game: Uuid) -> Option<Vec<u8>> {
        let mut secrets = self.secrets.lock().unwrap_or_else(|e| e.into_inner());
        secrets.get(&game).cloned()
    }

    /// Keeps the dice secret of a game.
    pub fn put_secret(&self, game: Uuid, secret: &[u8]) {
        let mut secrets = self.secrets.lock().unwrap_or_else(|e| e.into_inner());
        secrets.put(game, secret.to_vec());
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The state of `game` right after event `version`, if it is the newest cached.
    pub fn get(&self, game: Uuid, version: i64) -> Option<Arc<Table>> {
        self.lock().states.get(&(game, version)).cloned()
    }

    /// The newest cached state of `game`.
    pub fn newest(&self, game: Uuid) -> Option<Arc<Table>> {
        let mut inner = self.lock();
        let v = *inner.newest.get(&game)?;
        inner.states.get(&(game, v)).cloned()
    }

    /// Keeps `table` as its game's newest state. The state it supersedes leaves the
    /// cache, so that a game takes one entry however many moves it makes: the states a
    /// busy game leaves behind never push out another game's newest. A state older than
    /// its game's newest is not kept.
    pub fn put(&self, table: Arc<Table>) {
        let mut inner = self.lock();
        let key = (table.id, table.version);
        let superseded = match inner.newest.get(&table.id) {
            Some(&newest) if newest > table.version => return,
            Some(&newest) if newest < table.version => inner.states.pop(&(table.id, newest)),
            _ => None,
        };
        inner.newest.insert(table.id, table.version);
        let evicted = inner.states.push(key, table);
        // A game whose newest state leaves the live cache keeps it with the historical
        // states: loading it again folds only the events recorded after it.
        let demoted =
            evicted.filter(|(old, _)| *old != key && inner.newest.get(&old.0) == Some(&old.1));
        if inner.newest.len() > inner.capacity * 2 {
            let Inner { states, newest, .. } = &mut *inner;
            newest.retain(|g, v| states.contains(&(*g, *v)));
        }
        drop(inner);
        drop(superseded);
        if let Some((_, table)) = demoted {
            self.history.keep(table);
        }
    }

    /// The historical states and checkpoints, kept apart from the live states.
    pub fn history(&self) -> &Checkpoints {
        &self.history
    }

    /// The most states it holds (`WORP_CACHE_STATES`).
    pub fn capacity(&self) -> usize {
        self.lock().capacity
    }
}
