//! Players: registering (with their first token), and their webhooks.

use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::names;
use super::refusal::Refusal;
use super::text;
use super::worp::Worp;
use worp_domain::dice;
use worp_store::{Delivery, Player, Webhook};

pub use super::names::MAX_NAME;
/// The most webhooks a player may register.
pub const MAX_WEBHOOKS: usize = 10;
/// The longest webhook URL accepted, in bytes.
pub const MAX_WEBHOOK_URL: usize = 2048;

/// The SHA-256 of a bearer token, as stored.
pub fn token_hash(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

/// 32 random bytes, hex: tokens and webhook secrets.
fn random_hex() -> Result<String, Refusal> {
    dice::new_server_seed()
        .map(hex::encode)
        .map_err(|e| Refusal::Internal(format!("no randomness available: {e}")))
}

impl Worp {
    /// Registers a player; returns the player and the token (shown only now).
    pub async fn create_player(&self, name: &str) -> Result<(Player, String), Refusal> {
        let name = names::checked_name(name)?;
        if let Some((_, held)) = self.store.name_key_holder(&name.key).await? {
            return Err(Refusal::Conflict(format!(
                "the name {:?} looks the same as {held:?}, another player's; choose another",
                name.name
            )));
        }
        let token = format!("worp_{}", random_hex()?);
        let player = Player {
            id: Uuid::new_v4(),
            name: name.name,
            token_hash: token_hash(&token),
        };
        self.store
            .create_player(&player, &name.key, self.now())
            .await?;
        Ok((player, token))
    }

    /// Whether `player` hears an `invited` notice when named in a new game.
    pub async fn invitation_notices(&self, player: &Player) -> Result<bool, Refusal> {
        Ok(self.store.invitation_notices(player.id).await?)
    }

    /// Turns `player`'s `invited` notices on or off.
    pub async fn set_invitation_notices(&self, player: &Player, on: bool) -> Result<(), Refusal> {
        Ok(self.store.set_invitation_notices(player.id, on).await?)
    }

    /// Registers `url` to hear `player`'s notices; returns the webhook with its signing
    /// secret (shown only now).
    pub async fn create_webhook(&self, player: &Player, url: &str) -> Result<Webhook, Refusal> {
        let url = url.trim();
        text::check_plain("url", url)?;
        let parsed = reqwest::Url::parse(url).map_err(|e| Refusal::Invalid(format!("url: {e}")))?;
        if !matches!(parsed.scheme(), "http" | "https")
            || parsed.host_str().is_none()
            || url.len() > MAX_WEBHOOK_URL
        {
            return Err(Refusal::Invalid(
                "url must be an http or https URL with a host, at most 2,048 characters".into(),
            ));
        }
        // Not this server's own network (deliveries check the resolved addresses too).
        crate::webhooks::address::check_url(&parsed, &self.webhook_allow).map_err(|r| {
            Refusal::Invalid(format!(
                "url: {r}; webhooks are sent to public addresses only"
            ))
        })?;
        if self.store.webhooks(player.id).await?.len() >= MAX_WEBHOOKS {
            return Err(Refusal::Invalid(format!(
                "at most {MAX_WEBHOOKS} webhooks per player"
            )));
        }
        let w = Webhook {
            id: Uuid::new_v4(),
            player_id: player.id,
            url: url.to_owned(),
            secret: format!("whsec_{}", random_hex()?),
            created_at: self.now(),
        };
        self.store.create_webhook(&w).await?;
        Ok(w)
    }

    /// `player`'s webhooks, oldest first.
    pub async fn webhooks(&self, player: &Player) -> Result<Vec<Webhook>, Refusal> {
        Ok(self.store.webhooks(player.id).await?)
    }

    /// Removes one of `player`'s webhooks.
    pub async fn delete_webhook(&self, player: &Player, id: Uuid) -> Result<(), Refusal> {
        if self.store.delete_webhook(player.id, id).await? {
            Ok(())
        } else {
            Err(Refusal::NotFound("no such webhook of yours".into()))
        }
    }

    /// The newest `limit` deliveries of one of `player`'s webhooks.
    pub async fn deliveries(
        &self,
        player: &Player,
        webhook: Uuid,
        limit: i64,
        offset: i64,
    ) -> Result<Vec<Delivery>, Refusal> {
        if !self.webhooks(player).await?.iter().any(|w| w.id == webhook) {
            return Err(Refusal::NotFound("no such webhook of yours".into()));
        }
        Ok(self.store.deliveries(webhook, limit, offset).await?)
    }
}
