//! The tournaments waiting for their driver (`driver.rs`): queued by a change that
//! finished one of their games, a registration, a withdrawal or a start.

use std::collections::BTreeSet;
use std::sync::Mutex;

use tokio::sync::Notify;
use uuid::Uuid;

/// The tournaments waiting for the driver.
#[derive(Debug, Default)]
pub struct Queue {
    ids: Mutex<BTreeSet<Uuid>>,
    pub(crate) wake: Notify,
}

impl Queue {
    pub fn push(&self, id: Uuid) {
        if let Ok(mut ids) = self.ids.lock() {
            ids.insert(id);
        }
        self.wake.notify_one();
    }

    pub(crate) fn take(&self) -> Vec<Uuid> {
        self.ids
            .lock()
            .map(|mut ids| std::mem::take(&mut *ids).into_iter().collect())
            .unwrap_or_default()
    }
}
