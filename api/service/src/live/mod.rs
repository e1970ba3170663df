//! Telling whoever listens that a game changed: live streams in this process (a
//! channel per watched game and per watched player, [`topics`]), and (on PostgreSQL)
//! every other `worp serve` process through `LISTEN/NOTIFY` ([`relay`]).

mod change;
pub mod relay;
pub mod topics;

use std::sync::Arc;

use tokio::sync::{broadcast, mpsc};
use uuid::Uuid;

pub use change::Change;
pub use topics::{Topics, Watch};

/// How many announcements may wait for the announcer before new ones are dropped.
const OUTBOX: usize = 10_000;

/// The in-process hub of changes.
#[derive(Debug)]
pub struct Live {
    /// This process, as named in its announcements.
    pub origin: Uuid,
    /// Every change, for whoever wants them all.
    every: broadcast::Sender<Arc<Change>>,
    /// The streams of each watched game.
    games: Arc<Topics>,
    /// The streams of each watched player.
    players: Arc<Topics>,
    /// Changes for other processes, announced by [`relay::announce`]; `None` when no
    /// other process shares the store (SQLite).
    outbound: Option<mpsc::Sender<Arc<Change>>>,
    outbound_rx: std::sync::Mutex<Option<mpsc::Receiver<Arc<Change>>>>,
}

impl Live {
    /// A hub; `relays`: whether other processes share the store and should hear of
    /// this one's changes.
    pub fn new(relays: bool) -> Live {
        let (every, _) = broadcast::channel(1024);
        let (outbound, outbound_rx) = if relays {
            let (out, rx) = mpsc::channel(OUTBOX);
            (Some(out), Some(rx))
        } else {
            (None, None)
        };
        Live {
            origin: Uuid::new_v4(),
            every,
            games: Arc::default(),
            players: Arc::default(),
            outbound,
            outbound_rx: std::sync::Mutex::new(outbound_rx),
        }
    }

    /// The queue of announcements for other processes, for the one task that sends
    /// them (`None` after the first call, or when nothing is relayed).
    pub fn take_outbound(&self) -> Option<mpsc::Receiver<Arc<Change>>> {
        self.outbound_rx.lock().ok().and_then(|mut r| r.take())
    }

    /// Listens to every change from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Change>> {
        self.every.subscribe()
    }

    /// Listens to the changes of game `id` from now on.
    pub fn watch_game(&self, id: Uuid) -> Watch {
        self.games.watch(id)
    }

    /// Listens to the changes with notices for player `id` from now on.
    pub fn watch_player(&self, id: Uuid) -> Watch {
        self.players.watch(id)
    }

    /// Whether a stream of this process watches game `id`.
    pub fn game_watched(&self, id: Uuid) -> bool {
        self.games.watched(id)
    }

    /// Tells this process's listeners: those of every change, the game's, and each
    /// player the change has a notice for.
    pub fn publish_local(&self, change: Change) {
        self.tell(&Arc::new(change));
    }

    fn tell(&self, change: &Arc<Change>) {
        let _ = self.every.send(change.clone());
        self.games.send(change.game_id, change);
        let mut told: Vec<Uuid> = Vec::with_capacity(change.notices.len());
        for n in &change.notices {
            if !told.contains(&n.player_id) {
                told.push(n.player_id);
                self.players.send(n.player_id, change);
            }
        }
    }

    /// Tells this process's listeners now, and queues the change for the other
    /// processes (packed off the request path by [`relay::announce`]).
    pub fn publish(&self, change: Change) {
        let change = Arc::new(change);
        self.tell(&change);
        if let Some(outbound) = &self.outbound {
            if outbound.try_send(change).is_err() {
                tracing::warn!(
                    "the announcement queue is full: another process's streams may miss a change"
                );
            }
        }
    }
}
