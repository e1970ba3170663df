//! Accounts: the credentials beside a player's first token (personal access tokens,
//! web sessions, OAuth grants and tokens), passwords, recovery codes and the count of
//! failed sign-ins. What they mean is the service's (`worp_service::accounts`).

use chrono::{DateTime, Utc};
use uuid::Uuid;
use worp_domain::access::{Credential, CredentialKind, OauthCode, OauthGrant};

use super::{bounded, postgres, sqlite, Player, Store, StoreError};

/// What exchanging an authorisation code did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exchange {
    /// The grant and its tokens are stored.
    Granted,
    /// The code was exchanged before: nothing was issued, and the grant it made then was
    /// revoked (`revoked`: it was still there).
    Replayed { revoked: bool },
}

/// What presenting a refresh token did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefreshOutcome {
    /// It is used up; its successors are stored.
    Rotated,
    /// It had been used before: its whole grant is revoked.
    Reused,
}

impl Store {
    /// The player with id `id`.
    pub async fn player(&self, id: Uuid) -> Result<Option<Player>, StoreError> {
        on_backend!(self.player(id))
    }

    pub async fn create_credential(&self, c: &Credential) -> Result<(), StoreError> {
        on_backend!(self.create_credential(c))
    }

    /// The credential whose secret has SHA-256 `hash`, with its player.
    pub async fn credential_by_hash(
        &self,
        hash: &[u8],
    ) -> Result<Option<(Credential, Player)>, StoreError> {
        on_backend!(self.credential_by_hash(hash))
    }

    /// Notes a use of credential `id` at `now`, with its expiry from then.
    pub async fn touch_credential(
        &self,
        id: Uuid,
        now: DateTime<Utc>,
        expires_at: Option<DateTime<Utc>>,
    ) -> Result<(), StoreError> {
        on_backend!(self.touch_credential(id, now, expires_at))
    }

    /// `player`'s credentials of `kind`, oldest first.
    pub async fn credentials_of(
        &self,
        player: Uuid,
        kind: CredentialKind,
    ) -> Result<Vec<Credential>, StoreError> {
        on_backend!(self.credentials_of(player, kind))
    }

    /// Deletes `player`'s credential `id` of `kind`; whether there was one.
    pub async fn delete_credential(
        &self,
        player: Uuid,
        kind: CredentialKind,
        id: Uuid,
    ) -> Result<bool, StoreError> {
        on_backend!(self.delete_credential(player, kind, id))
    }

    /// Deletes every credential of `kind` of `player` except `keep`; how many.
    pub async fn delete_credentials_of(
        &self,
        player: Uuid,
        kind: CredentialKind,
        keep: Option<Uuid>,
    ) -> Result<u64, StoreError> {
        on_backend!(self.delete_credentials_of(player, kind, keep))
    }

    /// Deletes credentials and authorisation codes expired before `now`; how many.
    pub async fn delete_expired_credentials(&self, now: DateTime<Utc>) -> Result<u64, StoreError> {
        on_backend!(self.delete_expired_credentials(now))
    }

    /// `player`'s Argon2id password hash, if they set a password.
    pub async fn password_of(&self, player: Uuid) -> Result<Option<String>, StoreError> {
        on_backend!(self.password_of(player))
    }

    pub async fn set_password(
        &self,
        player: Uuid,
        phc: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        on_backend!(self.set_password(player, phc, now))
    }

    /// Replaces `player`'s recovery codes by these (SHA-256 of each).
    pub async fn replace_recovery_codes(
        &self,
        player: Uuid,
        hashes: &[Vec<u8>],
    ) -> Result<(), StoreError> {
        on_backend!(self.replace_recovery_codes(player, hashes))
    }

    /// Uses up `player`'s recovery code with SHA-256 `hash`; whether it was there.
    pub async fn use_recovery_code(&self, player: Uuid, hash: &[u8]) -> Result<bool, StoreError> {
        on_backend!(self.use_recovery_code(player, hash))
    }

    pub async fn recovery_codes_left(&self, player: Uuid) -> Result<i64, StoreError> {
        on_backend!(self.recovery_codes_left(player))
    }

    /// The failed sign-ins counted against `key`, and when the last was.
    pub async fn sign_in_failures(
        &self,
        key: &str,
    ) -> Result<Option<(i32, DateTime<Utc>)>, StoreError> {
        on_backend!(self.sign_in_failures(key))
    }

    /// Counts a failure against `key` at `now`, forgetting those before `forget_before`.
    pub async fn record_sign_in_failure(
        &self,
        key: &str,
        now: DateTime<Utc>,
        forget_before: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        on_backend!(self.record_sign_in_failure(key, now, forget_before))
    }

    pub async fn clear_sign_in_failures(&self, key: &str) -> Result<(), StoreError> {
        on_backend!(self.clear_sign_in_failures(key))
    }

    pub async fn create_oauth_code(&self, c: &OauthCode) -> Result<(), StoreError> {
        on_backend!(self.create_oauth_code(c))
    }

    /// The authorisation code with SHA-256 `hash`.
    pub async fn oauth_code(&self, hash: &[u8]) -> Result<Option<OauthCode>, StoreError> {
        on_backend!(self.oauth_code(hash))
    }

    /// Exchanges a code for `grant` and its tokens, once (see [`Exchange`]).
    pub async fn exchange_oauth_code(
        &self,
        code_hash: &[u8],
        grant: &OauthGrant,
        access: &Credential,
        refresh: &Credential,
    ) -> Result<Exchange, StoreError> {
        on_backend!(self.exchange_oauth_code(code_hash, grant, access, refresh))
    }

    /// Rotates a refresh token, once (see [`RefreshOutcome`]).
    pub async fn rotate_refresh_token(
        &self,
        old: &Credential,
        now: DateTime<Utc>,
        access: &Credential,
        refresh: &Credential,
    ) -> Result<RefreshOutcome, StoreError> {
        on_backend!(self.rotate_refresh_token(old, now, access, refresh))
    }

    /// `player`'s authorised apps, oldest first.
    pub async fn oauth_grants_of(&self, player: Uuid) -> Result<Vec<OauthGrant>, StoreError> {
        on_backend!(self.oauth_grants_of(player))
    }

    /// Revokes `player`'s grant `id` and its tokens; whether there was one.
    pub async fn revoke_oauth_grant(&self, player: Uuid, id: Uuid) -> Result<bool, StoreError> {
        on_backend!(self.revoke_oauth_grant(player, id))
    }

    /// Deletes what is held of `player` beside the log (see the statement), giving them
    /// `name` and a first token nobody has; false if done before. On PostgreSQL, the
    /// other server processes are told to forget what they keep of the player.
    pub async fn delete_account(
        &self,
        player: Uuid,
        name: &str,
        token_hash: &[u8],
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let done = on_backend!(self.delete_account(player, name, token_hash, now))?;
        self.tell_others_to_forget(player).await?;
        Ok(done)
    }

    /// Gives `player` a first token nobody has (hash `token_hash`), telling the other
    /// server processes to forget the old one.
    pub async fn replace_first_token(
        &self,
        player: Uuid,
        token_hash: &[u8],
    ) -> Result<(), StoreError> {
        on_backend!(self.replace_first_token(player, token_hash))?;
        self.tell_others_to_forget(player).await
    }

    /// On PostgreSQL, tells the other server processes to forget what they keep of
    /// `player` (their first token, their name).
    async fn tell_others_to_forget(&self, player: Uuid) -> Result<(), StoreError> {
        if let Store::Postgres(s) = self {
            bounded(async {
                sqlx::query("SELECT pg_notify($1, $2)")
                    .bind(ACCOUNTS_CHANNEL)
                    .bind(player.to_string())
                    .execute(&s.pool)
                    .await?;
                Ok(())
            })
            .await?;
        }
        Ok(())
    }

    /// The players who deleted their account.
    pub async fn deleted_players(&self) -> Result<Vec<Uuid>, StoreError> {
        on_backend!(self.deleted_players())
    }

    /// When `player` deleted their account, if they did.
    pub async fn deleted_at(&self, player: Uuid) -> Result<Option<DateTime<Utc>>, StoreError> {
        on_backend!(self.deleted_at(player))
    }
}

/// The PostgreSQL channel on which a deleted account's id is announced.
pub const ACCOUNTS_CHANNEL: &str = "worp_accounts";
