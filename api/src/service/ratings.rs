//! Keeping the ratings current: the book is folded from the log's `game_finished` events
//! in global order, read on demand. A refresh asks the log how many games have finished;
//! when that is more than the book holds, the events after the newest folded position
//! are folded in, unless one committed late below a position already read (two writers
//! commit out of order), and then the whole book is folded again. Either way the book
//! equals a fold of the whole log from the start (`worp ratings`; a test compares).

use std::sync::Arc;

use uuid::Uuid;
use worp_engine::GameResult;

use super::read_model::GameSummary;
use super::refusal::Refusal;
use super::worp::Worp;
use crate::events::Event;
use crate::ratings::{FinishedGame, RatingBook};

/// A finished game read from a `game_finished` event and its game's listing entry.
fn finished_game(
    position: i64,
    game_id: Uuid,
    payload: &serde_json::Value,
    summary: serde_json::Value,
) -> Result<FinishedGame, Refusal> {
    let unreadable = |e: serde_json::Error| {
        Refusal::Internal(format!("game {game_id}: unreadable for the ratings: {e}"))
    };
    let result: GameResult =
        match Event::from_parts("game_finished", payload).map_err(unreadable)? {
            Event::GameFinished { result, .. } => result,
            _ => return Err(Refusal::Internal(format!("game {game_id}: not a finish"))),
        };
    let summary: GameSummary = serde_json::from_value(summary).map_err(unreadable)?;
    Ok(FinishedGame {
        position,
        game_id,
        variant: summary.variant,
        rated: summary.rated,
        players: summary.seats,
        winners: result.winners.iter().map(|s| s.0).collect(),
    })
}

impl Worp {
    /// Every finished game of the log after `position`, in global order.
    pub async fn finished_games_after(&self, position: i64) -> Result<Vec<FinishedGame>, Refusal> {
        self.store
            .finished_after(position)
            .await?
            .into_iter()
            .map(|(p, id, payload, summary)| finished_game(p, id, &payload, summary))
            .collect()
    }

    /// The ratings as of now.
    pub async fn rating_book(&self) -> Result<Arc<RatingBook>, Refusal> {
        let mut book = self.ratings.0.lock().await;
        let folded = (book.folded as i64, book.last_position);
        if self.store.finished_count(i64::MAX).await? == folded {
            return Ok(book.clone());
        }
        let mut grown = (**book).clone();
        for g in self.finished_games_after(book.last_position).await? {
            grown.apply(&g);
        }
        // Every finish up to the newest folded must be in: one that committed late, below
        // a position already read, means folding again from the start.
        let upto = self.store.finished_count(grown.last_position).await?;
        *book = if upto.0 == grown.folded as i64 {
            Arc::new(grown)
        } else {
            Arc::new(self.rating_book_from_scratch().await?)
        };
        Ok(book.clone())
    }

    /// The ratings folded from the whole log, from the start (what `worp ratings` prints).
    pub async fn rating_book_from_scratch(&self) -> Result<RatingBook, Refusal> {
        Ok(RatingBook::fold(&self.finished_games_after(0).await?))
    }
}

/// The rating deviation below which a player is on the leaderboard: Glicko-2 starts at
/// 350; about ten rated games bring it under 150.
pub const LEADERBOARD_MAX_DEVIATION: f64 = 150.0;
