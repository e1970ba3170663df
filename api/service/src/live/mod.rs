//! Telling whoever listens that a game changed: live streams in this process (a
//! broadcast hub), and (on PostgreSQL) every other `worp serve` process through
//! `LISTEN/NOTIFY` ([`relay`]).

mod change;
pub mod relay;

use tokio::sync::{broadcast, mpsc};
use uuid::Uuid;

pub use change::Change;

/// How many announcements may wait for the announcer before new ones are dropped.
const OUTBOX: usize = 10_000;

/// The in-process hub of changes.
#[derive(Debug)]
pub struct Live {
    /// This process, as named in its announcements.
    pub origin: Uuid,
    tx: broadcast::Sender<Change>,
    /// Changes for other processes, announced by [`relay::announce`]; `None` when no
    /// other process shares the store (SQLite).
    outbound: Option<mpsc::Sender<Change>>,
    outbound_rx: std::sync::Mutex<Option<mpsc::Receiver<Change>>>,
}

impl Live {
    /// A hub; `relays`: whether other processes share the store and should hear of
    /// this one's changes.
    pub fn new(relays: bool) -> Live {
        let (tx, _) = broadcast::channel(4096);
        let (outbound, outbound_rx) = if relays {
            let (out, rx) = mpsc::channel(OUTBOX);
            (Some(out), Some(rx))
        } else {
            (None, None)
        };
        Live {
            origin: Uuid::new_v4(),
            tx,
            outbound,
            outbound_rx: std::sync::Mutex::new(outbound_rx),
        }
    }

    /// The queue of announcements for other processes, for the one task that sends
    /// them (`None` after the first call, or when nothing is relayed).
    pub fn take_outbound(&self) -> Option<mpsc::Receiver<Change>> {
        self.outbound_rx.lock().ok().and_then(|mut r| r.take())
    }

    /// Listens to every change from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.tx.subscribe()
    }

    /// A sender into this process's hub (for the relay of other processes' changes).
    pub fn sender(&self) -> broadcast::Sender<Change> {
        self.tx.clone()
    }

    /// Tells this process's listeners.
    pub fn publish_local(&self, change: Change) {
        let _ = self.tx.send(change);
    }

    /// Tells this process's listeners now, and queues the change for the other
    /// processes (packed off the request path by [`relay::announce`]).
    pub fn publish(&self, change: Change) {
        let Some(outbound) = &self.outbound else {
            self.publish_local(change);
            return;
        };
        let announced = outbound.try_send(change.clone());
        self.publish_local(change);
        if announced.is_err() {
            tracing::warn!(
                "the announcement queue is full: another process's streams may miss a change"
            );
        }
    }
}
