//! The delivery worker: sends due deliveries from the outbox, records each attempt, and
//! retries failures with exponential backoff.

use std::sync::Arc;
use std::time::Duration;

use super::signing::signature;
use crate::clock::Clock;
use crate::store::{Attempt, Delivery, Store};

/// How many attempts before a delivery is given up.
pub const MAX_ATTEMPTS: i32 = 8;

/// Delivery settings.
#[derive(Debug, Clone)]
pub struct WebhookSettings {
    /// The wait before the first retry; it doubles with each attempt (at most an hour).
    pub base_backoff: Duration,
    /// How often the outbox is polled.
    pub poll: Duration,
    /// The time a receiver has to answer.
    pub timeout: Duration,
}

impl Default for WebhookSettings {
    fn default() -> Self {
        WebhookSettings {
            base_backoff: Duration::from_secs(10),
            poll: Duration::from_secs(1),
            timeout: Duration::from_secs(10),
        }
    }
}

/// Sends every due delivery once; returns how many were attempted.
pub async fn deliver_due(
    store: &Store,
    clock: &dyn Clock,
    client: &reqwest::Client,
    settings: &WebhookSettings,
) -> usize {
    let now = clock.now();
    let lease = now + chrono::Duration::from_std(settings.timeout * 3).unwrap_or_default();
    let due = match store.claim_due_deliveries(now, lease, 50).await {
        Ok(d) => d,
        Err(e) => {
            tracing::warn!("cannot read the webhook outbox: {e}");
            return 0;
        }
    };
    let n = due.len();
    for (d, url, secret) in due {
        attempt(store, clock, client, settings, d, &url, &secret).await;
    }
    n
}

async fn attempt(
    store: &Store,
    clock: &dyn Clock,
    client: &reqwest::Client,
    settings: &WebhookSettings,
    d: Delivery,
    url: &str,
    secret: &str,
) {
    let body = serde_json::to_vec(&d.payload).unwrap_or_default();
    let ts = clock.now().timestamp();
    let result = client
        .post(url)
        .timeout(settings.timeout)
        .header("content-type", "application/json")
        .header("user-agent", "worp-webhooks/1")
        .header("worp-event", &d.kind)
        .header("worp-delivery", d.id.to_string())
        .header("worp-timestamp", ts.to_string())
        .header("worp-signature", signature(secret, ts, &body))
        .body(body)
        .send()
        .await;
    let attempts = d.attempts + 1;
    let now = clock.now();
    let (status, code, error) = match result {
        Ok(resp) if resp.status().is_success() => {
            ("delivered", Some(i32::from(resp.status().as_u16())), None)
        }
        Ok(resp) => (
            "pending",
            Some(i32::from(resp.status().as_u16())),
            Some(format!("the receiver answered {}", resp.status())),
        ),
        Err(e) => ("pending", None, Some(format!("the request failed: {e}"))),
    };
    let status = if status == "pending" && attempts >= MAX_ATTEMPTS {
        "failed"
    } else {
        status
    };
    let backoff = settings
        .base_backoff
        .saturating_mul(1u32 << (attempts - 1).clamp(0, 20) as u32)
        .min(Duration::from_secs(3600));
    let next = now + chrono::Duration::from_std(backoff).unwrap_or_default();
    let delivered_at = (status == "delivered").then_some(now);
    let outcome = Attempt {
        id: d.id,
        status,
        attempts,
        next_attempt_at: next,
        last_status: code,
        last_error: error.as_deref(),
        delivered_at,
    };
    if let Err(e) = store.record_attempt(&outcome).await {
        tracing::warn!("cannot record a webhook attempt: {e}");
    }
}

/// Runs deliveries until the process ends.
pub async fn run(store: Store, clock: Arc<dyn Clock>, settings: WebhookSettings) {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap_or_default();
    let written = store.outbox_written();
    loop {
        deliver_due(&store, clock.as_ref(), &client, &settings).await;
        // Wake when this process wrote deliveries (one may be due now), or after the poll
        // interval (retries, deliveries written by other processes). Waking on every
        // change instead cost a query per move.
        let _ = tokio::time::timeout(settings.poll, written.notified()).await;
    }
}
