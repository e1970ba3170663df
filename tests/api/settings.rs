//! Every setting of `Settings` takes effect in the app `Application::build` makes (the
//! same build `worp serve` runs): each test sets one to a value other than the test
//! default and watches the server behave accordingly.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use worp::clock::SystemClock;

use crate::helpers::{
    fresh_database, spawn_app_from, test_settings, Backend, ManualClock, TempDir, TestApp,
};

pub async fn app_with(
    backend: Backend,
    change: impl FnOnce(&mut worp::configuration::Settings),
) -> TestApp {
    let (url, dir) = fresh_database(backend).await;
    let mut settings = test_settings(url);
    change(&mut settings);
    spawn_app_from(settings, Arc::new(SystemClock), dir).await
}

#[tokio::test]
async fn the_database_url_chooses_the_backend() {
    for (backend, name) in [(Backend::Postgres, "postgres"), (Backend::Sqlite, "sqlite")] {
        let app = app_with(backend, |_| {}).await;
        let health = app.get_json("/healthz").await;
        assert_eq!(health["database"], name);
    }
}

#[tokio::test]
async fn without_a_database_url_the_sqlite_file_is_where_the_setting_says() {
    let dir = std::env::temp_dir().join(format!("worp-settings-{}", uuid::Uuid::new_v4().simple()));
    let file = dir.join("nested").join("games.sqlite");
    let mut settings = test_settings(String::new());
    settings.database_url = None;
    settings.sqlite_path = file.display().to_string();
    let app = spawn_app_from(settings, Arc::new(SystemClock), Some(TempDir(dir))).await;
    app.player("a").await;
    assert!(file.exists(), "{} was not created", file.display());
}

#[tokio::test]
async fn the_server_listens_on_the_bind_address_and_port() {
    let free = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = free.local_addr().expect("addr").port();
    drop(free);
    let app = app_with(Backend::Sqlite, |s| {
        s.bind = [127, 0, 0, 1].into();
        s.port = port;
    })
    .await;
    assert_eq!(app.address, format!("http://127.0.0.1:{port}"));
    assert_eq!(app.get("/healthz").await.status(), 200);
}

#[tokio::test]
async fn only_the_configured_origins_may_call_from_a_browser() {
    let app = app_with(Backend::Sqlite, |s| {
        s.cors_origins = vec!["https://club.example".into()];
    })
    .await;
    let allowed = |origin: &'static str| {
        let app = &app;
        async move {
            let resp = app
                .client
                .get(app.url("/v1/variants"))
                .header("origin", origin)
                .send()
                .await
                .expect("request");
            resp.headers()
                .get("access-control-allow-origin")
                .map(|v| v.to_str().unwrap_or_default().to_owned())
        }
    };
    assert_eq!(
        allowed("https://club.example").await.as_deref(),
        Some("https://club.example")
    );
    // The test default's origin is not allowed here.
    assert_eq!(allowed("https://front.example").await, None);
}

#[tokio::test]
async fn a_body_over_the_limit_is_refused_with_413() {
    let app = app_with(Backend::Sqlite, |s| s.body_limit = 1024).await;
    let name = "x".repeat(2000);
    let resp = app
        .client
        .post(app.url("/v1/players"))
        .json(&json!({ "name": name }))
        .send()
        .await
        .expect("request");
    assert_eq!(resp.status(), 413);
    // Under the limit the same route answers as usual.
    app.player("short").await;
}

#[tokio::test]
async fn the_cache_and_the_pool_have_the_configured_sizes() {
    let app = app_with(Backend::Postgres, |s| {
        s.cache_states = 7;
        s.db_connections = 3;
    })
    .await;
    assert_eq!(app.worp.cache().capacity(), 7);
    assert_eq!(app.store.max_connections(), 3);
}

#[tokio::test]
async fn the_deadline_sweep_runs_at_the_configured_interval() {
    let clock = ManualClock::new();
    let (url, dir) = fresh_database(Backend::Sqlite).await;
    let mut settings = test_settings(url);
    settings.sweep_interval = Duration::from_secs(1);
    let app = spawn_app_from(settings, clock.clone(), dir).await;
    let (a, b) = (app.player("a").await, app.player("b").await);
    let game = app
        .create_from(
            &a,
            json!({"variant": "backgammon", "seats": [a.id, b.id], "days_per_move": 1}),
        )
        .await;
    let id = game["id"].as_str().expect("id").to_owned();
    clock.advance(chrono::Duration::days(2));
    // The test default sweeps once an hour: only the setting can end the game this soon.
    let until = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let now = app.get_json(&format!("/v1/games/{id}")).await;
        if now["status"] == "finished" {
            break;
        }
        assert!(tokio::time::Instant::now() < until, "not timed out: {now}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_quiet_stream_gets_keep_alives_at_the_configured_interval() {
    let app = app_with(Backend::Sqlite, |s| {
        s.sse_keepalive = Duration::from_millis(100);
    })
    .await;
    let (_, _, game) = app.two_player_game("backgammon").await;
    let id = game["id"].as_str().expect("id");
    let mut resp = app
        .client
        .get(app.url(&format!("/v1/games/{id}/stream")))
        .send()
        .await
        .expect("stream");
    let until = tokio::time::Instant::now() + Duration::from_millis(1500);
    let mut text = String::new();
    while let Ok(Ok(Some(chunk))) = tokio::time::timeout_at(until, resp.chunk()).await {
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    // Every 100 ms: about 15 in 1.5 s. The test default (500 ms) gives at most 3.
    let keepalives = text.matches(": keep-alive").count();
    assert!(keepalives >= 5, "{keepalives} keep-alives in 1.5 s");
}

#[tokio::test]
async fn failed_webhook_deliveries_are_retried_after_the_configured_backoff() {
    let app = app_with(Backend::Sqlite, |s| {
        s.webhooks.base_backoff = Duration::from_millis(100);
        s.webhooks.poll = Duration::from_millis(50);
    })
    .await;
    // A port nothing listens on: every attempt fails.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = closed.local_addr().expect("addr").port();
    drop(closed);
    let (a, b) = (app.player("a").await, app.player("b").await);
    let hook = app
        .post(
            "/v1/players/me/webhooks",
            &b,
            json!({"url": format!("http://127.0.0.1:{port}/hook")}),
        )
        .await;
    assert_eq!(hook.status(), 201);
    let hook: Value = hook.json().await.expect("json");
    let hook_id = hook["id"].as_str().expect("id").to_owned();
    let game = app
        .create(&a, "backgammon", Value::Null, vec![Some(a.id), Some(b.id)])
        .await;
    // A game that ends tells every seated player.
    let id = game["id"].as_str().expect("id");
    let resign = app
        .post(&format!("/v1/games/{id}/resign"), &a, Value::Null)
        .await;
    assert_eq!(resign.status(), 200);
    // With the default backoff (10 s, doubling) a third attempt takes 30 s.
    let until = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let log = app
            .get_json_as(&format!("/v1/players/me/webhooks/{hook_id}/deliveries"), &b)
            .await;
        let attempts = log
            .as_array()
            .and_then(|d| d.iter().filter_map(|d| d["attempts"].as_i64()).max())
            .unwrap_or(0);
        if attempts >= 3 {
            break;
        }
        assert!(tokio::time::Instant::now() < until, "{log}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_token_over_the_configured_rate_gets_429() {
    let app = app_with(Backend::Sqlite, |s| {
        s.rate_limits.per_token = 5;
    })
    .await;
    let a = app.player("a").await;
    let mut statuses = Vec::new();
    for _ in 0..7 {
        let resp = app
            .client
            .get(app.url("/v1/players/me"))
            .bearer_auth(&a.token)
            .send()
            .await
            .expect("request");
        statuses.push(resp.status().as_u16());
    }
    assert_eq!(&statuses[..5], &[200; 5]);
    assert_eq!(statuses[5], 429, "{statuses:?}");
}

#[tokio::test]
async fn the_metrics_bind_serves_metrics_on_their_own_address_only() {
    let app = app_with(Backend::Sqlite, |s| {
        s.metrics_bind = Some(([127, 0, 0, 1], 0).into());
    })
    .await;
    let own = app.metrics_address.clone().expect("an address of its own");
    assert_ne!(own, app.address);
    let resp = app
        .client
        .get(format!("{own}/metrics"))
        .send()
        .await
        .expect("scrape");
    assert_eq!(resp.status(), 200);
    assert!(resp.text().await.expect("text").contains("worp_"));
    assert_eq!(
        app.get("/metrics").await.status(),
        404,
        "not on the API's address"
    );
    // Without the setting, the API serves them.
    let app = app_with(Backend::Sqlite, |_| {}).await;
    assert!(app.metrics_address.is_none());
    assert_eq!(app.get("/metrics").await.status(), 200);
}

/// The threads named as actix-web names its workers in process `pid`.
fn http_workers(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .expect("the server's threads")
        .filter_map(Result::ok)
        .filter_map(|t| std::fs::read_to_string(t.path().join("comm")).ok())
        .filter(|name| name.starts_with("actix-server wo"))
        .count()
}

/// `WORP_WORKERS` sets the threads that serve HTTP (one by default: every change of the
/// process then shares the fewest commits); a value out of 1 to 64 stops the server
/// with a message naming the setting.
#[tokio::test]
async fn the_server_runs_the_configured_number_of_http_workers() {
    use crate::shutdown::{free_port, until_ready, worp_command};
    let (url, _dir) = fresh_database(Backend::Sqlite).await;
    for (setting, expected) in [(None, 1), (Some("3"), 3)] {
        let port = free_port();
        let env: Vec<(&str, &str)> = setting.map(|n| ("WORP_WORKERS", n)).into_iter().collect();
        let mut server = worp_command(&url, port, &env)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("worp serve starts");
        until_ready(&format!("http://127.0.0.1:{port}/readyz")).await;
        let workers = http_workers(server.id());
        let _ = server.kill();
        let _ = server.wait();
        assert_eq!(workers, expected, "WORP_WORKERS={setting:?}");
    }
    for bad in ["0", "65", "many"] {
        let out = worp_command(&url, free_port(), &[("WORP_WORKERS", bad)])
            .output()
            .expect("worp serve runs");
        assert!(!out.status.success(), "WORP_WORKERS={bad} was accepted");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("WORP_WORKERS"),
            "WORP_WORKERS={bad}: {stderr}"
        );
    }
}
