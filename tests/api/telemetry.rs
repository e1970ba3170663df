//! What operators see: the request id round-trips, and the JSON log format is one JSON
//! object per line.

use std::process::Stdio;

use serde_json::{json, Value};

use crate::helpers::{fresh_postgres, spawn_app, Backend};
use crate::shutdown::{exit_of, free_port, sigterm, until_ready, worp_command, worp_serve_with};

#[tokio::test]
async fn a_sane_request_id_comes_back_and_into_the_problem_document() {
    let app = spawn_app(Backend::Sqlite).await;
    let resp = app
        .client
        .get(app.url(&format!("/v1/games/{}", uuid::Uuid::new_v4())))
        .header("X-Request-Id", "edge-42.a:b_c")
        .send()
        .await
        .expect("request");
    assert_eq!(resp.status(), 404);
    assert_eq!(resp.headers()["x-request-id"], "edge-42.a:b_c");
    let problem: Value = resp.json().await.expect("json");
    assert_eq!(problem["request_id"], "edge-42.a:b_c", "{problem}");
}

#[tokio::test]
async fn a_request_without_a_sane_id_gets_a_fresh_one() {
    let app = spawn_app(Backend::Sqlite).await;
    let mut ids = Vec::new();
    for incoming in [None, Some("has space"), Some("x".repeat(200).as_str())] {
        let mut req = app.client.get(app.url("/v1/games/not-a-uuid"));
        if let Some(id) = incoming {
            req = req.header("X-Request-Id", id);
        }
        let resp = req.send().await.expect("request");
        let id = resp.headers()["x-request-id"]
            .to_str()
            .expect("text")
            .to_owned();
        assert_eq!(id.len(), 32, "{id}");
        assert!(id.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
        let problem: Value = resp.json().await.expect("json");
        assert_eq!(problem["request_id"], id.as_str());
        ids.push(id);
    }
    ids.dedup();
    assert_eq!(ids.len(), 3, "each request has its own id");
}

/// Once `server` (at `port`) is ready: one request with `request_id`, then SIGTERM; waits
/// for a clean exit.
async fn one_request_then_sigterm(server: &mut std::process::Child, port: u16, request_id: &str) {
    let address = format!("http://127.0.0.1:{port}");
    until_ready(&format!("{address}/readyz")).await;
    let resp = reqwest::Client::new()
        .get(format!("{address}/v1/variants"))
        .header("X-Request-Id", request_id)
        .send()
        .await
        .expect("request");
    assert_eq!(resp.status(), 200);
    sigterm(server);
    let (status, _) = exit_of(server).await;
    assert!(status.success());
}

/// `worp serve` on a fresh PostgreSQL database, logging JSON lines at `info` to its piped
/// standard output, and the port it listens on.
async fn json_logging_server() -> (std::process::Child, u16) {
    let database = fresh_postgres().await;
    let port = free_port();
    let server = worp_command(
        &database,
        port,
        &[
            ("WORP_LOG_FORMAT", "json"),
            ("WORP_SHUTDOWN_GRACE_SECS", "0"),
            ("RUST_LOG", "info"),
        ],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .expect("worp serve starts");
    (server, port)
}

#[tokio::test]
async fn the_json_log_format_is_one_object_per_line_with_the_request_id() {
    let (mut server, port) = json_logging_server().await;
    one_request_then_sigterm(&mut server, port, "find-me-in-the-log").await;
    let out = server.wait_with_output().expect("output");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    assert!(lines.len() >= 3, "{text}");
    for l in &lines {
        assert!(l["timestamp"].is_string() && l["level"].is_string(), "{l}");
    }
    assert!(
        lines
            .iter()
            .any(|l| l.to_string().contains("find-me-in-the-log")),
        "no line of the request: {text}"
    );
    assert!(
        lines.iter().any(|l| l["fields"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("serving on"))),
        "{text}"
    );
}

/// A client's malformed requests are answered 400 and logged, if at all, below ERROR:
/// actix-http logged each as an ERROR, so any client could fill an operator's log.
#[tokio::test]
async fn malformed_requests_are_not_logged_as_errors() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (mut server, port) = json_logging_server().await;
    until_ready(&format!("http://127.0.0.1:{port}/readyz")).await;
    for malformed in [
        "POST /v1/players HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
        "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Nul: a\0b\r\n\r\n",
    ] {
        let mut tcp = tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .expect("connect");
        tcp.write_all(malformed.as_bytes()).await.expect("write");
        let mut answer = Vec::new();
        let read = tokio::time::timeout(
            std::time::Duration::from_secs(10),
            tcp.read_to_end(&mut answer),
        )
        .await;
        assert!(read.is_ok(), "{malformed:?} was answered and closed");
        let answer = String::from_utf8_lossy(&answer);
        assert!(answer.starts_with("HTTP/1.1 4"), "{malformed:?}: {answer}");
    }
    sigterm(&server);
    let (status, _) = exit_of(&mut server).await;
    assert!(status.success());
    let out = server.wait_with_output().expect("output");
    let text = String::from_utf8_lossy(&out.stdout);
    let errors: Vec<&str> = text
        .lines()
        .filter(|l| serde_json::from_str::<Value>(l).is_ok_and(|l| l["level"] == "ERROR"))
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
}

/// A collector that answers every request 200 and keeps what was posted (path, body).
async fn collector() -> (u16, tokio::sync::mpsc::UnboundedReceiver<(String, Vec<u8>)>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok((mut conn, _)) = listener.accept().await {
            let tx = tx.clone();
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 8192];
                loop {
                    // One request per connection is enough for the exporter's posts.
                    let Ok(n) = conn.read(&mut chunk).await else {
                        return;
                    };
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
                        continue;
                    };
                    let head = String::from_utf8_lossy(&buf[..end]).to_string();
                    let length = head
                        .lines()
                        .find_map(|l| {
                            let (k, v) = l.split_once(':')?;
                            k.eq_ignore_ascii_case("content-length")
                                .then(|| v.trim().parse::<usize>().ok())
                                .flatten()
                        })
                        .unwrap_or(0);
                    if buf.len() < end + 4 + length {
                        continue;
                    }
                    let path = head
                        .split_whitespace()
                        .nth(1)
                        .unwrap_or_default()
                        .to_owned();
                    let _ = tx.send((path, buf[end + 4..end + 4 + length].to_vec()));
                    let _ = conn
                        .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                        .await;
                    return;
                }
            });
        }
    });
    (port, rx)
}

#[tokio::test]
async fn with_an_otlp_endpoint_the_spans_of_requests_are_exported() {
    let (collector_port, mut posts) = collector().await;
    let database = fresh_postgres().await;
    let port = free_port();
    let collector = format!("http://127.0.0.1:{collector_port}");
    let mut server = worp_serve_with(
        &database,
        port,
        &[
            ("WORP_OTLP_ENDPOINT", &collector),
            ("WORP_SHUTDOWN_GRACE_SECS", "0"),
            ("RUST_LOG", "info"),
            // No states kept: reading one replays the game.
            ("WORP_CACHE_STATES", "0"),
        ],
    );
    let address = format!("http://127.0.0.1:{port}");
    until_ready(&format!("{address}/readyz")).await;
    // A game written (a group commit) and an old state of it read (a replay).
    let client = reqwest::Client::new();
    let mut players = Vec::new();
    for name in ["tracer", "other"] {
        let player: Value = client
            .post(format!("{address}/v1/players"))
            .json(&json!({"name": name}))
            .send()
            .await
            .expect("register")
            .json()
            .await
            .expect("json");
        players.push(player);
    }
    let me = &players[0];
    let token = me["token"].as_str().expect("token");
    let game: Value = client
        .post(format!("{address}/v1/games"))
        .bearer_auth(token)
        .json(&json!({"variant": crate::play::two_seat_variant(), "seats": [me["id"], players[1]["id"]]}))
        .send()
        .await
        .expect("create")
        .json()
        .await
        .expect("json");
    let id = game["id"].as_str().expect("id");
    let taken = client
        .post(format!("{address}/v1/games/{id}/seats/1"))
        .bearer_auth(players[1]["token"].as_str().expect("token"))
        .send()
        .await
        .expect("take the seat");
    assert_eq!(taken.status(), 200);
    let old = client
        .get(format!("{address}/v1/games/{id}/state?at=1"))
        .send()
        .await
        .expect("state");
    assert_eq!(old.status(), 200);
    one_request_then_sigterm(&mut server, port, "trace-me-42").await;
    // The exporter sends its last batch as the process exits.
    let mut seen = Vec::new();
    while let Ok((path, body)) = posts.try_recv() {
        assert_eq!(path, "/v1/traces");
        seen.extend(body);
    }
    let text = String::from_utf8_lossy(&seen);
    assert!(
        text.contains("trace-me-42"),
        "no span of the request was exported"
    );
    assert!(text.contains("worp"), "no service name");
    for span in [
        "service.create_game",
        "store.group_commit",
        "service.replay",
    ] {
        assert!(text.contains(span), "no {span} span was exported");
    }
}
