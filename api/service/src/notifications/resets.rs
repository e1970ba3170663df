//! Forgotten passwords: a link by mail to the player's confirmed address, single-use,
//! valid an hour, at most three a day. Asking never says whether the name exists or has
//! an address, so it tells a stranger nothing; the mail says who asked for it (a name,
//! no address) and that ignoring it changes nothing.

use chrono::Duration;
use worp_domain::access::CredentialKind;
use worp_store::notifications::Queued;

use crate::accounts::new_prefixed_secret;
use crate::accounts::passwords::{checked_password, hash_password};
use crate::names;
use crate::players::token_hash;
use crate::refusal::Refusal;
use crate::worp::Worp;

/// How long a reset link works.
pub const RESET_LIFETIME: Duration = Duration::hours(1);
/// The most reset mails a player gets in a day.
pub const RESETS_PER_DAY: i64 = 3;

impl Worp {
    /// Mails a password reset link to the player called `name` (or with that id), if
    /// they have a confirmed address. Answers the same either way.
    pub async fn request_password_reset(&self, name: &str) -> Result<(), Refusal> {
        let id = match uuid::Uuid::parse_str(name.trim()) {
            Ok(id) => Some(id),
            Err(_) => self
                .store
                .name_key_holder(&names::name_key(name))
                .await?
                .map(|(id, _)| id),
        };
        let Some(id) = id else {
            return Ok(());
        };
        let mailable = self.mailable_address(id).await?.is_some();
        if !mailable || self.notifier.mailer.is_none() {
            return Ok(());
        }
        let (secret, hash) = new_prefixed_secret("worp_rst_")?;
        let now = self.now();
        let item = serde_json::json!({ "secret": secret }).to_string();
        self.store
            .queue_password_reset(
                &hash,
                now + RESET_LIFETIME,
                now - Duration::days(1),
                RESETS_PER_DAY,
                &Queued {
                    player_id: id,
                    channel: "reset".into(),
                    topic: hex::encode(&hash[..8]),
                    item: format!("{item}\n"),
                    due_at: now,
                    created_at: now,
                },
            )
            .await?;
        Ok(())
    }

    /// Sets a new password with the secret of a reset link, and signs every session out.
    pub async fn complete_password_reset(
        &self,
        secret: &str,
        password: &str,
    ) -> Result<(), Refusal> {
        let hash = token_hash(secret.trim());
        let unknown = || {
            Refusal::NotFound(
                "this reset link is unknown, used or expired: ask for a new one".into(),
            )
        };
        // The password is judged before the link is used up, so a weak one costs nothing.
        let player = self
            .store
            .password_reset_holder(&hash, self.now())
            .await?
            .ok_or_else(unknown)?;
        let name = self
            .store
            .player(player)
            .await?
            .map(|p| p.name)
            .unwrap_or_default();
        let password = checked_password(password, &[&name])?;
        let phc = hash_password(password).await?;
        if self.store.use_password_reset(&hash, self.now()).await? != Some(player) {
            return Err(unknown());
        }
        self.store.set_password(player, &phc, self.now()).await?;
        self.store
            .delete_credentials_of(player, CredentialKind::Session, None)
            .await?;
        self.store
            .clear_sign_in_failures(&format!("name:{}", names::name_key(&name)))
            .await?;
        self.store
            .clear_sign_in_failures(&format!("id:{player}"))
            .await?;
        Ok(())
    }
}
