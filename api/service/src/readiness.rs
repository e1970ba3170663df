//! Whether this process may take traffic (`GET /readyz`), and the state of its pool
//! (`GET /metrics`).

use super::{Refusal, Worp};

impl Worp {
    /// Ready when the database answers, every migration of this build has run on it,
    /// and the ratings' first fold is done (the lobby, the leaderboard, players' pages
    /// and the answer to a move that finishes a rated game wait for it).
    pub async fn readiness(&self) -> Result<(), Refusal> {
        if self.folding_ratings() {
            return Err(Refusal::Unavailable(
                "the ratings are being folded from the log".into(),
            ));
        }
        match self.store.migrated().await {
            Ok(true) => Ok(()),
            Ok(false) => Err(Refusal::Unavailable(
                "the database lacks migrations of this build".into(),
            )),
            Err(e) => Err(Refusal::Unavailable(format!(
                "the database does not answer: {e}"
            ))),
        }
    }

    /// Whether the ratings' fold of [`Worp::fold_ratings`] is still running.
    pub fn folding_ratings(&self) -> bool {
        self.folding_ratings
            .load(std::sync::atomic::Ordering::Acquire)
    }

    /// Records the database pool's connections and the group commit's queue in the
    /// metrics (at each scrape).
    pub fn record_pool(&self) {
        let (in_use, open) = self.store.connections();
        worp_telemetry::metrics::db_pool(in_use, open);
        worp_telemetry::metrics::sample_write_queue();
    }
}
