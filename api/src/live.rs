//! Telling whoever listens that a game changed: live streams in this process, and (on
//! PostgreSQL) every other `worp serve` process through `LISTEN/NOTIFY`.

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;
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

/// A change to announce to the other processes: the JSON of a [`Change`] of `origin`.
/// It travels with the change's append and is sent in the same transaction.
#[derive(Debug, Clone, PartialEq)]
pub struct Announcement {
    pub origin: Uuid,
    pub change: String,
}

/// The in-process hub of changes.
#[derive(Debug)]
pub struct Live {
    pub origin: Uuid,
    tx: broadcast::Sender<Change>,
}

impl Default for Live {
    fn default() -> Self {
        Live::new()
    }
}

impl Live {
    pub fn new() -> Live {
        let (tx, _) = broadcast::channel(4096);
        Live {
            origin: Uuid::new_v4(),
            tx,
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

    /// What to send the other processes about `change` (PostgreSQL only; on SQLite
    /// there are none).
    pub fn announcement(&self, store: &Store, change: &Change) -> Option<Announcement> {
        if !matches!(store, Store::Postgres(_)) {
            return None;
        }
        let json = serde_json::to_string(change).ok()?;
        // A notification must stay under 8,000 bytes: drop the notices if they do not
        // fit (streams elsewhere still see the new events).
        let json = if json.len() < MAX_PAYLOAD - 100 {
            json
        } else {
            serde_json::to_string(&Change {
                notices: Vec::new(),
                ..change.clone()
            })
            .ok()?
        };
        Some(Announcement {
            origin: change.origin,
            change: json,
        })
    }
}

/// The largest NOTIFY payload PostgreSQL takes is 8,000 bytes; stay under it.
const MAX_PAYLOAD: usize = 7_900;

/// What one notification carries: changes of one process, many per notification
/// (`origin` too, which the reader recognises its own by, before parsing).
#[derive(Debug, Deserialize)]
struct Envelope {
    changes: Vec<Change>,
}

/// Packs announcements into as few notification payloads as fit, many changes to a
/// notification (a NOTIFY serialises commits, and every notification is read by every
/// listening process, so one per move would cap the move rate):
/// `{"origin":"…","changes":[…]}`, each under [`MAX_PAYLOAD`] bytes, one origin each.
pub fn pack<'a>(announcements: impl IntoIterator<Item = &'a Announcement>) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut current_origin = None;
    let mut head_len = 0;
    for a in announcements {
        let full = current.len() + a.change.len() + 3 > MAX_PAYLOAD;
        if current_origin.is_some() && (current_origin != Some(a.origin) || full) {
            current.push_str("]}");
            out.push(std::mem::take(&mut current));
            current_origin = None;
        }
        if current_origin.is_none() {
            current = format!("{{\"origin\":\"{}\",\"changes\":[", a.origin);
            head_len = current.len();
            current_origin = Some(a.origin);
        }
        if current.len() > head_len {
            current.push(',');
        }
        current.push_str(&a.change);
    }
    if current_origin.is_some() {
        current.push_str("]}");
        out.push(current);
    }
    out
}

/// The changes a notification carries, unless this process sent them (recognised
/// without parsing them).
fn foreign_changes(payload: &str, own_prefix: &str) -> Result<Vec<Change>, serde_json::Error> {
    if payload.starts_with(own_prefix) {
        return Ok(Vec::new());
    }
    match serde_json::from_str::<Envelope>(payload) {
        Ok(envelope) => Ok(envelope.changes),
        // One change per notification, as earlier servers sent them.
        Err(e) => serde_json::from_str::<Change>(payload)
            .map(|c| vec![c])
            .map_err(|_| e),
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
                    let own = format!("{{\"origin\":\"{}\"", live.live.origin);
                    loop {
                        match listener.recv().await {
                            Ok(n) => match foreign_changes(n.payload(), &own) {
                                Ok(changes) => {
                                    for change in
                                        changes.into_iter().filter(|c| c.origin != live.live.origin)
                                    {
                                        live.live.publish_local(change);
                                    }
                                }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn change(origin: Uuid, version: i64) -> Change {
        Change {
            origin,
            game_id: Uuid::nil(),
            version,
            notices: Vec::new(),
        }
    }

    #[test]
    fn announcements_are_packed_under_the_notify_limit_and_read_back_in_order() {
        let origin = Uuid::new_v4();
        let changes: Vec<Announcement> = (1..=500)
            .map(|v| Announcement {
                origin,
                change: serde_json::to_string(&change(origin, v)).expect("json"),
            })
            .collect();
        let payloads = pack(&changes);
        assert!(
            payloads.len() > 1,
            "500 changes do not fit one notification"
        );
        assert!(payloads.iter().all(|p| p.len() < 8_000));
        let other = format!("{{\"origin\":\"{}\"", Uuid::new_v4());
        let read: Vec<i64> = payloads
            .iter()
            .flat_map(|p| foreign_changes(p, &other).expect("readable"))
            .map(|c| c.version)
            .collect();
        assert_eq!(read, (1..=500).collect::<Vec<_>>());
        // The sender skips its own notifications without reading them.
        let own = format!("{{\"origin\":\"{origin}\"");
        assert!(payloads
            .iter()
            .all(|p| foreign_changes(p, &own).expect("skipped").is_empty()));
    }

    #[test]
    fn each_notification_carries_the_changes_of_one_origin() {
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        let announcements: Vec<Announcement> = [(a, 1), (a, 2), (b, 3), (a, 4)]
            .into_iter()
            .map(|(origin, v)| Announcement {
                origin,
                change: serde_json::to_string(&change(origin, v)).expect("json"),
            })
            .collect();
        let payloads = pack(&announcements);
        assert_eq!(payloads.len(), 3);
        let own_a = format!("{{\"origin\":\"{a}\"");
        let seen_by_a: Vec<i64> = payloads
            .iter()
            .flat_map(|p| foreign_changes(p, &own_a).expect("readable"))
            .map(|c| c.version)
            .collect();
        assert_eq!(seen_by_a, vec![3]);
        assert!(pack(&[]).is_empty());
    }

    #[test]
    fn a_single_change_per_notification_is_still_understood() {
        let c = change(Uuid::new_v4(), 7);
        let payload = serde_json::to_string(&c).expect("json");
        assert_eq!(
            foreign_changes(&payload, "{\"origin\":\"x\"").expect("read"),
            vec![c]
        );
        assert!(foreign_changes("not json", "{").is_err());
    }
}
