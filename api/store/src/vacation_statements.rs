//! The statements of vacations (`vacations`), stamped out per backend beside
//! [`super::statements`] (whose imports and `Pool` they share: invoke both in the same
//! module, `statements!` first). The SQL is the same on both backends.

/// Defines the vacation statements in the module it is invoked in.
macro_rules! vacation_statements {
    () => {
        use worp_domain::records::Vacation;

        fn vacation_of(r: &DbRow) -> Result<Vacation, StoreError> {
            Ok(Vacation {
                player_id: r.try_get("player_id")?,
                started_at: r.try_get("started_at")?,
                until: r.try_get("until")?,
                ended_at: r.try_get("ended_at")?,
            })
        }

        /// `player`'s vacations that started at `since` or later, and the current one,
        /// oldest first.
        pub async fn vacations_of(
            pool: &Pool,
            player: Uuid,
            since: DateTime<Utc>,
        ) -> Result<Vec<Vacation>, StoreError> {
            let rows = sqlx::query(
                "SELECT player_id, started_at, until, ended_at FROM vacations \
                 WHERE player_id = $1 AND (started_at >= $2 OR ended_at IS NULL) \
                 ORDER BY started_at",
            )
            .bind(player)
            .bind(since)
            .fetch_all(pool)
            .await?;
            rows.iter().map(vacation_of).collect()
        }

        /// `player`'s current vacation (not ended), if any.
        pub async fn current_vacation(
            pool: &Pool,
            player: Uuid,
        ) -> Result<Option<Vacation>, StoreError> {
            let row = sqlx::query(
                "SELECT player_id, started_at, until, ended_at FROM vacations \
                 WHERE player_id = $1 AND ended_at IS NULL",
            )
            .bind(player)
            .fetch_optional(pool)
            .await?;
            row.as_ref().map(vacation_of).transpose()
        }

        /// Stores `v` as `player`'s current vacation; `false` if they have one already.
        pub async fn start_vacation(pool: &Pool, v: &Vacation) -> Result<bool, StoreError> {
            let done = sqlx::query(
                "INSERT INTO vacations (player_id, started_at, until) VALUES ($1, $2, $3)",
            )
            .bind(v.player_id)
            .bind(v.started_at)
            .bind(v.until)
            .execute(pool)
            .await;
            match done {
                Ok(_) => Ok(true),
                Err(sqlx::Error::Database(db)) if db.is_unique_violation() => Ok(false),
                Err(e) => Err(e.into()),
            }
        }

        /// Ends `player`'s vacation that started at `started_at`, at `at`; whether it was
        /// still current.
        pub async fn end_vacation(
            pool: &Pool,
            player: Uuid,
            started_at: DateTime<Utc>,
            at: DateTime<Utc>,
        ) -> Result<bool, StoreError> {
            let done = sqlx::query(
                "UPDATE vacations SET ended_at = $3 \
                 WHERE player_id = $1 AND started_at = $2 AND ended_at IS NULL",
            )
            .bind(player)
            .bind(started_at)
            .bind(at)
            .execute(pool)
            .await?;
            Ok(done.rows_affected() > 0)
        }

        /// The current vacations whose `until` is `now` or earlier, soonest first.
        pub async fn due_vacations(
            pool: &Pool,
            now: DateTime<Utc>,
            limit: i64,
        ) -> Result<Vec<Vacation>, StoreError> {
            let rows = sqlx::query(
                "SELECT player_id, started_at, until, ended_at FROM vacations \
                 WHERE ended_at IS NULL AND until <= $1 ORDER BY until LIMIT $2",
            )
            .bind(now)
            .bind(limit)
            .fetch_all(pool)
            .await?;
            rows.iter().map(vacation_of).collect()
        }

        /// The games not finished where `player` holds (or is invited to) a seat.
        pub async fn unfinished_games_of(
            pool: &Pool,
            player: Uuid,
        ) -> Result<Vec<Uuid>, StoreError> {
            let rows = sqlx::query(
                "SELECT DISTINCT s.game_id FROM game_seats s JOIN games g ON g.id = s.game_id \
                 WHERE s.player_id = $1 AND g.status <> 'finished'",
            )
            .bind(player)
            .fetch_all(pool)
            .await?;
            rows.iter().map(|r| Ok(r.try_get("game_id")?)).collect()
        }
    };
}

pub(super) use vacation_statements;
