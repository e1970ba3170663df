//! Telling whoever listens that a game changed: live streams in this process, and (on
//! PostgreSQL) every other `worp serve` process through `LISTEN/NOTIFY`.

use serde::{Deserialize, Serialize};
use tokio::sync::{broadcast, mpsc};
use uuid::Uuid;

use crate::store::{PlayerNotice, Store};

/// The channel name on PostgreSQL.
pub const CHANNEL: &str = "worp_events";

/// A game reached a new version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    /// The process that wrote it.
    pub origin: Uuid,
    pub game_id: Uuid,
    pub version: i64,
    /// What players should hear about.
    #[serde(default)]
    pub notices: Vec<PlayerNotice>,
}

/// How many announcements may wait for the announcer before new ones are dropped.
const OUTBOX: usize = 10_000;

/// The in-process hub of changes.
#[derive(Debug)]
pub struct Live {
    pub origin: Uuid,
    tx: broadcast::Sender<Change>,
    /// Announcements for other processes, sent in batches by [`announce`].
    outbound: mpsc::Sender<String>,
    outbound_rx: std::sync::Mutex<Option<mpsc::Receiver<String>>>,
}

impl Default for Live {
    fn default() -> Self {
        Live::new()
    }
}

impl Live {
    pub fn new() -> Live {
        let (tx, _) = broadcast::channel(4096);
        let (outbound, outbound_rx) = mpsc::channel(OUTBOX);
        Live {
            origin: Uuid::new_v4(),
            tx,
            outbound,
            outbound_rx: std::sync::Mutex::new(Some(outbound_rx)),
        }
    }

    /// Listens to every change from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.tx.subscribe()
    }

    /// Tells this process's listeners.
    pub fn publish_local(&self, change: Change) {
        let _ = self.tx.send(change);
    }

    /// Tells this process's listeners now, and queues the change for the other
    /// processes (sent in batches off the request path by [`announce`]).
    pub async fn publish(&self, store: &Store, change: Change) {
        let payload = serde_json::to_string(&change).unwrap_or_default();
        // NOTIFY payloads must stay under 8,000 bytes: drop the notices if they do not fit
        // (streams elsewhere still see the new events).
        let payload = if payload.len() < 7_500 {
            payload
        } else {
            serde_json::to_string(&Change {
                notices: Vec::new(),
                ..change.clone()
            })
            .unwrap_or_default()
        };
        self.publish_local(change);
        if matches!(store, Store::Postgres(_)) && self.outbound.try_send(payload).is_err() {
            tracing::warn!(
                "the announcement queue is full: another process's streams may miss a change"
            );
        }
    }
}

/// Sends queued announcements to the other processes (PostgreSQL `NOTIFY`), many per
/// statement: a NOTIFY serialises commits, so one per move would cap the move rate.
/// Runs until the process ends; does nothing on SQLite.
pub async fn announce(store: Store, live: std::sync::Arc<crate::service::Worp>) {
    let rx = live.live.outbound_rx.lock().ok().and_then(|mut r| r.take());
    let (Store::Postgres(_), Some(mut rx)) = (&store, rx) else {
        return;
    };
    let mut batch = Vec::with_capacity(256);
    while let Some(first) = rx.recv().await {
        batch.clear();
        batch.push(first);
        while batch.len() < 256 {
            match rx.try_recv() {
                Ok(p) => batch.push(p),
                Err(_) => break,
            }
        }
        if let Err(e) = store.announce(&batch).await {
            tracing::warn!(
                "could not announce {} changes to other processes: {e}",
                batch.len()
            );
        }
    }
}

/// Relays changes announced by other processes into this one (PostgreSQL only). Runs
/// until the process ends, reconnecting after errors.
pub async fn relay_postgres(store: Store, live: std::sync::Arc<crate::service::Worp>) {
    let Store::Postgres(pg) = store else {
        return;
    };
    loop {
        match sqlx::postgres::PgListener::connect_with(&pg.pool).await {
            Ok(mut listener) => {
                if let Err(e) = listener.listen(CHANNEL).await {
                    tracing::warn!("LISTEN failed: {e}");
                } else {
                    loop {
                        match listener.recv().await {
                            Ok(n) => match serde_json::from_str::<Change>(n.payload()) {
                                Ok(change) if change.origin != live.live.origin => {
                                    live.live.publish_local(change)
                                }
                                Ok(_) => {}
                                Err(e) => tracing::warn!("unreadable notification: {e}"),
                            },
                            Err(e) => {
                                tracing::warn!("the notification connection failed: {e}");
                                break;
                            }
                        }
                    }
                }
            }
            Err(e) => tracing::warn!("cannot listen for changes: {e}"),
        }
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    }
}
