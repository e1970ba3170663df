//! Live streams (Server-Sent Events): a game's here, a player's in [`player`].

mod player;

pub use player::{__path_player_stream, player_stream};

use std::sync::Arc;

use actix_web::http::header;
use actix_web::{get, web, HttpRequest, HttpResponse};
use bytes::Bytes;
use futures_util::stream;
use serde::Deserialize;
use tokio::sync::broadcast;
use utoipa::IntoParams;
use uuid::Uuid;

use crate::admission::{StreamAdmission, StreamSlot};
use crate::auth::scope::GameRead;
use crate::auth::MaybeCaller;
use crate::lifecycle::{Drain, Lifecycle, SHUTDOWN_EVENT};
use crate::problem::{ApiError, Problem};
use worp_domain::events::StoredEvent;
use worp_service::live::{Change, Watch};
use worp_service::messages::{may_read_messages, withhold_messages};
use worp_service::Worp;
use worp_telemetry::metrics::OpenStream;

fn sse_response<S>(s: S) -> HttpResponse
where
    S: futures_util::Stream<Item = Result<Bytes, actix_web::Error>> + 'static,
{
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/event-stream"))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(s)
}

fn event_message(e: &StoredEvent) -> Result<Bytes, serde_json::Error> {
    let data = serde_json::to_string(e)?;
    Ok(Bytes::from(format!(
        "id: {}\nevent: {}\ndata: {data}\n\n",
        e.seq, e.kind
    )))
}

/// The `data` of a `resync` event on a player's stream.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct Resync {
    /// How many changes (of all games) the stream missed.
    pub missed: u64,
}

/// Where to resume a game stream.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct StreamQuery {
    /// Send the events after this sequence number first (as `Last-Event-ID` does);
    /// default: only events from now on.
    #[param(minimum = 0)]
    pub after: Option<i64>,
}

/// The longest silence on a live stream before a keep-alive comment
/// (`WORP_SSE_KEEPALIVE_SECS`).
#[derive(Debug, Clone, Copy)]
pub struct KeepAlive(pub std::time::Duration);

/// The keep-alive of a server that set none (`Settings::from_env`'s default).
const DEFAULT_KEEPALIVE: std::time::Duration = std::time::Duration::from_secs(15);

/// What a stream waits for: the next change of its topic, or `None` when the server
/// starts to drain; `Err(Elapsed)` when none came within `keepalive`.
async fn next_change(
    changes: &mut Watch,
    keepalive: std::time::Duration,
    drain: &mut Drain,
) -> Option<Result<Result<Arc<Change>, broadcast::error::RecvError>, tokio::time::error::Elapsed>> {
    tokio::select! {
        changed = tokio::time::timeout(keepalive, changes.recv()) => Some(changed),
        () = drain.started() => None,
    }
}

struct GameStream {
    worp: Arc<Worp>,
    keepalive: std::time::Duration,
    id: Uuid,
    after: i64,
    /// This game's changes.
    changes: Watch,
    pending: std::collections::VecDeque<Bytes>,
    /// Whether the reader may read the players' messages (else their texts are withheld).
    messages: bool,
    drain: Drain,
    /// The last message is queued: end the stream when it is sent.
    closing: bool,
    /// Every event up to the newest change heard is queued: no need to read the log.
    caught_up: bool,
    _open: OpenStream,
    _admitted: Option<StreamSlot>,
}

impl GameStream {
    /// Queues `e`, the event after those queued; one that does not serialise is logged
    /// and ends the stream after those (the client resumes from the last it has).
    fn queue(&mut self, e: &StoredEvent) {
        if self.closing {
            return;
        }
        match event_message(e) {
            Ok(message) => {
                self.pending.push_back(message);
                self.after = e.seq;
            }
            Err(err) => {
                tracing::error!(
                    "stream of game {}: event {} does not serialise: {err}",
                    self.id,
                    e.seq
                );
                self.closing = true;
            }
        }
    }

    /// Queues `events` (those after `after`, in order), their texts withheld if the
    /// reader may not read the messages.
    fn send(&mut self, mut events: Vec<StoredEvent>) {
        if !self.messages {
            withhold_messages(&mut events);
        }
        for e in &events {
            self.queue(e);
        }
    }

    /// Queues a change's events if they follow those sent (none missing between);
    /// returns whether the stream is then caught up without reading the log. A change
    /// that follows the last event sent goes out in its wire form, written once for
    /// every stream of the game ([`wire_form`]).
    fn take(&mut self, change: &Change) -> bool {
        let Some(events) = change.events.as_deref().filter(|e| !e.is_empty()) else {
            return false;
        };
        if events[0].seq > self.after + 1 {
            return false;
        }
        if self.closing {
            return true;
        }
        let withheld = !self.messages && events.iter().any(|e| e.kind == "message_posted");
        if events[0].seq == self.after + 1 {
            let wire =
                change.wire[usize::from(withheld)].get_or_init(|| wire_form(events, withheld));
            if !wire.is_empty() {
                self.pending.push_back(wire.clone());
                self.after = events[events.len() - 1].seq;
                return true;
            }
        }
        // Part of it was sent already (or it does not serialise): event by event.
        let after = self.after;
        let new = events.iter().filter(|e| e.seq > after);
        if withheld {
            self.send(new.cloned().collect());
        } else {
            for e in new {
                self.queue(e);
            }
        }
        true
    }
}

/// `events` as one stream message after another, the messages' texts withheld if
/// `withheld`; empty if one does not serialise.
fn wire_form(events: &[StoredEvent], withheld: bool) -> Bytes {
    let mut copy;
    let events = if withheld {
        copy = events.to_vec();
        withhold_messages(&mut copy);
        &copy[..]
    } else {
        events
    };
    let mut out = Vec::new();
    for e in events {
        match event_message(e) {
            Ok(message) => out.extend_from_slice(&message),
            Err(_) => return Bytes::new(),
        }
    }
    Bytes::from(out)
}

/// Server-Sent Events of the game's new events: `id` is the sequence number, `event` the
/// type, `data` the event as in `GET /v1/games/{id}/events`. Reconnect with
/// `Last-Event-ID` to miss nothing. While idle, a comment keeps the connection alive.
/// When the server shuts down, `event: shutdown` is the last message.
#[utoipa::path(
    security((), ("bearer" = ["game:read"])),
    operation_id = "stream_game",
    tag = "live",
    params(
        ("id" = Uuid, Path, description = "The game"),
        ("Last-Event-ID" = Option<i64>, Header, description = "Resume after this sequence number"),
        StreamQuery,
    ),
    responses(
        (status = 200, description = "An endless text/event-stream", content_type = "text/event-stream", body = String,
         example = "id: 12\nevent: move_played\ndata: {\"game_id\":\"…\",\"seq\":12,\"type\":\"move_played\",…}\n\n"),
        (status = 400, description = "Malformed Last-Event-ID or query", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "This address holds its limit of live streams (`WORP_STREAMS_PER_ADDRESS`)", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "The server is near its connection limit: streams without a bearer token are refused for now", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/games/{id}/stream")]
pub async fn game_stream(
    // First: refused before anything else is read or looked up.
    admitted: StreamAdmission,
    worp: web::Data<Worp>,
    lifecycle: web::Data<Lifecycle>,
    req: HttpRequest,
    caller: MaybeCaller<GameRead>,
    id: web::Path<Uuid>,
    q: web::Query<StreamQuery>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let worp = worp.into_inner();
    // Subscribe before reading, so no change between the two is missed.
    let changes = worp.watch_game(id);
    // Read to the log's end: a stream from here on needs no read of its own.
    let table = worp.load(id).await?;
    let messages = may_read_messages(&table, caller.0.map(|p| p.id));
    let last_event_id = match req.headers().get("last-event-id") {
        None => None,
        Some(v) => Some(
            v.to_str()
                .ok()
                .and_then(|s| s.trim().parse::<i64>().ok())
                .filter(|n| *n >= 0)
                .ok_or_else(|| {
                    ApiError::BadRequest("Last-Event-ID must be a sequence number".into())
                })?,
        ),
    };
    if q.after.is_some_and(|a| a < 0) {
        return Err(ApiError::BadRequest(
            "after must be a sequence number (0 or more)".into(),
        ));
    }
    let after = last_event_id.or(q.after).unwrap_or(table.version);
    let state = GameStream {
        worp,
        keepalive: req
            .app_data::<web::Data<KeepAlive>>()
            .map_or(DEFAULT_KEEPALIVE, |k| k.0),
        id,
        after,
        changes,
        pending: std::collections::VecDeque::from([Bytes::from_static(b": worp game stream\n\n")]),
        messages,
        drain: lifecycle.watch(),
        closing: false,
        caught_up: after >= table.version,
        _open: OpenStream::open(),
        _admitted: admitted.0,
    };
    let s = stream::unfold(state, |mut st| async move {
        loop {
            if let Some(b) = st.pending.pop_front() {
                return Some((Ok(b), st));
            }
            if st.closing {
                return None;
            }
            if st.caught_up {
                st.caught_up = false;
            } else {
                let read = st.worp.events(st.id, st.after, 500).await;
                // Counted once done: a stream counted has what the log held before.
                worp_telemetry::metrics::stream_log_read();
                match read {
                    Ok(events) if !events.is_empty() => {
                        st.send(events);
                        continue;
                    }
                    Ok(_) => {}
                    Err(e) => {
                        tracing::warn!("stream of game {}: {e}", st.id);
                        return None;
                    }
                }
            }
            // Wait for this game to change, or keep the connection alive.
            let Some(changed) = next_change(&mut st.changes, st.keepalive, &mut st.drain).await
            else {
                st.pending.push_back(Bytes::from_static(SHUTDOWN_EVENT));
                st.closing = true;
                continue;
            };
            match changed {
                // Its events follow those sent, or the log is read for what came
                // between.
                Ok(Ok(c)) => st.caught_up = st.take(&c),
                // Fell behind the game's channel: nothing is lost, the events are read
                // from the store after `after`.
                Ok(Err(broadcast::error::RecvError::Lagged(_))) => {}
                Ok(Err(broadcast::error::RecvError::Closed)) => return None,
                // Nothing changed: still caught up.
                Err(_) => {
                    st.pending
                        .push_back(Bytes::from_static(b": keep-alive\n\n"));
                    st.caught_up = true;
                }
            }
        }
    });
    Ok(sse_response(s))
}
