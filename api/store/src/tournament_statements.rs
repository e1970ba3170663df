//! The statements of tournaments (`tournaments`), stamped out per backend beside
//! [`super::statements`] (whose imports and `Pool` they share: invoke both in the same
//! module, `statements!` first). The SQL is the same on both backends.

/// Defines the tournament statements in the module it is invoked in.
macro_rules! tournament_statements {
    ($Db:ty) => {
        use worp_domain::tournaments::{
            TournamentAppend, TournamentEventRow, TournamentGame, TournamentRow,
        };

        const TOURNAMENT_COLUMNS: &str =
            "id, name, variant, status, created_by, version, summary, created_at, updated_at";

        fn tournament_of(r: &DbRow) -> Result<TournamentRow, StoreError> {
            Ok(TournamentRow {
                id: r.try_get("id")?,
                name: r.try_get("name")?,
                variant: r.try_get("variant")?,
                status: r.try_get("status")?,
                created_by: r.try_get("created_by")?,
                version: r.try_get("version")?,
                summary: r.try_get("summary")?,
                created_at: r.try_get("created_at")?,
                updated_at: r.try_get("updated_at")?,
            })
        }

        fn tournament_game_of(r: &DbRow) -> Result<TournamentGame, StoreError> {
            let round: i32 = r.try_get("round")?;
            let table: i32 = r.try_get("table_number")?;
            Ok(TournamentGame {
                game_id: r.try_get("game_id")?,
                tournament_id: r.try_get("tournament_id")?,
                round: u32::try_from(round)
                    .map_err(|_| StoreError::Corrupt("a round below 0".into()))?,
                table: u32::try_from(table)
                    .map_err(|_| StoreError::Corrupt("a table below 0".into()))?,
            })
        }

        /// The events of tournament `id` after sequence number `after`, in order.
        pub async fn tournament_events(
            pool: &Pool,
            id: Uuid,
            after: i64,
        ) -> Result<Vec<TournamentEventRow>, StoreError> {
            let rows = sqlx::query(
                "SELECT tournament_id, seq, kind, payload, recorded_at, hash \
                 FROM tournament_events WHERE tournament_id = $1 AND seq > $2 ORDER BY seq",
            )
            .bind(id)
            .bind(after)
            .fetch_all(pool)
            .await?;
            rows.iter()
                .map(|r| {
                    Ok(TournamentEventRow {
                        tournament_id: r.try_get("tournament_id")?,
                        seq: r.try_get("seq")?,
                        kind: r.try_get("kind")?,
                        payload: r.try_get("payload")?,
                        recorded_at: r.try_get("recorded_at")?,
                        hash: r.try_get("hash")?,
                    })
                })
                .collect()
        }

        async fn write_tournament_row(
            tx: &mut sqlx::Transaction<'_, $Db>,
            row: &TournamentRow,
        ) -> Result<(), StoreError> {
            sqlx::query(&format!(
                "INSERT INTO tournaments ({TOURNAMENT_COLUMNS}) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
                 ON CONFLICT (id) DO UPDATE SET status = excluded.status, \
                 version = excluded.version, summary = excluded.summary, \
                 updated_at = excluded.updated_at"
            ))
            .bind(row.id)
            .bind(&row.name)
            .bind(&row.variant)
            .bind(&row.status)
            .bind(row.created_by)
            .bind(row.version)
            .bind(&row.summary)
            .bind(row.created_at)
            .bind(row.updated_at)
            .execute(&mut **tx)
            .await?;
            Ok(())
        }

        async fn write_tournament_games(
            tx: &mut sqlx::Transaction<'_, $Db>,
            games: &[TournamentGame],
        ) -> Result<(), StoreError> {
            for g in games {
                sqlx::query(
                    "INSERT INTO tournament_games (game_id, tournament_id, round, table_number) \
                     VALUES ($1, $2, $3, $4) ON CONFLICT (game_id) DO NOTHING",
                )
                .bind(g.game_id)
                .bind(g.tournament_id)
                .bind(i64::from(g.round))
                .bind(i64::from(g.table))
                .execute(&mut **tx)
                .await?;
            }
            Ok(())
        }

        /// Appends a change of a tournament in one transaction: its events numbered on
        /// from `expected_version` (a racing append of the same numbers fails on the
        /// key: [`StoreError::Conflict`]), its row and its new games.
        pub async fn append_tournament(
            pool: &Pool,
            a: &TournamentAppend,
        ) -> Result<(), StoreError> {
            let mut tx = pool.begin().await?;
            for (i, e) in a.events.iter().enumerate() {
                if e.seq != a.expected_version + 1 + i as i64 {
                    return Err(StoreError::Corrupt(format!(
                        "tournament event {} where {} is next",
                        e.seq,
                        a.expected_version + 1 + i as i64
                    )));
                }
                sqlx::query(
                    "INSERT INTO tournament_events \
                     (tournament_id, seq, kind, payload, recorded_at, hash) \
                     VALUES ($1, $2, $3, $4, $5, $6)",
                )
                .bind(e.tournament_id)
                .bind(e.seq)
                .bind(&e.kind)
                .bind(&e.payload)
                .bind(e.recorded_at)
                .bind(&e.hash)
                .execute(&mut *tx)
                .await
                .map_err(conflict_or)?;
            }
            write_tournament_row(&mut tx, &a.row).await?;
            write_tournament_games(&mut tx, &a.games).await?;
            tx.commit().await.map_err(conflict_or)?;
            Ok(())
        }

        /// The row of tournament `id`.
        pub async fn tournament_row(
            pool: &Pool,
            id: Uuid,
        ) -> Result<Option<TournamentRow>, StoreError> {
            let row = sqlx::query(&format!(
                "SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE id = $1"
            ))
            .bind(id)
            .fetch_optional(pool)
            .await?;
            row.as_ref().map(tournament_of).transpose()
        }

        /// Tournaments newest first, of `status` if given.
        pub async fn list_tournaments(
            pool: &Pool,
            status: Option<String>,
            limit: i64,
            offset: i64,
        ) -> Result<Vec<TournamentRow>, StoreError> {
            let rows = match status {
                Some(status) => {
                    sqlx::query(&format!(
                        "SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE status = $1 \
                     ORDER BY created_at DESC, id LIMIT $2 OFFSET $3"
                    ))
                    .bind(status)
                    .bind(limit)
                    .bind(offset)
                    .fetch_all(pool)
                    .await?
                }
                None => {
                    sqlx::query(&format!(
                        "SELECT {TOURNAMENT_COLUMNS} FROM tournaments \
                     ORDER BY created_at DESC, id LIMIT $1 OFFSET $2"
                    ))
                    .bind(limit)
                    .bind(offset)
                    .fetch_all(pool)
                    .await?
                }
            };
            rows.iter().map(tournament_of).collect()
        }

        /// The tournament table game `game_id` is played at, if any.
        pub async fn tournament_of_game(
            pool: &Pool,
            game_id: Uuid,
        ) -> Result<Option<TournamentGame>, StoreError> {
            let row = sqlx::query(
                "SELECT game_id, tournament_id, round, table_number FROM tournament_games \
                 WHERE game_id = $1",
            )
            .bind(game_id)
            .fetch_optional(pool)
            .await?;
            row.as_ref().map(tournament_game_of).transpose()
        }

        /// The ids of the tournaments that have a log.
        pub async fn tournament_ids(pool: &Pool) -> Result<Vec<Uuid>, StoreError> {
            let rows = sqlx::query(
                "SELECT DISTINCT tournament_id FROM tournament_events ORDER BY tournament_id",
            )
            .fetch_all(pool)
            .await?;
            rows.iter()
                .map(|r| Ok(r.try_get("tournament_id")?))
                .collect()
        }

        /// How many tournaments `creator` made that are not finished.
        pub async fn unfinished_tournaments_of(
            pool: &Pool,
            creator: Uuid,
        ) -> Result<i64, StoreError> {
            let n: i64 = sqlx::query_scalar(
                "SELECT count(*) FROM tournaments WHERE created_by = $1 AND status <> 'finished'",
            )
            .bind(creator)
            .fetch_one(pool)
            .await?;
            Ok(n)
        }

        /// The tournaments whose row is not finished.
        pub async fn unfinished_tournaments(pool: &Pool) -> Result<Vec<Uuid>, StoreError> {
            let rows = sqlx::query("SELECT id FROM tournaments WHERE status <> 'finished'")
                .fetch_all(pool)
                .await?;
            rows.iter().map(|r| Ok(r.try_get("id")?)).collect()
        }

        /// Replaces every tournament row and game by `rows` and `games` (a rebuild).
        pub async fn replace_tournament_rows(
            pool: &Pool,
            rows: &[TournamentRow],
            games: &[TournamentGame],
        ) -> Result<(), StoreError> {
            let mut tx = pool.begin().await?;
            sqlx::query("DELETE FROM tournament_games")
                .execute(&mut *tx)
                .await?;
            sqlx::query("DELETE FROM tournaments")
                .execute(&mut *tx)
                .await?;
            for row in rows {
                write_tournament_row(&mut tx, row).await?;
            }
            write_tournament_games(&mut tx, games).await?;
            tx.commit().await?;
            Ok(())
        }
    };
}
pub(super) use tournament_statements;
