//! Keeping the ratings current: the book is folded from the log's `game_finished` events
//! in global order, read on demand. A refresh folds in the events after the newest
//! folded position (an index range of the new finishes only). A finish can also commit
//! late, below a position already read (two writers commit out of order): at most every
//! [`COUNT_EVERY`] a refresh also counts the finishes up to the newest folded position,
//! and when the book lacks one it folds the whole log again. Either way the book equals a
//! fold of the whole log from the start (`worp ratings`; a test compares), a late commit
//! within [`COUNT_EVERY`] of the next refresh. Counting on every refresh made each one
//! cost a pass over every finish ever recorded.

use std::sync::Arc;

use uuid::Uuid;
use worp_engine::GameResult;

use super::read_model::GameSummary;
use super::refusal::Refusal;
use super::worp::Worp;
use crate::events::Event;
pub use crate::ratings::LEADERBOARD_MAX_DEVIATION;
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
    /// Folds into `book` every finished game of the log after its last folded position,
    /// in global order, a page of [`FINISHES_PER_READ`] at a time: the first fold of a
    /// long log holds one page of rows, not all of them.
    async fn fold_finishes(&self, book: &mut RatingBook) -> Result<(), Refusal> {
        let mut after = book.last_position;
        loop {
            let page = self.store.finished_after(after, FINISHES_PER_READ).await?;
            let full = page.len() as i64 == FINISHES_PER_READ;
            for (position, id, payload, summary) in page {
                after = position;
                // A game without its listing entry (read models being rebuilt) is left
                // out, as a join would, and read again by the next refresh.
                if let Some(summary) = summary {
                    book.apply(&finished_game(position, id, &payload, summary)?);
                }
            }
            if !full {
                return Ok(());
            }
        }
    }

    /// The ratings as of now.
    pub async fn rating_book(&self) -> Result<Arc<RatingBook>, Refusal> {
        let mut projection = self.ratings.0.lock().await;
        let mut grown = (*projection.book).clone();
        self.fold_finishes(&mut grown).await?;
        if grown.folded != projection.book.folded {
            projection.book = Arc::new(grown);
        }
        let due = projection
            .counted_at
            .is_none_or(|at| at.elapsed() >= COUNT_EVERY);
        if due {
            // Every finish up to the newest folded must be in: one that committed late,
            // below a position already read, means folding again from the start.
            let book = &projection.book;
            let (upto, _) = self.store.finished_count(book.last_position).await?;
            if upto != book.folded as i64 {
                projection.book = Arc::new(self.rating_book_from_scratch().await?);
            }
            projection.counted_at = Some(std::time::Instant::now());
        }
        Ok(projection.book.clone())
    }

    /// The ratings folded from the whole log, from the start (what `worp ratings` prints).
    pub async fn rating_book_from_scratch(&self) -> Result<RatingBook, Refusal> {
        let mut book = RatingBook::default();
        self.fold_finishes(&mut book).await?;
        Ok(book)
    }
}

/// How many finishes a fold reads per query.
const FINISHES_PER_READ: i64 = 1000;

/// How often a refresh of the ratings counts every finish to catch one that committed
/// late (see the module's documentation).
pub const COUNT_EVERY: std::time::Duration = std::time::Duration::from_secs(2);
