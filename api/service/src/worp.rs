//! The service's state, shared by every request and background task.

use std::sync::Arc;

use chrono::{DateTime, SubsecRound, Utc};

use crate::cache::StateCache;
use crate::live::Live;
use worp_domain::clock::Clock;
use worp_store::Store;

/// The server's shared state: the store, the cache of tables, the clock, and the hub of
/// live changes. Its fields are the service's own: the HTTP crate, which does not see the
/// store, reaches none of them but through the service's operations.
#[derive(Debug)]
pub struct Worp {
    pub(crate) store: Store,
    pub(crate) cache: StateCache,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) live: Arc<Live>,
    /// `WORP_WEBHOOK_ALLOW`: ranges that are not public which webhook URLs may name.
    pub(crate) webhook_allow: Vec<ipnet::IpNet>,
    /// How long the answer to an `Idempotency-Key` is kept (`WORP_IDEMPOTENCY_TTL_SECS`).
    pub(crate) idempotency_ttl: chrono::Duration,
    /// The limit on open games per player (`limits.rs`).
    pub(crate) open_games: super::limits::OpenGames,
    /// Players' names, for views.
    pub(crate) names: super::name_book::NameBook,
    /// The ratings, folded from the log.
    pub(crate) ratings: worp_domain::ratings::Projector,
    /// Whether the ratings' first fold, at start, is still running (`readiness.rs`).
    pub(crate) folding_ratings: std::sync::atomic::AtomicBool,
    /// Messages a minute per player.
    pub(crate) message_limit: super::limits::MessageLimit,
    /// The checkpoints waiting to be stored (`stored_checkpoints.rs`).
    pub(crate) checkpoint_queue: crate::checkpoints::stored::Queue,
    /// The WebAuthn relying party, for passkeys (`WORP_PUBLIC_URL`).
    pub(crate) webauthn: Option<Arc<webauthn_rs::Webauthn>>,
    /// Mail and push: their settings and this process's state (`notifications/`).
    pub(crate) notifier: Arc<crate::notifications::state::Notifier>,
    /// Days of vacation per player per calendar year (`WORP_VACATION_DAYS`).
    pub(crate) vacation_days: u32,
    /// Web Push: the VAPID key and subject, the HTTP client (`push/`).
    pub(crate) push: crate::push::state::PushState,
    /// The bot runner's queue and the gnubg pool (`bots/`).
    pub(crate) bots: Arc<crate::bots::state::BotState>,
    /// The tournaments waiting for their driver (`tournaments/driver.rs`).
    pub(crate) tournament_queue: crate::tournaments::queue::Queue,
    /// The tournaments folded lately (`tournaments/cache.rs`).
    pub(crate) tournament_cache: crate::tournaments::cache::TournamentCache,
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
            webhook_allow: Vec::new(),
            idempotency_ttl: chrono::Duration::hours(24),
            open_games: super::limits::OpenGames::default(),
            names: super::name_book::NameBook::default(),
            ratings: worp_domain::ratings::Projector::default(),
            folding_ratings: std::sync::atomic::AtomicBool::new(false),
            message_limit: super::limits::MessageLimit::default(),
            checkpoint_queue: crate::checkpoints::stored::Queue::default(),
            webauthn: None,
            notifier: Arc::default(),
            vacation_days: 30,
            push: crate::push::state::PushState::default(),
            bots: Arc::default(),
            tournament_queue: Default::default(),
            tournament_cache: Default::default(),
        }
    }

    /// With `allow`: the ranges that are not public which webhook URLs may name.
    pub fn with_webhook_allow(mut self, allow: Vec<ipnet::IpNet>) -> Worp {
        self.webhook_allow = allow;
        self
    }

    /// With answers to an `Idempotency-Key` kept for `ttl`.
    pub fn with_idempotency_ttl(mut self, ttl: chrono::Duration) -> Worp {
        self.idempotency_ttl = ttl;
        self
    }

    /// With `open_games` as the limit on open games per player.
    pub fn with_open_games(mut self, open_games: super::limits::OpenGames) -> Worp {
        self.open_games = open_games;
        self
    }

    /// With `days` of vacation per player per calendar year.
    pub fn with_vacation_days(mut self, days: u32) -> Worp {
        self.vacation_days = days;
        self
    }

    /// Players' names, as views show them.
    pub fn names(&self) -> &super::name_book::NameBook {
        &self.names
    }

    /// The cache of tables and historical states.
    pub fn cache(&self) -> &StateCache {
        &self.cache
    }

    /// The changes of every game from now on, as this process commits or hears of them.
    pub fn changes(&self) -> tokio::sync::broadcast::Receiver<Arc<crate::live::Change>> {
        self.live.subscribe()
    }

    /// The changes of game `id` from now on, as this process commits or hears of them.
    pub fn watch_game(&self, id: uuid::Uuid) -> crate::live::Watch {
        self.live.watch_game(id)
    }

    /// The changes with notices for player `id` from now on.
    pub fn watch_player(&self, id: uuid::Uuid) -> crate::live::Watch {
        self.live.watch_player(id)
    }

    /// The ratings, folded from the log.
    pub fn ratings(&self) -> &worp_domain::ratings::Projector {
        &self.ratings
    }

    /// The oldest answer to an `Idempotency-Key` that has not expired was kept at this
    /// time or later.
    pub fn kept_answers_since(&self) -> DateTime<Utc> {
        let now = self.now();
        now.checked_sub_signed(self.idempotency_ttl)
            .unwrap_or(DateTime::<Utc>::MIN_UTC)
    }

    /// Deletes the answers kept for `Idempotency-Key`s that have expired, a short
    /// transaction per step of [`worp_store::sql::EXPIRED_PER_SWEEP_STEP`] (run by the
    /// background sweep; a write deletes only the expired answer of its own key); returns
    /// how many.
    pub async fn sweep_answers(&self) -> Result<u64, super::refusal::Refusal> {
        let before = self.kept_answers_since();
        let mut deleted = 0;
        loop {
            let n = self.store.delete_expired_answers(before).await?;
            deleted += n;
            if n < worp_store::sql::EXPIRED_PER_SWEEP_STEP {
                return Ok(deleted);
            }
        }
    }

    /// Now, to the microsecond (what the database keeps).
    pub fn now(&self) -> DateTime<Utc> {
        self.clock.now().trunc_subsecs(6)
    }
}
