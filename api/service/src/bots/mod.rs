//! The bot runner: the moves of bots that think (expectimax, GNU Backgammon's levels)
//! are chosen off the requests that awaited them, a few at a time, and recorded as any
//! player's move is: judged by the engine, appended against the version they were
//! chosen on. `random` and `greedy` take microseconds and are played inside the change
//! that awaits them (`draft.rs`).
//!
//! A committed change whose table awaits a thinking bot puts its game in a bounded
//! queue; a bot that failed to move is asked again after a growing wait; the sweep (at
//! start, then every [`BOT_SWEEP_EVERY`] clock sweeps: it reads the whole `games` table,
//! which has no index of bots to move, so that moves keep updating their row heap-only)
//! puts back every game still waiting for a bot, so a full queue, another process's
//! crash or a restart only delays a move.

pub(crate) mod state;

use std::sync::Arc;
use std::time::Instant;

use tokio::sync::Semaphore;
use uuid::Uuid;
use worp_domain::bots::{self, BotKind};
use worp_domain::events::Event;
use worp_domain::table::{Status, Table};
use worp_engine::backgammon::Backgammon;
use worp_engine::{AnyGame, Awaiting, Game, Seat};
use worp_gnubg::{Level, Pool, PoolSettings};

pub use state::{BotSettings, BotState};

use super::refusal::Refusal;
use super::worp::Worp;

/// Clock sweeps (`WORP_CLOCK_SWEEP_SECS`) between two sweeps for games awaiting bots.
pub const BOT_SWEEP_EVERY: u64 = 20;

/// The first wait before a bot that failed to move is asked again, and the longest.
const RETRY_FIRST: std::time::Duration = std::time::Duration::from_secs(10);
const RETRY_LONGEST: std::time::Duration = std::time::Duration::from_secs(600);

/// The gnubg level a bot kind plays at, if gnubg plays it.
pub fn gnubg_level(kind: BotKind) -> Option<Level> {
    Some(match kind {
        BotKind::GnubgBeginner => Level::Beginner,
        BotKind::GnubgIntermediate => Level::Intermediate,
        BotKind::GnubgExpert => Level::Expert,
        BotKind::GnubgWorldClass => Level::WorldClass,
        _ => return None,
    })
}

/// Starts the gnubg pool as `settings` say: `None` (logged) where gnubg is off or does
/// not run. Blocks while the first worker loads its networks (about a second).
pub fn start_gnubg(settings: &BotSettings) -> Option<Arc<Pool>> {
    if !settings.gnubg {
        return None;
    }
    let started =
        PoolSettings::find_program(settings.gnubg_program.as_deref()).and_then(|program| {
            Pool::start(PoolSettings {
                program,
                workers: settings.workers.max(1),
                queue: settings.queue,
                timeout: settings.timeout,
            })
        });
    match started {
        Ok(pool) => Some(Arc::new(pool)),
        Err(e) => {
            tracing::warn!("GNU Backgammon's bots are not offered: {e}");
            None
        }
    }
}

/// The index of the legal move a thinking bot of `kind` plays for `seat` in `game`.
/// Blocks (a search, or a question to a gnubg worker): run it on a blocking thread.
pub fn decide(
    kind: BotKind,
    gnubg: Option<&Pool>,
    game: &dyn AnyGame,
    seat: Seat,
    seats: usize,
    entropy: u64,
) -> Result<Option<usize>, String> {
    let Some(level) = gnubg_level(kind) else {
        return bots::choose(kind, game, seat, seats, entropy).map_err(|e| e.to_string());
    };
    let pool = gnubg.ok_or_else(|| {
        format!(
            "{} needs GNU Backgammon, which is not running here",
            kind.name()
        )
    })?;
    let state = game.state_json().map_err(|e| e.to_string())?;
    let backgammon = Backgammon::from_state(state.get()).map_err(|e| e.to_string())?;
    worp_gnubg::choose(pool, level, &backgammon).map_err(|e| e.to_string())
}

impl Worp {
    /// With bots run as `settings` say and `gnubg` as the pool of GNU Backgammon
    /// workers (`None`: its bots are not offered).
    pub fn with_bots(mut self, settings: BotSettings, gnubg: Option<Arc<Pool>>) -> Worp {
        self.bots = Arc::new(BotState::new(settings, gnubg));
        self
    }

    /// gnubg workers replaced since start (`None`: gnubg does not run here).
    pub fn gnubg_restarts(&self) -> Option<u64> {
        self.bots.gnubg.as_ref().map(|p| p.restarts())
    }

    /// The bots this server offers: GNU Backgammon's only where it runs.
    pub fn bots_offered(&self) -> Vec<BotKind> {
        BotKind::ALL
            .into_iter()
            .filter(|k| !k.is_gnubg() || self.bots.gnubg.is_some())
            .collect()
    }

    /// Refuses a bot that cannot play `variant` here.
    pub(crate) fn check_bot(&self, kind: BotKind, variant: &str) -> Result<(), Refusal> {
        if !kind.plays(variant) {
            return Err(Refusal::Invalid(format!(
                "the bot {} plays only backgammon",
                kind.name()
            )));
        }
        if kind.is_gnubg() && self.bots.gnubg.is_none() {
            return Err(Refusal::Invalid(format!(
                "the bot {} is not offered by this server: GNU Backgammon is not installed \
                 (GET /v1/bots lists the bots offered)",
                kind.name()
            )));
        }
        Ok(())
    }

    /// The thinking bot `table` awaits, if any.
    fn thinking_bot(table: &Table) -> Option<(BotKind, Seat)> {
        // Most games have no bot that thinks: told apart before asking the engine.
        let thinks = |s: &worp_domain::table::SeatInfo| s.bot.is_some_and(BotKind::thinks);
        if table.status() != Status::Active || !table.seats.iter().any(thinks) {
            return None;
        }
        let Awaiting::Move { seat } = table.game.awaiting() else {
            return None;
        };
        let kind = table.seats.get(seat.index())?.bot?;
        kind.thinks().then_some((kind, seat))
    }

    /// Puts `table`'s game in the runner's queue if it awaits a thinking bot (a full
    /// queue leaves it to the next sweep).
    pub(crate) fn wake_bot(&self, table: &Table) {
        if Self::thinking_bot(table).is_some() {
            self.queue_bot_game(table.id);
        }
    }

    fn queue_bot_game(&self, id: Uuid) {
        if !self.bots.queued().insert(id) {
            return;
        }
        if self.bots.queue.try_send(id).is_err() {
            self.bots.queued().remove(&id);
        }
    }

    /// Starts the runner: at most `workers` decisions at once, each on a blocking
    /// thread, never on the threads that answer requests.
    pub(crate) fn start_bots(self: &Arc<Self>) {
        let receiver = self
            .bots
            .receiver
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        let Some(mut receiver) = receiver else {
            return;
        };
        let w = self.clone();
        let permits = Arc::new(Semaphore::new(self.bots.settings.workers.max(1)));
        tokio::spawn(async move {
            while let Some(id) = receiver.recv().await {
                let Ok(permit) = permits.clone().acquire_owned().await else {
                    return;
                };
                let w = w.clone();
                tokio::spawn(async move {
                    w.bots.queued().remove(&id);
                    let played = w.play_thinking_bot(id).await;
                    drop(permit);
                    match played {
                        Ok(_) => {
                            w.failures().remove(&id);
                        }
                        Err(e) => w.retry_later(id, e),
                    }
                    w.report_bot_queue();
                });
            }
        });
    }

    fn failures(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<Uuid, u32>> {
        self.bots.failures.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Puts game `id` back in the queue after its bot failed to move: 10 s after the
    /// first failure, twice as long after each next one, at most 10 minutes.
    fn retry_later(self: &Arc<Self>, id: Uuid, e: Refusal) {
        let failures = {
            let mut all = self.failures();
            let n = all.entry(id).or_insert(0);
            *n += 1;
            *n
        };
        let wait = RETRY_FIRST
            .saturating_mul(1 << failures.min(6).saturating_sub(1))
            .min(RETRY_LONGEST);
        tracing::warn!(
            "a bot of game {id} could not move ({failures} times running, again in {wait:?}): {e}"
        );
        let w = Arc::downgrade(self);
        tokio::spawn(async move {
            tokio::time::sleep(wait).await;
            if let Some(w) = w.upgrade() {
                w.queue_bot_game(id);
            }
        });
    }

    fn report_bot_queue(&self) {
        let depth = self.bots.queued().len();
        let restarts = self.bots.gnubg.as_ref().map_or(0, |p| p.restarts());
        worp_telemetry::metrics::bot_queue(depth, restarts);
    }

    /// Puts every game still waiting for a bot back in the queue; returns how many.
    /// Reads the whole `games` table: run it at start and every [`BOT_SWEEP_EVERY`]
    /// clock sweeps.
    pub async fn sweep_bots(&self) -> Result<usize, Refusal> {
        let ids = self
            .store
            .games_awaiting_bots(self.bots.settings.queue as i64)
            .await?;
        let mut n = 0;
        for id in ids {
            let table = self.load(id).await?;
            if Self::thinking_bot(&table).is_some() {
                self.queue_bot_game(id);
                n += 1;
            }
        }
        self.report_bot_queue();
        Ok(n)
    }

    /// Plays the move of the thinking bot game `id` awaits, if it awaits one; whether
    /// a move was recorded. A game that moved on meanwhile is judged again.
    async fn play_thinking_bot(&self, id: Uuid) -> Result<bool, Refusal> {
        let table = self.load(id).await?;
        let Some((kind, seat)) = Self::thinking_bot(&table) else {
            return Ok(false);
        };
        let game = table.game.clone_box();
        let pool = self.bots.gnubg.clone();
        let seats = table.seats.len();
        let entropy = table.version as u64;
        let started = Instant::now();
        let chosen = tokio::task::spawn_blocking(move || {
            decide(kind, pool.as_deref(), game.as_ref(), seat, seats, entropy)
        })
        .await
        .map_err(|e| Refusal::Internal(format!("a bot's decision panicked: {e}")))?;
        worp_telemetry::metrics::bot_decision(kind.name(), started.elapsed(), chosen.is_ok());
        let index = chosen
            .map_err(|e| Refusal::Unavailable(format!("{}: {e}", kind.name())))?
            .ok_or_else(|| Refusal::Internal("a bot has no legal move".into()))?;
        let mv = table
            .game
            .legal_moves()?
            .into_iter()
            .nth(index)
            .ok_or_else(|| Refusal::Internal("a bot chose a move that is not there".into()))?;
        match self
            .change(
                &table,
                Event::MovePlayed { seat: seat.0, mv },
                self.now(),
                None,
            )
            .await
        {
            Ok(_) => {
                worp_telemetry::metrics::bot_move();
                Ok(true)
            }
            // Another change came first (a message, a resignation): judge again.
            Err(Refusal::Conflict(_)) | Err(Refusal::Stale(_)) => {
                self.queue_bot_game(id);
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_thinking_bot_has_its_own_label_in_the_metrics() {
        let thinking: Vec<&str> = BotKind::ALL
            .into_iter()
            .filter(|k| k.thinks())
            .map(BotKind::name)
            .collect();
        assert_eq!(thinking, worp_telemetry::metrics::THINKING_BOTS);
        for kind in BotKind::ALL {
            assert_eq!(gnubg_level(kind).is_some(), kind.is_gnubg(), "{kind:?}");
            assert_eq!(BotKind::named(kind.name()), Some(kind));
        }
    }
}
