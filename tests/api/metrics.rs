//! `GET /metrics`: each metric family moves when its cause happens, on the real server.
//! The recorder is one per process and the tests run side by side, so each test reads
//! a family before and after its cause and asserts it rose (never an exact value).

use std::time::Duration;

use serde_json::{json, Value};

use crate::helpers::{spawn_app, spawn_app_with, Backend, ManualClock, TestApp};
use crate::play::two_seat_variant;
use crate::settings::app_with;
use crate::webhooks::Answer;

/// The sum of the samples of `name` whose labels contain every one of `labels`
/// (`key="value"`), as `GET /metrics` shows them now.
async fn metric(app: &TestApp, name: &str, labels: &[&str]) -> f64 {
    let resp = app.get("/metrics").await;
    assert_eq!(resp.status(), 200);
    let text = resp.text().await.expect("text");
    sample_sum(&text, name, labels)
}

fn sample_sum(text: &str, name: &str, labels: &[&str]) -> f64 {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let (series, value) = l.rsplit_once(' ')?;
            let (metric, rest) = series.split_once('{').unwrap_or((series, ""));
            (metric == name && labels.iter().all(|x| rest.contains(x)))
                .then(|| value.parse::<f64>().ok())
                .flatten()
        })
        .sum()
}

/// Plays the first legal move of `game` (as `a` or `b`); the game after it.
async fn play(
    app: &TestApp,
    a: &crate::helpers::TestPlayer,
    b: &crate::helpers::TestPlayer,
    game: &Value,
) -> Value {
    let id = game["id"].as_str().expect("id");
    let who = if game["to_move"] == 0 { a } else { b };
    let mv = game["legal_moves"][0].clone();
    let resp = app
        .post(&format!("/v1/games/{id}/moves"), who, json!({"move": mv}))
        .await;
    assert_eq!(resp.status(), 200);
    resp.json().await.expect("json")
}

#[tokio::test]
async fn the_text_format_is_served_without_rate_limits() {
    let app = app_with(Backend::Sqlite, |s| {
        s.rate_limits = worp::ratelimit::Limits {
            per_token: 0,
            per_address: 2,
        }
    })
    .await;
    for _ in 0..5 {
        let resp = app.get("/metrics").await;
        assert_eq!(resp.status(), 200);
        assert!(resp.headers()["content-type"]
            .to_str()
            .expect("text")
            .starts_with("text/plain"));
    }
}

#[tokio::test]
async fn requests_are_counted_and_timed_by_route_and_status() {
    let app = spawn_app(Backend::Sqlite).await;
    let ok = [
        "route=\"/v1/games/{id}\"",
        "status=\"404\"",
        "method=\"GET\"",
    ];
    let before = metric(&app, "worp_http_requests_total", &ok).await;
    let timed = metric(&app, "worp_http_request_duration_seconds_count", &ok).await;
    let missing = format!("/v1/games/{}", uuid::Uuid::new_v4());
    assert_eq!(app.get(&missing).await.status(), 404);
    assert!(metric(&app, "worp_http_requests_total", &ok).await >= before + 1.0);
    assert!(metric(&app, "worp_http_request_duration_seconds_count", &ok).await >= timed + 1.0);
}

#[tokio::test]
async fn moves_group_commits_and_the_queue_are_measured() {
    let app = spawn_app(Backend::Postgres).await;
    let (a, b, game) = app.two_player_game(two_seat_variant()).await;
    let moves = metric(&app, "worp_moves_acknowledged_total", &[]).await;
    let batches = metric(&app, "worp_group_commit_batch_size_count", &[]).await;
    let commits = metric(&app, "worp_group_commit_seconds_count", &[]).await;
    play(&app, &a, &b, &game).await;
    assert!(metric(&app, "worp_moves_acknowledged_total", &[]).await >= moves + 1.0);
    assert!(metric(&app, "worp_group_commit_batch_size_count", &[]).await >= batches + 1.0);
    assert!(metric(&app, "worp_group_commit_seconds_count", &[]).await >= commits + 1.0);
    let text = app.get("/metrics").await.text().await.expect("text");
    assert!(text.contains("worp_group_commit_queue_depth"), "{text}");
}

#[tokio::test]
async fn the_state_cache_counts_hits_and_misses_and_replays_count_their_events() {
    let app = app_with(Backend::Sqlite, |s| s.cache_states = 1).await;
    let (_, _, first) = app.two_player_game(two_seat_variant()).await;
    let first = first["id"].as_str().expect("id").to_owned();
    let hits = metric(&app, "worp_state_cache_hits_total", &[]).await;
    let misses = metric(&app, "worp_state_cache_misses_total", &[]).await;
    let replays = metric(&app, "worp_replays_total", &[]).await;
    let events = metric(&app, "worp_replay_events_total", &[]).await;
    // The cache holds one table, and its history of evicted games one more: two more
    // games push the first one out of both, so reading it again replays its log.
    for _ in 0..2 {
        let (_, _, other) = app.two_player_game(two_seat_variant()).await;
        let other = other["id"].as_str().expect("id").to_owned();
        app.get_json(&format!("/v1/games/{other}")).await;
    }
    app.get_json(&format!("/v1/games/{first}")).await;
    assert!(metric(&app, "worp_state_cache_hits_total", &[]).await >= hits + 1.0);
    assert!(metric(&app, "worp_state_cache_misses_total", &[]).await >= misses + 1.0);
    assert!(metric(&app, "worp_replays_total", &[]).await >= replays + 1.0);
    assert!(metric(&app, "worp_replay_events_total", &[]).await >= events + 2.0);
}

#[tokio::test]
async fn open_live_streams_are_counted() {
    let app = spawn_app(Backend::Sqlite).await;
    let (_, _, game) = app.two_player_game(two_seat_variant()).await;
    let id = game["id"].as_str().expect("id");
    let mut streams = Vec::new();
    for _ in 0..3 {
        let mut s = app
            .client
            .get(app.url(&format!("/v1/games/{id}/stream")))
            .send()
            .await
            .expect("stream");
        s.chunk().await.expect("first bytes");
        streams.push(s);
    }
    assert!(metric(&app, "worp_sse_streams_open", &[]).await >= 3.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_deliveries_are_counted_by_outcome() {
    let app = spawn_app(Backend::Sqlite).await;
    let (a, b, game) = app.two_player_game(two_seat_variant()).await;
    // A receiver of the test's own that is always busy: each attempt is to be retried.
    // (A closed port chosen by binding and letting go could be taken by another test's
    // server meanwhile, whose answers the test does not control.)
    let (url, hits) = crate::webhooks::receiver(Answer::Status(503, "busy"), Duration::ZERO).await;
    let mut hooks = Vec::new();
    for who in [&a, &b] {
        let resp = app
            .post("/v1/players/me/webhooks", who, json!({"url": url}))
            .await;
        assert_eq!(resp.status(), 201);
        let hook: Value = resp.json().await.expect("json");
        hooks.push(hook["id"].as_str().expect("id").to_owned());
    }
    let pending = ["outcome=\"pending\""];
    let before = metric(&app, "worp_webhook_deliveries_total", &pending).await;
    let timed = metric(&app, "worp_webhook_delivery_seconds_count", &pending).await;
    // Moves until the turn passes (that sends a notice): with some rolls a player moves
    // twice in a row, and a single move sent none (the test's one failure, twice).
    let first = game["to_move"].clone();
    let mut game = game;
    for _ in 0..20 {
        game = play(&app, &a, &b, &game).await;
        if game["to_move"] != first || game["status"] != "active" {
            break;
        }
    }
    assert!(
        game["to_move"] != first || game["status"] != "active",
        "the turn never passed: {game}"
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while metric(&app, "worp_webhook_deliveries_total", &pending).await < before + 1.0 {
        if std::time::Instant::now() > deadline {
            let mut logs = Vec::new();
            for (who, hook) in [&a, &b].into_iter().zip(&hooks) {
                let path = format!("/v1/players/me/webhooks/{hook}/deliveries");
                logs.push(app.get_json_as(&path, who).await);
            }
            panic!(
                "no attempt was counted; the receiver had {} requests; the logs: {logs:?}",
                hits.lock().map(|h| h.len()).unwrap_or(0),
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(metric(&app, "worp_webhook_delivery_seconds_count", &pending).await >= timed + 1.0);
}

#[tokio::test]
async fn deadline_sweeps_and_time_outs_are_counted() {
    let clock = ManualClock::new();
    let app = spawn_app_with(Backend::Sqlite, clock.clone()).await;
    let (a, b) = (app.player("a").await, app.player("b").await);
    let game = app
        .create_from(
            &a,
            json!({"variant": two_seat_variant(), "seats": [a.id, b.id], "days_per_move": 1}),
        )
        .await;
    assert_eq!(game["status"], "active", "{game}");
    let sweeps = metric(&app, "worp_deadline_sweeps_total", &[]).await;
    let timeouts = metric(&app, "worp_deadline_timeouts_total", &[]).await;
    clock.advance(chrono::Duration::days(3));
    assert_eq!(app.worp.sweep_deadlines().await.expect("sweep"), 1);
    assert!(metric(&app, "worp_deadline_sweeps_total", &[]).await >= sweeps + 1.0);
    assert!(metric(&app, "worp_deadline_timeouts_total", &[]).await >= timeouts + 1.0);
}

#[tokio::test]
async fn bots_moves_are_counted() {
    let app = spawn_app(Backend::Sqlite).await;
    let me = app.player("me").await;
    let before = metric(&app, "worp_bot_moves_total", &[]).await;
    let mut game: Value = app
        .post(
            "/v1/games",
            &me,
            json!({"variant": two_seat_variant(), "seats": [me.id, {"bot": "random"}]}),
        )
        .await
        .json()
        .await
        .expect("json");
    // Play until the bot has moved (it moves as soon as it is its turn).
    let id = game["id"].as_str().expect("id").to_owned();
    for _ in 0..50 {
        if metric(&app, "worp_bot_moves_total", &[]).await >= before + 1.0
            || game["status"] != "active"
        {
            break;
        }
        let mv = game["legal_moves"][0].clone();
        game = app
            .post(&format!("/v1/games/{id}/moves"), &me, json!({"move": mv}))
            .await
            .json()
            .await
            .expect("json");
    }
    assert!(metric(&app, "worp_bot_moves_total", &[]).await >= before + 1.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pool_is_shown_and_database_refusals_are_counted() {
    let app = spawn_app(Backend::Postgres).await;
    assert!(metric(&app, "worp_db_connections_open", &[]).await >= 1.0);
    let text = app.get("/metrics").await.text().await.expect("text");
    assert!(text.contains("worp_db_connections_in_use"), "{text}");
    let before = metric(&app, "worp_db_unavailable_total", &[]).await;
    let db = crate::faults::database_of(&app).await;
    crate::faults::database_away(&db, true).await;
    let missing = format!("/v1/games/{}", uuid::Uuid::new_v4());
    let status = app.get(&missing).await.status();
    crate::faults::database_away(&db, false).await;
    assert_eq!(status, 503);
    assert!(metric(&app, "worp_db_unavailable_total", &[]).await >= before + 1.0);
}

#[tokio::test]
async fn rate_limit_refusals_are_counted() {
    let app = app_with(Backend::Sqlite, |s| {
        s.rate_limits = worp::ratelimit::Limits {
            per_token: 0,
            per_address: 3,
        }
    })
    .await;
    let before = metric(&app, "worp_rate_limited_total", &[]).await;
    let mut refused = false;
    for _ in 0..6 {
        refused |= app.get("/v1/variants").await.status() == 429;
    }
    assert!(refused);
    assert!(metric(&app, "worp_rate_limited_total", &[]).await >= before + 1.0);
}

#[test]
fn samples_are_summed_over_the_matching_series() {
    let text = "# TYPE x counter\nx{a=\"1\",b=\"2\"} 3\nx{a=\"1\",b=\"3\"} 4\nxy 9\nx 1\n";
    assert_eq!(sample_sum(text, "x", &["a=\"1\""]), 7.0);
    assert_eq!(sample_sum(text, "x", &[]), 8.0);
    assert_eq!(sample_sum(text, "x", &["b=\"3\""]), 4.0);
}

/// The series of `name` in `text`, one per label set.
fn series_count(text: &str, name: &str) -> usize {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter(|l| l.split_once('{').is_some_and(|(m, _)| m == name))
        .count()
}

/// Invented methods and paths must not add label values without bound: 5,000 invented
/// methods once grew `/metrics` from 21.6 KB to 9 MB.
#[tokio::test]
async fn invented_methods_and_paths_add_no_series() {
    let app = spawn_app(Backend::Sqlite).await;
    let scrape = || async { app.get("/metrics").await.text().await.expect("text") };
    // Once each of what the flood below may legitimately add (its `other` and
    // `unmatched` series), so that only unbounded labels could grow the count.
    let resp = app
        .client
        .request(
            reqwest::Method::from_bytes(b"M0").expect("method"),
            app.url("/v1/no-such-0"),
        )
        .send()
        .await
        .expect("request");
    assert_eq!(resp.status(), 404);
    let before = series_count(&scrape().await, "worp_http_requests_total");
    for i in 1..=1000 {
        let resp = app
            .client
            .request(
                reqwest::Method::from_bytes(format!("M{i}").as_bytes()).expect("method"),
                app.url(&format!("/v1/no-such-{i}/{i}")),
            )
            .send()
            .await
            .expect("request");
        assert_eq!(resp.status(), 404);
    }
    let text = scrape().await;
    let after = series_count(&text, "worp_http_requests_total");
    // Other tests of this process may add a few series of their own meanwhile.
    assert!(
        after < before + 50,
        "1,000 invented methods and paths grew the series from {before} to {after}"
    );
    assert!(text.contains("method=\"other\""), "{text}");
    assert!(
        !text.contains("method=\"M17\""),
        "an invented method is a label value"
    );
}

/// Every family is shown from start-up, at zero until its cause happens: a dashboard
/// once showed "no data" for 10 of the 21 families of a server that had not yet met
/// their cause.
#[tokio::test]
async fn every_family_is_shown_from_start_up() {
    let (database, _dir) = crate::helpers::fresh_database(Backend::Sqlite).await;
    let server = crate::faults::start_server(&database, crate::faults::free_port()).await;
    let text = scrape(&server.url).await;
    for name in worp::telemetry::metrics::NAMES {
        let shown = text.lines().any(|l| {
            !l.starts_with('#')
                && l.strip_prefix(name)
                    .is_some_and(|rest| rest.starts_with(['{', ' ', '_']))
        });
        assert!(shown, "{name} is not shown at start-up:\n{text}");
    }
    assert_eq!(sample_sum(&text, "worp_bot_moves_total", &[]), 0.0);
    assert_eq!(
        sample_sum(
            &text,
            "worp_webhook_deliveries_total",
            &["outcome=\"failed\""]
        ),
        0.0
    );
}

/// A move seen by 1,000 streams of one process costs no read of the log per watcher,
/// and neither does opening them: the game is read to its end before a stream starts,
/// and the change brings its events, as the store wrote them (each stream read the log
/// twice for every move once: 2,000 reads; then once as it opened: 1,000).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_watched_by_a_thousand_streams_reads_the_log_for_none_of_them() {
    const WATCHERS: usize = 1_000;
    // This process holds a socket for each stream.
    worp::admission::raise_open_file_limit();
    let (database, _dir) = crate::helpers::fresh_database(Backend::Sqlite).await;
    let server = crate::faults::start_server_with(
        &database,
        crate::faults::free_port(),
        &[
            ("WORP_SSE_KEEPALIVE_SECS", "600"),
            ("WORP_STREAMS_PER_ADDRESS", "0"),
            ("WORP_CONNECTIONS_PER_ADDRESS", "0"),
        ],
    )
    .await;
    let client = reqwest::Client::new();
    let url = server.url.clone();
    let a = crate::faults::player(&client, &url, "ann").await;
    let b = crate::faults::player(&client, &url, "bo").await;
    let game = crate::faults::game(&client, &url, &[a.clone(), b.clone()]).await;
    let id = game["id"].as_str().expect("id").to_owned();
    assert_eq!(game["status"], "active", "{game}");
    let mut streams = Vec::new();
    for _ in 0..WATCHERS / 100 {
        let opened = futures_util::future::join_all((0..100).map(|_| async {
            let mut s = client
                .get(format!("{url}/v1/games/{id}/stream"))
                .send()
                .await
                .expect("stream");
            // Its first comment: the stream waits for changes.
            crate::correspondence::read_sse(&mut s, |m| !m.is_empty()).await;
            s
        }))
        .await;
        streams.extend(opened);
    }
    let reads = || async { sample_sum(&scrape(&url).await, "worp_sse_log_reads_total", &[]) };
    let open = sample_sum(&scrape(&url).await, "worp_sse_streams_open", &[]);
    assert_eq!(open, WATCHERS as f64, "streams open");
    let before = reads().await;
    assert_eq!(before, 0.0, "reads of the log as the streams opened");
    let who = if game["to_move"] == 0 { &a } else { &b };
    let resp = client
        .post(format!("{url}/v1/games/{id}/moves"))
        .bearer_auth(&who.token)
        .json(&json!({"move": game["legal_moves"][0].clone()}))
        .send()
        .await
        .expect("move");
    assert_eq!(resp.status(), 200);
    let after_move: Value = resp.json().await.expect("json");
    let version = after_move["version"].as_i64().expect("version").to_string();
    for s in &mut streams {
        crate::correspondence::read_sse(s, |m| m.iter().any(|x| x.0 == version)).await;
    }
    assert_eq!(reads().await, before, "reads of the log for one move");
}

/// `GET /metrics` of the server at `url`, as text.
async fn scrape(url: &str) -> String {
    reqwest::get(format!("{url}/metrics"))
        .await
        .expect("scrape")
        .text()
        .await
        .expect("text")
}
