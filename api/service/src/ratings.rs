//! Keeping the ratings current: the book is folded from the log's `game_finished` events
//! in global order, read on demand. A refresh folds in the events after the newest
//! folded position (an index range of the new finishes only) into a copy of the book
//! that shares its persistent maps with the one readers may still hold; the first fold
//! runs as the server starts.
//!
//! A finish can also commit late, below a position already read: two writers took their
//! positions in one order and committed in the other. At most every [`CHECK_EVERY`] a
//! refresh looks for one, in two steps that each cost a count of the newest finishes
//! only, never of the whole log:
//!
//! 1. It notes the book's end (position, finishes folded) and the transactions writing
//!    events at that moment ([`Store::event_writers`](worp_store::Store::event_writers)):
//!    any that will still commit a finish below that end is one of them. On PostgreSQL
//!    they are read from `pg_locks` (each holds its lock on `events` from before it takes
//!    a position until it ends); on SQLite there are none, as one transaction writes at a
//!    time and events commit in the order of their positions.
//! 2. Once none of those is left, it counts the log's finishes between the last settled
//!    mark and the noted end. The same number as the book's: the mark settles there.
//!    Fewer in the book: one committed late, and the whole log is folded again.
//!
//! Either way the book equals a fold of the whole log from the start (`worp rebuild`
//! prints one; a test compares), a late commit within about two [`CHECK_EVERY`] of its commit.

use std::sync::Arc;

use chrono::{DateTime, Utc};

use uuid::Uuid;
use worp_engine::GameResult;

use super::read_model::GameSummary;
use super::refusal::Refusal;
use super::worp::Worp;
use worp_domain::events::Event;
pub use worp_domain::ratings::LEADERBOARD_MAX_DEVIATION;
use worp_domain::ratings::{FinishedGame, Mark, Projection, RatingBook};

/// A finished game read from a `game_finished` event and its game's listing entry.
fn finished_game(
    position: i64,
    game_id: Uuid,
    payload: &serde_json::Value,
    summary: serde_json::Value,
    finished_at: DateTime<Utc>,
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
        finished_at,
        moves: summary.moves,
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
            for f in page {
                after = f.position;
                // A game without its listing entry (read models being rebuilt) is left
                // out, as a join would, and read again by the next refresh.
                if let Some(summary) = f.summary {
                    let mut game =
                        finished_game(f.position, f.game_id, &f.payload, summary, f.recorded_at)?;
                    if game.moves.len() != game.players.len() {
                        // A listing entry written before it kept the moves per seat:
                        // counted from the log, so that the book is the same before and
                        // after `worp rebuild` writes them.
                        game.moves = self.moves_per_seat(f.game_id, game.players.len()).await?;
                    }
                    book.apply(&game);
                }
            }
            if !full {
                return Ok(());
            }
        }
    }

    /// The moves each of the `seats` seats of game `id` made, counted in its log.
    async fn moves_per_seat(&self, id: Uuid, seats: usize) -> Result<Vec<u32>, Refusal> {
        let mut moves = vec![0u32; seats];
        for e in self.all_events(id).await? {
            if e.kind != "move_played" {
                continue;
            }
            if let Ok(Event::MovePlayed { seat, .. }) = e.event() {
                if let Some(n) = moves.get_mut(usize::from(seat)) {
                    *n += 1;
                }
            }
        }
        Ok(moves)
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
            .checked_at
            .is_none_or(|at| at.elapsed() >= CHECK_EVERY);
        if due {
            self.check_late_finishes(&mut projection).await?;
            projection.checked_at = Some(std::time::Instant::now());
        }
        Ok(projection.book.clone())
    }

    /// The two steps of a check for a finish that committed late (see the module's
    /// documentation).
    async fn check_late_finishes(&self, projection: &mut Projection) -> Result<(), Refusal> {
        if let Some((end, writers)) = &projection.pending {
            let writing = self.store.event_writers().await?;
            if writers.iter().any(|w| writing.contains(w)) {
                return Ok(()); // One of them may still commit below the noted end.
            }
            let settled = projection.settled;
            let found = self
                .store
                .finished_count(settled.position, end.position)
                .await?;
            let found = u64::try_from(found).unwrap_or_default();
            if Some(found) != end.folded.checked_sub(settled.folded) {
                projection.book = Arc::new(self.rating_book_from_scratch().await?);
            }
            projection.settled = Mark {
                position: end.position,
                folded: settled.folded + found,
            };
            projection.pending = None;
            return Ok(());
        }
        let end = Mark {
            position: projection.book.last_position,
            folded: projection.book.folded,
        };
        if end != projection.settled {
            projection.pending = Some((end, self.store.event_writers().await?));
        }
        Ok(())
    }

    /// Takes the check for late finishes to its end now, as the process starts (before
    /// it says it is ready): its first count runs from the log's start, a second for a
    /// million finishes, and would otherwise hold the book, and every request that shows
    /// a rating, two seconds after the start. A writer of then that still writes leaves
    /// the count to a later refresh, as usual.
    pub(crate) async fn settle_ratings(&self) -> Result<(), Refusal> {
        let mut projection = self.ratings.0.lock().await;
        self.check_late_finishes(&mut projection).await?;
        self.check_late_finishes(&mut projection).await?;
        projection.checked_at = Some(std::time::Instant::now());
        Ok(())
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

/// How often a refresh of the ratings takes a step of the check for a finish that
/// committed late (see the module's documentation).
pub const CHECK_EVERY: std::time::Duration = std::time::Duration::from_secs(2);
