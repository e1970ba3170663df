//! Passkeys and the WebAuthn ceremonies between their two requests. What they mean is
//! the service's (`worp_service::accounts::passkeys`).

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::{bounded, postgres, sqlite, Store, StoreError};

/// A stored passkey: webauthn-rs's credential as JSON, by its credential id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredPasskey {
    pub credential_id: Vec<u8>,
    pub player_id: Uuid,
    pub name: String,
    pub passkey: String,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
}

impl Store {
    /// Stores a new passkey; [`StoreError::Conflict`] if its credential id is known.
    pub async fn create_passkey(&self, p: &StoredPasskey) -> Result<(), StoreError> {
        on_backend!(self.create_passkey(p))
    }

    /// `player`'s passkeys, oldest first.
    pub async fn passkeys_of(&self, player: Uuid) -> Result<Vec<StoredPasskey>, StoreError> {
        on_backend!(self.passkeys_of(player))
    }

    /// The passkey with credential id `id`.
    pub async fn passkey(&self, id: &[u8]) -> Result<Option<StoredPasskey>, StoreError> {
        on_backend!(self.passkey(id))
    }

    /// Stores a passkey's state (its counter) after a use at `now`.
    pub async fn use_passkey(
        &self,
        id: &[u8],
        passkey: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        on_backend!(self.use_passkey(id, passkey, now))
    }

    /// Removes `player`'s passkey `id`; whether there was one.
    pub async fn delete_passkey(&self, player: Uuid, id: &[u8]) -> Result<bool, StoreError> {
        on_backend!(self.delete_passkey(player, id))
    }

    /// Keeps a ceremony's state until `expires_at`.
    pub async fn create_ceremony(
        &self,
        id: Uuid,
        player: Option<Uuid>,
        kind: &str,
        state: &str,
        expires_at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        on_backend!(self.create_ceremony(id, player, kind, state, expires_at))
    }

    /// Takes a ceremony, once: its state and expiry.
    pub async fn take_ceremony(
        &self,
        id: Uuid,
        player: Option<Uuid>,
        kind: &str,
    ) -> Result<Option<(String, DateTime<Utc>)>, StoreError> {
        on_backend!(self.take_ceremony(id, player, kind))
    }

    /// Deletes the ceremonies that expired before `now`; how many.
    pub async fn delete_expired_ceremonies(&self, now: DateTime<Utc>) -> Result<u64, StoreError> {
        on_backend!(self.delete_expired_ceremonies(now))
    }
}
