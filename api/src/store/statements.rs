//! The store's statements as functions over a connection pool, written once and stamped
//! out per backend by [`statements!`] (sqlx's pools, rows and transactions are distinct
//! types per database; the SQL texts are the same, from [`super::sql`]).

/// Defines, in the module it is invoked in, one `async fn` per statement over a
/// `sqlx::Pool<$Db>`.
macro_rules! statements {
    ($Db:ty) => {
        use chrono::{DateTime, Utc};
        use serde_json::Value;
        use sqlx::types::Json;
        use sqlx::Row;
        use tokio::sync::Notify;
        use uuid::Uuid;

        use $crate::events::StoredEvent;
        use $crate::store::error::StoreError;
        use $crate::store::records::{
            Append, Attempt, Delivery, GameFilter, GameRow, Player, SavedResponse, Webhook,
        };
        use $crate::store::sql;

        type Pool = sqlx::Pool<$Db>;
        type DbRow = <$Db as sqlx::Database>::Row;

        fn conflict_or(e: sqlx::Error) -> StoreError {
            match &e {
                sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::Conflict,
                _ => StoreError::Database(e),
            }
        }

        pub async fn ping(pool: &Pool) -> Result<(), StoreError> {
            sqlx::query(sql::PING).execute(pool).await?;
            Ok(())
        }

        pub async fn create_player(
            pool: &Pool,
            p: &Player,
            now: DateTime<Utc>,
        ) -> Result<(), StoreError> {
            sqlx::query(sql::INSERT_PLAYER)
                .bind(p.id)
                .bind(&p.name)
                .bind(&p.token_hash)
                .bind(now)
                .execute(pool)
                .await?;
            Ok(())
        }

        pub async fn player_by_token_hash(
            pool: &Pool,
            hash: &[u8],
        ) -> Result<Option<Player>, StoreError> {
            let row = sqlx::query(sql::PLAYER_BY_TOKEN_HASH)
                .bind(hash)
                .fetch_optional(pool)
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

        pub async fn player_name(pool: &Pool, id: Uuid) -> Result<Option<String>, StoreError> {
            let row = sqlx::query(sql::PLAYER_NAME)
                .bind(id)
                .fetch_optional(pool)
                .await?;
            Ok(row.map(|r| r.try_get("name")).transpose()?)
        }

        pub async fn player_exists(pool: &Pool, id: Uuid) -> Result<bool, StoreError> {
            let row = sqlx::query(sql::PLAYER_EXISTS)
                .bind(id)
                .fetch_optional(pool)
                .await?;
            Ok(row.is_some())
        }

        pub async fn open_games_of(pool: &Pool, player: Uuid) -> Result<i64, StoreError> {
            let row = sqlx::query(sql::OPEN_GAMES_OF)
                .bind(player)
                .fetch_one(pool)
                .await?;
            Ok(row.try_get("n")?)
        }

        /// Appends one change in its own transaction (form 1 of the version check in
        /// [`sql`]); signals `outbox` when it wrote webhook deliveries.
        pub async fn append_alone(
            pool: &Pool,
            a: &Append,
            outbox: &Notify,
        ) -> Result<Vec<StoredEvent>, StoreError> {
            let mut deliveries = 0;
            let mut tx = pool.begin().await?;
            let mut stored = Vec::with_capacity(a.events.len());
            for (i, e) in a.events.iter().enumerate() {
                let mut q = sqlx::query(if i == 0 {
                    sql::INSERT_FIRST_EVENT
                } else {
                    sql::INSERT_EVENT
                })
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
                let last: i64 = sqlx::query(sql::LOG_END)
                    .bind(a.game_id)
                    .fetch_one(&mut *tx)
                    .await?
                    .try_get("last")?;
                if last != a.expected_version {
                    return Err(StoreError::Conflict);
                }
            }
            if let Some(seed) = &a.secret {
                sqlx::query(sql::INSERT_SECRET)
                    .bind(a.game_id)
                    .bind(seed)
                    .execute(&mut *tx)
                    .await
                    .map_err(conflict_or)?;
            }
            write_row(&mut tx, &a.row, a.seats_changed()).await?;
            for n in &a.notices {
                let hooks = sqlx::query(sql::WEBHOOKS_OF_PLAYER)
                    .bind(n.player_id)
                    .fetch_all(&mut *tx)
                    .await?;
                for h in hooks {
                    let hook: Uuid = h.try_get("id")?;
                    sqlx::query(sql::INSERT_DELIVERY)
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
            if let Some((player, key, answer)) = &a.idempotency {
                sqlx::query(sql::INSERT_ANSWER)
                    .bind(*player)
                    .bind(key)
                    .bind(Json(&answer.body))
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
            sqlx::query(sql::WRITE_GAME_ROW)
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
                sqlx::query(sql::WRITE_SEAT)
                    .bind(row.id)
                    .bind(seat as i32)
                    .bind(*player)
                    .execute(&mut **tx)
                    .await?;
            }
            Ok(())
        }

        pub async fn events(
            pool: &Pool,
            game_id: Uuid,
            after: i64,
            limit: i64,
        ) -> Result<Vec<StoredEvent>, StoreError> {
            let rows = sqlx::query(sql::EVENTS_AFTER)
                .bind(game_id)
                .bind(after)
                .bind(limit)
                .fetch_all(pool)
                .await?;
            rows.iter()
                .map(|r| {
                    Ok(StoredEvent {
                        game_id: r.try_get("game_id")?,
                        seq: r.try_get("seq")?,
                        position: r.try_get("position")?,
                        kind: r.try_get("kind")?,
                        payload: r.try_get::<Json<Value>, _>("payload")?.0,
                        rules_version: r.try_get("rules_version")?,
                        recorded_at: r.try_get("recorded_at")?,
                        hash: r.try_get("hash")?,
                    })
                })
                .collect()
        }

        pub async fn secret(pool: &Pool, game_id: Uuid) -> Result<Option<Vec<u8>>, StoreError> {
            let row = sqlx::query(sql::SECRET)
                .bind(game_id)
                .fetch_optional(pool)
                .await?;
            Ok(row.map(|r| r.try_get("server_seed")).transpose()?)
        }

        pub async fn list_games(pool: &Pool, f: &GameFilter) -> Result<Vec<Value>, StoreError> {
            let rows = sqlx::query(sql::LIST_GAMES)
                .bind(f.player)
                .bind(f.status.as_deref())
                .bind(f.to_move_player)
                .bind(f.limit)
                .bind(f.offset)
                .fetch_all(pool)
                .await?;
            rows.iter()
                .map(|r| Ok(r.try_get::<Json<Value>, _>("summary")?.0))
                .collect()
        }

        pub async fn saved_response(
            pool: &Pool,
            player: Uuid,
            key: &str,
        ) -> Result<Option<SavedResponse>, StoreError> {
            let row = sqlx::query(sql::ANSWER)
                .bind(player)
                .bind(key)
                .fetch_optional(pool)
                .await?;
            row.map(|r| {
                Ok(SavedResponse {
                    body: r.try_get::<Json<Value>, _>("body")?.0,
                })
            })
            .transpose()
        }

        pub async fn overdue_games(
            pool: &Pool,
            now: DateTime<Utc>,
            limit: i64,
        ) -> Result<Vec<Uuid>, StoreError> {
            let rows = sqlx::query(sql::OVERDUE_GAMES)
                .bind(now)
                .bind(limit)
                .fetch_all(pool)
                .await?;
            rows.iter().map(|r| Ok(r.try_get("id")?)).collect()
        }

        pub async fn create_webhook(pool: &Pool, w: &Webhook) -> Result<(), StoreError> {
            sqlx::query(sql::INSERT_WEBHOOK)
                .bind(w.id)
                .bind(w.player_id)
                .bind(&w.url)
                .bind(&w.secret)
                .bind(w.created_at)
                .execute(pool)
                .await?;
            Ok(())
        }

        pub async fn webhooks(pool: &Pool, player: Uuid) -> Result<Vec<Webhook>, StoreError> {
            let rows = sqlx::query(sql::WEBHOOKS)
                .bind(player)
                .fetch_all(pool)
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

        pub async fn delete_webhook(
            pool: &Pool,
            player: Uuid,
            id: Uuid,
        ) -> Result<bool, StoreError> {
            let done = sqlx::query(sql::DELETE_WEBHOOK)
                .bind(player)
                .bind(id)
                .execute(pool)
                .await?;
            Ok(done.rows_affected() > 0)
        }

        pub async fn deliveries(
            pool: &Pool,
            webhook: Uuid,
            limit: i64,
        ) -> Result<Vec<Delivery>, StoreError> {
            let rows = sqlx::query(sql::DELIVERIES)
                .bind(webhook)
                .bind(limit)
                .fetch_all(pool)
                .await?;
            rows.iter().map(delivery).collect()
        }

        fn delivery(r: &DbRow) -> Result<Delivery, StoreError> {
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

        /// Claims up to `limit` due deliveries until `lease_until` (so two processes
        /// never send the same one at once); returns them with their webhook's URL and
        /// secret.
        pub async fn claim_due_deliveries(
            pool: &Pool,
            now: DateTime<Utc>,
            lease_until: DateTime<Utc>,
            limit: i64,
        ) -> Result<Vec<(Delivery, String, String)>, StoreError> {
            let rows = sqlx::query(sql::DUE_DELIVERIES)
                .bind(now)
                .bind(limit)
                .fetch_all(pool)
                .await?;
            let mut claimed = Vec::new();
            for r in &rows {
                let d = delivery(r)?;
                let won = sqlx::query(sql::LEASE_DELIVERY)
                    .bind(lease_until)
                    .bind(d.id)
                    .bind(d.next_attempt_at)
                    .execute(pool)
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
        pub async fn record_attempt(pool: &Pool, a: &Attempt<'_>) -> Result<(), StoreError> {
            sqlx::query(sql::RECORD_ATTEMPT)
                .bind(a.status)
                .bind(a.attempts)
                .bind(a.next_attempt_at)
                .bind(a.last_status)
                .bind(a.last_error)
                .bind(a.delivered_at)
                .bind(a.id)
                .execute(pool)
                .await?;
            Ok(())
        }

        pub async fn game_ids(pool: &Pool) -> Result<Vec<Uuid>, StoreError> {
            let rows = sqlx::query(sql::GAME_IDS).fetch_all(pool).await?;
            rows.iter().map(|r| Ok(r.try_get("game_id")?)).collect()
        }

        /// Replaces the read models with `rows`, in one transaction.
        pub async fn replace_read_models(pool: &Pool, rows: &[GameRow]) -> Result<(), StoreError> {
            let mut tx = pool.begin().await?;
            sqlx::query(sql::CLEAR_SEATS).execute(&mut *tx).await?;
            sqlx::query(sql::CLEAR_GAMES).execute(&mut *tx).await?;
            for row in rows {
                write_row(&mut tx, row, true).await?;
            }
            tx.commit().await?;
            Ok(())
        }
    };
}

pub(super) use statements;
