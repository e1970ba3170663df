//! A player's e-mail address: given, confirmed through a single-use link that expires,
//! removed, and unsubscribed from by the one-click links of RFC 8058. Confirmation mails
//! are limited per player, per client address and per target address, so nobody can
//! make Worp mail an address they do not control more than a few times a day.

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;
use worp_store::notifications::{EmailAddress, NewAddress, Queued};

use super::preferences::KINDS;
use crate::accounts::new_prefixed_secret;
use crate::players::token_hash;
use crate::refusal::Refusal;
use crate::worp::Worp;

/// How long a confirmation link works.
pub const CONFIRMATION_LIFETIME: Duration = Duration::hours(24);
/// The most confirmation mails in a day: asked by one player, from one client address,
/// and to one target address.
pub const CONFIRMATIONS_PER_PLAYER: i64 = 5;
pub const CONFIRMATIONS_PER_CLIENT: i64 = 20;
pub const CONFIRMATIONS_PER_TARGET: i64 = 3;
/// The longest address (RFC 5321's path limit less its angle brackets).
const LONGEST_ADDRESS: usize = 254;

/// A player's e-mail address as they see it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct EmailView {
    #[schema(example = "ada@example.org")]
    pub address: String,
    /// Whether the address was confirmed: only a confirmed address gets mail.
    pub confirmed: bool,
    /// Until when the link of the last confirmation mail works (unconfirmed addresses).
    pub confirmation_expires_at: Option<DateTime<Utc>>,
    /// Set when the receiving server refused the address for good: no mail is sent to
    /// it until it is given again.
    pub disabled_at: Option<DateTime<Utc>>,
    /// What the receiving server said.
    pub disabled_reason: Option<String>,
    pub created_at: DateTime<Utc>,
}

impl From<EmailAddress> for EmailView {
    fn from(a: EmailAddress) -> EmailView {
        EmailView {
            address: a.address,
            confirmed: a.confirmed_at.is_some(),
            confirmation_expires_at: a.confirm_expires_at,
            disabled_at: a.disabled_at,
            disabled_reason: a.disabled_reason,
            created_at: a.created_at,
        }
    }
}

/// `text` as an address mail can be sent to, or why not.
fn checked_address(text: &str) -> Result<String, Refusal> {
    let text = text.trim();
    if text.len() > LONGEST_ADDRESS {
        return Err(Refusal::Invalid(format!(
            "an e-mail address has at most {LONGEST_ADDRESS} characters"
        )));
    }
    let address: lettre::Address = text
        .parse()
        .map_err(|e| Refusal::Invalid(format!("{text:?} is not an e-mail address: {e}")))?;
    if !address.domain().contains('.') && !address.domain().starts_with('[') {
        return Err(Refusal::Invalid(format!(
            "{text:?} is not an e-mail address on the Internet (its domain has no dot)"
        )));
    }
    Ok(format!(
        "{}@{}",
        address.user(),
        address.domain().to_ascii_lowercase()
    ))
}

impl Worp {
    /// `player`'s address, if they gave one.
    pub async fn email(&self, player: Uuid) -> Result<Option<EmailView>, Refusal> {
        Ok(self.store.email_address(player).await?.map(EmailView::from))
    }

    /// `player`'s address if notices may be mailed to it: confirmed and not disabled.
    pub(crate) async fn mailable_address(
        &self,
        player: Uuid,
    ) -> Result<Option<EmailAddress>, Refusal> {
        Ok(self
            .store
            .email_address(player)
            .await?
            .filter(|a| a.confirmed_at.is_some() && a.disabled_at.is_none()))
    }

    /// Sets `address` as `player`'s (unconfirmed) and mails it a confirmation link;
    /// `client` is the requester's address, for the limits. Giving the same address again
    /// sends a new link.
    pub async fn set_email(
        &self,
        player: Uuid,
        address: &str,
        client: &str,
    ) -> Result<EmailView, Refusal> {
        let address = checked_address(address)?;
        if self.notifier.mailer.is_none() {
            // Not a failure that passes (503): how this server is set up.
            return Err(Refusal::Conflict(
                "this server sends no mail (WORP_SMTP_URL is not set)".into(),
            ));
        }
        let now = self.now();
        let sent = self
            .store
            .confirmations_sent(player, client, &address, now - Duration::days(1))
            .await?;
        let limits = [
            (CONFIRMATIONS_PER_PLAYER, "for your account"),
            (CONFIRMATIONS_PER_CLIENT, "from your network address"),
            (CONFIRMATIONS_PER_TARGET, "to this address"),
        ];
        for (n, (limit, whose)) in sent.iter().zip(limits) {
            if *n >= limit {
                return Err(Refusal::TooMany(format!(
                    "{limit} confirmation mails a day {whose} at most: try again tomorrow"
                )));
            }
        }
        let (secret, hash) = new_prefixed_secret("worp_eml_")?;
        let current = self.store.email_address(player).await?;
        let expires = now + CONFIRMATION_LIFETIME;
        match current.filter(|c| c.address == address && c.confirmed_at.is_none()) {
            Some(_) => {
                self.store
                    .renew_email_confirmation(player, &hash, expires)
                    .await?;
            }
            None => {
                let (key, _) = new_prefixed_secret("")?;
                self.store
                    .set_email_address(&NewAddress {
                        player_id: player,
                        address: address.clone(),
                        confirm_hash: hash,
                        confirm_expires_at: expires,
                        unsubscribe_key: key,
                        created_at: now,
                    })
                    .await?;
            }
        }
        let item = serde_json::json!({ "address": address, "secret": secret }).to_string();
        self.store
            .queue_confirmation(
                client,
                &Queued {
                    player_id: player,
                    channel: "confirm".into(),
                    topic: address.clone(),
                    item: format!("{item}\n"),
                    due_at: now,
                    created_at: now,
                },
            )
            .await?;
        self.email(player)
            .await?
            .ok_or_else(|| Refusal::Conflict("the address was removed meanwhile".into()))
    }

    /// Confirms the address whose link carries `secret`.
    pub async fn confirm_email(&self, secret: &str) -> Result<EmailView, Refusal> {
        let confirmed = self
            .store
            .confirm_email(&token_hash(secret.trim()), self.now())
            .await?
            .ok_or_else(|| {
                Refusal::NotFound(
                    "this confirmation link is unknown, used or expired: ask for a new one".into(),
                )
            })?;
        self.notifier.forget_reachable();
        Ok(confirmed.into())
    }

    /// Removes `player`'s address and the mails waiting for it; whether there was one.
    pub async fn delete_email(&self, player: Uuid) -> Result<bool, Refusal> {
        Ok(self.store.delete_email_address(player).await?)
    }

    /// Stops e-mail of `kinds` (or of every kind, `all`) for the address whose
    /// unsubscribe links carry `key`; the kinds stopped.
    pub async fn unsubscribe(&self, key: &str, kinds: &str) -> Result<Vec<String>, Refusal> {
        let address = self
            .store
            .email_by_unsubscribe_key(key)
            .await?
            .ok_or_else(|| Refusal::NotFound("this unsubscribe link is unknown".into()))?;
        let mut preferences = self.preferences(address.player_id).await?;
        let kinds: Vec<&str> = if kinds == "all" {
            KINDS.to_vec()
        } else {
            kinds.split(',').map(str::trim).collect()
        };
        let mut stopped = Vec::new();
        for kind in kinds {
            if !preferences.unsubscribe(kind) {
                return Err(Refusal::Invalid(format!(
                    "{kind:?} is not a kind of notice"
                )));
            }
            stopped.push(kind.to_owned());
        }
        self.set_preferences(address.player_id, &preferences)
            .await?;
        Ok(stopped)
    }
}

#[cfg(test)]
mod tests {
    use super::checked_address;

    #[test]
    fn addresses_are_checked_and_their_domain_lowercased() {
        assert_eq!(
            checked_address(" Ada@Example.ORG ").ok().as_deref(),
            Some("Ada@example.org")
        );
        for bad in [
            "",
            "ada",
            "ada@",
            "@example.org",
            "ada@localhost",
            "a b@example.org",
        ] {
            assert!(checked_address(bad).is_err(), "{bad:?}");
        }
        assert!(checked_address(&format!("{}@example.org", "a".repeat(250))).is_err());
    }
}
