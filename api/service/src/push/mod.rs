//! Web Push (RFC 8030): the notices a player's browsers receive while no page of Worp is
//! open.
//!
//! - [`keys`]: the server's VAPID key pair (RFC 8292, P-256), made once on first need and
//!   kept in the store, so every process and every restart signs with the same key (a
//!   browser's subscription is bound to the public key it was made with); or taken from
//!   `WORP_VAPID_PRIVATE_KEY`.
//! - [`subscriptions`]: what a browser's `PushSubscription.toJSON()` says, checked
//!   (an `https` endpoint on a public host, a P-256 point, a 16-byte secret), kept per
//!   device, listed and removed by its player.
//! - [`send`]: one message to one subscription, encrypted as RFC 8291 (`aes128gcm`) by
//!   the `web-push` crate and sent with reqwest through the webhooks' address screening
//!   (`webhooks::address`): no redirects, only public addresses or the ranges of
//!   `WORP_WEBHOOK_ALLOW`, so an endpoint cannot make the server reach a private address.
//!
//! Which notices go to whom, and when, is the notifications' outbox's: it calls
//! [`Worp::push`](crate::Worp) for each subscription of the player.

pub mod keys;
pub mod send;
pub(crate) mod state;
pub mod subscriptions;

use serde::Serialize;

pub use send::PushFailure;
pub use subscriptions::{ExportedPushSubscription, PushSubscriptionView};

/// A push subscription as stored: its endpoint and the keys (base64url) each message is
/// encrypted to.
pub type PushSubscription = worp_store::push::StoredPushSubscription;

/// What a push notification says; the service worker (`api/web/sw.js`) shows it. Sent as
/// the JSON `{"title", "body", "url", "tag", "kind"}`, at most [`MAX_PAYLOAD`] bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PushMessage {
    /// "Your turn against Bob (Backgammon)".
    pub title: String,
    pub body: String,
    /// The page a click opens (a path of the web client, such as `/games/<id>`).
    pub url: String,
    /// Notices with the same tag replace each other, on the device and at the push
    /// service while undelivered (the `Topic` header is a hash of it).
    pub tag: String,
    /// What the notice is about (`your_turn`, `invited`, …).
    pub kind: String,
}

/// The largest payload sent, in bytes: RFC 8291 leaves 3,993 bytes of a 4,096-byte
/// record; `web-push` refuses more than 3,052.
pub const MAX_PAYLOAD: usize = 3000;

/// How a message waits at the push service for a device that is offline (`TTL`).
pub const TTL_SECS: u32 = 24 * 3600;

/// Web Push settings.
#[derive(Debug, Clone, Default)]
pub struct PushSettings {
    /// `WORP_VAPID_PRIVATE_KEY`: the VAPID private key (the P-256 scalar, base64url);
    /// unset, a key is made on first need and kept in the database.
    pub vapid_private_key: Option<String>,
    /// `WORP_VAPID_SUBJECT`: a `mailto:` or `https:` URI the push services may contact
    /// (default `mailto:noreply@<host of WORP_PUBLIC_URL>`).
    pub subject: Option<String>,
}
