//! Persistence: the event log and its read models, on PostgreSQL or embedded SQLite.
//!
//! Both backends run the same SQL (`$1`-style parameters work on both); the queries are
//! written once in `sql_store!` and stamped out per backend. Every change of a game is
//! one transaction: its new events (with the sequence the caller expected), the games
//! read model, and the idempotency record. A racing append violates `UNIQUE (game_id,
//! seq)` and comes back as [`StoreError::Conflict`].

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::postgres::PgPoolOptions;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions};
use sqlx::types::Json;
use sqlx::Row;
use tokio::sync::Notify;
use uuid::Uuid;

use crate::commit::{GroupCommit, GROUP_COMMIT_WRITERS};
use crate::events::StoredEvent;

/// What the store could not do.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Another append to the same game won the race.
    #[error("another change to this game was recorded first")]
    Conflict,
    /// The database failed or is unreachable.
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    /// Migrations failed.
    #[error("migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
}

fn conflict_or(e: sqlx::Error) -> StoreError {
    match &e {
        sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::Conflict,
        _ => StoreError::Database(e),
    }
}

/// A registered player.
#[derive(Debug, Clone)]
pub struct Player {
    pub id: Uuid,
    pub name: String,
    pub token_hash: Vec<u8>,
}

/// JSON text written once and carried as it is: the summaries and notices of every move
/// are written to the database, announced and streamed, and building them as
/// `serde_json::Value` trees first cost a tenth of a move's time on the server.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct JsonText(Box<serde_json::value::RawValue>);

impl JsonText {
    /// `value` serialised.
    pub fn of<T: serde::Serialize + ?Sized>(value: &T) -> JsonText {
        let raw = serde_json::value::to_raw_value(value)
            .unwrap_or_else(|_| serde_json::value::RawValue::NULL.to_owned());
        JsonText(raw)
    }

    /// The text.
    pub fn get(&self) -> &str {
        self.0.get()
    }
}

impl PartialEq for JsonText {
    fn eq(&self, other: &JsonText) -> bool {
        self.get() == other.get()
    }
}

/// The games read model of one game (derived from its events).
#[derive(Debug, Clone)]
pub struct GameRow {
    pub id: Uuid,
    pub variant: String,
    pub status: String,
    pub version: i64,
    pub to_move_seat: Option<i32>,
    pub to_move_player: Option<Uuid>,
    /// The listing entry shown by `GET /v1/games` (a `GameSummary`).
    pub summary: JsonText,
    pub seats: Vec<Option<Uuid>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// When the seat to move runs out of time.
    pub deadline: Option<DateTime<Utc>>,
}

/// Something a player should hear about (it is their turn, a game ended): delivered to
/// their webhooks through the outbox and to their live stream.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PlayerNotice {
    pub player_id: Uuid,
    pub game_id: Uuid,
    pub version: i64,
    /// `your_turn` or `game_finished`.
    pub kind: String,
    pub payload: JsonText,
}

/// The outcome of one delivery attempt.
#[derive(Debug, Clone)]
pub struct Attempt<'a> {
    pub id: Uuid,
    /// `pending` (to retry), `delivered` or `failed`.
    pub status: &'a str,
    pub attempts: i32,
    pub next_attempt_at: DateTime<Utc>,
    pub last_status: Option<i32>,
    pub last_error: Option<&'a str>,
    pub delivered_at: Option<DateTime<Utc>>,
}

/// A registered webhook.
#[derive(Debug, Clone)]
pub struct Webhook {
    pub id: Uuid,
    pub player_id: Uuid,
    pub url: String,
    pub secret: String,
    pub created_at: DateTime<Utc>,
}

/// One delivery of a notice to a webhook.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct Delivery {
    pub id: Uuid,
    pub webhook_id: Uuid,
    pub game_id: Uuid,
    pub version: i64,
    /// `your_turn` or `game_finished`.
    pub kind: String,
    pub payload: Value,
    /// `pending`, `delivered` or `failed`.
    pub status: String,
    pub attempts: i32,
    pub next_attempt_at: DateTime<Utc>,
    /// The receiver's last HTTP status.
    pub last_status: Option<i32>,
    pub last_error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub delivered_at: Option<DateTime<Utc>>,
}

/// A stored answer for an `Idempotency-Key`.
#[derive(Debug, Clone)]
pub struct SavedResponse {
    pub status: u16,
    pub body: Value,
}

/// One atomic change of a game.
#[derive(Debug, Clone)]
pub struct Append {
    pub game_id: Uuid,
    /// The last sequence number the caller saw (0 for a new game).
    pub expected_version: i64,
    pub events: Vec<StoredEvent>,
    pub row: GameRow,
    /// The secret server seed, stored with a new game.
    pub secret: Option<Vec<u8>>,
    /// The answer to keep for `(player, key)`.
    pub idempotency: Option<(Uuid, String, SavedResponse)>,
    /// Notices for players' webhooks (the outbox).
    pub notices: Vec<PlayerNotice>,
}

impl Append {
    /// Whether the seats read model changes: only when a game is created or a seat taken.
    pub fn seats_changed(&self) -> bool {
        self.events
            .iter()
            .any(|e| e.kind == "game_created" || e.kind == "seat_taken")
    }
}

/// Which games to list.
#[derive(Debug, Clone, Default)]
pub struct GameFilter {
    pub player: Option<Uuid>,
    pub status: Option<String>,
    pub to_move_player: Option<Uuid>,
    pub limit: i64,
    pub offset: i64,
}

fn event_from_row<R: Row>(row: &R) -> Result<StoredEvent, sqlx::Error>
where
    for<'r> &'r str: sqlx::ColumnIndex<R>,
    for<'r> Uuid: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> i32: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> Json<Value>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> DateTime<Utc>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    Ok(StoredEvent {
        game_id: row.try_get("game_id")?,
        seq: row.try_get("seq")?,
        position: row.try_get("position")?,
        kind: row.try_get("kind")?,
        payload: row.try_get::<Json<Value>, _>("payload")?.0,
        rules_version: row.try_get("rules_version")?,
        recorded_at: row.try_get("recorded_at")?,
        hash: row.try_get("hash")?,
    })
}

/// The store on PostgreSQL: appends go through the group commit.
#[derive(Debug, Clone)]
pub struct PgStore {
    pub pool: sqlx::PgPool,
    group: GroupCommit,
}

/// The store on an SQLite file.
#[derive(Debug, Clone)]
pub struct SqliteStore {
    pub pool: sqlx::SqlitePool,
    outbox: Arc<Notify>,
}

macro_rules! sql_store {
    ($Store:ident, $Db:ty) => {
        impl $Store {
            pub async fn ping(&self) -> Result<(), StoreError> {
                sqlx::query("SELECT 1").execute(&self.pool).await?;
                Ok(())
            }

            pub async fn create_player(&self, p: &Player, now: DateTime<Utc>) -> Result<(), StoreError> {
                sqlx::query("INSERT INTO players (id, name, token_hash, created_at) VALUES ($1, $2, $3, $4)")
                    .bind(p.id)
                    .bind(&p.name)
                    .bind(&p.token_hash)
                    .bind(now)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            pub async fn player_by_token_hash(&self, hash: &[u8]) -> Result<Option<Player>, StoreError> {
                let row = sqlx::query("SELECT id, name, token_hash FROM players WHERE token_hash = $1")
                    .bind(hash)
                    .fetch_optional(&self.pool)
                    .await?;
                row.map(|r| {
                    Ok(Player {
                        id: r.try_get("id")?,
                        name: r.try_get("name")?,
                        token_hash: r.try_get("token_hash")?,
                    })
                })
                .transpose()
            }

            pub async fn player_name(&self, id: Uuid) -> Result<Option<String>, StoreError> {
                let row = sqlx::query("SELECT name FROM players WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?;
                Ok(row.map(|r| r.try_get("name")).transpose()?)
            }

            pub async fn player_exists(&self, id: Uuid) -> Result<bool, StoreError> {
                let row = sqlx::query("SELECT 1 FROM players WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?;
                Ok(row.is_some())
            }

            /// Appends one change in its own transaction; signals `outbox` when it wrote
            /// webhook deliveries.
            pub async fn append_alone(
                pool: &sqlx::Pool<$Db>,
                a: &Append,
                outbox: &Notify,
            ) -> Result<Vec<StoredEvent>, StoreError> {
                let mut deliveries = 0;
                let mut tx = pool.begin().await?;
                let mut stored = Vec::with_capacity(a.events.len());
                for (i, e) in a.events.iter().enumerate() {
                    // The first event is inserted only if the log ends exactly where the
                    // caller saw it end (one round trip less than a separate check); a
                    // racing append of the same sequence number violates the UNIQUE key.
                    let sql = if i == 0 {
                        "INSERT INTO events (game_id, seq, kind, payload, rules_version, recorded_at, hash) \
                         SELECT $1, $2, $3, $4, $5, $6, $7 \
                         WHERE COALESCE((SELECT MAX(seq) FROM events WHERE game_id = $1), 0) = $8 \
                         RETURNING position"
                    } else {
                        "INSERT INTO events (game_id, seq, kind, payload, rules_version, recorded_at, hash) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING position"
                    };
                    let mut q = sqlx::query(sql)
                        .bind(e.game_id)
                        .bind(e.seq)
                        .bind(&e.kind)
                        .bind(Json(&e.payload))
                        .bind(e.rules_version)
                        .bind(e.recorded_at)
                        .bind(&e.hash);
                    if i == 0 {
                        q = q.bind(a.expected_version);
                    }
                    let row = q
                        .fetch_optional(&mut *tx)
                        .await
                        .map_err(conflict_or)?
                        .ok_or(StoreError::Conflict)?;
                    let mut e = e.clone();
                    e.position = row.try_get("position")?;
                    stored.push(e);
                }
                if a.events.is_empty() {
                    // Nothing to insert: still check the sequence ends where the caller saw it.
                    let last: Option<i64> = sqlx::query("SELECT MAX(seq) AS last FROM events WHERE game_id = $1")
                        .bind(a.game_id)
                        .fetch_one(&mut *tx)
                        .await?
                        .try_get("last")?;
                    if last.unwrap_or(0) != a.expected_version {
                        return Err(StoreError::Conflict);
                    }
                }
                if let Some(seed) = &a.secret {
                    sqlx::query("INSERT INTO game_secrets (game_id, server_seed) VALUES ($1, $2)")
                        .bind(a.game_id)
                        .bind(seed)
                        .execute(&mut *tx)
                        .await
                        .map_err(conflict_or)?;
                }
                Self::write_row(&mut tx, &a.row, a.seats_changed()).await?;
                for n in &a.notices {
                    let hooks = sqlx::query("SELECT id FROM webhooks WHERE player_id = $1")
                        .bind(n.player_id)
                        .fetch_all(&mut *tx)
                        .await?;
                    for h in hooks {
                        let hook: Uuid = h.try_get("id")?;
                        sqlx::query(
                            "INSERT INTO webhook_deliveries (id, webhook_id, player_id, game_id, version, kind, payload, \
                             status, attempts, next_attempt_at, created_at) \
                             VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', 0, $8, $8)",
                        )
                        .bind(Uuid::new_v4())
                        .bind(hook)
                        .bind(n.player_id)
                        .bind(n.game_id)
                        .bind(n.version)
                        .bind(&n.kind)
                        .bind(Json(&n.payload))
                        .bind(a.row.updated_at)
                        .execute(&mut *tx)
                        .await?;
                        deliveries += 1;
                    }
                }
                if let Some((player, key, resp)) = &a.idempotency {
                    sqlx::query(
                        "INSERT INTO idempotency (player_id, key, status, body, created_at) VALUES ($1, $2, $3, $4, $5)",
                    )
                    .bind(*player)
                    .bind(key)
                    .bind(i32::from(resp.status))
                    .bind(Json(&resp.body))
                    .bind(a.row.updated_at)
                    .execute(&mut *tx)
                    .await
                    .map_err(conflict_or)?;
                }
                tx.commit().await.map_err(conflict_or)?;
                if deliveries > 0 {
                    outbox.notify_one();
                }
                Ok(stored)
            }

            async fn write_row(
                tx: &mut sqlx::Transaction<'static, $Db>,
                row: &GameRow,
                seats: bool,
            ) -> Result<(), StoreError> {
                sqlx::query(
                    "INSERT INTO games (id, variant, status, version, to_move_seat, to_move_player, summary, created_at, updated_at, deadline) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
                     ON CONFLICT (id) DO UPDATE SET status = excluded.status, version = excluded.version, \
                     to_move_seat = excluded.to_move_seat, to_move_player = excluded.to_move_player, \
                     summary = excluded.summary, updated_at = excluded.updated_at, deadline = excluded.deadline",
                )
                .bind(row.id)
                .bind(&row.variant)
                .bind(&row.status)
                .bind(row.version)
                .bind(row.to_move_seat)
                .bind(row.to_move_player)
                .bind(Json(&row.summary))
                .bind(row.created_at)
                .bind(row.updated_at)
                .bind(row.deadline)
                .execute(&mut **tx)
                .await?;
                for (seat, player) in row.seats.iter().enumerate().filter(|_| seats) {
                    sqlx::query(
                        "INSERT INTO game_seats (game_id, seat, player_id) VALUES ($1, $2, $3) \
                         ON CONFLICT (game_id, seat) DO UPDATE SET player_id = excluded.player_id",
                    )
                    .bind(row.id)
                    .bind(seat as i32)
                    .bind(*player)
                    .execute(&mut **tx)
                    .await?;
                }
                Ok(())
            }

            pub async fn events(&self, game_id: Uuid, after: i64, limit: i64) -> Result<Vec<StoredEvent>, StoreError> {
                let rows = sqlx::query(
                    "SELECT position, game_id, seq, kind, payload, rules_version, recorded_at, hash FROM events \
                     WHERE game_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
                )
                .bind(game_id)
                .bind(after)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?;
                rows.iter().map(|r| event_from_row(r).map_err(StoreError::from)).collect()
            }

            pub async fn secret(&self, game_id: Uuid) -> Result<Option<Vec<u8>>, StoreError> {
                let row = sqlx::query("SELECT server_seed FROM game_secrets WHERE game_id = $1")
                    .bind(game_id)
                    .fetch_optional(&self.pool)
                    .await?;
                Ok(row.map(|r| r.try_get("server_seed")).transpose()?)
            }

            pub async fn list_games(&self, f: &GameFilter) -> Result<Vec<Value>, StoreError> {
                let rows = sqlx::query(
                    "SELECT g.summary FROM games g \
                     WHERE ($1 IS NULL OR g.id IN (SELECT s.game_id FROM game_seats s WHERE s.player_id = $1)) \
                     AND ($2 IS NULL OR g.status = $2) \
                     AND ($3 IS NULL OR g.to_move_player = $3) \
                     ORDER BY g.updated_at DESC, g.id LIMIT $4 OFFSET $5",
                )
                .bind(f.player)
                .bind(f.status.as_deref())
                .bind(f.to_move_player)
                .bind(f.limit)
                .bind(f.offset)
                .fetch_all(&self.pool)
                .await?;
                rows.iter()
                    .map(|r| Ok(r.try_get::<Json<Value>, _>("summary")?.0))
                    .collect()
            }

            pub async fn saved_response(&self, player: Uuid, key: &str) -> Result<Option<SavedResponse>, StoreError> {
                let row = sqlx::query("SELECT status, body FROM idempotency WHERE player_id = $1 AND key = $2")
                    .bind(player)
                    .bind(key)
                    .fetch_optional(&self.pool)
                    .await?;
                row.map(|r| {
                    Ok(SavedResponse {
                        status: u16::try_from(r.try_get::<i32, _>("status")?).unwrap_or(200),
                        body: r.try_get::<Json<Value>, _>("body")?.0,
                    })
                })
                .transpose()
            }

            /// Games whose seat to move ran out of time by `now`.
            pub async fn overdue_games(&self, now: DateTime<Utc>, limit: i64) -> Result<Vec<Uuid>, StoreError> {
                let rows = sqlx::query(
                    "SELECT id FROM games WHERE deadline IS NOT NULL AND deadline <= $1 AND status = 'active' \
                     ORDER BY deadline LIMIT $2",
                )
                .bind(now)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?;
                rows.iter().map(|r| Ok(r.try_get("id")?)).collect()
            }

            pub async fn create_webhook(&self, w: &Webhook) -> Result<(), StoreError> {
                sqlx::query("INSERT INTO webhooks (id, player_id, url, secret, created_at) VALUES ($1, $2, $3, $4, $5)")
                    .bind(w.id)
                    .bind(w.player_id)
                    .bind(&w.url)
                    .bind(&w.secret)
                    .bind(w.created_at)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            pub async fn webhooks(&self, player: Uuid) -> Result<Vec<Webhook>, StoreError> {
                let rows = sqlx::query("SELECT id, player_id, url, secret, created_at FROM webhooks WHERE player_id = $1 ORDER BY created_at")
                    .bind(player)
                    .fetch_all(&self.pool)
                    .await?;
                rows.iter()
                    .map(|r| {
                        Ok(Webhook {
                            id: r.try_get("id")?,
                            player_id: r.try_get("player_id")?,
                            url: r.try_get("url")?,
                            secret: r.try_get("secret")?,
                            created_at: r.try_get("created_at")?,
                        })
                    })
                    .collect()
            }

            pub async fn delete_webhook(&self, player: Uuid, id: Uuid) -> Result<bool, StoreError> {
                let done = sqlx::query("DELETE FROM webhooks WHERE player_id = $1 AND id = $2")
                    .bind(player)
                    .bind(id)
                    .execute(&self.pool)
                    .await?;
                Ok(done.rows_affected() > 0)
            }

            pub async fn deliveries(&self, webhook: Uuid, limit: i64) -> Result<Vec<Delivery>, StoreError> {
                let rows = sqlx::query(
                    "SELECT id, webhook_id, game_id, version, kind, payload, status, attempts, next_attempt_at, \
                     last_status, last_error, created_at, delivered_at FROM webhook_deliveries \
                     WHERE webhook_id = $1 ORDER BY created_at DESC, id LIMIT $2",
                )
                .bind(webhook)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?;
                rows.iter().map(|r| Self::delivery(r)).collect()
            }

            fn delivery(r: &<$Db as sqlx::Database>::Row) -> Result<Delivery, StoreError> {
                Ok(Delivery {
                    id: r.try_get("id")?,
                    webhook_id: r.try_get("webhook_id")?,
                    game_id: r.try_get("game_id")?,
                    version: r.try_get("version")?,
                    kind: r.try_get("kind")?,
                    payload: r.try_get::<Json<Value>, _>("payload")?.0,
                    status: r.try_get("status")?,
                    attempts: r.try_get("attempts")?,
                    next_attempt_at: r.try_get("next_attempt_at")?,
                    last_status: r.try_get("last_status")?,
                    last_error: r.try_get("last_error")?,
                    created_at: r.try_get("created_at")?,
                    delivered_at: r.try_get("delivered_at")?,
                })
            }

            /// Claims up to `limit` due deliveries for `lease` (so two processes never send
            /// the same one at once); returns them with their webhook's URL and secret.
            pub async fn claim_due_deliveries(
                &self,
                now: DateTime<Utc>,
                lease_until: DateTime<Utc>,
                limit: i64,
            ) -> Result<Vec<(Delivery, String, String)>, StoreError> {
                let rows = sqlx::query(
                    "SELECT d.id, d.webhook_id, d.game_id, d.version, d.kind, d.payload, d.status, d.attempts, \
                     d.next_attempt_at, d.last_status, d.last_error, d.created_at, d.delivered_at, w.url, w.secret \
                     FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id \
                     WHERE d.status = 'pending' AND d.next_attempt_at <= $1 ORDER BY d.next_attempt_at LIMIT $2",
                )
                .bind(now)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?;
                let mut claimed = Vec::new();
                for r in &rows {
                    let d = Self::delivery(r)?;
                    let won = sqlx::query(
                        "UPDATE webhook_deliveries SET next_attempt_at = $1 \
                         WHERE id = $2 AND status = 'pending' AND next_attempt_at = $3",
                    )
                    .bind(lease_until)
                    .bind(d.id)
                    .bind(d.next_attempt_at)
                    .execute(&self.pool)
                    .await?
                    .rows_affected()
                        == 1;
                    if won {
                        claimed.push((d, r.try_get("url")?, r.try_get("secret")?));
                    }
                }
                Ok(claimed)
            }

            /// Records the outcome of one delivery attempt.
            pub async fn record_attempt(&self, a: &Attempt<'_>) -> Result<(), StoreError> {
                sqlx::query(
                    "UPDATE webhook_deliveries SET status = $1, attempts = $2, next_attempt_at = $3, \
                     last_status = $4, last_error = $5, delivered_at = $6 WHERE id = $7",
                )
                .bind(a.status)
                .bind(a.attempts)
                .bind(a.next_attempt_at)
                .bind(a.last_status)
                .bind(a.last_error)
                .bind(a.delivered_at)
                .bind(a.id)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            pub async fn game_ids(&self) -> Result<Vec<Uuid>, StoreError> {
                let rows = sqlx::query("SELECT game_id FROM events WHERE seq = 1 ORDER BY position")
                    .fetch_all(&self.pool)
                    .await?;
                rows.iter().map(|r| Ok(r.try_get("game_id")?)).collect()
            }

            /// Replaces the read models with `rows`, in one transaction.
            pub async fn replace_read_models(&self, rows: &[GameRow]) -> Result<(), StoreError> {
                let mut tx = self.pool.begin().await?;
                sqlx::query("DELETE FROM game_seats").execute(&mut *tx).await?;
                sqlx::query("DELETE FROM games").execute(&mut *tx).await?;
                for row in rows {
                    Self::write_row(&mut tx, row, true).await?;
                }
                tx.commit().await?;
                Ok(())
            }
        }
    };
}

sql_store!(PgStore, sqlx::Postgres);
sql_store!(SqliteStore, sqlx::Sqlite);

/// The store on whichever backend is configured.
#[derive(Debug, Clone)]
pub enum Store {
    Postgres(PgStore),
    Sqlite(SqliteStore),
}

macro_rules! dispatch {
    ($self:ident, $s:ident => $call:expr) => {
        match $self {
            Store::Postgres($s) => $call,
            Store::Sqlite($s) => $call,
        }
    };
}

impl Store {
    /// Connects (PostgreSQL for `postgres://` URLs, else an SQLite file path or
    /// `sqlite://` URL) and runs the migrations.
    pub async fn connect(url: &str, max_connections: u32) -> Result<Store, StoreError> {
        let store = if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            let pool = PgPoolOptions::new()
                .max_connections(max_connections)
                // No round trip to test a connection before each use: a broken one fails
                // its query, is closed, and the next is opened afresh (503 meanwhile).
                .test_before_acquire(false)
                .acquire_timeout(Duration::from_secs(5))
                .connect(url)
                .await?;
            sqlx::migrate!("../migrations/postgres").run(&pool).await?;
            let group = GroupCommit::start(pool.clone(), GROUP_COMMIT_WRITERS);
            Store::Postgres(PgStore { pool, group })
        } else {
            let path = url.strip_prefix("sqlite://").unwrap_or(url);
            if let Some(dir) = std::path::Path::new(path).parent() {
                if !dir.as_os_str().is_empty() {
                    std::fs::create_dir_all(dir)
                        .map_err(|e| StoreError::Database(sqlx::Error::Io(e)))?;
                }
            }
            let opts = SqliteConnectOptions::from_str(&format!("sqlite://{path}"))?
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
                .busy_timeout(Duration::from_secs(10))
                .foreign_keys(true);
            // One connection: SQLite has one writer, and this keeps every transaction
            // strictly serial (no upgrade deadlocks between readers that become writers).
            let pool = SqlitePoolOptions::new()
                .max_connections(1)
                .connect_with(opts)
                .await?;
            sqlx::migrate!("../migrations/sqlite").run(&pool).await?;
            Store::Sqlite(SqliteStore {
                pool,
                outbox: Arc::new(Notify::new()),
            })
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

    pub async fn ping(&self) -> Result<(), StoreError> {
        dispatch!(self, s => s.ping().await)
    }
    pub async fn create_player(&self, p: &Player, now: DateTime<Utc>) -> Result<(), StoreError> {
        dispatch!(self, s => s.create_player(p, now).await)
    }
    pub async fn player_by_token_hash(&self, hash: &[u8]) -> Result<Option<Player>, StoreError> {
        dispatch!(self, s => s.player_by_token_hash(hash).await)
    }
    pub async fn player_name(&self, id: Uuid) -> Result<Option<String>, StoreError> {
        dispatch!(self, s => s.player_name(id).await)
    }
    pub async fn player_exists(&self, id: Uuid) -> Result<bool, StoreError> {
        dispatch!(self, s => s.player_exists(id).await)
    }
    /// Appends one change of a game atomically: all of it or nothing. On PostgreSQL the
    /// changes that arrive together share one statement and one commit.
    pub async fn append(&self, a: Append) -> Result<Vec<StoredEvent>, StoreError> {
        match self {
            Store::Postgres(s) => s.group.append(a).await,
            Store::Sqlite(s) => SqliteStore::append_alone(&s.pool, &a, &s.outbox).await,
        }
    }

    /// Signalled whenever an append wrote webhook deliveries to the outbox (the delivery
    /// worker waits on it between polls).
    pub fn outbox_written(&self) -> Arc<Notify> {
        match self {
            Store::Postgres(s) => s.group.outbox(),
            Store::Sqlite(s) => s.outbox.clone(),
        }
    }
    pub async fn events(
        &self,
        game_id: Uuid,
        after: i64,
        limit: i64,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        dispatch!(self, s => s.events(game_id, after, limit).await)
    }
    pub async fn secret(&self, game_id: Uuid) -> Result<Option<Vec<u8>>, StoreError> {
        dispatch!(self, s => s.secret(game_id).await)
    }
    pub async fn list_games(&self, f: &GameFilter) -> Result<Vec<Value>, StoreError> {
        dispatch!(self, s => s.list_games(f).await)
    }
    pub async fn saved_response(
        &self,
        player: Uuid,
        key: &str,
    ) -> Result<Option<SavedResponse>, StoreError> {
        dispatch!(self, s => s.saved_response(player, key).await)
    }
    pub async fn game_ids(&self) -> Result<Vec<Uuid>, StoreError> {
        dispatch!(self, s => s.game_ids().await)
    }
    pub async fn replace_read_models(&self, rows: &[GameRow]) -> Result<(), StoreError> {
        dispatch!(self, s => s.replace_read_models(rows).await)
    }
    pub async fn overdue_games(
        &self,
        now: DateTime<Utc>,
        limit: i64,
    ) -> Result<Vec<Uuid>, StoreError> {
        dispatch!(self, s => s.overdue_games(now, limit).await)
    }
    pub async fn create_webhook(&self, w: &Webhook) -> Result<(), StoreError> {
        dispatch!(self, s => s.create_webhook(w).await)
    }
    pub async fn webhooks(&self, player: Uuid) -> Result<Vec<Webhook>, StoreError> {
        dispatch!(self, s => s.webhooks(player).await)
    }
    pub async fn delete_webhook(&self, player: Uuid, id: Uuid) -> Result<bool, StoreError> {
        dispatch!(self, s => s.delete_webhook(player, id).await)
    }
    pub async fn deliveries(&self, webhook: Uuid, limit: i64) -> Result<Vec<Delivery>, StoreError> {
        dispatch!(self, s => s.deliveries(webhook, limit).await)
    }
    pub async fn claim_due_deliveries(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: i64,
    ) -> Result<Vec<(Delivery, String, String)>, StoreError> {
        dispatch!(self, s => s.claim_due_deliveries(now, lease_until, limit).await)
    }
    pub async fn record_attempt(&self, a: &Attempt<'_>) -> Result<(), StoreError> {
        dispatch!(self, s => s.record_attempt(a).await)
    }

    /// Tells other server processes on the same PostgreSQL that games changed
    /// (`LISTEN worp_events`), one notification per payload, in one statement. On SQLite
    /// there is only one process; nothing to do.
    pub async fn announce(&self, payloads: &[String]) -> Result<(), StoreError> {
        if let Store::Postgres(s) = self {
            sqlx::query("SELECT pg_notify('worp_events', p) FROM unnest($1::text[]) AS p")
                .bind(payloads)
                .execute(&s.pool)
                .await?;
        }
        Ok(())
    }
}
