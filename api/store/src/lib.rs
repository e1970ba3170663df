//! Persistence: the event log and its read models, on PostgreSQL or embedded SQLite.
//!
//! - [`sql`]: every SQL text, the column lists, and the four forms of the version check
//!   (one per write path) side by side.
//! - [`statements`]: the statements as functions over a pool, stamped out per backend in
//!   [`postgres`] and [`sqlite`].
//! - [`group_commit`]: on PostgreSQL, the changes that arrive together share one
//!   statement and one durable commit (each actix-web worker thread has a writer of its
//!   own; the batch's statement in `batch`, its columns in `batch_columns`, a batch of
//!   one move in `lone_move`, the players known to have a webhook in `watched`);
//!   [`sqlite_commit`]: on SQLite, one writer thread
//!   writes them in one transaction and one durable commit.
//! - [`records`] (in `worp-domain`, which the HTTP crate sees too): what is read and
//!   written; [`error`]: what can fail.
//!
//! Every change of a game is atomic: its new events (written only if the log ends where
//! the caller saw it end), the games read model, the webhook outbox and the idempotency
//! record. A lost race comes back as [`StoreError::Conflict`], never as a gap or a
//! duplicate (`UNIQUE (game_id, seq)`).
//!
//! ## The write paths, and the figure each one stands on
//! A change takes one of seven paths; each beyond the first of its backend exists for the
//! measured reason given (the commits named hold the runs):
//! 1. PostgreSQL, a batch of moves judged change by change (`sql::APPEND_MOVES`): the
//!    group commit; before it a move reached 8.2 % of pgbench at 32 clients, with it
//!    38-40 % the same day, and 100-141 % of the hop anchor today (BENCHMARKS.md).
//! 2. The same without the webhook outbox while no notified player has a webhook
//!    (`APPEND_QUIET_MOVES`): 16,784 against 15,890 moves/s at 32 clients (807770d).
//! 3. Any other batch, all or nothing (`APPEND_TOGETHER`): new games and seats are rare,
//!    and one form serves every kind of change; no figure, no second form.
//! 4. A batch of one move with plain parameters (`sql::append_one_move`): the statement's
//!    bind and execute on the database, 104 µs with arrays against 90 µs (2657621).
//! 5. The same without the outbox (`append_one_quiet_move`): 155 against 166 µs of CPU
//!    a move, 2,913 against 2,810 moves/s at one client (a50ba8d).
//! 6. One change in a transaction of its own (`postgres::append_alone`), for what a
//!    batch did not write: correctness, not speed; the loser of a race gets its own 409.
//! 7. SQLite: the writer thread of [`sqlite_commit`], one transaction a batch and a
//!    savepoint a change, at 2.2-2.6× SQLite's own durable single inserts.
//!
//! Every path writes an event's columns from one type, [`worp_domain::events::EventRow`],
//! whose payload is the one canonical text its hash covers; each binds them in its own
//! shape (`batch_columns.rs` for 1-3, `lone_move.rs` for 4-5, `statements.rs` for 6,
//! `sqlite_change.rs` for 7).

mod account_statements;
mod batch;
mod batch_columns;
pub mod error;
pub mod group_commit;
mod lone_move;
mod migrations;
mod notification_statements;
mod notifier_statements;
mod oauth_statements;
mod passkey_statements;
pub mod postgres;
mod push_statements;
pub use worp_domain::records;
pub mod sql;
pub mod sqlite;
mod sqlite_change;
pub mod sqlite_commit;
mod statements;
mod tournament_statements;
mod vacation_statements;
mod watched;
mod webhook_statements;

use std::{future::Future, str::FromStr, sync::Arc, time::Duration};

use chrono::{DateTime, Utc};
use futures_util::future::{Either, FutureExt};
use serde_json::Value;
use sqlx::postgres::PgPoolOptions;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use tokio::sync::Notify;
use uuid::Uuid;

pub use error::StoreError;
pub use group_commit::WRITE_QUEUE;
use group_commit::{GroupCommit, GROUP_COMMIT_WRITERS};
use migrations::{all_applied, migrate_postgres};
use sqlite_commit::SqliteCommit;
use worp_domain::events::{RawEvent, StoredEvent};
pub use worp_domain::records::{
    AnswerToKeep, Append, Attempt, Delivery, DeliveryStatus, FinishRow, GameFilter, GameRow,
    KeptAnswer, ListedAt, ListedGame, NoticeKind, Player, PlayerNotice, StoredCheckpoint, Webhook,
};

/// The store on PostgreSQL: appends go through the group commit.
#[derive(Debug, Clone)]
pub struct PgStore {
    pub pool: sqlx::PgPool,
    group: GroupCommit,
}

/// The store on an SQLite file: appends go through the writer thread of
/// [`sqlite_commit`], everything else through the pool.
#[derive(Debug, Clone)]
pub struct SqliteStore {
    pub pool: sqlx::SqlitePool,
    pub commit: SqliteCommit,
}

/// The store on whichever backend is configured.
#[derive(Debug, Clone)]
pub enum Store {
    Postgres(PgStore),
    Sqlite(SqliteStore),
}

/// The longest any request waits for the database, per statement (an append: from
/// queueing to its commit). Beyond, [`StoreError::TimedOut`]: 503, the outcome unknown
/// as when a connection breaks. A connection to a dead server fails at once; this
/// bounds what does not fail, such as a commit waiting for a synchronous standby
/// that is not there (Patroni's strict synchronous mode while no standby follows).
pub const DATABASE_DEADLINE: Duration = Duration::from_secs(10);

/// `work`, or [`StoreError::TimedOut`] if it takes longer than [`DATABASE_DEADLINE`].
fn bounded<T>(
    work: impl Future<Output = Result<T, StoreError>>,
) -> impl Future<Output = Result<T, StoreError>> {
    // A combinator, not an `async fn`: that would keep `work` twice in its state (as
    // its argument and inside the timeout), and every caller's future would carry both.
    tokio::time::timeout(DATABASE_DEADLINE, work).map(|r| r.unwrap_or(Err(StoreError::TimedOut)))
}

/// Runs statement `$f` of the configured backend on its pool, within
/// [`DATABASE_DEADLINE`].
macro_rules! on_backend {
    ($self:ident . $f:ident ( $($arg:expr),* )) => {
        bounded(async {
            match $self {
                Store::Postgres(s) => postgres::$f(&s.pool, $($arg),*).await,
                Store::Sqlite(s) => sqlite::$f(&s.pool, $($arg),*).await,
            }
        })
        .await
    };
}

// After `on_backend!`, which they use.
pub mod accounts;
pub mod bots;
mod name_keys;
pub mod notifications;
pub mod passkeys;
pub mod push;
pub mod tournaments;
pub mod vacations;

impl Store {
    /// Connects (PostgreSQL for `postgres://` URLs, else an SQLite file path or
    /// `sqlite://` URL) and runs the migrations.
    pub async fn connect(url: &str, max_connections: u32) -> Result<Store, StoreError> {
        Store::connect_with(url, max_connections, WRITE_QUEUE).await
    }

    /// The same, with room for `write_queue` changes waiting for the group commit;
    /// beyond, appends are refused as [`StoreError::Overloaded`].
    pub async fn connect_with(
        url: &str,
        max_connections: u32,
        write_queue: usize,
    ) -> Result<Store, StoreError> {
        let store = if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            let pool = PgPoolOptions::new()
                .max_connections(max_connections)
                // No round trip to test a connection before each use: a broken one fails
                // its query, is closed, and the next is opened afresh (503 meanwhile).
                .test_before_acquire(false)
                .acquire_timeout(Duration::from_secs(5))
                .connect(url)
                .await?;
            migrate_postgres(&pool).await?;
            let group = GroupCommit::start(pool.clone(), GROUP_COMMIT_WRITERS, write_queue);
            Store::Postgres(PgStore { pool, group })
        } else {
            let path = url.strip_prefix("sqlite://").unwrap_or(url);
            if let Some(dir) = std::path::Path::new(path).parent() {
                if !dir.as_os_str().is_empty() {
                    std::fs::create_dir_all(dir)
                        .map_err(|e| StoreError::Database(sqlx::Error::Io(e)))?;
                }
            }
            // The same settings as the writer's connection (`sqlite_commit::PRAGMAS`).
            let opts = SqliteConnectOptions::from_str(&format!("sqlite://{path}"))?
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Full)
                .busy_timeout(sqlite_commit::BUSY_TIMEOUT)
                .foreign_keys(true);
            // One connection for reads and the writes other than appends, which keeps
            // those transactions strictly serial (each begins with a write: no upgrade
            // deadlocks); appends have the writer thread's connection.
            let pool = SqlitePoolOptions::new()
                .max_connections(1)
                .connect_with(opts)
                .await?;
            sqlx::migrate!("../../migrations/sqlite").run(&pool).await?;
            let file = path.split('?').next().unwrap_or(path);
            let commit = SqliteCommit::start(file, write_queue)?;
            Store::Sqlite(SqliteStore { pool, commit })
        };
        Ok(store)
    }

    /// `postgres` or `sqlite`.
    pub fn backend(&self) -> &'static str {
        match self {
            Store::Postgres(_) => "postgres",
            Store::Sqlite(_) => "sqlite",
        }
    }

    /// How many transactions the SQLite writer has committed (`None` on PostgreSQL).
    pub fn sqlite_commits(&self) -> Option<u64> {
        match self {
            Store::Postgres(_) => None,
            Store::Sqlite(s) => Some(s.commit.commits()),
        }
    }

    /// The pool's connections (with those of the group commit's writers): in use, and
    /// open.
    pub fn connections(&self) -> (u32, u32) {
        let (open, idle) = match self {
            Store::Postgres(s) => {
                let (own_open, own_idle) = s.group.own_connections();
                (s.pool.size() + own_open, s.pool.num_idle() + own_idle)
            }
            Store::Sqlite(s) => (s.pool.size(), s.pool.num_idle()),
        };
        let idle = u32::try_from(idle).unwrap_or(u32::MAX);
        (open.saturating_sub(idle), open)
    }

    /// The most connections the pool opens.
    pub fn max_connections(&self) -> u32 {
        match self {
            Store::Postgres(s) => s.pool.options().get_max_connections(),
            Store::Sqlite(s) => s.pool.options().get_max_connections(),
        }
    }

    /// Appends one change of a game atomically: all of it or nothing. The changes that
    /// arrive together share one commit (one statement on PostgreSQL, one transaction
    /// on SQLite). The change joins the writers' queue when this is called, not when
    /// the answer is first awaited.
    pub fn append(
        &self,
        a: Append,
    ) -> impl Future<Output = Result<Vec<StoredEvent>, StoreError>> + Send + '_ {
        bounded(match self {
            Store::Postgres(s) => Either::Left(s.group.append(a)),
            Store::Sqlite(s) => Either::Right(s.commit.append(a)),
        })
    }

    /// Signalled whenever an append wrote webhook deliveries to the outbox (the delivery
    /// worker waits on it between polls).
    pub fn outbox_written(&self) -> Arc<Notify> {
        match self {
            Store::Postgres(s) => s.group.outbox(),
            Store::Sqlite(s) => s.commit.outbox(),
        }
    }

    /// Tells other server processes on the same PostgreSQL that games changed. On
    /// SQLite there is only one process: nothing to do.
    pub async fn announce(&self, payloads: &[String]) -> Result<(), StoreError> {
        match self {
            Store::Postgres(s) => bounded(postgres::announce(&s.pool, payloads)).await,
            Store::Sqlite(_) => Ok(()),
        }
    }

    /// Whether another server process listens for announcements (PostgreSQL; `own` is
    /// this process's listener name). On SQLite there is only one process.
    pub async fn others_listen(&self, own: &str) -> Result<bool, StoreError> {
        match self {
            Store::Postgres(s) => bounded(postgres::others_listen(&s.pool, own)).await,
            Store::Sqlite(_) => Ok(false),
        }
    }

    pub async fn ping(&self) -> Result<(), StoreError> {
        on_backend!(self.ping())
    }

    /// Whether the database answers and holds every migration this build carries (for
    /// `/readyz`): a query of `_sqlx_migrations`, so it is a ping too.
    pub async fn migrated(&self) -> Result<bool, StoreError> {
        bounded(self.migrations_all_applied()).await
    }

    async fn migrations_all_applied(&self) -> Result<bool, StoreError> {
        Ok(match self {
            Store::Postgres(s) => all_applied(
                &sqlx::migrate!("../../migrations/postgres"),
                &sqlx::query_as(sql::APPLIED_MIGRATIONS)
                    .fetch_all(&s.pool)
                    .await?,
            ),
            Store::Sqlite(s) => all_applied(
                &sqlx::migrate!("../../migrations/sqlite"),
                &sqlx::query_as(sql::APPLIED_MIGRATIONS)
                    .fetch_all(&s.pool)
                    .await?,
            ),
        })
    }
    pub async fn player_by_token_hash(&self, hash: &[u8]) -> Result<Option<Player>, StoreError> {
        on_backend!(self.player_by_token_hash(hash))
    }
    /// The names of those of `ids` who are players (ids of no player are left out).
    pub async fn player_names(&self, ids: &[Uuid]) -> Result<Vec<(Uuid, String)>, StoreError> {
        on_backend!(self.player_names(ids))
    }
    pub async fn player_profile(
        &self,
        id: Uuid,
    ) -> Result<Option<(String, DateTime<Utc>)>, StoreError> {
        on_backend!(self.player_profile(id))
    }
    pub async fn finished_count(&self, after: i64, upto: i64) -> Result<i64, StoreError> {
        on_backend!(self.finished_count(after, upto))
    }
    /// The transactions that may be writing events now, by an id of each that is not
    /// reused; see [`postgres::event_writers`] and [`sqlite::event_writers`].
    pub async fn event_writers(&self) -> Result<Vec<String>, StoreError> {
        on_backend!(self.event_writers())
    }
    pub async fn finished_after(
        &self,
        position: i64,
        limit: i64,
    ) -> Result<Vec<FinishRow>, StoreError> {
        on_backend!(self.finished_after(position, limit))
    }
    pub async fn lobby(
        &self,
        variant: Option<&str>,
        limit: i64,
        offset: i64,
    ) -> Result<Vec<Value>, StoreError> {
        on_backend!(self.lobby(variant, limit, offset))
    }
    pub async fn player_exists(&self, id: Uuid) -> Result<bool, StoreError> {
        on_backend!(self.player_exists(id))
    }
    pub async fn invitation_notices(&self, id: Uuid) -> Result<bool, StoreError> {
        on_backend!(self.invitation_notices(id))
    }
    pub async fn set_invitation_notices(&self, id: Uuid, on: bool) -> Result<(), StoreError> {
        on_backend!(self.set_invitation_notices(id, on))
    }
    /// How many games `player` created that still wait for players.
    pub async fn open_games_of(&self, player: Uuid) -> Result<i64, StoreError> {
        on_backend!(self.open_games_of(player))
    }
    /// Up to `limit` events of a game after sequence number `after`, in order.
    pub async fn events(
        &self,
        game_id: Uuid,
        after: i64,
        limit: i64,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        on_backend!(self.events(game_id, after, limit))
    }
    /// [`Store::events`] as a fold reads them: each payload kept as the text stored.
    pub async fn raw_events(
        &self,
        game_id: Uuid,
        after: i64,
        limit: i64,
    ) -> Result<Vec<RawEvent>, StoreError> {
        on_backend!(self.raw_events(game_id, after, limit))
    }
    /// The newest checkpoint stored for the game at or before event `at`, if any
    /// (`checkpoints/stored.rs`).
    pub async fn stored_checkpoint(
        &self,
        game_id: Uuid,
        at: i64,
    ) -> Result<Option<StoredCheckpoint>, StoreError> {
        on_backend!(self.stored_checkpoint(game_id, at))
    }
    /// Deletes the game's stored checkpoint at `version` (one that did not fit). Rare:
    /// on SQLite through the pool, not the writer thread.
    pub async fn drop_checkpoint(&self, game_id: Uuid, version: i64) -> Result<(), StoreError> {
        on_backend!(self.drop_checkpoint(game_id, version))
    }
    /// Stores `c` at its version, in place of a checkpoint stored there only with
    /// `replace_any` (that one did not fit) or when that one was written under other
    /// rules or in another layout. On SQLite through the writer thread, whose lock a
    /// write through the pool would wait for, and make it wait for.
    pub async fn store_checkpoint(
        &self,
        c: &StoredCheckpoint,
        at: DateTime<Utc>,
        replace_any: bool,
    ) -> Result<(), StoreError> {
        match self {
            Store::Postgres(s) => {
                bounded(postgres::store_checkpoint(&s.pool, c, at, replace_any)).await
            }
            Store::Sqlite(s) => bounded(s.commit.store_checkpoint(c, at, replace_any)).await,
        }
    }
    /// The game's `message_posted` events after `after`, at most `limit`.
    pub async fn messages(
        &self,
        game_id: Uuid,
        after: i64,
        limit: i64,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        on_backend!(self.messages(game_id, after, limit))
    }
    pub async fn secret(&self, game_id: Uuid) -> Result<Option<Vec<u8>>, StoreError> {
        on_backend!(self.secret(game_id))
    }
    pub async fn list_games(&self, f: &GameFilter) -> Result<Vec<ListedGame>, StoreError> {
        on_backend!(self.list_games(f))
    }
    /// Deletes answers kept before `before` (expired), the oldest
    /// [`sql::EXPIRED_PER_SWEEP_STEP`] at most; returns how many.
    pub async fn delete_expired_answers(&self, before: DateTime<Utc>) -> Result<u64, StoreError> {
        on_backend!(self.delete_expired_answers(before))
    }
    /// The answer kept for `(player, key)` since `not_before` (older ones have expired).
    pub async fn kept_answer_of(
        &self,
        player: Uuid,
        key: &str,
        not_before: DateTime<Utc>,
    ) -> Result<Option<KeptAnswer>, StoreError> {
        on_backend!(self.kept_answer_of(player, key, not_before))
    }
    pub async fn game_ids(&self) -> Result<Vec<Uuid>, StoreError> {
        on_backend!(self.game_ids())
    }
    /// Rebuilds the read models from the log, making appends wait until it is done;
    /// `row_of` makes a game's row from its events. Not bounded by
    /// [`DATABASE_DEADLINE`]: it reads the whole log.
    pub async fn rebuild_read_models<E: From<StoreError>>(
        &self,
        row_of: impl Fn(&[StoredEvent]) -> Result<GameRow, E>,
    ) -> Result<usize, E> {
        match self {
            Store::Postgres(s) => postgres::rebuild_read_models(&s.pool, row_of).await,
            Store::Sqlite(s) => sqlite::rebuild_read_models(&s.pool, row_of).await,
        }
    }
    pub async fn replace_read_models(&self, rows: &[GameRow]) -> Result<(), StoreError> {
        on_backend!(self.replace_read_models(rows))
    }
    pub async fn overdue_games(
        &self,
        now: DateTime<Utc>,
        limit: i64,
    ) -> Result<Vec<Uuid>, StoreError> {
        on_backend!(self.overdue_games(now, limit))
    }
    pub async fn create_webhook(&self, w: &Webhook) -> Result<(), StoreError> {
        on_backend!(self.create_webhook(w))
    }
    pub async fn webhooks(&self, player: Uuid) -> Result<Vec<Webhook>, StoreError> {
        on_backend!(self.webhooks(player))
    }
    pub async fn delete_webhook(&self, player: Uuid, id: Uuid) -> Result<bool, StoreError> {
        on_backend!(self.delete_webhook(player, id))
    }
    /// A page of a webhook's deliveries, newest first.
    pub async fn deliveries(
        &self,
        webhook: Uuid,
        limit: i64,
        offset: i64,
    ) -> Result<Vec<Delivery>, StoreError> {
        on_backend!(self.deliveries(webhook, limit, offset))
    }
    pub async fn due_deliveries(
        &self,
        now: DateTime<Utc>,
        limit: i64,
    ) -> Result<Vec<(Delivery, String, String)>, StoreError> {
        on_backend!(self.due_deliveries(now, limit))
    }
    pub async fn lease_delivery(
        &self,
        d: &Delivery,
        lease_until: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        on_backend!(self.lease_delivery(d, lease_until))
    }
    pub async fn record_attempt(&self, a: &Attempt<'_>) -> Result<bool, StoreError> {
        on_backend!(self.record_attempt(a))
    }
}
