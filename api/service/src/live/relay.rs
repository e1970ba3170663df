//! Changes between `worp serve` processes on one PostgreSQL: announced with `NOTIFY`
//! (packed off the request path), heard with `LISTEN` and put into this process's hub.
//!
//! [`announce`] sends what the hub queued for other processes after the commits: many
//! changes to a notification (each under PostgreSQL's 8,000-byte limit) and at most one
//! statement per [`ANNOUNCE_INTERVAL`], since a notifying commit is serialised with every
//! other and wakes every listening process. Each process's `LISTEN` connection names
//! itself ([`listener_name`]: `application_name`, `worp relay <origin>`); before each
//! statement the announcer looks for another such name among PostgreSQL's sessions and,
//! finding none, sends nothing: a lone process pays for no relay. [`listen`] puts the
//! changes of other origins into this process's hub ([`hear`]): for a game that streams
//! of this process watch, the events themselves are read from the store once, for all
//! of them.

use serde::Deserialize;
use std::sync::Arc;

use tokio::sync::mpsc;
use uuid::Uuid;

use super::change::Change;
use super::Live;
use worp_store::Store;

/// The channel name on PostgreSQL.
pub const CHANNEL: &str = "worp_events";

/// The largest NOTIFY payload PostgreSQL takes is 8,000 bytes; stay under it.
const MAX_PAYLOAD: usize = 7_900;

/// A change as announced: JSON, without its notices if they would not fit in one
/// notification (streams elsewhere still see the new events); an error if it does not
/// serialise.
pub fn announcement(change: &Change) -> Result<String, serde_json::Error> {
    let payload = serde_json::to_string(change)?;
    if payload.len() < MAX_PAYLOAD - 100 {
        return Ok(payload);
    }
    serde_json::to_string(&Change {
        notices: Vec::new(),
        events: None,
        wire: Default::default(),
        ..change.clone()
    })
}

/// What one notification carries: changes of one process, many per notification
/// (`origin` too, which the reader recognises its own by, before parsing).
#[derive(Debug, Deserialize)]
struct Envelope {
    changes: Vec<Change>,
}

/// Packs announcements (each a JSON [`Change`]) into as few notification payloads as
/// fit: `{"origin":"…","changes":[…]}`, each under [`MAX_PAYLOAD`] bytes.
fn pack(origin: Uuid, changes: &[String]) -> Vec<String> {
    let head = format!("{{\"origin\":\"{origin}\",\"changes\":[");
    let mut out = Vec::new();
    let mut current = head.clone();
    for c in changes {
        if current.len() > head.len() && current.len() + c.len() + 3 > MAX_PAYLOAD {
            current.push_str("]}");
            out.push(std::mem::replace(&mut current, head.clone()));
        }
        if current.len() > head.len() {
            current.push(',');
        }
        current.push_str(c);
    }
    if current.len() > head.len() {
        current.push_str("]}");
        out.push(current);
    }
    out
}

/// The shortest time between two announcing statements. Each is a transaction with a
/// durable commit that PostgreSQL serialises with every other notifying commit, and
/// wakes every listening process: under load, sending whatever has queued as soon as
/// the previous statement returned cost about one such transaction per two group
/// commits. Other processes' live streams hear of a change at most this much later.
pub const ANNOUNCE_INTERVAL: std::time::Duration = std::time::Duration::from_millis(20);

/// How a process's `LISTEN` connection names itself to PostgreSQL (`application_name`,
/// then its origin): the announcer of another process looks for such names.
pub const LISTENER_NAME: &str = "worp relay ";

/// The `application_name` of the `LISTEN` connection of process `origin`.
pub fn listener_name(origin: Uuid) -> String {
    format!("{LISTENER_NAME}{origin}")
}

/// Sends queued changes to the other processes (PostgreSQL `NOTIFY`), packed many to a
/// notification and many notifications to a statement, at most one statement per
/// [`ANNOUNCE_INTERVAL`]: a NOTIFY serialises commits, and every notification is read
/// by every listening process, so one per move would cap the move rate. The first
/// change after a quiet spell goes out at once. Runs until the hub is dropped.
///
/// When no other process listens (its `LISTEN` connection is not among PostgreSQL's
/// sessions), the changes are dropped unsent: serialising them, the notifications
/// and this process reading its own back cost a lone process about 4 % of its moves a
/// second. The check runs after the changes committed, so a process that starts
/// listening later reads them from the store when its streams open.
pub async fn announce(store: Store, origin: Uuid, mut rx: mpsc::Receiver<Arc<Change>>) {
    let own = listener_name(origin);
    let mut queued = Vec::with_capacity(1024);
    loop {
        queued.clear();
        if rx.recv_many(&mut queued, 1024).await == 0 {
            return;
        }
        let started = tokio::time::Instant::now();
        // When the check fails, announce anyway: a notification too many costs little.
        if store.others_listen(&own).await.unwrap_or(true) {
            let announcements: Vec<String> = queued
                .iter()
                .filter_map(|c| {
                    announcement(c)
                        .map_err(|e| {
                            tracing::error!(
                                "could not announce version {} of game {}: {e}",
                                c.version,
                                c.game_id
                            );
                        })
                        .ok()
                })
                .collect();
            let payloads = pack(origin, &announcements);
            if let Err(e) = store.announce(&payloads).await {
                tracing::warn!(
                    "could not announce {} changes to other processes: {e}",
                    queued.len()
                );
            }
        }
        // Whatever queues meanwhile goes in the next statement.
        tokio::time::sleep_until(started + ANNOUNCE_INTERVAL).await;
    }
}

/// The changes a notification carries, unless this process sent them (recognised
/// without parsing them).
fn foreign_changes(payload: &str, own_prefix: &str) -> Result<Vec<Change>, serde_json::Error> {
    if payload.starts_with(own_prefix) {
        return Ok(Vec::new());
    }
    match serde_json::from_str::<Envelope>(payload) {
        Ok(envelope) => Ok(envelope.changes),
        // A notification may also carry a single change, not wrapped in an envelope.
        Err(e) => serde_json::from_str::<Change>(payload)
            .map(|c| vec![c])
            .map_err(|_| e),
    }
}

/// Puts another process's `change` into this one's hub. When streams here watch its
/// game, the events it appended are read from the store first, once, and sent with it
/// (on a task of their own, so the next notification is not kept waiting): a move
/// elsewhere costs one read here however many watch, not one per watcher. A change
/// whose events cannot be read goes without them, and each stream reads the log.
pub fn hear(live: &Arc<Live>, store: &Store, mut change: Change) {
    let Some(from) = change.from.filter(|_| live.game_watched(change.game_id)) else {
        live.publish_local(change);
        return;
    };
    let (live, store) = (live.clone(), store.clone());
    tokio::spawn(async move {
        let wanted = change.version - from;
        match store.events(change.game_id, from, wanted).await {
            Ok(events) if events.first().is_some_and(|e| e.seq == from + 1) => {
                change.events = Some(events.into());
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(
                "could not read version {} of game {} for its streams: {e}",
                change.version,
                change.game_id
            ),
        }
        live.publish_local(change);
    });
}

/// Relays changes announced by other processes into this one (PostgreSQL only). Runs
/// until the process ends, reconnecting after errors.
pub async fn listen(
    pool: sqlx::PgPool,
    origin: Uuid,
    live: Arc<Live>,
    store: Store,
    forget_player: impl Fn(Uuid) + Send + 'static,
) {
    // A pool of its own, for the connection's name ([`listener_name`]); a broken
    // connection it gets back is tested and replaced at the next attempt.
    let named = (*pool.connect_options())
        .clone()
        .application_name(&listener_name(origin));
    let own_pool = sqlx::postgres::PgPoolOptions::new()
        .max_connections(1)
        .connect_lazy_with(named);
    let own = format!("{{\"origin\":\"{origin}\"");
    loop {
        match sqlx::postgres::PgListener::connect_with(&own_pool).await {
            Ok(mut listener) => {
                if let Err(e) = listener
                    .listen_all([CHANNEL, worp_store::accounts::ACCOUNTS_CHANNEL])
                    .await
                {
                    tracing::warn!("LISTEN failed: {e}");
                } else {
                    loop {
                        match listener.recv().await {
                            Ok(n) if n.channel() == worp_store::accounts::ACCOUNTS_CHANNEL => {
                                match n.payload().parse::<Uuid>() {
                                    Ok(id) => forget_player(id),
                                    Err(e) => tracing::warn!("unreadable account notice: {e}"),
                                }
                            }
                            Ok(n) => match foreign_changes(n.payload(), &own) {
                                Ok(changes) => {
                                    for change in changes.into_iter().filter(|c| c.origin != origin)
                                    {
                                        hear(&live, &store, change);
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
        Change::new(origin, Uuid::nil(), version, Vec::new(), None)
    }

    #[test]
    fn the_announcer_looks_for_listeners_by_the_name_they_give_themselves() {
        let pattern = format!("LIKE '{LISTENER_NAME}%'");
        assert!(worp_store::sql::OTHERS_LISTEN.contains(&pattern));
        assert!(listener_name(Uuid::nil()).starts_with(LISTENER_NAME));
        // PostgreSQL keeps 63 bytes of an application name: the origin fits whole.
        assert!(listener_name(Uuid::max()).len() <= 63);
    }

    #[test]
    fn announcements_are_packed_under_the_notify_limit_and_read_back_in_order() {
        let origin = Uuid::new_v4();
        let changes: Vec<String> = (1..=500)
            .map(|v| serde_json::to_string(&change(origin, v)).expect("json"))
            .collect();
        let payloads = pack(origin, &changes);
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
