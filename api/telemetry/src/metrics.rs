//! The Prometheus metrics: every name the server exports ([`NAMES`]) and the one-line
//! helpers the code calls when something happens. The recorder is the `metrics` crate's
//! global one, installed once per process; `GET /metrics` renders it.

use std::sync::OnceLock;
use std::time::Duration;

use metrics::{counter, gauge, histogram};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

/// Requests answered, by route pattern, method and status.
pub const HTTP_REQUESTS: &str = "worp_http_requests_total";
/// Their latency in seconds (histogram), by route pattern, method and status.
pub const HTTP_SECONDS: &str = "worp_http_request_duration_seconds";
/// Moves acknowledged (200 to `POST /v1/games/{id}/moves`).
pub const MOVES_ACKNOWLEDGED: &str = "worp_moves_acknowledged_total";
/// Changes per group commit (histogram; PostgreSQL).
pub const GROUP_COMMIT_BATCH: &str = "worp_group_commit_batch_size";
/// Seconds a group commit took to write and commit its batch (histogram).
pub const GROUP_COMMIT_SECONDS: &str = "worp_group_commit_seconds";
/// Changes waiting for the group commit, as last seen when one was queued.
pub const WRITE_QUEUE_DEPTH: &str = "worp_group_commit_queue_depth";
/// Loads of a game's newest state that found a cached table, or not.
pub const STATE_CACHE_HITS: &str = "worp_state_cache_hits_total";
pub const STATE_CACHE_MISSES: &str = "worp_state_cache_misses_total";
/// Tables folded from the log (a load that applied events), and the events applied.
pub const REPLAYS: &str = "worp_replays_total";
pub const REPLAY_EVENTS: &str = "worp_replay_events_total";
/// Live streams (Server-Sent Events) open now.
pub const SSE_STREAMS: &str = "worp_sse_streams_open";
/// Reads of a game's log by its live streams: only when a stream resumes from an
/// earlier event, falls behind its game's channel, or hears of a change whose events
/// could not be read once for all of them. Opening a stream, a keep-alive, and a
/// change of this process or of another read nothing per stream.
pub const STREAM_LOG_READS: &str = "worp_sse_log_reads_total";
/// Webhook delivery attempts, by outcome (`delivered`, `pending`: to retry, `failed`).
pub const WEBHOOK_DELIVERIES: &str = "worp_webhook_deliveries_total";
/// Their latency in seconds (histogram), by outcome.
pub const WEBHOOK_SECONDS: &str = "worp_webhook_delivery_seconds";
/// Notification sends (mails and pushes), by channel (`email`, `digest`, `push`,
/// `confirm`) and outcome (`sent`, `pending`: to retry, `dropped`, `failed`).
pub const NOTIFICATIONS: &str = "worp_notifications_total";
/// Deadline sweeps run, and seats that ran out of time in them.
pub const DEADLINE_SWEEPS: &str = "worp_deadline_sweeps_total";
pub const TIMEOUTS: &str = "worp_deadline_timeouts_total";
/// Moves bots chose (in drafted changes).
pub const BOT_MOVES: &str = "worp_bot_moves_total";
/// Games waiting for a thinking bot's decision (the bot runner's queue).
pub const BOT_QUEUE_DEPTH: &str = "worp_bot_queue_depth";
/// How long a thinking bot's decision took, by bot.
pub const BOT_DECISION_SECONDS: &str = "worp_bot_decision_seconds";
/// Thinking bots' decisions that failed, by bot (the game waits and is tried again).
pub const BOT_FAILURES: &str = "worp_bot_failures_total";
/// gnubg workers replaced after dying, hanging or answering garbage.
pub const GNUBG_RESTARTS: &str = "worp_gnubg_worker_restarts";
/// Database connections in use and open (gauges, read at each scrape).
pub const DB_IN_USE: &str = "worp_db_connections_in_use";
pub const DB_OPEN: &str = "worp_db_connections_open";
/// Requests answered 503 because the database was unavailable or the queue full.
pub const DB_UNAVAILABLE: &str = "worp_db_unavailable_total";
/// Requests refused by the rate limits (429).
pub const RATE_LIMITED: &str = "worp_rate_limited_total";

/// Every metric name above (the dashboard's test checks its queries against these).
pub const NAMES: [&str; 27] = [
    NOTIFICATIONS,
    BOT_QUEUE_DEPTH,
    BOT_DECISION_SECONDS,
    BOT_FAILURES,
    GNUBG_RESTARTS,
    HTTP_REQUESTS,
    HTTP_SECONDS,
    MOVES_ACKNOWLEDGED,
    GROUP_COMMIT_BATCH,
    GROUP_COMMIT_SECONDS,
    WRITE_QUEUE_DEPTH,
    STATE_CACHE_HITS,
    STATE_CACHE_MISSES,
    REPLAYS,
    REPLAY_EVENTS,
    SSE_STREAMS,
    STREAM_LOG_READS,
    WEBHOOK_DELIVERIES,
    WEBHOOK_SECONDS,
    DEADLINE_SWEEPS,
    TIMEOUTS,
    BOT_MOVES,
    DB_IN_USE,
    DB_OPEN,
    DB_UNAVAILABLE,
    RATE_LIMITED,
    "worp_build_info",
];

/// Latency buckets, seconds: 0.5 ms to 10 s.
const SECONDS: [f64; 14] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];
/// Batch size buckets.
const BATCH: [f64; 10] = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0];

/// The process's recorder, installed on first use.
pub fn handle() -> PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            let builder = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), &SECONDS)
                .and_then(|b| {
                    b.set_buckets_for_metric(Matcher::Full(GROUP_COMMIT_BATCH.into()), &BATCH)
                });
            let recorder = match builder {
                Ok(b) => b.build_recorder(),
                // Only an empty bucket list fails: the constants above are not.
                Err(_) => PrometheusBuilder::new().build_recorder(),
            };
            let handle = recorder.handle();
            // Another recorder (a test's) may be installed: then this one records nothing.
            let _ = metrics::set_global_recorder(recorder);
            gauge!("worp_build_info", "version" => env!("CARGO_PKG_VERSION")).set(1.0);
            at_zero();
            handle
        })
        .clone()
}

/// Every family shown from start-up, at zero until its cause happens, so that a
/// dashboard shows 0 rather than "no data". The families labelled by what happened are
/// shown with every label value they can have; those labelled by request (route,
/// method, status) appear with the first request.
fn at_zero() {
    for name in [
        MOVES_ACKNOWLEDGED,
        STATE_CACHE_HITS,
        STATE_CACHE_MISSES,
        REPLAYS,
        REPLAY_EVENTS,
        DEADLINE_SWEEPS,
        TIMEOUTS,
        BOT_MOVES,
        DB_UNAVAILABLE,
        RATE_LIMITED,
        STREAM_LOG_READS,
    ] {
        counter!(name).increment(0);
    }
    for name in [
        SSE_STREAMS,
        WRITE_QUEUE_DEPTH,
        DB_IN_USE,
        DB_OPEN,
        BOT_QUEUE_DEPTH,
        GNUBG_RESTARTS,
    ] {
        gauge!(name).increment(0.0);
    }
    for bot in THINKING_BOTS {
        let _ = histogram!(BOT_DECISION_SECONDS, "bot" => bot);
        counter!(BOT_FAILURES, "bot" => bot).increment(0);
    }
    for name in [GROUP_COMMIT_BATCH, GROUP_COMMIT_SECONDS] {
        let _ = histogram!(name);
    }
    for outcome in WEBHOOK_OUTCOMES {
        counter!(WEBHOOK_DELIVERIES, "outcome" => outcome).increment(0);
        let _ = histogram!(WEBHOOK_SECONDS, "outcome" => outcome);
    }
    for channel in NOTIFICATION_CHANNELS {
        for outcome in NOTIFICATION_OUTCOMES {
            counter!(NOTIFICATIONS, "channel" => channel, "outcome" => outcome).increment(0);
        }
    }
}

/// The outcomes a webhook delivery attempt is counted by.
pub const WEBHOOK_OUTCOMES: [&str; 3] = ["delivered", "pending", "failed"];

/// A request answered.
pub fn http_request(route: &str, method: &str, status: u16, took: Duration) {
    let labels = [
        ("route", route.to_owned()),
        ("method", method.to_owned()),
        ("status", status.to_string()),
    ];
    counter!(HTTP_REQUESTS, &labels).increment(1);
    histogram!(HTTP_SECONDS, &labels).record(took.as_secs_f64());
}

/// A move acknowledged.
pub fn move_acknowledged() {
    counter!(MOVES_ACKNOWLEDGED).increment(1);
}

/// A group commit of `changes` that took `took`.
pub fn group_commit(changes: usize, took: Duration) {
    histogram!(GROUP_COMMIT_BATCH).record(changes as f64);
    histogram!(GROUP_COMMIT_SECONDS).record(took.as_secs_f64());
}

/// How to read the group commit's queue at a scrape (a weak handle: it keeps nothing
/// alive). The process's first queue; a process has one store.
type QueueDepth = Box<dyn Fn() -> Option<usize> + Send + Sync>;
static QUEUE: OnceLock<QueueDepth> = OnceLock::new();

/// Changes waiting in `queue` (the group commit's), as a change is queued.
pub fn write_queue<T: Send + 'static>(queue: &tokio::sync::mpsc::Sender<T>) {
    let waiting = queue.max_capacity() - queue.capacity();
    gauge!(WRITE_QUEUE_DEPTH).set(waiting as f64);
    QUEUE.get_or_init(|| {
        let weak = queue.downgrade();
        Box::new(move || weak.upgrade().map(|q| q.max_capacity() - q.capacity()))
    });
}

/// The queue's depth now, at a scrape (so that it does not stay at its last value
/// when no change comes).
pub fn sample_write_queue() {
    if let Some(waiting) = QUEUE.get().and_then(|depth| depth()) {
        gauge!(WRITE_QUEUE_DEPTH).set(waiting as f64);
    }
}

/// A load of a game's newest state, from the cache or not.
pub fn state_cache(hit: bool) {
    if hit {
        counter!(STATE_CACHE_HITS).increment(1);
    } else {
        counter!(STATE_CACHE_MISSES).increment(1);
    }
}

/// A table folded from `events` events of the log.
pub fn replay(events: usize) {
    counter!(REPLAYS).increment(1);
    counter!(REPLAY_EVENTS).increment(events as u64);
}

/// A live stream read its game's log.
pub fn stream_log_read() {
    counter!(STREAM_LOG_READS).increment(1);
}

/// An open live stream: counted while this lives.
#[derive(Debug)]
pub struct OpenStream(());

impl OpenStream {
    pub fn open() -> OpenStream {
        gauge!(SSE_STREAMS).increment(1.0);
        OpenStream(())
    }
}

impl Drop for OpenStream {
    fn drop(&mut self) {
        gauge!(SSE_STREAMS).decrement(1.0);
    }
}

/// A webhook delivery attempt with its outcome.
pub fn webhook_delivery(outcome: &'static str, took: Duration) {
    counter!(WEBHOOK_DELIVERIES, "outcome" => outcome).increment(1);
    histogram!(WEBHOOK_SECONDS, "outcome" => outcome).record(took.as_secs_f64());
}

/// A notification sent through `channel` with `outcome`: both from a fixed set.
pub fn notification(channel: &str, outcome: &str) {
    let channel = NOTIFICATION_CHANNELS
        .into_iter()
        .find(|c| *c == channel)
        .unwrap_or("other");
    let outcome = NOTIFICATION_OUTCOMES
        .into_iter()
        .find(|o| *o == outcome)
        .unwrap_or("other");
    counter!(NOTIFICATIONS, "channel" => channel, "outcome" => outcome).increment(1);
}

/// The channels notifications go by.
pub const NOTIFICATION_CHANNELS: [&str; 4] = ["email", "digest", "push", "confirm"];
/// What a notification's attempt came to.
pub const NOTIFICATION_OUTCOMES: [&str; 4] = ["sent", "pending", "dropped", "failed"];

/// A deadline sweep that timed `timeouts` seats out.
pub fn deadline_sweep(timeouts: usize) {
    counter!(DEADLINE_SWEEPS).increment(1);
    counter!(TIMEOUTS).increment(timeouts as u64);
}

/// A move a bot chose.
pub fn bot_move() {
    counter!(BOT_MOVES).increment(1);
}

/// The bots whose decisions are timed (`worp_domain::bots::BotKind::thinks`).
pub const THINKING_BOTS: [&str; 5] = [
    "expectimax",
    "gnubg-beginner",
    "gnubg-intermediate",
    "gnubg-expert",
    "gnubg-world-class",
];

/// A thinking bot's decision: the bot's name (one of [`THINKING_BOTS`]), how long it
/// took, and whether it came to a move.
pub fn bot_decision(bot: &str, took: Duration, ok: bool) {
    let bot = THINKING_BOTS
        .into_iter()
        .find(|b| *b == bot)
        .unwrap_or("other");
    histogram!(BOT_DECISION_SECONDS, "bot" => bot).record(took.as_secs_f64());
    if !ok {
        counter!(BOT_FAILURES, "bot" => bot).increment(1);
    }
}

/// The bot runner's queue now, and the gnubg workers replaced so far.
pub fn bot_queue(depth: usize, gnubg_restarts: u64) {
    gauge!(BOT_QUEUE_DEPTH).set(depth as f64);
    gauge!(GNUBG_RESTARTS).set(gnubg_restarts as f64);
}

/// The database pool now.
pub fn db_pool(in_use: u32, open: u32) {
    gauge!(DB_IN_USE).set(f64::from(in_use));
    gauge!(DB_OPEN).set(f64::from(open));
}

/// A request refused because the database was unavailable.
pub fn db_unavailable() {
    counter!(DB_UNAVAILABLE).increment(1);
}

/// A request refused by a rate limit.
pub fn rate_limited() {
    counter!(RATE_LIMITED).increment(1);
}

/// The middleware: counts and times every answer by its route pattern.
pub async fn http_metrics<B: actix_web::body::MessageBody>(
    req: actix_web::dev::ServiceRequest,
    next: actix_web::middleware::Next<B>,
) -> Result<actix_web::dev::ServiceResponse<B>, actix_web::Error> {
    let started = std::time::Instant::now();
    let method = req.method().clone();
    let res = next.call(req).await?;
    let route = res.request().match_pattern();
    let route = route.as_deref().unwrap_or("unmatched");
    let status = res.status().as_u16();
    http_request(route, method_label(&method), status, started.elapsed());
    if status == 200 && method == actix_web::http::Method::POST && route == MOVE_ROUTE {
        move_acknowledged();
    }
    Ok(res)
}

/// The `method` label of a request: one of the methods HTTP defines (RFC 9110 and
/// PATCH), else `other`, so that invented methods cannot add series without bound.
/// (Routes are labelled by their pattern, or `unmatched`: bounded too.)
pub fn method_label(method: &actix_web::http::Method) -> &'static str {
    use actix_web::http::Method;
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::DELETE => "DELETE",
        Method::CONNECT => "CONNECT",
        Method::OPTIONS => "OPTIONS",
        Method::TRACE => "TRACE",
        Method::PATCH => "PATCH",
        _ => "other",
    }
}

/// The pattern of the move route.
const MOVE_ROUTE: &str = "/v1/games/{id}/moves";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_rendered_once_its_cause_happened() {
        let recorder = handle();
        http_request("/x", "GET", 200, Duration::from_millis(1));
        move_acknowledged();
        group_commit(3, Duration::from_millis(2));
        write_queue(&tokio::sync::mpsc::channel::<()>(4).0);
        state_cache(true);
        state_cache(false);
        replay(2);
        drop(OpenStream::open());
        stream_log_read();
        webhook_delivery("delivered", Duration::from_millis(3));
        deadline_sweep(1);
        notification("email", "sent");
        bot_move();
        db_pool(1, 2);
        db_unavailable();
        rate_limited();
        let text = recorder.render();
        for name in NAMES {
            assert!(text.contains(name), "{name} is not rendered:\n{text}");
        }
    }
}
