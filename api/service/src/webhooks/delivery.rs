//! The delivery worker: sends due deliveries from the outbox, records each attempt, and
//! retries failures with exponential backoff. Each claim is for one attempt, and the
//! attempt is recorded only while the claim holds (two processes never both send it).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::address::{check, literal, Refused, Screening};
use super::signing::signature;
use worp_domain::clock::Clock;
use worp_store::{Attempt, Delivery, Store};

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
    /// `WORP_WEBHOOK_ALLOW`: ranges that are not public which webhooks may reach anyway.
    pub allow: Vec<ipnet::IpNet>,
}

impl Default for WebhookSettings {
    fn default() -> Self {
        WebhookSettings {
            base_backoff: Duration::from_secs(10),
            poll: Duration::from_secs(1),
            timeout: Duration::from_secs(10),
            allow: Vec::new(),
        }
    }
}

/// The most attempts in flight at once to one receiver (host and port): a slow
/// receiver holds up its own deliveries, not the others'.
pub const PER_RECEIVER: usize = 2;
/// The most attempts in flight at once in one process.
pub const MAX_IN_FLIGHT: usize = 64;
/// How many due deliveries one look at the outbox reads.
const CANDIDATES: i64 = 200;

/// The HTTP client deliveries are sent with: no redirects, no proxy (a proxy would
/// resolve and connect where the check cannot see), and names resolved through
/// [`Screening`], which keeps only addresses that are public or allowed.
pub fn client(settings: &WebhookSettings) -> Result<reqwest::Client, reqwest::Error> {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .dns_resolver(Arc::new(Screening {
            allow: settings.allow.clone().into(),
        }))
        .build()
}

/// A delivery this process claimed: it alone may attempt it until `lease`.
struct Claimed {
    delivery: Delivery,
    url: String,
    secret: String,
    receiver: String,
    lease: DateTime<Utc>,
}

/// Who answers `url`: its host and port (the whole text if it does not parse).
fn receiver_of(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(u) => format!(
            "{}:{}",
            u.host_str().unwrap_or_default(),
            u.port_or_known_default().unwrap_or_default()
        ),
        Err(_) => url.to_owned(),
    }
}

/// Claims due deliveries that can start now: at most `room`, and at most
/// [`PER_RECEIVER`] per receiver counting those `busy` already. Each lease starts now and
/// lasts three timeouts, time enough for its one attempt.
async fn claim(
    store: &Store,
    clock: &dyn Clock,
    settings: &WebhookSettings,
    busy: &mut HashMap<String, usize>,
    room: usize,
) -> Vec<Claimed> {
    if room == 0 {
        return Vec::new();
    }
    let due = match store.due_deliveries(clock.now(), CANDIDATES).await {
        Ok(d) => d,
        Err(e) => {
            tracing::warn!("cannot read the webhook outbox: {e}");
            return Vec::new();
        }
    };
    let mut claimed = Vec::new();
    for (delivery, url, secret) in due {
        let receiver = receiver_of(&url);
        if busy.get(&receiver).copied().unwrap_or(0) >= PER_RECEIVER {
            continue;
        }
        let lease =
            clock.now() + chrono::Duration::from_std(settings.timeout * 3).unwrap_or_default();
        match store.lease_delivery(&delivery, lease).await {
            Ok(true) => {}
            Ok(false) => continue,
            Err(e) => {
                tracing::warn!("cannot claim a webhook delivery: {e}");
                break;
            }
        }
        *busy.entry(receiver.clone()).or_default() += 1;
        claimed.push(Claimed {
            delivery,
            url,
            secret,
            receiver,
            lease,
        });
        if claimed.len() >= room {
            break;
        }
    }
    claimed
}

fn release(busy: &mut HashMap<String, usize>, receiver: &str) {
    if let Some(n) = busy.get_mut(receiver) {
        *n = n.saturating_sub(1);
        if *n == 0 {
            busy.remove(receiver);
        }
    }
}

/// One pass: claims what is due (within the per-receiver limit), attempts it all at
/// once and waits for the attempts; returns how many there were.
pub async fn deliver_due(store: &Store, clock: &dyn Clock, settings: &WebhookSettings) -> usize {
    let client = match client(settings) {
        Ok(c) => c,
        Err(e) => {
            tracing::error!("cannot make the webhook client: {e}");
            return 0;
        }
    };
    let claimed = claim(store, clock, settings, &mut HashMap::new(), MAX_IN_FLIGHT).await;
    let attempts = claimed
        .iter()
        .map(|c| attempt(store, clock, &client, settings, c));
    futures_util::future::join_all(attempts).await;
    claimed.len()
}

/// Why an address was refused, if that is why `e` failed (the resolver's refusal
/// travels as the source of the connection error).
pub(crate) fn refusal(e: &reqwest::Error) -> Option<&Refused> {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = source {
        if let Some(r) = err.downcast_ref::<Refused>() {
            return Some(r);
        }
        source = err.source();
    }
    None
}

/// Sends one claimed delivery and records the outcome, if the claim still holds.
async fn attempt(
    store: &Store,
    clock: &dyn Clock,
    client: &reqwest::Client,
    settings: &WebhookSettings,
    c: &Claimed,
) {
    let d = &c.delivery;
    let started = std::time::Instant::now();
    // Addresses written into the URL are never resolved: check them here (the allowed
    // ranges may have changed since the URL was registered).
    let literal = reqwest::Url::parse(&c.url)
        .ok()
        .and_then(|u| literal(&u))
        .and_then(|ip| check(ip, &settings.allow).err());
    let (status, code, error) = match literal {
        Some(r) => ("failed", None, Some(format!("refused: {r}"))),
        None => {
            // A JSON value's `Display` is its compact text, and cannot fail: its keys
            // are strings.
            let body = d.payload.to_string().into_bytes();
            let ts = clock.now().timestamp();
            let result = client
                .post(&c.url)
                .timeout(settings.timeout)
                .header("content-type", "application/json")
                .header("user-agent", "worp-webhooks/1")
                .header("worp-event", &d.kind)
                .header("worp-delivery", d.id.to_string())
                .header("worp-timestamp", ts.to_string())
                .header("worp-signature", signature(&c.secret, ts, &body))
                .body(body)
                .send()
                .await;
            // Only the status is kept: a receiver's body is never read or shown.
            match result {
                Ok(resp) if resp.status().is_success() => {
                    ("delivered", Some(i32::from(resp.status().as_u16())), None)
                }
                Ok(resp) => (
                    "pending",
                    Some(i32::from(resp.status().as_u16())),
                    Some(format!("the receiver answered {}", resp.status())),
                ),
                Err(e) => match refusal(&e) {
                    Some(r) => ("failed", None, Some(format!("refused: {r}"))),
                    None => ("pending", None, Some(format!("the request failed: {e}"))),
                },
            }
        }
    };
    let attempts = d.attempts + 1;
    let now = clock.now();
    let status = if status == "pending" && attempts >= MAX_ATTEMPTS {
        "failed"
    } else {
        status
    };
    worp_telemetry::metrics::webhook_delivery(status, started.elapsed());
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
        lease: c.lease,
    };
    match store.record_attempt(&outcome).await {
        Ok(true) => {}
        Ok(false) => tracing::warn!(
            "webhook delivery {}: the claim ran out before the attempt was recorded",
            d.id
        ),
        Err(e) => tracing::warn!("cannot record a webhook attempt: {e}"),
    }
}

/// Runs deliveries until the process ends: every attempt is its own task, at most
/// [`PER_RECEIVER`] per receiver and [`MAX_IN_FLIGHT`] in all, so one slow receiver
/// delays only its own deliveries.
pub async fn run(store: Store, clock: Arc<dyn Clock>, settings: WebhookSettings) {
    let client = match client(&settings) {
        Ok(c) => c,
        Err(e) => {
            tracing::error!("cannot make the webhook client, no deliveries are sent: {e}");
            return;
        }
    };
    let settings = Arc::new(settings);
    let written = store.outbox_written();
    let mut busy: HashMap<String, usize> = HashMap::new();
    let mut flying = tokio::task::JoinSet::new();
    let mut receivers: HashMap<tokio::task::Id, String> = HashMap::new();
    loop {
        let room = MAX_IN_FLIGHT.saturating_sub(flying.len());
        for c in claim(&store, clock.as_ref(), &settings, &mut busy, room).await {
            let receiver = c.receiver.clone();
            let (store, clock, client, settings) = (
                store.clone(),
                clock.clone(),
                client.clone(),
                settings.clone(),
            );
            let task = flying.spawn(async move {
                attempt(&store, clock.as_ref(), &client, &settings, &c).await;
            });
            receivers.insert(task.id(), receiver);
        }
        // Wake when an attempt ends (its receiver has room again), when this process
        // wrote deliveries (one may be due now), or after the poll interval (retries,
        // deliveries written by other processes). Waking on every change instead cost a
        // query per move.
        tokio::select! {
            Some(done) = flying.join_next_with_id() => {
                let id = match done {
                    Ok((id, ())) => id,
                    Err(e) => e.id(),
                };
                if let Some(receiver) = receivers.remove(&id) {
                    release(&mut busy, &receiver);
                }
            }
            _ = written.notified() => {}
            _ = tokio::time::sleep(settings.poll) => {}
        }
    }
}
