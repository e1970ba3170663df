//! The notifier's statements: its place in the log, what it reads of the log and of
//! the games' clocks, and password resets; stamped out per backend beside
//! [`super::notification_statements`] (invoke that first: these use its imports and its
//! `queue_into`). The SQL is the same on both backends.

/// Defines the notifier's statements in the module it is invoked in.
macro_rules! notifier_statements {
    () => {
        pub async fn notifier_cursor(pool: &Pool) -> Result<i64, StoreError> {
            let row = sqlx::query("SELECT position FROM notifier_cursor WHERE id = 1")
                .fetch_optional(pool)
                .await?;
            Ok(row.map(|r| r.try_get("position")).transpose()?.unwrap_or(0))
        }

        /// Moves the notifier's cursor forward to `position` (never back).
        pub async fn advance_notifier_cursor(pool: &Pool, position: i64) -> Result<(), StoreError> {
            sqlx::query(
                "INSERT INTO notifier_cursor (id, position) VALUES (1, $1) \
                 ON CONFLICT (id) DO UPDATE SET position = excluded.position \
                 WHERE notifier_cursor.position < excluded.position",
            )
            .bind(position)
            .execute(pool)
            .await?;
            Ok(())
        }

        /// Up to `limit` events after `position` in the log of all games, as
        /// (position, game, sequence number) in order.
        pub async fn log_after(
            pool: &Pool,
            position: i64,
            limit: i64,
        ) -> Result<Vec<(i64, Uuid, i64)>, StoreError> {
            let rows = sqlx::query(
                "SELECT position, game_id, seq FROM events WHERE position > $1 ORDER BY position LIMIT $2",
            )
            .bind(position)
            .bind(limit)
            .fetch_all(pool)
            .await?;
            rows.iter()
                .map(|r| Ok((r.try_get("position")?, r.try_get("game_id")?, r.try_get("seq")?)))
                .collect()
        }

        /// Active games whose clock runs out in `(after, until]`, soonest first, as (game,
        /// player to move, deadline).
        pub async fn deadlines_between(
            pool: &Pool,
            after: DateTime<Utc>,
            until: DateTime<Utc>,
            limit: i64,
        ) -> Result<Vec<(Uuid, Uuid, DateTime<Utc>)>, StoreError> {
            let rows = sqlx::query(
                "SELECT id, to_move_player, deadline FROM games WHERE deadline > $1 \
                 AND deadline <= $2 AND status = 'active' AND to_move_player IS NOT NULL \
                 ORDER BY deadline LIMIT $3",
            )
            .bind(after)
            .bind(until)
            .bind(limit)
            .fetch_all(pool)
            .await?;
            rows.iter()
                .map(|r| Ok((r.try_get("id")?, r.try_get("to_move_player")?, r.try_get("deadline")?)))
                .collect()
        }

        /// Stores a password reset's secret (its SHA-256) for `player` and queues its
        /// mail, in one transaction; how many `player` asked for since `since` before.
        pub async fn queue_password_reset(
            pool: &Pool,
            hash: &[u8],
            expires_at: DateTime<Utc>,
            since: DateTime<Utc>,
            limit: i64,
            mail: &Queued,
        ) -> Result<bool, StoreError> {
            let mut tx = pool.begin().await?;
            let row = sqlx::query(
                "SELECT count(*) AS n FROM password_resets WHERE player_id = $1 AND created_at > $2",
            )
            .bind(mail.player_id)
            .bind(since)
            .fetch_one(&mut *tx)
            .await?;
            let n: i64 = row.try_get("n")?;
            if n >= limit {
                return Ok(false);
            }
            sqlx::query(
                "INSERT INTO password_resets (secret_hash, player_id, created_at, expires_at) \
                 VALUES ($1, $2, $3, $4)",
            )
            .bind(hash)
            .bind(mail.player_id)
            .bind(mail.created_at)
            .bind(expires_at)
            .execute(&mut *tx)
            .await?;
            sqlx::query("DELETE FROM password_resets WHERE created_at < $1")
                .bind(since - chrono::Duration::days(1))
                .execute(&mut *tx)
                .await?;
            queue_into(&mut *tx, mail).await?;
            tx.commit().await?;
            Ok(true)
        }

        /// The player of the unused, unexpired password reset whose secret has SHA-256
        /// `hash`.
        pub async fn password_reset_holder(
            pool: &Pool,
            hash: &[u8],
            now: DateTime<Utc>,
        ) -> Result<Option<Uuid>, StoreError> {
            let row = sqlx::query(
                "SELECT player_id FROM password_resets WHERE secret_hash = $1 \
                 AND used_at IS NULL AND expires_at > $2",
            )
            .bind(hash)
            .bind(now)
            .fetch_optional(pool)
            .await?;
            Ok(row.map(|r| r.try_get("player_id")).transpose()?)
        }

        /// Uses the password reset whose secret has SHA-256 `hash`, if it is unused and
        /// unexpired at `now`: its player.
        pub async fn use_password_reset(
            pool: &Pool,
            hash: &[u8],
            now: DateTime<Utc>,
        ) -> Result<Option<Uuid>, StoreError> {
            let row = sqlx::query(
                "UPDATE password_resets SET used_at = $2 WHERE secret_hash = $1 \
                 AND used_at IS NULL AND expires_at > $2 RETURNING player_id",
            )
            .bind(hash)
            .bind(now)
            .fetch_optional(pool)
            .await?;
            Ok(row.map(|r| r.try_get("player_id")).transpose()?)
        }

        /// How many events the log holds with positions in `(after, upto]`.
        pub async fn log_count(pool: &Pool, after: i64, upto: i64) -> Result<i64, StoreError> {
            let row = sqlx::query(
                "SELECT count(*) AS n FROM events WHERE position > $1 AND position <= $2",
            )
            .bind(after)
            .bind(upto)
            .fetch_one(pool)
            .await?;
            Ok(row.try_get("n")?)
        }
    };
}

pub(crate) use notifier_statements;
