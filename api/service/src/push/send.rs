//! Sending one message to one subscription: the JSON of a [`PushMessage`], encrypted as
//! RFC 8291 (`aes128gcm`) to the subscription's keys and signed with VAPID (RFC 8292) by
//! the `web-push` crate, then POSTed by reqwest through the webhooks' screening.
//!
//! The push service's answer decides what follows: 2xx, sent; 404 or 410, the
//! subscription is gone (it is deleted here); 429, 5xx or no answer, try again later;
//! any other 4xx, the message will never be taken.

use std::time::Duration;

use sha2::{Digest, Sha256};
use uuid::Uuid;
use web_push::{
    request_builder, ContentEncoding, SubscriptionInfo, Urgency, WebPushMessageBuilder,
};

use super::state::base64url;
use super::subscriptions::origin_of;
use super::{PushMessage, PushSubscription, MAX_PAYLOAD, TTL_SECS};
use crate::refusal::Refusal;
use crate::webhooks::address::{check, literal};
use crate::webhooks::delivery::{client, refusal, WebhookSettings};
use crate::worp::Worp;

/// How long a push service has to answer.
pub const PUSH_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a VAPID signature is good for (RFC 8292 allows at most 24 hours).
pub const VAPID_LIFETIME: chrono::Duration = chrono::Duration::hours(12);

/// Why a message was not sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PushFailure {
    /// The push service no longer knows the subscription (404 or 410): it was deleted.
    #[error("the subscription is gone")]
    Gone,
    /// Try again later: the push service is busy or failing (429, 5xx), or did not answer.
    #[error("{0}")]
    Transient(String),
    /// The message will never be taken as it is (another 4xx, a refused address, a
    /// payload too large).
    #[error("{0}")]
    Permanent(String),
}

/// The `Topic` of notices tagged `tag`: at most 32 base64url characters, so a hash.
fn topic(tag: &str) -> String {
    base64url(&Sha256::digest(tag.as_bytes())[..24])
}

impl Worp {
    /// `player`'s push subscriptions, oldest first.
    pub(crate) async fn push_subscriptions_of(
        &self,
        player: Uuid,
    ) -> Result<Vec<PushSubscription>, Refusal> {
        Ok(self.store.push_subscriptions_of(player).await?)
    }

    fn push_client(&self) -> Result<&reqwest::Client, PushFailure> {
        if let Some(c) = self.push.client.get() {
            return Ok(c);
        }
        let settings = WebhookSettings {
            allow: self.webhook_allow.clone(),
            ..WebhookSettings::default()
        };
        let made = client(&settings)
            .map_err(|e| PushFailure::Transient(format!("no HTTP client: {e}")))?;
        Ok(self.push.client.get_or_init(|| made))
    }

    /// The request that carries `message` to `subscription`: encrypted, signed.
    async fn push_request(
        &self,
        subscription: &PushSubscription,
        message: &PushMessage,
    ) -> Result<reqwest::RequestBuilder, PushFailure> {
        let permanent =
            |what: &str, e: &dyn std::fmt::Display| PushFailure::Permanent(format!("{what}: {e}"));
        let payload =
            serde_json::to_vec(message).map_err(|e| permanent("the message's JSON", &e))?;
        if payload.len() > MAX_PAYLOAD {
            return Err(PushFailure::Permanent(format!(
                "the message is {} bytes, more than {MAX_PAYLOAD}",
                payload.len()
            )));
        }
        let key = self
            .vapid()
            .await
            .map_err(|e| PushFailure::Transient(format!("the VAPID key: {e}")))?;
        let info = SubscriptionInfo::new(
            subscription.endpoint.as_str(),
            subscription.p256dh.as_str(),
            subscription.auth.as_str(),
        );
        let mut signature = key.signer.clone().add_sub_info(&info);
        signature.add_claim("aud", origin_of(&subscription.endpoint));
        signature.add_claim("sub", self.push.subject.as_str());
        signature.add_claim("exp", (self.now() + VAPID_LIFETIME).timestamp());
        let signature = signature
            .build()
            .map_err(|e| permanent("the VAPID signature", &e))?;
        let mut builder = WebPushMessageBuilder::new(&info);
        builder.set_payload(ContentEncoding::Aes128Gcm, &payload);
        builder.set_ttl(TTL_SECS);
        builder.set_urgency(Urgency::Normal);
        builder.set_topic(topic(&message.tag));
        builder.set_vapid_signature(signature);
        let built = builder
            .build()
            .map_err(|e| permanent("the encrypted message", &e))?;
        let request = request_builder::build_request::<Vec<u8>>(built);
        let mut out = self
            .push_client()?
            .post(&subscription.endpoint)
            .timeout(PUSH_TIMEOUT)
            .header("user-agent", "worp-push/1");
        for (name, value) in request.headers() {
            // reqwest writes the length of the body it sends.
            if name.as_str() != "content-length" {
                out = out.header(name.as_str(), value.as_bytes());
            }
        }
        Ok(out.body(request.into_body()))
    }

    /// Encrypts (`aes128gcm`) and sends `message` as JSON to one subscription, signed
    /// with VAPID; `TTL` 24 hours, `Urgency: normal`, `Topic` a hash of the tag. A 404
    /// or 410 deletes the subscription and is [`PushFailure::Gone`]; 429, 5xx and no
    /// answer are [`PushFailure::Transient`]; any other 4xx [`PushFailure::Permanent`].
    pub(crate) async fn push(
        &self,
        subscription: &PushSubscription,
        message: &PushMessage,
    ) -> Result<(), PushFailure> {
        // An address written into the endpoint is never resolved: checked here (the
        // allowed ranges may have changed since it was subscribed).
        let written = url::Url::parse(&subscription.endpoint)
            .map_err(|e| PushFailure::Permanent(format!("endpoint: {e}")))?;
        if let Some(ip) = literal(&written) {
            check(ip, &self.webhook_allow)
                .map_err(|r| PushFailure::Permanent(format!("refused: {r}")))?;
        }
        let request = self.push_request(subscription, message).await?;
        let answer = match request.send().await {
            Ok(answer) => answer,
            Err(e) => {
                return Err(match refusal(&e) {
                    Some(r) => PushFailure::Permanent(format!("refused: {r}")),
                    None => PushFailure::Transient(format!("the push service: {e}")),
                })
            }
        };
        let status = answer.status().as_u16();
        let said = || format!("the push service answered {}", answer.status());
        match status {
            200..=299 => {
                if let Err(e) = self
                    .store
                    .use_push_subscription(subscription.id, self.now())
                    .await
                {
                    tracing::warn!("a push subscription's last use was not noted: {e}");
                }
                Ok(())
            }
            404 | 410 => {
                self.store
                    .delete_push_subscription(subscription.player_id, subscription.id)
                    .await
                    .map_err(|e| PushFailure::Transient(format!("{}, and {e}", said())))?;
                Err(PushFailure::Gone)
            }
            429 | 500..=599 => Err(PushFailure::Transient(said())),
            _ => Err(PushFailure::Permanent(said())),
        }
    }

    /// Sends `message` to every device of `player`; each one's outcome, in the order of
    /// [`Worp::push_subscriptions`]. For the tests of the sender alone (the outbox calls
    /// [`Worp::push`] itself, `notifications/pushes.rs`).
    #[doc(hidden)]
    pub async fn push_to_devices_of(
        &self,
        player: Uuid,
        message: &PushMessage,
    ) -> Result<Vec<Result<(), PushFailure>>, Refusal> {
        let mut outcomes = Vec::new();
        for s in self.push_subscriptions_of(player).await? {
            outcomes.push(self.push(&s, message).await);
        }
        Ok(outcomes)
    }
}

#[cfg(test)]
mod tests {
    use super::topic;

    #[test]
    fn a_topic_is_at_most_32_base64url_characters_and_one_per_tag() {
        let t = topic(&"game:".repeat(100));
        assert_eq!(t.len(), 32);
        assert!(t
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'));
        assert_eq!(topic("game:1"), topic("game:1"));
        assert_ne!(topic("game:1"), topic("game:2"));
    }
}
