//! The store's statements as functions over a connection pool, written once and stamped
//! out per backend by [`statements!`] (sqlx's pools, rows and transactions are distinct
//! types per database; the SQL texts are the same, from [`super::sql`]).
//! Longer than 500 lines because it is a catalogue: one short function per statement,
//! inside the one macro that stamps them out for both backends.

/// Defines, in the module it is invoked in, one `async fn` per statement over a
/// `sqlx::Pool<$Db>`. `$lock_read_models` is the statement with which a rebuild makes
/// appends wait for it (`LOCK_READ_MODELS_*` in [`super::sql`]); `$list_games` and
/// `$list_games_of` list games in the backend's order (`LIST_GAMES_*`),
/// `$list_games_after` and `$list_games_of_after` the games after a given one,
/// `$list_games_in` and `$list_games_in_after` those of one status (no player given), and
/// `$write_game_row` writes a `games` row (`WRITE_GAME_ROW*`).
macro_rules! statements {
    (
        $Db:ty,
        $lock_read_models:expr,
        $list_games:expr,
        $list_games_of:expr,
        $list_games_after:expr,
        $list_games_of_after:expr,
        $list_games_in:expr,
        $list_games_in_after:expr,
        $write_game_row:expr
    ) => {
        use chrono::{DateTime, Utc};
        use serde_json::Value;
        use sqlx::types::Json;
        use sqlx::Row;
        use tokio::sync::Notify;
        use uuid::Uuid;

        use worp_domain::events::{RawEvent, StoredEvent};
        use worp_domain::records::{
            Append, Attempt, Delivery, FinishRow, GameFilter, GameRow, KeptAnswer, ListedAt,
            ListedGame, Player, StoredCheckpoint, Webhook,
        };
        use $crate::error::StoreError;
        use $crate::sql;

        type Pool = sqlx::Pool<$Db>;
        type DbRow = <$Db as sqlx::Database>::Row;

        fn conflict_or(e: sqlx::Error) -> StoreError {
            match &e {
                sqlx::Error::Database(db)
                    if db.is_unique_violation() || db.message().contains(sql::EVENT_EXISTS) =>
                {
                    StoreError::Conflict
                }
                _ => StoreError::Database(e),
            }
        }

        pub async fn ping(pool: &Pool) -> Result<(), StoreError> {
            sqlx::query(sql::PING).execute(pool).await?;
            Ok(())
        }

        /// Registers `p` with its name key `key`, in one transaction: a key another
        /// player holds refuses the registration ([`StoreError::NameTaken`]).
        pub async fn create_player(
            pool: &Pool,
            p: &Player,
            key: &str,
            now: DateTime<Utc>,
        ) -> Result<(), StoreError> {
            let mut tx = pool.begin().await?;
            sqlx::query(sql::INSERT_NAME_KEY)
                .bind(key)
                .bind(p.id)
                .execute(&mut *tx)
                .await
                .map_err(|e| match &e {
                    sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::NameTaken,
                    _ => StoreError::Database(e),
                })?;
            sqlx::query(sql::INSERT_PLAYER)
                .bind(p.id)
                .bind(&p.name)
                .bind(&p.token_hash)
                .bind(now)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(())
        }

        /// The player (id, name) whose name holds `key`.
        pub async fn name_key_holder(
            pool: &Pool,
            key: &str,
        ) -> Result<Option<(Uuid, String)>, StoreError> {
            let row = sqlx::query(sql::NAME_KEY_HOLDER)
                .bind(key)
                .fetch_optional(pool)
                .await?;
            Ok(row
                .map(|r| Ok::<_, sqlx::Error>((r.try_get("id")?, r.try_get("name")?)))
                .transpose()?)
        }

        /// Players (id, name) without a name key, oldest first.
        pub async fn players_without_name_key(
            pool: &Pool,
        ) -> Result<Vec<(Uuid, String)>, StoreError> {
            let rows = sqlx::query(sql::PLAYERS_WITHOUT_NAME_KEY)
                .fetch_all(pool)
                .await?;
            rows.iter()
                .map(|r| Ok((r.try_get("id")?, r.try_get("name")?)))
                .collect::<Result<_, sqlx::Error>>()
                .map_err(StoreError::from)
        }

        /// Gives player `id` the name key `key` if nobody holds it; whether it did.
        pub async fn add_name_key(pool: &Pool, key: &str, id: Uuid) -> Result<bool, StoreError> {
            let done = sqlx::query(sql::INSERT_NAME_KEY_IF_FREE)
                .bind(key)
                .bind(id)
                .execute(pool)
                .await?;
            Ok(done.rows_affected() == 1)
        }

        pub async fn player_by_token_hash(
            pool: &Pool,
            hash: &[u8],
        ) -> Result<Option<Player>, StoreError> {
            let row = sqlx::query(sql::PLAYER_BY_TOKEN_HASH)
                .bind(hash)
                .fetch_optional(pool)
                .await?;
            Ok(row.map(|r| player_of(&r)).transpose()?)
        }

        /// The player of a row with columns `id`, `name` and `token_hash`.
        fn player_of(r: &DbRow) -> Result<Player, sqlx::Error> {
            Ok(Player {
                id: r.try_get("id")?,
                name: r.try_get("name")?,
                token_hash: r.try_get("token_hash")?,
            })
        }

        pub async fn player_name(pool: &Pool, id: Uuid) -> Result<Option<String>, StoreError> {
            let row = sqlx::query(sql::PLAYER_NAME)
                .bind(id)
                .fetch_optional(pool)
                .await?;
            Ok(row.map(|r| r.try_get("name")).transpose()?)
        }

        /// A player's name and when they registered.
        pub async fn player_profile(
            pool: &Pool,
            id: Uuid,
        ) -> Result<Option<(String, DateTime<Utc>)>, StoreError> {
            let row = sqlx::query(sql::PLAYER_PROFILE)
                .bind(id)
                .fetch_optional(pool)
                .await?;
            Ok(row
                .map(|r| Ok::<_, sqlx::Error>((r.try_get("name")?, r.try_get("created_at")?)))
                .transpose()?)
        }

        pub async fn player_exists(pool: &Pool, id: Uuid) -> Result<bool, StoreError> {
            let row = sqlx::query(sql::PLAYER_EXISTS)
                .bind(id)
                .fetch_optional(pool)
                .await?;
            Ok(row.is_some())
        }

        /// Whether the player wants an `invited` notice (false for no such player).
        pub async fn invitation_notices(pool: &Pool, id: Uuid) -> Result<bool, StoreError> {
            let row = sqlx::query(sql::INVITATION_NOTICES)
                .bind(id)
                .fetch_optional(pool)
                .await?;
            Ok(row
                .map(|r| r.try_get("invitation_notices"))
                .transpose()?
                .unwrap_or(false))
        }

        pub async fn set_invitation_notices(
            pool: &Pool,
            id: Uuid,
            on: bool,
        ) -> Result<(), StoreError> {
            sqlx::query(sql::SET_INVITATION_NOTICES)
                .bind(id)
                .bind(on)
                .execute(pool)
                .await?;
            Ok(())
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
            for (i, row) in a.events.iter().enumerate() {
                let e = &row.event;
                // The payload's one text, bound as JSON (the column's type).
                let payload = serde_json::value::RawValue::from_string(row.payload.clone())
                    .map_err(|e| sqlx::Error::Encode(Box::new(e)))?;
                let mut q = sqlx::query(if i == 0 {
                    sql::INSERT_FIRST_EVENT
                } else {
                    sql::INSERT_EVENT
                })
                .bind(e.game_id)
                .bind(e.seq)
                .bind(&e.kind)
                .bind(Json(payload))
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
            if let Some(kept) = &a.answer_to_keep {
                sqlx::query(sql::DELETE_EXPIRED_ANSWER)
                    .bind(kept.player_id)
                    .bind(&kept.key)
                    .bind(kept.expired_before)
                    .execute(&mut *tx)
                    .await?;
                sqlx::query(sql::INSERT_ANSWER)
                    .bind(kept.player_id)
                    .bind(&kept.key)
                    .bind(Json(&kept.body))
                    .bind(a.row.updated_at)
                    .bind(&kept.request)
                    .bind(&kept.body_hash)
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
            sqlx::query($write_game_row)
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
            event_page(pool, sql::EVENTS_AFTER, game_id, after, limit, event).await
        }

        /// [`events`] as a fold reads them (`sql::EVENTS_IN_RANGE`): each payload kept as
        /// the text stored.
        pub async fn raw_events(
            pool: &Pool,
            game_id: Uuid,
            after: i64,
            limit: i64,
        ) -> Result<Vec<RawEvent>, StoreError> {
            event_page(
                pool,
                sql::EVENTS_IN_RANGE,
                game_id,
                after,
                limit,
                logged_event,
            )
            .await
        }

        fn logged_event(r: &DbRow) -> Result<RawEvent, StoreError> {
            let payload: Json<&serde_json::value::RawValue> = r.try_get("payload")?;
            Ok(RawEvent {
                game_id: r.try_get("game_id")?,
                seq: r.try_get("seq")?,
                kind: r.try_get("kind")?,
                payload: payload.0.to_owned(),
                recorded_at: r.try_get("recorded_at")?,
                hash: r.try_get("hash")?,
            })
        }

        pub async fn messages(
            pool: &Pool,
            game_id: Uuid,
            after: i64,
            limit: i64,
        ) -> Result<Vec<StoredEvent>, StoreError> {
            event_page(pool, sql::MESSAGES_AFTER, game_id, after, limit, event).await
        }

        /// The events `statement` reads of `game_id` after `after`, at most `limit`, each
        /// row read by `read`.
        async fn event_page<T>(
            pool: &Pool,
            statement: &'static str,
            game_id: Uuid,
            after: i64,
            limit: i64,
            read: fn(&DbRow) -> Result<T, StoreError>,
        ) -> Result<Vec<T>, StoreError> {
            let rows = sqlx::query(statement)
                .bind(game_id)
                .bind(after)
                .bind(limit)
                .fetch_all(pool)
                .await?;
            rows.iter().map(read).collect()
        }

        fn event(r: &DbRow) -> Result<StoredEvent, StoreError> {
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
        }

        pub async fn stored_checkpoint(
            pool: &Pool,
            game_id: Uuid,
            at: i64,
        ) -> Result<Option<StoredCheckpoint>, StoreError> {
            let row = sqlx::query(sql::STORED_CHECKPOINT)
                .bind(game_id)
                .bind(at)
                .fetch_optional(pool)
                .await?;
            let Some(r) = row else { return Ok(None) };
            Ok(Some(StoredCheckpoint {
                game_id: r.try_get("game_id")?,
                version: r.try_get("version")?,
                rules_version: r.try_get("rules_version")?,
                format: r.try_get("format")?,
                body: r.try_get("body")?,
            }))
        }

        pub async fn store_checkpoint(
            pool: &Pool,
            c: &StoredCheckpoint,
            at: DateTime<Utc>,
            replace_any: bool,
        ) -> Result<(), StoreError> {
            sqlx::query(sql::STORE_CHECKPOINT)
                .bind(c.game_id)
                .bind(c.version)
                .bind(c.rules_version)
                .bind(c.format)
                .bind(&c.body)
                .bind(at)
                .bind(replace_any)
                .execute(pool)
                .await?;
            Ok(())
        }

        pub async fn drop_checkpoint(
            pool: &Pool,
            game_id: Uuid,
            version: i64,
        ) -> Result<(), StoreError> {
            sqlx::query(sql::DROP_CHECKPOINT)
                .bind(game_id)
                .bind(version)
                .execute(pool)
                .await?;
            Ok(())
        }

        pub async fn secret(pool: &Pool, game_id: Uuid) -> Result<Option<Vec<u8>>, StoreError> {
            let row = sqlx::query(sql::SECRET)
                .bind(game_id)
                .fetch_optional(pool)
                .await?;
            Ok(row.map(|r| r.try_get("server_seed")).transpose()?)
        }

        pub async fn list_games(
            pool: &Pool,
            f: &GameFilter,
        ) -> Result<Vec<ListedGame>, StoreError> {
            // The player to move holds a seat: their turns are among their games.
            let seated = f.player.or(f.to_move_player);
            let statement = match (seated, f.status.is_some(), f.after) {
                (Some(_), _, None) => $list_games_of,
                (Some(_), _, Some(_)) => $list_games_of_after,
                (None, true, None) => $list_games_in,
                (None, true, Some(_)) => $list_games_in_after,
                (None, false, None) => $list_games,
                (None, false, Some(_)) => $list_games_after,
            };
            let mut query = sqlx::query(statement)
                .bind(seated)
                .bind(f.status.as_deref())
                .bind(f.to_move_player)
                .bind(f.limit)
                .bind(f.offset);
            if let Some(after) = f.after {
                query = query.bind(after.updated_at).bind(after.id);
            }
            let rows = query.fetch_all(pool).await?;
            rows.iter()
                .map(|r| {
                    Ok(ListedGame {
                        summary: r.try_get::<Json<Value>, _>("summary")?.0,
                        at: ListedAt {
                            updated_at: r.try_get("updated_at")?,
                            id: r.try_get("id")?,
                        },
                    })
                })
                .collect()
        }

        pub async fn delete_expired_answers(
            pool: &Pool,
            before: DateTime<Utc>,
        ) -> Result<u64, StoreError> {
            Ok(sqlx::query(sql::DELETE_EXPIRED_ANSWERS)
                .bind(before)
                .execute(pool)
                .await?
                .rows_affected())
        }

        pub async fn kept_answer_of(
            pool: &Pool,
            player: Uuid,
            key: &str,
            not_before: DateTime<Utc>,
        ) -> Result<Option<KeptAnswer>, StoreError> {
            let row = sqlx::query(sql::ANSWER)
                .bind(player)
                .bind(key)
                .bind(not_before)
                .fetch_optional(pool)
                .await?;
            row.map(|r| {
                Ok(KeptAnswer {
                    body: r.try_get::<Json<Value>, _>("body")?.0,
                    request: r.try_get("request")?,
                    body_hash: r.try_get("body_hash")?,
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

        /// How many `game_finished` events there are after `after` and up to `upto`.
        pub async fn finished_count(pool: &Pool, after: i64, upto: i64) -> Result<i64, StoreError> {
            let r = sqlx::query(sql::FINISHED_COUNT)
                .bind(after)
                .bind(upto)
                .fetch_one(pool)
                .await?;
            Ok(r.try_get("n")?)
        }

        /// The `game_finished` events after `position`, in global order: each with its
        /// game's id, the event's payload and the game's listing entry.
        /// The first `limit` finishes after `position` (see [`sql::FINISHED_AFTER`]); a
        /// game without its listing entry (read models being rebuilt) has no summary.
        pub async fn finished_after(
            pool: &Pool,
            position: i64,
            limit: i64,
        ) -> Result<Vec<FinishRow>, StoreError> {
            let rows = sqlx::query(sql::FINISHED_AFTER)
                .bind(position)
                .bind(limit)
                .fetch_all(pool)
                .await?;
            rows.iter()
                .map(|r| {
                    Ok(FinishRow {
                        position: r.try_get("position")?,
                        game_id: r.try_get("game_id")?,
                        payload: r.try_get::<Json<Value>, _>("payload")?.0,
                        recorded_at: r.try_get("recorded_at")?,
                        summary: r.try_get::<Option<Json<Value>>, _>("summary")?.map(|s| s.0),
                    })
                })
                .collect()
        }

        /// Listing entries of waiting games with a seat anyone may take, newest first.
        pub async fn lobby(
            pool: &Pool,
            variant: Option<&str>,
            limit: i64,
            offset: i64,
        ) -> Result<Vec<Value>, StoreError> {
            let rows = sqlx::query(sql::LOBBY)
                .bind(variant)
                .bind(limit)
                .bind(offset)
                .fetch_all(pool)
                .await?;
            rows.iter()
                .map(|r| Ok(r.try_get::<Json<Value>, _>("summary")?.0))
                .collect()
        }

        pub async fn game_ids(pool: &Pool) -> Result<Vec<Uuid>, StoreError> {
            let rows = sqlx::query(sql::GAME_IDS).fetch_all(pool).await?;
            rows.iter().map(|r| Ok(r.try_get("game_id")?)).collect()
        }

        /// Rebuilds the read models from the log in one transaction that first makes
        /// every append wait (`$lock_read_models`), then reads the log (every change
        /// committed before the lock is in it) and makes each game's row with `row_of`:
        /// a game created meanwhile keeps its rows, written after this commits.
        pub async fn rebuild_read_models<E: From<StoreError>>(
            pool: &Pool,
            row_of: impl Fn(&[StoredEvent]) -> Result<GameRow, E>,
        ) -> Result<usize, E> {
            let mut tx = pool.begin().await.map_err(StoreError::from)?;
            sqlx::query($lock_read_models)
                .execute(&mut *tx)
                .await
                .map_err(StoreError::from)?;
            let ids = sqlx::query(sql::GAME_IDS)
                .fetch_all(&mut *tx)
                .await
                .map_err(StoreError::from)?;
            let mut rows = Vec::with_capacity(ids.len());
            for id in &ids {
                let id: Uuid = id.try_get("game_id").map_err(StoreError::from)?;
                let mut events = Vec::new();
                loop {
                    let page = sqlx::query(sql::EVENTS_AFTER)
                        .bind(id)
                        .bind(events.len() as i64)
                        .bind(1000_i64)
                        .fetch_all(&mut *tx)
                        .await
                        .map_err(StoreError::from)?;
                    let more = page.len() == 1000;
                    for r in &page {
                        events.push(event(r)?);
                    }
                    if !more {
                        break;
                    }
                }
                rows.push(row_of(&events)?);
            }
            sqlx::query(sql::CLEAR_SEATS)
                .execute(&mut *tx)
                .await
                .map_err(StoreError::from)?;
            sqlx::query(sql::CLEAR_GAMES)
                .execute(&mut *tx)
                .await
                .map_err(StoreError::from)?;
            for row in &rows {
                write_row(&mut tx, row, true).await?;
            }
            tx.commit().await.map_err(StoreError::from)?;
            Ok(rows.len())
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
