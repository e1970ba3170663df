//! What the computer players keep: the games waiting for a bot's move (for the bot
//! runner's sweep), and the analyses of finished backgammon games (derived data:
//! `game_analyses`, rebuilt by analysing again).

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::{bounded, postgres, sqlite, Store, StoreError};

/// A game's analysis as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct AnalysisRow {
    pub game_id: Uuid,
    /// `pending`, `ready` or `failed`.
    pub state: String,
    /// The game's version analysed.
    pub version: i64,
    /// The analysis's JSON once ready.
    pub body: Option<String>,
    /// Why it failed.
    pub error: Option<String>,
    pub requested_at: DateTime<Utc>,
    pub done_at: Option<DateTime<Utc>>,
}

impl Store {
    /// Active games whose seat to move has no player (a bot's, or one whose account is
    /// gone), longest waiting first, at most `limit`.
    pub async fn games_awaiting_bots(&self, limit: i64) -> Result<Vec<Uuid>, StoreError> {
        on_backend!(self.games_awaiting_bots(limit))
    }

    /// The analysis of `game_id`, if one was asked for.
    pub async fn analysis(&self, game_id: Uuid) -> Result<Option<AnalysisRow>, StoreError> {
        on_backend!(self.analysis(game_id))
    }

    /// Asks for the analysis of `game_id` at `version`: a pending row, unless there is
    /// one already (whose row is returned either way).
    pub async fn request_analysis(
        &self,
        game_id: Uuid,
        version: i64,
        at: DateTime<Utc>,
    ) -> Result<AnalysisRow, StoreError> {
        on_backend!(self.request_analysis(game_id, version, at))
    }

    /// Asks again for the analysis of `game_id` if it failed; returns its row.
    pub async fn retry_analysis(
        &self,
        game_id: Uuid,
        at: DateTime<Utc>,
    ) -> Result<AnalysisRow, StoreError> {
        on_backend!(self.retry_analysis(game_id, at))
    }

    /// The pending analyses, oldest first, at most `limit`.
    pub async fn pending_analyses(&self, limit: i64) -> Result<Vec<Uuid>, StoreError> {
        on_backend!(self.pending_analyses(limit))
    }

    /// Records the end of `game_id`'s analysis: its body, or why it failed.
    pub async fn finish_analysis(
        &self,
        game_id: Uuid,
        outcome: Result<String, String>,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        on_backend!(self.finish_analysis(game_id, &outcome, at))
    }

    /// Forgets every analysis (`worp rebuild`: each is made again when next read).
    pub async fn forget_analyses(&self) -> Result<u64, StoreError> {
        on_backend!(self.forget_analyses())
    }
}

/// Defines the statements above in the module it is invoked in (beside `statements!`,
/// whose imports and `Pool` they share). The SQL is the same on both backends.
macro_rules! bot_statements {
    () => {
        use $crate::bots::AnalysisRow;

        pub async fn games_awaiting_bots(pool: &Pool, limit: i64) -> Result<Vec<Uuid>, StoreError> {
            let rows = sqlx::query(
                "SELECT id FROM games WHERE status = 'active' AND to_move_seat IS NOT NULL \
                 AND to_move_player IS NULL ORDER BY updated_at LIMIT $1",
            )
            .bind(limit)
            .fetch_all(pool)
            .await?;
            rows.iter().map(|r| Ok(r.try_get("id")?)).collect()
        }

        fn analysis_of(r: &DbRow) -> Result<AnalysisRow, StoreError> {
            Ok(AnalysisRow {
                game_id: r.try_get("game_id")?,
                state: r.try_get("state")?,
                version: r.try_get("version")?,
                body: r.try_get("body")?,
                error: r.try_get("error")?,
                requested_at: r.try_get("requested_at")?,
                done_at: r.try_get("done_at")?,
            })
        }

        const ANALYSIS: &str = "SELECT game_id, state, version, body, error, requested_at, \
             done_at FROM game_analyses WHERE game_id = $1";

        pub async fn analysis(
            pool: &Pool,
            game_id: Uuid,
        ) -> Result<Option<AnalysisRow>, StoreError> {
            sqlx::query(ANALYSIS)
                .bind(game_id)
                .fetch_optional(pool)
                .await?
                .as_ref()
                .map(analysis_of)
                .transpose()
        }

        pub async fn request_analysis(
            pool: &Pool,
            game_id: Uuid,
            version: i64,
            at: DateTime<Utc>,
        ) -> Result<AnalysisRow, StoreError> {
            sqlx::query(
                "INSERT INTO game_analyses (game_id, state, version, requested_at) \
                 VALUES ($1, 'pending', $2, $3) ON CONFLICT (game_id) DO NOTHING",
            )
            .bind(game_id)
            .bind(version)
            .bind(at)
            .execute(pool)
            .await?;
            let row = sqlx::query(ANALYSIS).bind(game_id).fetch_one(pool).await?;
            analysis_of(&row)
        }

        pub async fn retry_analysis(
            pool: &Pool,
            game_id: Uuid,
            at: DateTime<Utc>,
        ) -> Result<AnalysisRow, StoreError> {
            sqlx::query(
                "UPDATE game_analyses SET state = 'pending', error = NULL, done_at = NULL, \
                 requested_at = $2 WHERE game_id = $1 AND state = 'failed'",
            )
            .bind(game_id)
            .bind(at)
            .execute(pool)
            .await?;
            let row = sqlx::query(ANALYSIS).bind(game_id).fetch_one(pool).await?;
            analysis_of(&row)
        }

        pub async fn pending_analyses(pool: &Pool, limit: i64) -> Result<Vec<Uuid>, StoreError> {
            let rows = sqlx::query(
                "SELECT game_id FROM game_analyses WHERE state = 'pending' \
                 ORDER BY requested_at LIMIT $1",
            )
            .bind(limit)
            .fetch_all(pool)
            .await?;
            rows.iter().map(|r| Ok(r.try_get("game_id")?)).collect()
        }

        pub async fn finish_analysis(
            pool: &Pool,
            game_id: Uuid,
            outcome: &Result<String, String>,
            at: DateTime<Utc>,
        ) -> Result<(), StoreError> {
            let (state, body, error) = match outcome {
                Ok(body) => ("ready", Some(body.as_str()), None),
                Err(e) => ("failed", None, Some(e.as_str())),
            };
            sqlx::query(
                "UPDATE game_analyses SET state = $2, body = $3, error = $4, done_at = $5 \
                 WHERE game_id = $1",
            )
            .bind(game_id)
            .bind(state)
            .bind(body)
            .bind(error)
            .bind(at)
            .execute(pool)
            .await?;
            Ok(())
        }

        pub async fn forget_analyses(pool: &Pool) -> Result<u64, StoreError> {
            Ok(sqlx::query("DELETE FROM game_analyses")
                .execute(pool)
                .await?
                .rows_affected())
        }
    };
}

pub(super) use bot_statements;
