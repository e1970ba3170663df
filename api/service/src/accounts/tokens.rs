//! Recognising a credential, personal access tokens, and web sessions.

use chrono::{DateTime, Duration, Utc};
use sha2::{Digest, Sha256};
use uuid::Uuid;
use worp_domain::access::{Credential, CredentialKind, Grant, Scopes};
use worp_store::Player;

use super::{new_secret_and_hash, CredentialView};
use crate::players::token_hash;
use crate::refusal::Refusal;
use crate::text;
use crate::worp::Worp;

/// The most personal access tokens a player may hold.
pub const MAX_PERSONAL_TOKENS: usize = 100;
/// The most web sessions a player holds; signing in past it ends the least recently
/// used one.
pub const MAX_SESSIONS: usize = 50;
/// The longest note of a token or device name of a session, in characters.
pub const MAX_CREDENTIAL_NAME: usize = 100;
/// The longest a personal access token may live, in days.
pub const MAX_TOKEN_DAYS: u32 = 366;
/// A session ends after this long unused.
pub const SESSION_IDLE: Duration = Duration::days(30);
/// A use is written down when the last one written is older than this: a credential's
/// `last_used_at` is exact to a minute, and a busy client does not write on every request.
const USE_RESOLUTION: Duration = Duration::minutes(1);

/// The CSRF token of a web session: SHA-256 of the session's secret under a label, hex.
/// Whoever can compute it holds the cookie; a page on another site cannot read the
/// cookie (`HttpOnly`) nor the answer that gives this token (no CORS for cookies).
pub fn csrf_token(session_secret: &str) -> String {
    let mut h = Sha256::new();
    h.update(b"worp csrf token\0");
    h.update(session_secret.as_bytes());
    hex::encode(h.finalize())
}

/// A new credential's note or device name, checked.
pub(crate) fn credential_name(what: &str, name: &str) -> Result<String, Refusal> {
    let name = name.trim();
    text::check_plain(what, name)?;
    text::check_shown_text(what, name)?;
    let n = name.chars().count();
    if n == 0 || n > MAX_CREDENTIAL_NAME {
        return Err(Refusal::Invalid(format!(
            "{what} must be 1 to {MAX_CREDENTIAL_NAME} characters"
        )));
    }
    Ok(name.to_owned())
}

/// A personal access token just made: shown only now.
#[derive(Debug, Clone)]
pub struct NewToken {
    pub credential: Credential,
    pub secret: String,
}

/// A web session just opened: its cookie's value and CSRF token are shown only now.
#[derive(Debug, Clone)]
pub struct NewSession {
    pub credential: Credential,
    pub player: Player,
    pub secret: String,
    pub csrf_token: String,
}

impl Worp {
    /// The player a secret belongs to, and what it grants. Refused alike whether the
    /// secret is unknown, revoked or expired.
    pub async fn authenticate(&self, secret: &str) -> Result<(Player, Grant), Refusal> {
        // Found by the secret's SHA-256, never compared as text: how long a lookup takes
        // tells nothing of the secret.
        let hash = token_hash(secret);
        match CredentialKind::of_secret(secret) {
            CredentialKind::Legacy => {
                if let Some(p) = self.cache.player(&hash) {
                    return Ok((p, Grant::legacy()));
                }
                let p = self
                    .store
                    .player_by_token_hash(&hash)
                    .await?
                    .ok_or_else(unknown)?;
                self.cache.put_player(&p);
                Ok((p, Grant::legacy()))
            }
            // Refresh tokens buy access tokens at `/oauth/token`, and nothing else.
            CredentialKind::OauthRefresh => Err(unknown()),
            _ => {
                let (c, p) = self.live_credential(&hash).await?.ok_or_else(unknown)?;
                let grant = Grant {
                    credential: Some(c.id),
                    kind: c.kind,
                    scopes: c.scopes,
                };
                Ok((p, grant))
            }
        }
    }

    /// The credential with this hash, if it is live now; its use is written down.
    pub(crate) async fn live_credential(
        &self,
        hash: &[u8],
    ) -> Result<Option<(Credential, Player)>, Refusal> {
        let Some((c, p)) = self.store.credential_by_hash(hash).await? else {
            return Ok(None);
        };
        let now = self.now();
        if !c.live_at(now) {
            return Ok(None);
        }
        if c.kind != CredentialKind::OauthRefresh
            && c.last_used_at.is_none_or(|t| now - t >= USE_RESOLUTION)
        {
            let expires_at = match c.kind {
                CredentialKind::Session => Some(now + SESSION_IDLE),
                _ => c.expires_at,
            };
            self.store.touch_credential(c.id, now, expires_at).await?;
        }
        Ok(Some((c, p)))
    }

    /// Makes a personal access token of `player` with `scopes` (no more than `grant`
    /// has), living `days` days or for ever.
    pub async fn create_personal_token(
        &self,
        player: &Player,
        grant: &Grant,
        name: &str,
        scopes: Scopes,
        days: Option<u32>,
    ) -> Result<NewToken, Refusal> {
        let name = credential_name("name", name)?;
        if scopes.is_empty() {
            return Err(Refusal::Invalid("scopes: name at least one scope".into()));
        }
        if !grant.scopes.covers(scopes) {
            return Err(Refusal::NotYours(format!(
                "a token may grant only what the credential making it grants ({})",
                grant.scopes
            )));
        }
        if let Some(d) = days {
            if d == 0 || d > MAX_TOKEN_DAYS {
                return Err(Refusal::Invalid(format!(
                    "expires_in_days must be 1 to {MAX_TOKEN_DAYS}, or absent for a token that does not expire"
                )));
            }
        }
        let held = self
            .store
            .credentials_of(player.id, CredentialKind::Personal)
            .await?;
        if held.len() >= MAX_PERSONAL_TOKENS {
            return Err(Refusal::Invalid(format!(
                "at most {MAX_PERSONAL_TOKENS} tokens per player; revoke one first"
            )));
        }
        let (secret, secret_hash) = new_secret_and_hash(CredentialKind::Personal)?;
        let now = self.now();
        let credential = Credential {
            id: Uuid::new_v4(),
            player_id: player.id,
            secret_hash,
            kind: CredentialKind::Personal,
            name,
            scopes,
            created_at: now,
            last_used_at: None,
            expires_at: days.map(|d| now + Duration::days(i64::from(d))),
            grant_id: None,
            used_at: None,
        };
        self.store.create_credential(&credential).await?;
        Ok(NewToken { credential, secret })
    }

    /// `player`'s credentials of `kind` that still work, oldest first, marking the one
    /// the request came with.
    pub async fn credentials(
        &self,
        player: &Player,
        kind: CredentialKind,
        grant: &Grant,
    ) -> Result<Vec<CredentialView>, Refusal> {
        let now = self.now();
        Ok(self
            .store
            .credentials_of(player.id, kind)
            .await?
            .iter()
            .filter(|c| c.live_at(now))
            .map(|c| CredentialView::of(c, grant.credential))
            .collect())
    }

    /// Revokes `player`'s credential `id` of `kind` at once.
    pub async fn revoke_credential(
        &self,
        player: &Player,
        kind: CredentialKind,
        id: Uuid,
    ) -> Result<(), Refusal> {
        if self.store.delete_credential(player.id, kind, id).await? {
            Ok(())
        } else {
            Err(Refusal::NotFound(format!(
                "no such {} of yours",
                match kind {
                    CredentialKind::Session => "session",
                    _ => "token",
                }
            )))
        }
    }

    /// Revokes every credential of `kind` of `player` but `keep`; how many.
    pub async fn revoke_credentials(
        &self,
        player: &Player,
        kind: CredentialKind,
        keep: Option<Uuid>,
    ) -> Result<u64, Refusal> {
        Ok(self
            .store
            .delete_credentials_of(player.id, kind, keep)
            .await?)
    }

    /// Opens a web session for `player` on `device`, ending their least recently used
    /// one past [`MAX_SESSIONS`].
    pub(crate) async fn open_session(
        &self,
        player: Player,
        device: &str,
    ) -> Result<NewSession, Refusal> {
        let device = credential_name("device", device)?;
        let mut held = self
            .store
            .credentials_of(player.id, CredentialKind::Session)
            .await?;
        if held.len() >= MAX_SESSIONS {
            held.sort_by_key(|c| c.last_used_at.unwrap_or(c.created_at));
            for old in &held[..=held.len() - MAX_SESSIONS] {
                self.store
                    .delete_credential(player.id, CredentialKind::Session, old.id)
                    .await?;
            }
        }
        let (secret, secret_hash) = new_secret_and_hash(CredentialKind::Session)?;
        let now = self.now();
        let credential = Credential {
            id: Uuid::new_v4(),
            player_id: player.id,
            secret_hash,
            kind: CredentialKind::Session,
            name: device,
            scopes: Scopes::ALL,
            created_at: now,
            last_used_at: Some(now),
            expires_at: Some(now + SESSION_IDLE),
            grant_id: None,
            used_at: None,
        };
        self.store.create_credential(&credential).await?;
        let csrf_token = csrf_token(&secret);
        Ok(NewSession {
            credential,
            player,
            secret,
            csrf_token,
        })
    }

    /// Revokes `player`'s first token, at once and for good. Only once they have another
    /// way in (a password or a passkey): the first token may be the only one.
    pub async fn revoke_first_token(&self, player: &Player) -> Result<(), Refusal> {
        let has_password = self.store.password_of(player.id).await?.is_some();
        if !has_password && self.store.passkeys_of(player.id).await?.is_empty() {
            return Err(Refusal::Conflict(
                "set a password or register a passkey first: without the first token, it is your way in"
                    .into(),
            ));
        }
        let (_, nobodys) = new_secret_and_hash(CredentialKind::Legacy)?;
        self.store.replace_first_token(player.id, &nobodys).await?;
        self.cache.forget_player(player.id);
        Ok(())
    }

    /// Deletes credentials and authorisation codes that expired before `now`.
    pub async fn sweep_credentials(&self, now: DateTime<Utc>) -> Result<u64, Refusal> {
        Ok(self.store.delete_expired_credentials(now).await?)
    }
}

fn unknown() -> Refusal {
    Refusal::UnknownToken("unknown, expired or revoked token".into())
}
