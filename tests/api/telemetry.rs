//! What operators see: the request id round-trips, and the JSON log format is one JSON
//! object per line.

use std::process::Stdio;

use serde_json::Value;

use crate::helpers::{fresh_postgres, spawn_app, Backend};
use crate::shutdown::{exit_of, free_port, sigterm, until_ready};

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

#[tokio::test]
async fn the_json_log_format_is_one_object_per_line_with_the_request_id() {
    let database = fresh_postgres().await;
    let port = free_port();
    let mut server = std::process::Command::new(env!("CARGO_BIN_EXE_worp"))
        .arg("serve")
        .env("DATABASE_URL", &database)
        .env("WORP_BIND", "127.0.0.1")
        .env("WORP_PORT", port.to_string())
        .env("WORP_LOG_FORMAT", "json")
        .env("WORP_SHUTDOWN_GRACE_SECS", "0")
        .env("RUST_LOG", "info")
        .env_remove("PORT")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("worp serve starts");
    let address = format!("http://127.0.0.1:{port}");
    until_ready(&format!("{address}/readyz")).await;
    let resp = reqwest::Client::new()
        .get(format!("{address}/v1/variants"))
        .header("X-Request-Id", "find-me-in-the-log")
        .send()
        .await
        .expect("request");
    assert_eq!(resp.status(), 200);
    sigterm(&server);
    let (status, _) = exit_of(&mut server).await;
    assert!(status.success());
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
