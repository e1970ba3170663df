//! Push subscriptions: what a browser's `PushSubscription.toJSON()` says, checked and
//! kept per device.
//!
//! An endpoint must be `https` on a host that may be reached (a public address, or one
//! in `WORP_WEBHOOK_ALLOW`; names are checked again when a message is sent), or plain
//! `http` only to an address in those allowed ranges (a test's push service on
//! loopback). The keys must be what RFC 8291 needs: `p256dh` an uncompressed P-256
//! point, `auth` a 16-byte secret. The same endpoint sent again updates its row rather
//! than adding one (a browser has one subscription per site; another player signing in
//! on it takes it over).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use base64::Engine;
use chrono::{DateTime, Utc};
use jwt_simple::prelude::ES256PublicKey;
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;
use worp_store::Player;

use super::PushSubscription;
use crate::accounts::tokens::credential_name;
use crate::refusal::Refusal;
use crate::webhooks::address::{check, check_url, literal};
use crate::worp::Worp;

/// The most push subscriptions (devices) a player may hold.
pub const MAX_SUBSCRIPTIONS: usize = 10;
/// The longest endpoint URL accepted.
pub const MAX_ENDPOINT: usize = 2048;

/// Why a subscription was not kept.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SubscribeError {
    /// The subscription itself cannot be used (the endpoint, a key, or one too many).
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Refused(#[from] Refusal),
}

/// A push subscription as its player sees it listed: the device and where its push
/// service is, never its keys.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PushSubscriptionView {
    pub id: Uuid,
    /// What the device is called (default: from the browser).
    pub device: String,
    /// The push service's origin (`https://fcm.googleapis.com`), not the whole endpoint,
    /// which is a capability.
    pub endpoint_origin: String,
    pub created_at: DateTime<Utc>,
    /// When a message to it was last accepted by its push service.
    pub last_used_at: Option<DateTime<Utc>>,
}

/// A push subscription as exported: never its endpoint or keys.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ExportedPushSubscription {
    pub device: String,
    pub endpoint_origin: String,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
}

/// The origin of `endpoint` (`scheme://host[:port]`): VAPID's audience too.
pub(crate) fn origin_of(endpoint: &str) -> String {
    url::Url::parse(endpoint)
        .map(|u| u.origin().ascii_serialization())
        .unwrap_or_default()
}

fn view(s: &PushSubscription) -> PushSubscriptionView {
    PushSubscriptionView {
        id: s.id,
        device: s.device.clone(),
        endpoint_origin: origin_of(&s.endpoint),
        created_at: s.created_at,
        last_used_at: s.last_used_at,
    }
}

/// Whether every address `url`'s host stands for lies in one of the `allow` ranges: an
/// address written as one, or the loopback addresses for `localhost`.
fn only_allowed(url: &url::Url, allow: &[ipnet::IpNet]) -> bool {
    let in_range = |ip: IpAddr| allow.iter().any(|n| n.contains(&ip.to_canonical()));
    match literal(url) {
        Some(ip) => in_range(ip),
        None => {
            let host = url.host_str().unwrap_or_default().trim_end_matches('.');
            (host.eq_ignore_ascii_case("localhost") || host.ends_with(".localhost"))
                && [Ipv4Addr::LOCALHOST.into(), Ipv6Addr::LOCALHOST.into()]
                    .into_iter()
                    .any(in_range)
        }
    }
}

/// Checks an endpoint: `https` on a host that may be reached, or `http` to an allowed
/// range; the URL as parsed.
pub(crate) fn check_endpoint(
    endpoint: &str,
    allow: &[ipnet::IpNet],
) -> Result<url::Url, SubscribeError> {
    let invalid = |m: String| SubscribeError::Invalid(format!("endpoint: {m}"));
    if endpoint.len() > MAX_ENDPOINT {
        return Err(invalid(format!("at most {MAX_ENDPOINT} bytes")));
    }
    let url = url::Url::parse(endpoint).map_err(|e| invalid(format!("not a URL ({e})")))?;
    if !url.username().is_empty() || url.password().is_some() || url.fragment().is_some() {
        return Err(invalid("no user, password or fragment may be given".into()));
    }
    match url.scheme() {
        "https" => {}
        "http" if only_allowed(&url, allow) => {}
        "http" => {
            return Err(invalid(
                "must be https (http only to the ranges of WORP_WEBHOOK_ALLOW)".into(),
            ))
        }
        other => return Err(invalid(format!("must be https, not {other}"))),
    }
    if url.host_str().unwrap_or_default().is_empty() {
        return Err(invalid("names no host".into()));
    }
    check_url(&url, allow).map_err(|e| invalid(format!("{e}: push services are public")))?;
    if let Some(ip) = literal(&url) {
        check(ip, allow).map_err(|e| invalid(e.to_string()))?;
    }
    Ok(url)
}

fn decode(what: &str, text: &str) -> Result<Vec<u8>, SubscribeError> {
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(text.trim_end_matches('='))
        .map_err(|_| SubscribeError::Invalid(format!("keys.{what}: not base64url")))
}

/// Checks the keys: `p256dh` an uncompressed point of P-256 (65 bytes), `auth` 16 bytes.
pub(crate) fn check_keys(p256dh: &str, auth: &str) -> Result<(), SubscribeError> {
    let point = decode("p256dh", p256dh)?;
    if point.len() != 65 || point[0] != 4 || ES256PublicKey::from_bytes(&point).is_err() {
        return Err(SubscribeError::Invalid(
            "keys.p256dh: not an uncompressed P-256 point (65 bytes, base64url)".into(),
        ));
    }
    if decode("auth", auth)?.len() != 16 {
        return Err(SubscribeError::Invalid(
            "keys.auth: not a 16-byte secret (base64url)".into(),
        ));
    }
    Ok(())
}

impl Worp {
    /// Keeps the push subscription of `player`'s device `device`, and whether it is new:
    /// the same endpoint again updates its row (and takes it from another player who
    /// held it).
    pub async fn subscribe_push(
        &self,
        player: &Player,
        endpoint: &str,
        p256dh: &str,
        auth: &str,
        device: &str,
    ) -> Result<(PushSubscriptionView, bool), SubscribeError> {
        check_endpoint(endpoint, &self.webhook_allow)?;
        check_keys(p256dh, auth)?;
        let device = credential_name("device", device)
            .map_err(|e| SubscribeError::Invalid(e.to_string()))?;
        let held = self
            .store
            .push_subscriptions_of(player.id)
            .await
            .map_err(Refusal::from)?;
        if held.len() >= MAX_SUBSCRIPTIONS && !held.iter().any(|s| s.endpoint == endpoint) {
            return Err(SubscribeError::Invalid(format!(
                "at most {MAX_SUBSCRIPTIONS} devices per player; remove one first"
            )));
        }
        let id = Uuid::new_v4();
        let saved = self
            .store
            .save_push_subscription(&PushSubscription {
                id,
                player_id: player.id,
                endpoint: endpoint.to_owned(),
                p256dh: p256dh.trim_end_matches('=').to_owned(),
                auth: auth.trim_end_matches('=').to_owned(),
                device,
                created_at: self.now(),
                last_used_at: None,
            })
            .await
            .map_err(Refusal::from)?;
        // The notifier reads who can be reached again, this player among them.
        self.notifier.forget_reachable();
        Ok((view(&saved), saved.id == id))
    }

    /// `player`'s push subscriptions, oldest first.
    pub async fn push_subscriptions(
        &self,
        player: &Player,
    ) -> Result<Vec<PushSubscriptionView>, Refusal> {
        Ok(self
            .push_subscriptions_of(player.id)
            .await?
            .iter()
            .map(view)
            .collect())
    }

    /// `player`'s push subscriptions as exported.
    pub async fn exported_push_subscriptions(
        &self,
        player: &Player,
    ) -> Result<Vec<ExportedPushSubscription>, Refusal> {
        Ok(self
            .push_subscriptions(player)
            .await?
            .into_iter()
            .map(|v| ExportedPushSubscription {
                device: v.device,
                endpoint_origin: v.endpoint_origin,
                created_at: v.created_at,
                last_used_at: v.last_used_at,
            })
            .collect())
    }

    /// Removes `player`'s push subscription `id`: that device hears nothing more.
    pub async fn unsubscribe_push(&self, player: &Player, id: Uuid) -> Result<(), Refusal> {
        if self.store.delete_push_subscription(player.id, id).await? {
            Ok(())
        } else {
            Err(Refusal::NotFound(
                "no such push subscription of yours".into(),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 8291's example subscription keys (section 5).
    const P256DH: &str =
        "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4";
    const AUTH: &str = "BTBZMqHH6r4Tts7J_aSIgg";

    fn loopback() -> Vec<ipnet::IpNet> {
        vec!["127.0.0.0/8".parse().expect("range")]
    }

    #[test]
    fn endpoints_are_https_on_public_hosts_or_http_to_allowed_ranges() {
        for ok in [
            "https://fcm.googleapis.com/fcm/send/abc",
            "https://updates.push.services.mozilla.com/wpush/v2/x",
            "http://127.0.0.1:8080/push/x",
            "http://localhost:8080/push/x",
            "https://127.0.0.1/push/x",
        ] {
            assert!(check_endpoint(ok, &loopback()).is_ok(), "{ok}");
        }
        for refused in [
            "http://push.example/x",
            "http://10.0.0.1/x",
            "https://10.0.0.1/x",
            "https://[::1]/x",
            "https://user@push.example/x",
            "https://push.example/x#f",
            "wss://push.example/x",
            "push.example/x",
        ] {
            assert!(check_endpoint(refused, &loopback()).is_err(), "{refused}");
        }
        assert!(check_endpoint("http://127.0.0.1/x", &[]).is_err());
        let long = format!("https://push.example/{}", "a".repeat(MAX_ENDPOINT));
        assert!(check_endpoint(&long, &[]).is_err());
    }

    #[test]
    fn keys_are_a_point_of_p256_and_a_16_byte_secret() {
        assert_eq!(check_keys(P256DH, AUTH), Ok(()));
        assert_eq!(
            check_keys(&format!("{P256DH}="), &format!("{AUTH}==")),
            Ok(())
        );
        // The point with its last coordinate byte changed is off the curve.
        let off = format!("{}A", &P256DH[..P256DH.len() - 1]);
        assert!(check_keys(&off, AUTH).is_err());
        assert!(check_keys(&P256DH[..44], AUTH).is_err());
        assert!(check_keys(P256DH, "AAAA").is_err());
        assert!(check_keys("!", AUTH).is_err());
    }

    #[test]
    fn the_origin_keeps_a_port_other_than_the_default() {
        assert_eq!(
            origin_of("http://127.0.0.1:8080/push/x"),
            "http://127.0.0.1:8080"
        );
        assert_eq!(
            origin_of("https://push.example:443/x"),
            "https://push.example"
        );
    }
}
