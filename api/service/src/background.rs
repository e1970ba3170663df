//! The server's own work, besides answering requests: time-outs of overdue moves, the
//! sweep of expired kept answers and credentials, the first fold of the ratings, webhook deliveries and,
//! on PostgreSQL, the relay of changes between server processes.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use super::worp::Worp;
use crate::live::relay;
use crate::webhooks::WebhookSettings;
use worp_store::Store;

impl Worp {
    /// Starts the server's own work: the sweep of overdue moves and expired kept answers
    /// every `sweep`, the first fold of the ratings, webhook deliveries and (on
    /// PostgreSQL) announcing this process's changes to the others and relaying theirs
    /// to this one's live streams.
    pub fn start_background(self: &Arc<Self>, sweep: Duration, webhooks: WebhookSettings) {
        let w = self.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(sweep);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            for ticks in 0u64.. {
                tick.tick().await;
                // Vacations end first: a clock they paused runs again before time-outs
                // are judged.
                match w.sweep_vacations().await {
                    Ok(0) => {}
                    Ok(n) => tracing::info!("{n} vacations ended"),
                    Err(e) => tracing::warn!("the vacation sweep failed: {e}"),
                }
                if ticks % crate::bots::BOT_SWEEP_EVERY == 0 {
                    if let Err(e) = w.sweep_bots().await {
                        tracing::warn!("the sweep of games awaiting bots failed: {e}");
                    }
                }
                match w.sweep_deadlines().await {
                    Ok(0) => {}
                    Ok(n) => tracing::info!("{n} seats ran out of time"),
                    Err(e) => tracing::warn!("the deadline sweep failed: {e}"),
                }
                if let Err(e) = w.sweep_answers().await {
                    tracing::warn!("the sweep of expired answers failed: {e}");
                }
                if let Err(e) = w.sweep_credentials(w.now()).await {
                    tracing::warn!("the sweep of expired credentials failed: {e}");
                }
                if let Err(e) = w.sweep_ceremonies().await {
                    tracing::warn!("the sweep of expired passkey ceremonies failed: {e}");
                }
            }
        });
        self.fold_ratings();
        self.start_tournaments(sweep);
        self.start_notifications();
        self.start_bots();
        self.start_analyst();
        tokio::spawn(crate::webhooks::run(
            self.store.clone(),
            self.clock.clone(),
            webhooks,
        ));
        if let Some(outbound) = self.live.take_outbound() {
            tokio::spawn(relay::announce(
                self.store.clone(),
                self.live.origin,
                outbound,
            ));
        }
        if let Store::Postgres(pg) = &self.store {
            // A process hears of accounts deleted through the others, and forgets them.
            let w = Arc::downgrade(self);
            tokio::spawn(relay::listen(
                pg.pool.clone(),
                self.live.origin,
                self.live.clone(),
                self.store.clone(),
                move |id| {
                    if let Some(w) = w.upgrade() {
                        w.forget_player(id);
                    }
                },
            ));
        }
    }

    /// Folds the ratings now rather than by the first request that shows one: on a long
    /// log the first fold takes seconds (26 to 36 s for 1,000,000 finished games), which every
    /// such request (the answer to a move that finishes a rated game, the lobby, the
    /// leaderboard, a player's page) would otherwise wait for. Until it is done the
    /// process says it is not ready (`readiness.rs`), so that a load balancer sends its
    /// requests to the others meanwhile.
    pub fn fold_ratings(self: &Arc<Self>) -> tokio::task::JoinHandle<()> {
        let w = self.clone();
        w.folding_ratings.store(true, Ordering::Release);
        tokio::spawn(async move {
            let started = std::time::Instant::now();
            let mut folded = w.rating_book().await;
            if let Ok(book) = &folded {
                folded = w.settle_ratings().await.map(|()| book.clone());
            }
            w.folding_ratings.store(false, Ordering::Release);
            match folded {
                Ok(book) => tracing::info!(
                    games = book.folded,
                    millis = started.elapsed().as_millis() as u64,
                    "ratings folded"
                ),
                Err(e) => tracing::warn!("the ratings could not be folded at start: {e}"),
            }
        })
    }
}
