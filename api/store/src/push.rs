//! Web Push: the server's VAPID key and players' push subscriptions. What they mean is
//! the service's (`worp_service::push`).

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::{bounded, postgres, sqlite, Store, StoreError};

/// A browser's push subscription, as stored: its endpoint and the keys (base64url) each
/// message is encrypted to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredPushSubscription {
    pub id: Uuid,
    pub player_id: Uuid,
    pub endpoint: String,
    pub p256dh: String,
    pub auth: String,
    pub device: String,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
}

impl Store {
    /// The server's VAPID private key (base64url), if one was made.
    pub async fn vapid_key(&self) -> Result<Option<String>, StoreError> {
        on_backend!(self.vapid_key())
    }

    /// Keeps `private_key` as the server's VAPID key unless one is kept already; the key
    /// kept, whichever it is (two processes making one at once agree on the first).
    pub async fn keep_vapid_key(
        &self,
        private_key: &str,
        now: DateTime<Utc>,
    ) -> Result<String, StoreError> {
        on_backend!(self.keep_vapid_key(private_key, now))
    }

    /// Stores `s`, or, when its endpoint is stored already, gives that row `s`'s player,
    /// keys and device (its id and `created_at` stay); the row as stored.
    pub async fn save_push_subscription(
        &self,
        s: &StoredPushSubscription,
    ) -> Result<StoredPushSubscription, StoreError> {
        on_backend!(self.save_push_subscription(s))
    }

    /// `player`'s push subscriptions, oldest first.
    pub async fn push_subscriptions_of(
        &self,
        player: Uuid,
    ) -> Result<Vec<StoredPushSubscription>, StoreError> {
        on_backend!(self.push_subscriptions_of(player))
    }

    /// Removes `player`'s push subscription `id`; whether there was one.
    pub async fn delete_push_subscription(
        &self,
        player: Uuid,
        id: Uuid,
    ) -> Result<bool, StoreError> {
        on_backend!(self.delete_push_subscription(player, id))
    }

    /// Notes that a message was accepted for subscription `id` at `now`.
    pub async fn use_push_subscription(
        &self,
        id: Uuid,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        on_backend!(self.use_push_subscription(id, now))
    }
}
