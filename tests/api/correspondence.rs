//! Correspondence play: bots, clocks, the inbox, live streams (also across two server
//! processes) and webhooks.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use worp_engine::playout::SplitMix64;

use crate::helpers::{
    spawn_app, spawn_app_with, Backend, ManualClock, TestApp, TestPlayer, BACKENDS,
};
use crate::play::two_seat_variant;

async fn move_for(
    app: &TestApp,
    id: &str,
    who: &TestPlayer,
    game: &Value,
    rng: &mut SplitMix64,
) -> Value {
    let moves = game["legal_moves"].as_array().expect("moves");
    let mv = moves[rng.below(moves.len())].clone();
    let resp = app
        .post(&format!("/v1/games/{id}/moves"), who, json!({"move": mv}))
        .await;
    assert_eq!(resp.status(), 200);
    resp.json().await.expect("json")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_plays_every_game_against_the_computer() {
    let app = spawn_app(Backend::Sqlite).await;
    let me = app.player("me").await;
    let mut rng = SplitMix64(11);
    for (k, v) in worp_engine::variants().iter().enumerate() {
        let bot = if k % 2 == 0 { "greedy" } else { "random" };
        let mut seats = vec![json!(me.id)];
        for _ in 1..v.min_seats {
            seats.push(json!({"bot": bot}));
        }
        let resp = app
            .post("/v1/games", &me, json!({"variant": v.name, "seats": seats}))
            .await;
        assert_eq!(resp.status(), 201);
        let mut game: Value = resp.json().await.expect("json");
        assert_eq!(game["status"], "active", "bots take their seats at once");
        assert_eq!(game["seats"][1]["bot"], bot);
        let id = game["id"].as_str().expect("id").to_owned();
        for _ in 0..20_000 {
            if game["status"] == "finished" {
                break;
            }
            // Whenever the server answers, it is the person's turn (bots have moved).
            assert_eq!(game["to_move"], 0, "{}: {game}", v.name);
            game = move_for(&app, &id, &me, &game, &mut rng).await;
        }
        assert_eq!(game["status"], "finished", "{}", v.name);
        let events = app.events(&id).await;
        let bot_moves = events
            .iter()
            .filter(|e| e["type"] == "move_played" && e["payload"]["seat"] != 0)
            .count();
        assert!(
            bot_moves > 0,
            "{}: the bot moved through the event log",
            v.name
        );
        let x: worp::export::Export =
            serde_json::from_value(app.get_json(&format!("/v1/games/{id}/export")).await)
                .expect("export");
        worp::export::audit_export(&x).expect("audits");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_greedy_bot_beats_the_random_bot_more_often_than_not() {
    // Bot against bot through the same path: a person seat that resigns at once would end
    // the game, so pit them inside the engine with the same chooser the server uses.
    use worp::bots::{choose, BotKind};
    for v in worp_engine::variants() {
        let mut greedy_wins = 0;
        let mut decided = 0;
        for g in 0..200u64 {
            let mut game = v.create(&Value::Null, 2).expect("game");
            let mut rng = SplitMix64(g * 7 + 1);
            for _ in 0..100_000 {
                match game.awaiting() {
                    worp_engine::Awaiting::Finished { result } => {
                        if let Some(w) = result.winner {
                            decided += 1;
                            // Seat (g % 2) is greedy.
                            if u64::from(w.0) == g % 2 {
                                greedy_wins += 1;
                            }
                        }
                        break;
                    }
                    worp_engine::Awaiting::Dice { die, count, .. } => {
                        let values: Vec<u8> = (0..count).map(|_| rng.roll(&die)).collect();
                        game.apply_dice(&values).expect("dice");
                    }
                    worp_engine::Awaiting::Move { seat } => {
                        let kind = if u64::from(seat.0) == g % 2 {
                            BotKind::Greedy
                        } else {
                            BotKind::Random
                        };
                        let i = choose(kind, game.as_ref(), seat, 2, rng.next_u64())
                            .expect("legal moves")
                            .expect("a move");
                        let mv = game.legal_moves().expect("legal moves")[i].clone();
                        game.apply_move(&mv).expect("move");
                    }
                }
            }
        }
        assert!(decided > 0, "{}", v.name);
        assert!(
            greedy_wins * 2 > decided,
            "{}: greedy won {greedy_wins} of {decided}",
            v.name
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_that_runs_out_of_time_retires() {
    for backend in BACKENDS {
        let clock = ManualClock::new();
        let app = spawn_app_with(backend, clock.clone()).await;
        let (a, b, c) = (
            app.player("a").await,
            app.player("b").await,
            app.player("c").await,
        );
        let bad = app
            .post(
                "/v1/games",
                &a,
                json!({"variant": two_seat_variant(), "seats": [a.id, b.id], "days_per_move": 4}),
            )
            .await;
        assert_eq!(bad.status(), 400);

        // Two seats: the other seat wins.
        let game = app
            .create_from(
                &a,
                json!({"variant": two_seat_variant(), "seats": [a.id, b.id], "days_per_move": 2}),
            )
            .await;
        let id = game["id"].as_str().expect("id").to_owned();
        let deadline: chrono::DateTime<chrono::Utc> =
            serde_json::from_value(game["deadline"].clone()).expect("a deadline");
        let to_move = game["to_move"].as_u64().expect("to move");
        let mover = if to_move == 0 { &a } else { &b };
        let inbox: Value = app
            .get_json_as("/v1/players/me/games?my_turn=true", mover)
            .await;
        assert_eq!(inbox["games"][0]["deadline"], game["deadline"]);
        clock.advance(chrono::Duration::days(2) - chrono::Duration::seconds(1));
        assert_eq!(
            app.worp.sweep_deadlines().await.expect("sweep"),
            0,
            "not yet"
        );
        clock.advance(chrono::Duration::seconds(2));
        assert!(
            chrono::Utc::now() < deadline,
            "the manual clock, not the wall clock, decides"
        );
        assert_eq!(app.worp.sweep_deadlines().await.expect("sweep"), 1);
        assert_eq!(
            app.worp.sweep_deadlines().await.expect("sweep"),
            0,
            "a second sweep is a no-op"
        );
        let end = app.get_json(&format!("/v1/games/{id}")).await;
        assert_eq!(end["status"], "finished");
        assert_eq!(end["result"]["winner"], 1 - to_move);
        assert_eq!(end["reason"], "timed_out");
        let events = app.events(&id).await;
        let retired = events
            .iter()
            .find(|e| e["type"] == "seat_retired")
            .expect("a time-out event");
        assert_eq!(retired["payload"]["reason"], "timed_out");
        assert_eq!(retired["payload"]["seat"], to_move);

        // More seats: the timed-out seat retires and the others play on.
        let three = worp_engine::variants()
            .iter()
            .find(|v| v.max_seats >= 3)
            .expect("a game for three");
        let game = app
            .create_from(
                &a,
                json!({"variant": three.name, "seats": [a.id, b.id, c.id], "days_per_move": 1}),
            )
            .await;
        let id = game["id"].as_str().expect("id").to_owned();
        let first = game["to_move"].as_u64().expect("to move");
        clock.advance(chrono::Duration::days(1) + chrono::Duration::seconds(1));
        assert_eq!(app.worp.sweep_deadlines().await.expect("sweep"), 1);
        let after = app.get_json(&format!("/v1/games/{id}")).await;
        assert_eq!(after["status"], "active");
        assert_eq!(after["seats"][first as usize]["retired"], true);
        assert_ne!(after["to_move"], first);
        assert!(after["deadline"].is_string());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_inbox_answers_304_until_something_changes() {
    let app = spawn_app(Backend::Sqlite).await;
    let (a, b, game) = app.two_player_game(two_seat_variant()).await;
    let id = game["id"].as_str().expect("id").to_owned();
    let mover = if game["to_move"] == 0 { &a } else { &b };
    let get = |etag: Option<String>| {
        let mut r = app
            .client
            .get(app.url("/v1/players/me/games"))
            .bearer_auth(&a.token);
        if let Some(e) = etag {
            r = r.header("If-None-Match", e);
        }
        r.send()
    };
    let first = get(None).await.expect("r");
    assert_eq!(first.status(), 200);
    let etag = first
        .headers()
        .get("etag")
        .and_then(|v| v.to_str().ok())
        .expect("etag")
        .to_owned();
    let page: Value = first.json().await.expect("json");
    assert_eq!(page["games"][0]["id"], id.as_str());
    assert_eq!(get(Some(etag.clone())).await.expect("r").status(), 304);
    let mut rng = SplitMix64(3);
    move_for(&app, &id, mover, &game, &mut rng).await;
    assert_eq!(get(Some(etag)).await.expect("r").status(), 200);
    let me = app.get_json_as("/v1/players/me", &a).await;
    assert_eq!(me["id"], a.id.to_string());
    assert_eq!(me["name"], "a");
    let unauthorised = app.get("/v1/players/me/games").await;
    assert_eq!(unauthorised.status(), 401);
}

/// Reads SSE messages from a response until `want` says stop (or 20 s pass).
pub(crate) async fn read_sse(
    resp: &mut reqwest::Response,
    mut want: impl FnMut(&[(String, String, String)]) -> bool,
) -> Vec<(String, String, String)> {
    let mut buf = String::new();
    let mut messages = Vec::new();
    let until = tokio::time::Instant::now() + Duration::from_secs(20);
    while !want(&messages) {
        let chunk = tokio::time::timeout_at(until, resp.chunk())
            .await
            .expect("stream timed out")
            .expect("chunk");
        let Some(chunk) = chunk else { break };
        buf.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buf.find("\n\n") {
            let block: String = buf.drain(..end + 2).collect();
            let (mut id, mut event, mut data) = (String::new(), String::new(), String::new());
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("id: ") {
                    id = v.to_owned();
                } else if let Some(v) = line.strip_prefix("event: ") {
                    event = v.to_owned();
                } else if let Some(v) = line.strip_prefix("data: ") {
                    data = v.to_owned();
                } else if line.starts_with(':') {
                    event = "comment".into();
                }
            }
            messages.push((id, event, data));
        }
    }
    messages
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_streams_carry_new_events_resume_and_keep_alive() {
    let app = spawn_app(Backend::Sqlite).await;
    let (a, b, game) = app.two_player_game(two_seat_variant()).await;
    let id = game["id"].as_str().expect("id").to_owned();
    let version = game["version"].as_i64().expect("version");
    let mover = if game["to_move"] == 0 {
        a.clone()
    } else {
        b.clone()
    };
    let waiter = if game["to_move"] == 0 {
        b.clone()
    } else {
        a.clone()
    };

    let mut stream = app
        .client
        .get(app.url(&format!("/v1/games/{id}/stream")))
        .send()
        .await
        .expect("r");
    assert_eq!(stream.status(), 200);
    let mut mine = app
        .client
        .get(app.url("/v1/players/me/stream"))
        .bearer_auth(&waiter.token)
        .send()
        .await
        .expect("r");
    // Idle: keep-alive comments.
    let idle = read_sse(&mut stream, |m| {
        m.iter().filter(|x| x.1 == "comment").count() >= 2
    })
    .await;
    assert!(idle.iter().all(|m| m.1 == "comment"));

    let mut rng = SplitMix64(8);
    let after = move_for(&app, &id, &mover, &game, &mut rng).await;
    let new_version = after["version"].as_i64().expect("version");
    let msgs = read_sse(&mut stream, |m| {
        m.iter().any(|x| x.0 == new_version.to_string())
    })
    .await;
    let events: Vec<_> = msgs.iter().filter(|m| m.1 != "comment").collect();
    assert_eq!(
        events.first().map(|m| m.0.clone()),
        Some((version + 1).to_string())
    );
    assert_eq!(events.first().map(|m| m.1.as_str()), Some("move_played"));
    let data: Value = serde_json::from_str(&events[0].2).expect("data");
    assert_eq!(data["seq"], version + 1);
    if after["to_move_player"].is_null()
        && after["to_move"].as_u64() == game["to_move"].as_u64().map(|t| 1 - t)
    {
        // The other seat's turn now: the waiting player's stream says so.
        let turn = read_sse(&mut mine, |m| m.iter().any(|x| x.1 == "your_turn")).await;
        let t = turn.iter().find(|x| x.1 == "your_turn").expect("your_turn");
        let payload: Value = serde_json::from_str(&t.2).expect("json");
        assert_eq!(payload["game_id"], id.as_str());
    }

    // Resume: Last-Event-ID replays what was missed.
    let mut resumed = app
        .client
        .get(app.url(&format!("/v1/games/{id}/stream")))
        .header("Last-Event-ID", "1")
        .send()
        .await
        .expect("r");
    let again = read_sse(&mut resumed, |m| {
        m.iter().any(|x| x.0 == new_version.to_string())
    })
    .await;
    let ids: Vec<i64> = again.iter().filter_map(|m| m.0.parse().ok()).collect();
    assert_eq!(ids, (2..=new_version).collect::<Vec<_>>());
    let bad = app
        .client
        .get(app.url(&format!("/v1/games/{id}/stream")))
        .header("Last-Event-ID", "soon")
        .send()
        .await
        .expect("r");
    assert_eq!(bad.status(), 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_on_one_process_sees_moves_made_through_another() {
    // Two real `worp serve` processes on one PostgreSQL database.
    let (url, _dir) = crate::helpers::fresh_database(Backend::Postgres).await;
    let mut servers = Vec::new();
    let mut ports = Vec::new();
    for _ in 0..2 {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .expect("bind")
            .local_addr()
            .expect("addr")
            .port();
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_worp"))
            .arg("serve")
            .env("DATABASE_URL", &url)
            .env("PORT", port.to_string())
            .env("WORP_SSE_KEEPALIVE_SECS", "1")
            .env("RUST_LOG", "warn")
            .spawn()
            .expect("start worp serve");
        servers.push(KillOnDrop(child));
        ports.push(port);
    }
    let client = reqwest::Client::new();
    let base = |i: usize| format!("http://127.0.0.1:{}", ports[i]);
    for i in 0..2 {
        let mut ok = false;
        for _ in 0..100 {
            if client
                .get(format!("{}/healthz", base(i)))
                .send()
                .await
                .is_ok_and(|r| r.status() == 200)
            {
                ok = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert!(ok, "server {i} did not start");
    }
    let mut players = Vec::new();
    for name in ["a", "b"] {
        let p: Value = client
            .post(format!("{}/v1/players", base(1)))
            .json(&json!({"name": name}))
            .send()
            .await
            .expect("r")
            .json()
            .await
            .expect("json");
        players.push(p);
    }
    let game: Value = client
        .post(format!("{}/v1/games", base(1)))
        .bearer_auth(players[0]["token"].as_str().expect("token"))
        .json(
            &json!({"variant": two_seat_variant(), "seats": [players[0]["id"], players[1]["id"]]}),
        )
        .send()
        .await
        .expect("r")
        .json()
        .await
        .expect("json");
    let id = game["id"].as_str().expect("id");
    // The invited player accepts, through the other process.
    let game: Value = client
        .post(format!("{}/v1/games/{id}/seats/1", base(0)))
        .bearer_auth(players[1]["token"].as_str().expect("token"))
        .send()
        .await
        .expect("r")
        .json()
        .await
        .expect("json");
    assert_eq!(game["status"], "active", "{game}");
    let mut stream = client
        .get(format!("{}/v1/games/{id}/stream", base(0)))
        .send()
        .await
        .expect("r");
    read_sse(&mut stream, |m| !m.is_empty()).await;
    let seat = game["to_move"].as_u64().expect("to move") as usize;
    // The other player's own stream, also on the process that does not see the move.
    let mut waiting = client
        .get(format!("{}/v1/players/me/stream", base(0)))
        .bearer_auth(players[1 - seat]["token"].as_str().expect("token"))
        .send()
        .await
        .expect("r");
    read_sse(&mut waiting, |m| !m.is_empty()).await;
    let resp: Value = client
        .post(format!("{}/v1/games/{id}/moves", base(1)))
        .bearer_auth(players[seat]["token"].as_str().expect("token"))
        .json(&json!({"move": game["legal_moves"][0]}))
        .send()
        .await
        .expect("r")
        .json()
        .await
        .expect("json");
    let v = resp["version"].as_i64().expect("version");
    let msgs = read_sse(&mut stream, |m| m.iter().any(|x| x.0 == v.to_string())).await;
    assert!(msgs.iter().any(|m| m.1 == "move_played"));
    // The process that heard of the move read its events once for all its streams of
    // the game, which read nothing themselves; nor did their keep-alives (every second).
    let metrics = client
        .get(format!("{}/metrics", base(0)))
        .send()
        .await
        .expect("r")
        .text()
        .await
        .expect("text");
    let reads: Vec<&str> = metrics
        .lines()
        .filter(|l| l.starts_with("worp_sse_log_reads_total"))
        .collect();
    assert!(
        !reads.is_empty() && reads.iter().all(|l| l.ends_with(" 0")),
        "the streams read the log: {reads:?}"
    );
    if resp["to_move"].as_u64() == Some(1 - seat as u64) {
        // The notice crossed processes (NOTIFY) with its payload intact.
        let turn = read_sse(&mut waiting, |m| m.iter().any(|x| x.1 == "your_turn")).await;
        let t = turn.iter().find(|x| x.1 == "your_turn").expect("your_turn");
        assert_eq!(t.0, format!("{id}:{v}"));
        let payload: Value = serde_json::from_str(&t.2).expect("json");
        assert_eq!(payload["game_id"], id);
        assert_eq!(payload["version"], v);
        assert_eq!(payload["url"], format!("/v1/games/{id}"));
        assert_eq!(payload["seat"], 1 - seat);
    }
}

struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A real local HTTP receiver that records what it gets and fails the first `fail` calls.
async fn receiver(
    fail: usize,
) -> (
    String,
    Arc<Mutex<Vec<(actix_web::http::header::HeaderMap, String)>>>,
) {
    use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
    let got: Arc<Mutex<Vec<(actix_web::http::header::HeaderMap, String)>>> = Arc::default();
    let calls = Arc::new(Mutex::new(0usize));
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let g = got.clone();
    let server = HttpServer::new(move || {
        let g = g.clone();
        let calls = calls.clone();
        App::new().route(
            "/hook",
            web::post().to(move |req: HttpRequest, body: String| {
                let g = g.clone();
                let calls = calls.clone();
                async move {
                    let n = {
                        let mut c = calls.lock().expect("calls");
                        *c += 1;
                        *c
                    };
                    if n <= fail {
                        return HttpResponse::InternalServerError().finish();
                    }
                    g.lock().expect("got").push((req.headers().clone(), body));
                    HttpResponse::Ok().finish()
                }
            }),
        )
    })
    .workers(1)
    .listen(listener)
    .expect("listen")
    .run();
    tokio::spawn(server);
    (format!("http://127.0.0.1:{port}/hook"), got)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhooks_are_signed_retried_logged_and_survive_a_restart() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (a, b) = (app.player("a").await, app.player("b").await);
        let (url, got) = receiver(1).await;
        let resp = app
            .post("/v1/players/me/webhooks", &b, json!({"url": url}))
            .await;
        assert_eq!(resp.status(), 201);
        let hook: Value = resp.json().await.expect("json");
        let secret = hook["secret"].as_str().expect("secret").to_owned();
        let listed: Value = app.get_json_as("/v1/players/me/webhooks", &b).await;
        assert!(
            listed[0].get("secret").is_none(),
            "the secret is shown only once"
        );
        assert_eq!(
            app.post("/v1/players/me/webhooks", &b, json!({"url": "ftp://x"}))
                .await
                .status(),
            400
        );

        // Play until it becomes b's turn; the notice goes out (first attempt fails, retried).
        let mut game = app
            .create(
                &a,
                two_seat_variant(),
                Value::Null,
                vec![Some(a.id), Some(b.id)],
            )
            .await;
        let id = game["id"].as_str().expect("id").to_owned();
        let mut rng = SplitMix64(1);
        if game["to_move"] == 1 {
            // b's turn from the start: make a move for b, then for a, to get a fresh notice.
            game = move_for(&app, &id, &b, &game, &mut rng).await;
        }
        while game["to_move"] == 0 {
            game = move_for(&app, &id, &a, &game, &mut rng).await;
        }
        // The first notice's first attempt failed: wait for its retry to be delivered.
        let hook_id = hook["id"].as_str().expect("id");
        let until = tokio::time::Instant::now() + Duration::from_secs(20);
        let log = loop {
            let log: Value = app
                .get_json_as(&format!("/v1/players/me/webhooks/{hook_id}/deliveries"), &b)
                .await;
            let done = log
                .as_array()
                .is_some_and(|l| !l.is_empty() && l.iter().all(|d| d["status"] == "delivered"));
            if done {
                break log;
            }
            assert!(tokio::time::Instant::now() < until, "not delivered: {log}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        let attempts: Vec<i64> = log
            .as_array()
            .expect("log")
            .iter()
            .filter_map(|d| d["attempts"].as_i64())
            .collect();
        assert!(
            attempts.contains(&2),
            "one delivery was retried once: {log}"
        );
        // Deliveries to one receiver run concurrently: the `invited` notice of the same
        // game may arrive first.
        let (headers, body) = got
            .lock()
            .expect("got")
            .iter()
            .find(|(_, body)| body.contains("\"type\":\"your_turn\""))
            .cloned()
            .expect("a your_turn notice");
        let ts: i64 = headers
            .get("worp-timestamp")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse().ok())
            .expect("ts");
        let sig = headers
            .get("worp-signature")
            .and_then(|v| v.to_str().ok())
            .expect("sig");
        assert_eq!(sig, worp::webhooks::signature(&secret, ts, body.as_bytes()));
        let notice: Value = serde_json::from_str(&body).expect("json");
        assert_eq!(notice["type"], "your_turn");
        assert_eq!(notice["game_id"], id.as_str());
        // Every member, in alphabetical order (the body is signed as sent).
        let members: Vec<&str> = notice
            .as_object()
            .expect("object")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            members,
            [
                "deadline", "game_id", "result", "seat", "status", "type", "url", "variant",
                "version"
            ]
        );
        assert!(body.starts_with("{\"deadline\":"), "{body}");
        assert_eq!(notice["url"], format!("/v1/games/{id}"));
        assert_eq!(notice["variant"], two_seat_variant());
        assert_eq!(notice["status"], "active");
        assert_eq!(notice["seat"], 1);
        assert!(
            notice["version"].as_i64().is_some_and(|v| v > 1),
            "{notice}"
        );
        let other = app
            .client
            .get(app.url(&format!("/v1/players/me/webhooks/{hook_id}/deliveries")))
            .bearer_auth(&a.token)
            .send()
            .await
            .expect("r");
        assert_eq!(other.status(), 404);

        // The outbox survives a restart: a server that records a notice and dies before
        // sending it leaves the delivery in the database, and the next server sends it.
        let (url2, got2) = receiver(0).await;
        let c = app.player("c").await;
        let hook2: Value = app
            .post("/v1/players/me/webhooks", &c, json!({"url": url2}))
            .await
            .json()
            .await
            .expect("json");
        let hook2: uuid::Uuid = hook2["id"]
            .as_str()
            .and_then(|s| s.parse().ok())
            .expect("id");
        let c_player = app.worp.authenticate(&c.token).await.expect("c").0;
        {
            // A server process with no background workers: it records, never delivers.
            let store = worp::store::Store::connect(&app.database, 2)
                .await
                .expect("connect");
            let doomed = worp::service::Worp::new(store, 10, Arc::new(worp::service::SystemClock));
            let game = doomed
                .create_game(
                    &c_player,
                    serde_json::from_value(
                        json!({"variant": two_seat_variant(), "seats": [c.id, a.id]}),
                    )
                    .expect("req"),
                )
                .await
                .expect("create");
            let a_player = app.worp.authenticate(&a.token).await.expect("a").0;
            doomed
                .take_seat(&a_player, game.id, 1, None)
                .await
                .expect("accept");
            doomed
                .resign(&c_player, game.id, None)
                .await
                .expect("resign");
        }
        let pending = app.store.deliveries(hook2, 10, 0).await.expect("log");
        assert!(!pending.is_empty(), "the notice is in the outbox");
        let fresh = worp::store::Store::connect(&app.database, 2)
            .await
            .expect("reconnect");
        // The process restarted: nothing in memory but the store.
        let clock = worp::service::SystemClock;
        // Its receiver listens on loopback.
        let settings = worp::webhooks::WebhookSettings {
            allow: vec!["127.0.0.0/8".parse().expect("cidr")],
            ..Default::default()
        };
        let until = tokio::time::Instant::now() + Duration::from_secs(20);
        loop {
            worp::webhooks::deliver_due(&fresh, &clock, &settings).await;
            let log = fresh.deliveries(hook2, 10, 0).await.expect("log");
            if log.iter().all(|d| d.status == "delivered") && !got2.lock().expect("got").is_empty()
            {
                break;
            }
            assert!(
                tokio::time::Instant::now() < until,
                "not delivered: {log:?}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let kinds: Vec<String> = got2
            .lock()
            .expect("got")
            .iter()
            .filter_map(|(_, body)| serde_json::from_str::<Value>(body).ok())
            .filter_map(|v| v["type"].as_str().map(str::to_owned))
            .collect();
        assert!(kinds.contains(&"game_finished".to_owned()), "{kinds:?}");
    }
}

/// A process alone on its database announces nothing (its own listener does not count);
/// once another process's `LISTEN` connection is open (named `worp relay <origin>`), the
/// next change is announced to it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_process_announces_changes_only_while_another_listens() {
    use sqlx::postgres::{PgConnectOptions, PgListener, PgPoolOptions};
    use std::str::FromStr;
    let app = spawn_app(Backend::Postgres).await;
    let (a, b, mut game) = app.two_player_game(two_seat_variant()).await;
    let options = PgConnectOptions::from_str(&app.database).expect("url");
    let listener_on = |name: &str| {
        PgPoolOptions::new()
            .max_connections(1)
            .connect_lazy_with(options.clone().application_name(name))
    };
    // A client that is not a server process hears nothing of a lone process's moves.
    let bystander_pool = listener_on("psql");
    let mut bystander = PgListener::connect_with(&bystander_pool)
        .await
        .expect("listen");
    bystander.listen("worp_events").await.expect("listen");
    for _ in 0..3 {
        game = crate::store::move_once(&app, &game, &a, &b).await;
    }
    let heard = tokio::time::timeout(Duration::from_millis(600), bystander.recv()).await;
    assert!(heard.is_err(), "a lone process announced: {heard:?}");
    // Another process starts listening: the next move is announced, with its version.
    let peer_pool = listener_on(&format!("worp relay {}", uuid::Uuid::new_v4()));
    let mut peer = PgListener::connect_with(&peer_pool).await.expect("listen");
    peer.listen("worp_events").await.expect("listen");
    game = crate::store::move_once(&app, &game, &a, &b).await;
    let version = game["version"].as_i64().expect("version");
    let notification = tokio::time::timeout(Duration::from_secs(5), peer.recv())
        .await
        .expect("the move was announced")
        .expect("a notification");
    let envelope: Value = serde_json::from_str(notification.payload()).expect("json");
    let changes = envelope["changes"].as_array().expect("changes");
    assert!(
        changes
            .iter()
            .any(|c| c["game_id"] == game["id"] && c["version"] == version),
        "{envelope}"
    );
}

/// A stream sends the events of this process's changes as the store wrote them,
/// without reading the log for each watcher: what it sends is what the log holds, as
/// each reader may read it (a spectator of a private chat without the texts).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_sends_what_the_log_holds_as_each_reader_may_read_it() {
    for backend in crate::helpers::BACKENDS {
        let app = spawn_app(backend).await;
        let (a, b, game) = app.two_player_game("backgammon").await;
        let id = game["id"].as_str().expect("id").to_owned();
        let open = |who: Option<&crate::helpers::TestPlayer>| {
            let mut req = app.client.get(app.url(&format!("/v1/games/{id}/stream")));
            if let Some(p) = who {
                req = req.bearer_auth(&p.token);
            }
            req.send()
        };
        let mut spectator = open(None).await.expect("stream");
        let mut player = open(Some(&b)).await.expect("stream");
        let mut rng = SplitMix64(21);
        let mut g = game.clone();
        for turn in 0..6 {
            let who = if g["to_move"] == 0 { &a } else { &b };
            let said = app
                .post(
                    &format!("/v1/games/{id}/messages"),
                    who,
                    json!({"text": format!("turn {turn}")}),
                )
                .await;
            assert_eq!(said.status(), 201);
            g = move_for(&app, &id, who, &g, &mut rng).await;
            if g["status"] != "active" {
                break;
            }
        }
        let last = app.get_json(&format!("/v1/games/{id}")).await["version"]
            .as_i64()
            .expect("version");
        let after = game["version"].as_i64().expect("version");
        for (stream, reader) in [(&mut spectator, None), (&mut player, Some(&b))] {
            let sent = read_sse(stream, |m| m.iter().any(|x| x.0 == last.to_string())).await;
            let sent: Vec<Value> = sent
                .iter()
                .filter(|m| m.1 != "comment")
                .map(|m| serde_json::from_str(&m.2).expect("data"))
                .collect();
            let path = format!("/v1/games/{id}/events?after={after}&limit=1000");
            let page = match reader {
                Some(p) => app.get_json_as(&path, p).await,
                None => app.get_json(&path).await,
            };
            let logged = page["events"].as_array().cloned().unwrap_or_default();
            assert_eq!(
                sent,
                logged,
                "{backend:?}: reader {:?}",
                reader.map(|p| p.id)
            );
            let texts = sent
                .iter()
                .filter(|e| e["payload"]["text"].is_string())
                .count();
            assert_eq!(texts > 0, reader.is_some(), "{backend:?}");
        }
    }
}
