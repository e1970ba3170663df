//! Passkeys (WebAuthn), through `webauthn-rs`: a signed-in player registers one; anyone
//! signs in with one, without typing a name (the authenticator offers the passkeys it
//! holds for this site, and says whose each is: the player's id is its user handle).
//!
//! Each ceremony is two requests: the options (a challenge), then the authenticator's
//! answer. Between them the ceremony's state is kept in the store for five minutes and
//! taken once, so a replayed answer finds nothing. The relying party is the server's
//! public URL (`WORP_PUBLIC_URL`): its host is the RP ID, any port of it is accepted.

use std::sync::Arc;

use chrono::Duration;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;
use webauthn_rs::prelude::{
    DiscoverableAuthentication, DiscoverableKey, Passkey, PasskeyRegistration, PublicKeyCredential,
    RegisterPublicKeyCredential, Url, Webauthn, WebauthnBuilder,
};
use worp_store::passkeys::StoredPasskey;
use worp_store::Player;

use super::tokens::{credential_name, NewSession};
use crate::refusal::Refusal;
use crate::worp::Worp;

/// How long a ceremony's options stay good.
pub const CEREMONY_LIFETIME: Duration = Duration::minutes(5);
/// The most passkeys a player may hold.
pub const MAX_PASSKEYS: usize = 20;

/// The relying party of the server at `public_url`.
pub fn relying_party(public_url: &Url) -> Result<Webauthn, String> {
    let host = public_url
        .host_str()
        .ok_or_else(|| format!("{public_url} names no host"))?;
    WebauthnBuilder::new(host, public_url)
        .and_then(|b| b.rp_name("Worp").allow_any_port(true).build())
        .map_err(|e| format!("{public_url} cannot be a WebAuthn relying party: {e}"))
}

/// The options of a ceremony, for `navigator.credentials`, and the ceremony's id.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CeremonyOptions {
    /// Send back with the authenticator's answer.
    pub ceremony: Uuid,
    /// `{"publicKey": …}`: `PublicKeyCredentialCreationOptions` or
    /// `PublicKeyCredentialRequestOptions` as JSON (binary fields base64url).
    #[schema(value_type = Object)]
    pub options: Value,
}

/// A passkey as its owner sees it listed.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PasskeyView {
    /// The credential id, base64url.
    pub id: String,
    pub name: String,
    pub created_at: chrono::DateTime<chrono::Utc>,
    pub last_used_at: Option<chrono::DateTime<chrono::Utc>>,
}

fn view(p: &StoredPasskey) -> PasskeyView {
    PasskeyView {
        id: base64url(&p.credential_id),
        name: p.name.clone(),
        created_at: p.created_at,
        last_used_at: p.last_used_at,
    }
}

fn base64url(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

fn internal(what: &str, e: impl std::fmt::Display) -> Refusal {
    tracing::error!("{what}: {e}");
    Refusal::Internal(format!("{what}: {e}"))
}

impl Worp {
    /// With passkeys, for the site at `public_url` (its host is the relying party's id).
    pub fn with_public_url(mut self, public_url: &str) -> Result<Worp, String> {
        let url = url::Url::parse(public_url).map_err(|e| format!("{public_url:?}: {e}"))?;
        self.webauthn = Some(Arc::new(relying_party(&url)?));
        Ok(self)
    }

    fn relying(&self) -> Result<&Webauthn, Refusal> {
        self.webauthn.as_deref().ok_or_else(|| {
            Refusal::Invalid("passkeys are not set up on this server (WORP_PUBLIC_URL)".into())
        })
    }

    /// Keeps a ceremony's state; its id.
    async fn keep_ceremony(
        &self,
        player: Option<Uuid>,
        kind: &str,
        state: &impl Serialize,
    ) -> Result<Uuid, Refusal> {
        let id = Uuid::new_v4();
        let state = serde_json::to_string(state).map_err(|e| internal("a ceremony's state", e))?;
        self.store
            .create_ceremony(id, player, kind, &state, self.now() + CEREMONY_LIFETIME)
            .await?;
        Ok(id)
    }

    /// Takes a ceremony's state, once, if it has not expired.
    async fn take_ceremony<T: serde::de::DeserializeOwned>(
        &self,
        id: Uuid,
        player: Option<Uuid>,
        kind: &str,
    ) -> Result<T, Refusal> {
        let gone =
            || Refusal::Invalid("ceremony: unknown, used or expired; ask for new options".into());
        let (state, expires_at) = self
            .store
            .take_ceremony(id, player, kind)
            .await?
            .ok_or_else(gone)?;
        if self.now() >= expires_at {
            return Err(gone());
        }
        serde_json::from_str(&state).map_err(|e| internal("a stored ceremony", e))
    }

    /// The options to register a passkey for `player`.
    pub async fn passkey_registration(&self, player: &Player) -> Result<CeremonyOptions, Refusal> {
        let held = self.store.passkeys_of(player.id).await?;
        if held.len() >= MAX_PASSKEYS {
            return Err(Refusal::Invalid(format!(
                "at most {MAX_PASSKEYS} passkeys per player; remove one first"
            )));
        }
        let exclude = held
            .iter()
            .map(|p| p.credential_id.clone().into())
            .collect();
        let (options, state) = self
            .relying()?
            .start_passkey_registration(player.id, &player.name, &player.name, Some(exclude))
            .map_err(|e| internal("passkey options", e))?;
        let mut options =
            serde_json::to_value(options).map_err(|e| internal("passkey options", e))?;
        // Discoverable where the authenticator can: signing in then needs no name.
        if let Some(sel) = options.pointer_mut("/publicKey/authenticatorSelection") {
            sel["residentKey"] = Value::String("preferred".into());
        }
        let ceremony = self
            .keep_ceremony(Some(player.id), "register", &state)
            .await?;
        Ok(CeremonyOptions { ceremony, options })
    }

    /// Registers the passkey an authenticator made for ceremony `ceremony`.
    pub async fn register_passkey(
        &self,
        player: &Player,
        ceremony: Uuid,
        credential: Value,
        name: &str,
    ) -> Result<PasskeyView, Refusal> {
        let name = credential_name("name", name)?;
        let state: PasskeyRegistration = self
            .take_ceremony(ceremony, Some(player.id), "register")
            .await?;
        let answer: RegisterPublicKeyCredential = serde_json::from_value(credential)
            .map_err(|e| Refusal::Invalid(format!("credential: {e}")))?;
        let passkey = self
            .relying()?
            .finish_passkey_registration(&answer, &state)
            .map_err(|e| Refusal::Invalid(format!("the passkey could not be verified: {e}")))?;
        let stored = StoredPasskey {
            credential_id: passkey.cred_id().to_vec(),
            player_id: player.id,
            name,
            passkey: serde_json::to_string(&passkey).map_err(|e| internal("a passkey", e))?,
            created_at: self.now(),
            last_used_at: None,
        };
        self.store.create_passkey(&stored).await?;
        Ok(view(&stored))
    }

    /// `player`'s passkeys, oldest first.
    pub async fn passkeys(&self, player: &Player) -> Result<Vec<PasskeyView>, Refusal> {
        Ok(self
            .store
            .passkeys_of(player.id)
            .await?
            .iter()
            .map(view)
            .collect())
    }

    /// Removes `player`'s passkey `id` (base64url); not their last way in (the only
    /// passkey of a player without a password or recovery codes).
    pub async fn remove_passkey(&self, player: &Player, id: &str) -> Result<(), Refusal> {
        use base64::Engine;
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(id)
            .map_err(|_| Refusal::NotFound("no such passkey of yours".into()))?;
        let held = self.store.passkeys_of(player.id).await?;
        let last = held.len() == 1 && held[0].credential_id == bytes;
        if last
            && self.store.password_of(player.id).await?.is_none()
            && self.store.recovery_codes_left(player.id).await? == 0
        {
            return Err(Refusal::Conflict(
                "this is your only passkey and you have no password: set a password first, or you could not sign in again"
                    .into(),
            ));
        }
        if self.store.delete_passkey(player.id, &bytes).await? {
            Ok(())
        } else {
            Err(Refusal::NotFound("no such passkey of yours".into()))
        }
    }

    /// The options to sign in with a passkey.
    pub async fn passkey_sign_in(&self) -> Result<CeremonyOptions, Refusal> {
        let (options, state) = self
            .relying()?
            .start_discoverable_authentication()
            .map_err(|e| internal("passkey options", e))?;
        let options = serde_json::to_value(options).map_err(|e| internal("passkey options", e))?;
        let ceremony = self.keep_ceremony(None, "sign_in", &state).await?;
        Ok(CeremonyOptions { ceremony, options })
    }

    /// Signs in with the authenticator's answer to ceremony `ceremony`, opening a web
    /// session on `device`.
    pub async fn sign_in_with_passkey(
        &self,
        ceremony: Uuid,
        credential: Value,
        device: &str,
    ) -> Result<NewSession, Refusal> {
        let state: DiscoverableAuthentication =
            self.take_ceremony(ceremony, None, "sign_in").await?;
        let answer: PublicKeyCredential = serde_json::from_value(credential)
            .map_err(|e| Refusal::Invalid(format!("credential: {e}")))?;
        let refused = || Refusal::UnknownToken("the passkey was not accepted".into());
        let webauthn = self.relying()?;
        let (player_id, credential_id) = webauthn
            .identify_discoverable_authentication(&answer)
            .map_err(|_| refused())?;
        let stored = self
            .store
            .passkey(credential_id)
            .await?
            .filter(|p| p.player_id == player_id)
            .ok_or_else(refused)?;
        let mut passkey: Passkey =
            serde_json::from_str(&stored.passkey).map_err(|e| internal("a stored passkey", e))?;
        let result = webauthn
            .finish_discoverable_authentication(&answer, state, &[DiscoverableKey::from(&passkey)])
            .map_err(|_| refused())?;
        passkey.update_credential(&result);
        let json = serde_json::to_string(&passkey).map_err(|e| internal("a passkey", e))?;
        self.store
            .use_passkey(&stored.credential_id, &json, self.now())
            .await?;
        let player = self.store.player(player_id).await?.ok_or_else(refused)?;
        self.open_session(player, device).await
    }

    /// Deletes the ceremonies whose time is up.
    pub(crate) async fn sweep_ceremonies(&self) -> Result<u64, Refusal> {
        Ok(self.store.delete_expired_ceremonies(self.now()).await?)
    }
}
