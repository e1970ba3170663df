//! Where a fold starts when the game's stored checkpoint (`checkpoints/stored.rs`) is
//! nearer than anything in memory, and how checkpoints are stored: queued, off the
//! request's path, never holding up a change (they are derived: one not written costs a
//! later cold load some events, nothing else).

use std::sync::Arc;

use uuid::Uuid;

use super::reads::{FoldStart, PAGE};
use super::refusal::Refusal;
use super::worp::Worp;
use crate::checkpoints::stored::{self, STORED_EVERY};
use worp_domain::table::Table;

impl Worp {
    /// Where a fold that must pass event `at` and may go on to `until` starts, and the
    /// first page of events after that: `start` (the live state or one kept in memory),
    /// or the game's newest stored checkpoint at or before `at` where it is newer than
    /// `start`. The store is asked only where `start` may be far back: with `at` known,
    /// more than [`STORED_EVERY`] events back; for the newest state (`at` = `i64::MAX`),
    /// only when the game is not live (`cold`). A stored checkpoint is taken only if the
    /// log's event at its version has its hash; one that does not fit is logged and
    /// left for [`Worp::store_folded`] to replace.
    pub(super) async fn fold_start(
        &self,
        id: Uuid,
        (at, until): (i64, i64),
        start: Option<Arc<Table>>,
        cold: bool,
    ) -> Result<FoldStart, Refusal> {
        let near = start.as_ref().map_or(0, |t| t.version);
        let asked = if at == i64::MAX {
            cold
        } else {
            at.saturating_sub(near) > STORED_EVERY
        };
        let mut unfit = None;
        if asked {
            if let Some(c) = self.store.stored_checkpoint(id, at).await? {
                if c.version > near {
                    let fit = match stored::table(id, &c) {
                        Ok(t) => {
                            // The checkpoint's own last event, then the page a fold from
                            // it reads: a full page stays full once the first is checked.
                            let page = (until - c.version).min(PAGE) + 1;
                            let mut events = self.store.raw_events(id, c.version - 1, page).await?;
                            stored::fits_the_log(&t, events.first()).map(|()| {
                                events.remove(0);
                                (t, events)
                            })
                        }
                        Err(e) => Err(e),
                    };
                    match fit {
                        Ok((t, events)) => {
                            return Ok(FoldStart {
                                table: Some(Arc::new(t)),
                                events,
                                asked,
                                unfit: None,
                            })
                        }
                        Err(e) => {
                            tracing::warn!(
                                game = %id,
                                "the stored checkpoint at event {} is not used: {e}",
                                c.version
                            );
                            unfit = Some(c.version);
                        }
                    }
                }
            }
        }
        let events = self
            .store
            .raw_events(id, near, (until - near).min(PAGE))
            .await?;
        Ok(FoldStart {
            table: start,
            events,
            asked,
            unfit,
        })
    }

    /// Stores what a fold from event `after` to at least `at`, which kept the states
    /// `kept`, found missing: where the store was asked, each state kept at a multiple
    /// of [`STORED_EVERY`] after `after` and at or before `at`; in place of a checkpoint
    /// that did not fit, the state at its version, or, where the log has no such event,
    /// nothing (it is deleted).
    pub(super) async fn store_folded(
        &self,
        id: Uuid,
        (after, at): (i64, i64),
        kept: &[Arc<Table>],
        (asked, unfit): (bool, Option<i64>),
    ) {
        if asked {
            for t in kept {
                if t.version > after && t.version <= at && stored::is_stored(t.version) {
                    self.store_checkpoint(t.clone(), false);
                }
            }
        }
        let Some(unfit) = unfit else { return };
        match kept.iter().find(|t| t.version == unfit) {
            Some(t) => self.store_checkpoint(t.clone(), true),
            None => {
                if let Err(e) = self.store.drop_checkpoint(id, unfit).await {
                    tracing::warn!(
                        game = %id,
                        "the stored checkpoint at event {unfit} was not deleted: {e}"
                    );
                }
            }
        }
    }

    /// Stores `table` as its game's checkpoint at its version, in the background
    /// ([`stored::Queue`]): in place of one stored there only with `replace_any` (that
    /// one did not fit) or where that one was written under other rules or layout.
    pub(super) fn store_checkpoint(&self, table: Arc<Table>, replace_any: bool) {
        self.checkpoint_queue
            .push(&self.store, table, replace_any, self.now());
    }

    /// Waits until every checkpoint waiting to be stored is written (or failed).
    pub async fn checkpoints_stored(&self) {
        self.checkpoint_queue.written().await;
    }
}
