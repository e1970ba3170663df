//! One broadcast channel per game and per player that someone watches, so that a change
//! wakes only the streams it concerns: a crowd of 10,000 watching one game is not woken
//! by the moves of every other game, and a player's stream hears only its own notices.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::broadcast;
use uuid::Uuid;

use super::change::Change;

/// How many changes a topic holds for its slowest watcher. A game's stream that falls
/// further behind reads the events it missed from the log; a player's stream is told to
/// resync. Small, since a topic allocates its slots when it is made.
pub const TOPIC_CAPACITY: usize = 64;

/// The channels of one kind of topic (games, or players), by id; a channel exists
/// while someone watches it.
#[derive(Debug, Default)]
pub struct Topics {
    channels: Mutex<HashMap<Uuid, broadcast::Sender<Arc<Change>>>>,
}

impl Topics {
    /// Listens to topic `id` from now on, until the [`Watch`] is dropped.
    pub fn watch(self: &Arc<Self>, id: Uuid) -> Watch {
        let mut channels = self.channels.lock().unwrap_or_else(PoisonError::into_inner);
        let rx = channels
            .entry(id)
            .or_insert_with(|| broadcast::channel(TOPIC_CAPACITY).0)
            .subscribe();
        Watch {
            changes: Some(rx),
            topics: self.clone(),
            id,
        }
    }

    /// Sends `change` to topic `id`'s watchers, if it has any.
    pub fn send(&self, id: Uuid, change: &Arc<Change>) {
        let channels = self.channels.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(tx) = channels.get(&id) {
            let _ = tx.send(change.clone());
        }
    }

    /// Whether topic `id` has watchers now.
    pub fn watched(&self, id: Uuid) -> bool {
        let channels = self.channels.lock().unwrap_or_else(PoisonError::into_inner);
        channels.contains_key(&id)
    }

    /// How many topics have watchers.
    pub fn len(&self) -> usize {
        self.channels
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Whether no topic has watchers.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops topic `id`'s channel once its last watcher has gone.
    fn left(&self, id: Uuid) {
        let mut channels = self.channels.lock().unwrap_or_else(PoisonError::into_inner);
        if channels.get(&id).is_some_and(|tx| tx.receiver_count() == 0) {
            channels.remove(&id);
        }
    }
}

/// A watcher's receiver of one topic; dropping it leaves the topic.
#[derive(Debug)]
pub struct Watch {
    /// Always `Some` until dropped (taken first, so that the count the topic reads no
    /// longer includes it).
    changes: Option<broadcast::Receiver<Arc<Change>>>,
    topics: Arc<Topics>,
    id: Uuid,
}

impl Watch {
    /// The next change of the topic (as `broadcast::Receiver::recv`).
    pub async fn recv(&mut self) -> Result<Arc<Change>, broadcast::error::RecvError> {
        match self.changes.as_mut() {
            Some(rx) => rx.recv().await,
            None => Err(broadcast::error::RecvError::Closed),
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        drop(self.changes.take());
        self.topics.left(self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(game_id: Uuid, version: i64) -> Arc<Change> {
        Arc::new(Change::new(Uuid::nil(), game_id, version, Vec::new(), None))
    }

    #[tokio::test]
    async fn a_watcher_hears_its_topic_only_and_the_topic_goes_with_its_last_watcher() {
        let topics = Arc::new(Topics::default());
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        let mut first = topics.watch(a);
        let second = topics.watch(a);
        assert_eq!(topics.len(), 1);
        topics.send(b, &change(b, 1));
        topics.send(a, &change(a, 2));
        assert_eq!(first.recv().await.expect("a change").version, 2);
        drop(second);
        assert!(topics.watched(a), "one watcher is left");
        drop(first);
        assert!(topics.is_empty(), "no channel is kept for no one");
        // Sending to a topic no one watches is nothing.
        topics.send(a, &change(a, 3));
        assert!(topics.is_empty());
    }

    #[tokio::test]
    async fn a_watcher_that_falls_behind_is_told_how_far() {
        let topics = Arc::new(Topics::default());
        let id = Uuid::new_v4();
        let mut w = topics.watch(id);
        for v in 0..(TOPIC_CAPACITY as i64 + 3) {
            topics.send(id, &change(id, v));
        }
        assert!(matches!(
            w.recv().await,
            Err(broadcast::error::RecvError::Lagged(3))
        ));
        assert_eq!(w.recv().await.expect("the oldest kept").version, 3);
    }
}
