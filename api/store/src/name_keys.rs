//! Registering players, and their name keys (`name_keys`; see `service::names`): a key
//! is held by one player, so that two names that look alike cannot both be registered.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::{bounded, postgres, sqlite, Player, Store, StoreError};

impl Store {
    /// Registers `p` with the name key `key`; [`StoreError::NameTaken`] if another
    /// player holds it.
    pub async fn create_player(
        &self,
        p: &Player,
        key: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        on_backend!(self.create_player(p, key, now))
    }

    /// The player (id, name) whose name holds `key`.
    pub async fn name_key_holder(&self, key: &str) -> Result<Option<(Uuid, String)>, StoreError> {
        on_backend!(self.name_key_holder(key))
    }

    /// Players (id, name) without a name key, oldest first.
    pub async fn players_without_name_key(&self) -> Result<Vec<(Uuid, String)>, StoreError> {
        on_backend!(self.players_without_name_key())
    }

    /// Gives player `id` the name key `key` if nobody holds it; whether it did.
    pub async fn add_name_key(&self, key: &str, id: Uuid) -> Result<bool, StoreError> {
        on_backend!(self.add_name_key(key, id))
    }
}
