//! Live streams (Server-Sent Events).

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
use crate::auth::{Caller, MaybeCaller};
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

struct PlayerStream {
    _open: OpenStream,
    _admitted: Option<StreamSlot>,
    drain: Drain,
    closing: bool,
    keepalive: std::time::Duration,
    player: Uuid,
    /// The changes with notices for this player.
    changes: Watch,
    pending: std::collections::VecDeque<Bytes>,
}

/// Server-Sent Events for the caller across all games: `your_turn` when a game awaits
/// the caller's move, `game_finished` when a game of theirs ends (`data` as in webhook
/// notices). `resync` (`data: {"missed": n}`, n changes of all games) when the stream
/// fell behind and notices may have been lost: fetch the inbox again. While idle, a
/// comment keeps the connection alive. When the server shuts down, `event: shutdown` is
/// the last message.
#[utoipa::path(
    operation_id = "stream_my_notices",
    tag = "live",
    security(("bearer" = ["game:read"])),
    responses(
        (status = 200, description = "An endless text/event-stream", content_type = "text/event-stream", body = String,
         example = "event: your_turn\ndata: {\"type\":\"your_turn\",\"game_id\":\"…\",\"version\":9,\"seat\":1,…}\n\n"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "This address holds its limit of live streams (`WORP_STREAMS_PER_ADDRESS`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/players/me/stream")]
pub async fn player_stream(
    // First: refused before the token is looked up.
    admitted: StreamAdmission,
    worp: web::Data<Worp>,
    keepalive: web::Data<KeepAlive>,
    lifecycle: web::Data<Lifecycle>,
    caller: Caller<GameRead>,
) -> HttpResponse {
    sse_response(player_messages(
        worp.watch_player(caller.0.id),
        caller.0.id,
        keepalive.0,
        lifecycle.watch(),
        admitted.0,
    ))
}

/// The messages of `player`'s stream from the hub's `changes`.
fn player_messages(
    changes: Watch,
    player: Uuid,
    keepalive: std::time::Duration,
    drain: Drain,
    admitted: Option<StreamSlot>,
) -> impl futures_util::Stream<Item = Result<Bytes, actix_web::Error>> {
    let state = PlayerStream {
        _open: OpenStream::open(),
        _admitted: admitted,
        drain,
        closing: false,
        changes,
        keepalive,
        player,
        pending: std::collections::VecDeque::from([Bytes::from_static(
            b": worp player stream\n\n",
        )]),
    };
    stream::unfold(state, |mut st| async move {
        loop {
            if let Some(b) = st.pending.pop_front() {
                return Some((Ok(b), st));
            }
            if st.closing {
                return None;
            }
            let Some(changed) = next_change(&mut st.changes, st.keepalive, &mut st.drain).await
            else {
                st.pending.push_back(Bytes::from_static(SHUTDOWN_EVENT));
                st.closing = true;
                continue;
            };
            match changed {
                Ok(Ok(c)) => {
                    for n in c.notices.iter().filter(|n| n.player_id == st.player) {
                        // The notice's JSON text, as written when it was made.
                        st.pending.push_back(Bytes::from(format!(
                            "id: {}:{}\nevent: {}\ndata: {}\n\n",
                            n.game_id,
                            n.version,
                            n.kind,
                            n.payload.get()
                        )));
                    }
                }
                // The hub dropped changes this stream had not read: the client must
                // refetch what it shows (the notices are not kept anywhere to resend).
                Ok(Err(broadcast::error::RecvError::Lagged(missed))) => {
                    match serde_json::to_string(&Resync { missed }) {
                        Ok(data) => st
                            .pending
                            .push_back(Bytes::from(format!("event: resync\ndata: {data}\n\n"))),
                        // Without it the client would not know to refetch: end the stream.
                        Err(e) => {
                            tracing::error!(
                                "stream of player {}: a resync does not serialise: {e}",
                                st.player
                            );
                            st.closing = true;
                        }
                    }
                }
                Ok(Err(broadcast::error::RecvError::Closed)) => return None,
                Err(_) => st
                    .pending
                    .push_back(Bytes::from_static(b": keep-alive\n\n")),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use futures_util::StreamExt;

    use super::*;
    use worp_domain::records::PlayerNotice;
    use worp_engine::json::RawJson;
    use worp_service::live::topics::TOPIC_CAPACITY;
    use worp_service::live::Live;

    fn change(player: Uuid, version: i64) -> Change {
        Change::new(
            Uuid::new_v4(),
            Uuid::nil(),
            version,
            vec![PlayerNotice {
                player_id: player,
                game_id: Uuid::nil(),
                version,
                kind: "your_turn".into(),
                payload: RawJson::of(&serde_json::json!({"version": version})).expect("JSON"),
            }],
            None,
        )
    }

    #[tokio::test]
    async fn a_player_stream_that_falls_behind_is_told_to_resync() {
        let player = Uuid::new_v4();
        let live = Live::new(false);
        let rx = live.watch_player(player);
        // Another player's notices do not count against this one's stream.
        live.publish_local(change(Uuid::new_v4(), 0));
        for version in 1..=(TOPIC_CAPACITY as i64 + 3) {
            live.publish_local(change(player, version));
        }
        let lifecycle = Lifecycle::default();
        let s = player_messages(
            rx,
            player,
            std::time::Duration::from_secs(60),
            lifecycle.watch(),
            None,
        );
        let mut s = std::pin::pin!(s);
        let mut next = async || {
            let item = tokio::time::timeout(std::time::Duration::from_secs(5), s.next()).await;
            let bytes = item.expect("a message").expect("open").expect("bytes");
            String::from_utf8(bytes.to_vec()).expect("text")
        };
        assert_eq!(next().await, ": worp player stream\n\n");
        assert_eq!(next().await, "event: resync\ndata: {\"missed\":3}\n\n");
        // Then the notices still in the hub, in order.
        for version in 4..=5 {
            let message = next().await;
            assert!(message.contains("event: your_turn"), "{message}");
            assert!(message.contains(&format!(":{version}\n")), "{message}");
        }
    }

    #[tokio::test]
    async fn a_player_stream_ends_with_a_shutdown_event_when_the_server_drains() {
        let live = Live::new(false);
        let rx = live.watch_player(Uuid::new_v4());
        let lifecycle = Lifecycle::default();
        let s = player_messages(
            rx,
            Uuid::new_v4(),
            std::time::Duration::from_secs(60),
            lifecycle.watch(),
            None,
        );
        let mut s = std::pin::pin!(s);
        let first = s.next().await.expect("a message").expect("bytes");
        assert_eq!(&first[..], b": worp player stream\n\n");
        lifecycle.drain();
        let within = std::time::Duration::from_secs(5);
        let last = tokio::time::timeout(within, s.next())
            .await
            .expect("in time");
        assert_eq!(
            &last.expect("a message").expect("bytes")[..],
            SHUTDOWN_EVENT
        );
        let end = tokio::time::timeout(within, s.next())
            .await
            .expect("in time");
        assert!(end.is_none(), "the stream ends after its shutdown event");
    }
}
