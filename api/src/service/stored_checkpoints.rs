//! Where a fold starts when the game's stored checkpoint (`checkpoints/stored.rs`) is
//! nearer than anything in memory, and how checkpoints are stored: queued, off the
//! request's path, never holding up a change (they are derived: one not written costs a
//! later cold load some events, nothing else).

use std::sync::Arc;

use uuid::Uuid;

use super::reads::PAGE;
use super::refusal::Refusal;
use super::worp::Worp;
use crate::checkpoints::stored::{self, STORED_EVERY};
use crate::events::LoggedEvent;
use crate::table::Table;

impl Worp {
    /// Where a fold that must pass event `at` and may go on to `until` starts, and the
    /// first page of events after that: `start` (the live state or one kept in memory),
    /// or the game's stored checkpoint where it is newer than `start` and at or before
    /// `at`. The store is asked only where `start` may be far back: with `at` known, more
    /// than [`STORED_EVERY`] events back; for the newest state (`at` = `i64::MAX`), only
    /// when the game is not live (`cold`). A stored checkpoint is taken only if the log's
    /// event at its version has its hash; one that does not fit is logged and left for the
    /// next store to replace (the third value: `true`).
    pub(super) async fn fold_start(
        &self,
        id: Uuid,
        (at, until): (i64, i64),
        start: Option<Arc<Table>>,
        cold: bool,
    ) -> Result<(Option<Arc<Table>>, Vec<LoggedEvent>, bool), Refusal> {
        let near = start.as_ref().map_or(0, |t| t.version);
        let far = if at == i64::MAX {
            cold
        } else {
            at.saturating_sub(near) > STORED_EVERY
        };
        let mut unfit = false;
        if far {
            if let Some(c) = self.store.stored_checkpoint(id).await? {
                if c.version > near && c.version <= at {
                    let fit = match stored::table(id, &c) {
                        Ok(t) => {
                            // The checkpoint's own last event, then the page a fold from
                            // it reads: a full page stays full once the first is checked.
                            let page = (until - c.version).min(PAGE) + 1;
                            let mut events =
                                self.store.logged_events(id, c.version - 1, page).await?;
                            stored::fits_the_log(&t, events.first()).map(|()| {
                                events.remove(0);
                                (t, events)
                            })
                        }
                        Err(e) => Err(e),
                    };
                    match fit {
                        Ok((t, events)) => return Ok((Some(Arc::new(t)), events, false)),
                        Err(e) => {
                            tracing::warn!(
                                game = %id,
                                "the stored checkpoint at event {} is not used: {e}",
                                c.version
                            );
                            unfit = true;
                        }
                    }
                }
            }
        }
        let events = self
            .store
            .logged_events(id, near, (until - near).min(PAGE))
            .await?;
        Ok((start, events, unfit))
    }

    /// Stores `table` as its game's checkpoint, in the background
    /// ([`stored::Queue`]): in place of the one stored if that is older, or, with
    /// `replace_any`, whatever it is (it did not fit).
    pub(super) fn store_checkpoint(&self, table: Arc<Table>, replace_any: bool) {
        self.checkpoint_queue
            .push(&self.store, table, replace_any, self.now());
    }

    /// Waits until every checkpoint waiting to be stored is written (or failed).
    pub async fn checkpoints_stored(&self) {
        self.checkpoint_queue.written().await;
    }
}
