//! A player's live stream: their notices across all games.

use actix_web::{get, web, HttpResponse};
use bytes::Bytes;
use futures_util::stream;
use tokio::sync::broadcast;
use uuid::Uuid;

use super::{next_change, sse_response, KeepAlive, Resync};
use crate::admission::{StreamAdmission, StreamSlot};
use crate::auth::scope::GameRead;
use crate::auth::Caller;
use crate::lifecycle::{Drain, Lifecycle, SHUTDOWN_EVENT};
use crate::problem::Problem;
use worp_service::live::Watch;
use worp_service::Worp;
use worp_telemetry::metrics::OpenStream;

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
    use worp_service::live::{Change, Live};

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
