//! What players can do, and what the server reads back for them.
//!
//! Every change of a game loads the game's table (from the cache, then the events after
//! it), checks the request, makes the new events in a [`draft`] (with the rolls the
//! server owes and the moves bots play after them), and appends them in one atomic
//! change that names the version it was judged on. Refusals are [`Refusal`]s; the HTTP
//! edge (`problem.rs`) alone turns them into statuses.
//!
//! - [`games`]: creating, joining, moving, resigning, time-outs.
//! - [`players`]: registering, tokens, webhooks.
//! - [`reads`]: tables, listings, event pages, exports, the read-model rebuild.
//! - [`read_model`]: the `games` row, listing entry and notices a change stores.

mod draft;
pub mod games;
pub mod players;
pub mod read_model;
pub mod reads;
mod refusal;

use std::sync::Arc;

use chrono::{DateTime, SubsecRound, Utc};

pub use crate::clock::{Clock, SystemClock};
pub use games::{CreateGame, Idempotency, SeatRequest, DAYS_PER_MOVE, MAX_CLIENT_SEED};
pub use players::{token_hash, MAX_NAME};
pub use read_model::{game_row, notices, GameSummary};
pub use refusal::Refusal;

use crate::cache::StateCache;
use crate::live::Live;
use crate::store::Store;

/// The server's shared state: the store, the cache of tables, the clock, and the hub of
/// live changes.
#[derive(Debug)]
pub struct Worp {
    pub store: Store,
    pub cache: StateCache,
    pub clock: Arc<dyn Clock>,
    pub live: Arc<Live>,
}

impl Worp {
    /// The service over `store`, keeping `cache_size` tables in memory. Changes are
    /// relayed to other processes when the store is shared (PostgreSQL).
    pub fn new(store: Store, cache_size: usize, clock: Arc<dyn Clock>) -> Worp {
        let live = Arc::new(Live::new(matches!(store, Store::Postgres(_))));
        Worp {
            store,
            cache: StateCache::new(cache_size),
            clock,
            live,
        }
    }

    /// Now, to the microsecond (what the database keeps).
    pub fn now(&self) -> DateTime<Utc> {
        self.clock.now().trunc_subsecs(6)
    }
}
