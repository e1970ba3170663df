//! Persistence: the event log and its read models, on PostgreSQL or embedded SQLite.
//!
//! Both backends run the same SQL (`$1`-style parameters work on both); the queries are
//! written once in `sql_store!` and stamped out per backend. Every change of a game is
//! one transaction: its new events (with the sequence the caller expected), the games
//! read model, and the idempotency record. A racing append violates `UNIQUE (game_id,
//! seq)` and comes back as [`StoreError::Conflict`].

use std::str::FromStr;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::postgres::PgPoolOptions;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions};
use sqlx::types::Json;
use sqlx::Row;
use uuid::Uuid;

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

/// The games read model of one game (derived from its events).
#[derive(Debug, Clone)]
pub struct GameRow {
    pub id: Uuid,
    pub variant: String,
    pub status: String,
    pub version: i64,
    pub to_move_seat: Option<i32>,
    pub to_move_player: Option<Uuid>,
    /// The listing entry shown by `GET /v1/games`.
    pub summary: Value,
    pub seats: Vec<Option<Uuid>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A stored answer for an `Idempotency-Key`.
#[derive(Debug, Clone)]
pub struct SavedResponse {
    pub status: u16,
    pub body: Value,
}

/// One atomic change of a game.
pub struct Append<'a> {
    pub game_id: Uuid,
    /// The last sequence number the caller saw (0 for a new game).
    pub expected_version: i64,
    pub events: &'a [StoredEvent],
    pub row: &'a GameRow,
    /// The secret server seed, stored with a new game.
    pub secret: Option<&'a [u8]>,
    /// The answer to keep for `(player, key)`.
    pub idempotency: Option<(Uuid, &'a str, &'a SavedResponse)>,
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

macro_rules! sql_store {
    ($Store:ident, $Db:ty) => {
        /// The store on one backend.
        #[derive(Debug, Clone)]
        pub struct $Store {
            pub pool: sqlx::Pool<$Db>,
        }

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

            pub async fn player_exists(&self, id: Uuid) -> Result<bool, StoreError> {
                let row = sqlx::query("SELECT 1 FROM players WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?;
                Ok(row.is_some())
            }

            pub async fn append(&self, a: Append<'_>) -> Result<Vec<StoredEvent>, StoreError> {
                let mut tx = self.pool.begin().await?;
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
                if let Some(seed) = a.secret {
                    sqlx::query("INSERT INTO game_secrets (game_id, server_seed) VALUES ($1, $2)")
                        .bind(a.game_id)
                        .bind(seed)
                        .execute(&mut *tx)
                        .await
                        .map_err(conflict_or)?;
                }
                // Seats change only when a game is created or a seat taken.
                let seats_changed = a
                    .events
                    .iter()
                    .any(|e| e.kind == "game_created" || e.kind == "seat_taken");
                Self::write_row(&mut tx, a.row, seats_changed).await?;
                if let Some((player, key, resp)) = a.idempotency {
                    sqlx::query(
                        "INSERT INTO idempotency (player_id, key, status, body, created_at) VALUES ($1, $2, $3, $4, $5)",
                    )
                    .bind(player)
                    .bind(key)
                    .bind(i32::from(resp.status))
                    .bind(Json(&resp.body))
                    .bind(a.row.updated_at)
                    .execute(&mut *tx)
                    .await
                    .map_err(conflict_or)?;
                }
                tx.commit().await.map_err(conflict_or)?;
                Ok(stored)
            }

            async fn write_row(
                tx: &mut sqlx::Transaction<'static, $Db>,
                row: &GameRow,
                seats: bool,
            ) -> Result<(), StoreError> {
                sqlx::query(
                    "INSERT INTO games (id, variant, status, version, to_move_seat, to_move_player, summary, created_at, updated_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
                     ON CONFLICT (id) DO UPDATE SET status = excluded.status, version = excluded.version, \
                     to_move_seat = excluded.to_move_seat, to_move_player = excluded.to_move_player, \
                     summary = excluded.summary, updated_at = excluded.updated_at",
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
                .acquire_timeout(Duration::from_secs(5))
                .connect(url)
                .await?;
            sqlx::migrate!("../migrations/postgres").run(&pool).await?;
            Store::Postgres(PgStore { pool })
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
            Store::Sqlite(SqliteStore { pool })
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
    pub async fn player_exists(&self, id: Uuid) -> Result<bool, StoreError> {
        dispatch!(self, s => s.player_exists(id).await)
    }
    pub async fn append(&self, a: Append<'_>) -> Result<Vec<StoredEvent>, StoreError> {
        dispatch!(self, s => s.append(a).await)
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
}
