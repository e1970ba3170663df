//! Faults: the server killed mid-load and restarted, and the database going away under
//! load. Each test stops by itself well within a minute.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::seq::IndexedRandom;
use serde_json::{json, Value};
use sqlx::Connection;
use worp::events::{Event, StoredEvent};
use worp::service::views::GameView;
use worp::store::Store;
use worp::table::Table;

use crate::helpers::{fresh_database, fresh_postgres, postgres_admin_url, spawn_app, Backend};
use crate::play::two_seat_variant;

/// `worp serve` as a child process; killed when dropped.
pub(crate) struct Server {
    pub(crate) child: Child,
    pub(crate) url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// Starts the built `worp` binary on `database` and waits until it answers.
pub(crate) async fn start_server(database: &str, port: u16) -> Server {
    // Every client of these tests comes from 127.0.0.1: no per-address limits.
    let unlimited = [
        ("WORP_CONNECTIONS_PER_ADDRESS", "0"),
        ("WORP_STREAMS_PER_ADDRESS", "0"),
    ];
    start_server_with(database, port, &unlimited).await
}

/// `worp serve` as [`start_server`] starts it, with `env` set too.
pub(crate) async fn start_server_with(database: &str, port: u16, env: &[(&str, &str)]) -> Server {
    let child = Command::new(env!("CARGO_BIN_EXE_worp"))
        .arg("serve")
        .envs(env.iter().copied())
        .env("DATABASE_URL", database)
        .env("WORP_BIND", "127.0.0.1")
        .env("PORT", port.to_string())
        .env("RUST_LOG", "error")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start worp serve");
    let server = Server {
        child,
        url: format!("http://127.0.0.1:{port}"),
    };
    let client = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(r) = client.get(format!("{}/healthz", server.url)).send().await {
            if r.status() == 200 {
                return server;
            }
        }
        assert!(Instant::now() < deadline, "worp serve did not come up");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Player {
    pub(crate) id: String,
    pub(crate) token: String,
}

/// Registers `name` with the server at `url`.
pub(crate) async fn player(client: &reqwest::Client, url: &str, name: &str) -> Player {
    let body: Value = client
        .post(format!("{url}/v1/players"))
        .json(&json!({ "name": name }))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    Player {
        id: body["id"].as_str().expect("id").to_owned(),
        token: body["token"].as_str().expect("token").to_owned(),
    }
}

/// A game of two-seat variant between `players` (the first creates it, the others
/// accept), on the server at `url`.
pub(crate) async fn game(client: &reqwest::Client, url: &str, players: &[Player]) -> Value {
    let resp = client
        .post(format!("{url}/v1/games"))
        .bearer_auth(&players[0].token)
        .json(&json!({
            "variant": two_seat_variant(),
            "seats": players.iter().map(|p| p.id.clone()).collect::<Vec<_>>(),
        }))
        .send()
        .await
        .expect("request");
    assert_eq!(resp.status(), 201);
    let game: Value = resp.json().await.expect("json");
    // The other players accept their invitations.
    let id = game["id"].as_str().expect("id").to_owned();
    let mut game = game;
    for (seat, p) in players.iter().enumerate().skip(1) {
        let resp = client
            .post(format!("{url}/v1/games/{id}/seats/{seat}"))
            .bearer_auth(&p.token)
            .send()
            .await
            .expect("request");
        assert_eq!(resp.status(), 200);
        game = resp.json().await.expect("json");
    }
    game
}

/// A move the server acknowledged with 200.
#[derive(Debug, Clone)]
struct Ack {
    game: String,
    before: i64,
    after: i64,
    mv: Value,
}

/// Plays random legal moves in `game` until the server stops answering or `stop`.
async fn drive(
    client: reqwest::Client,
    url: String,
    players: Vec<Player>,
    mut game: Value,
    stop: Arc<AtomicBool>,
    acks: Arc<Mutex<Vec<Ack>>>,
) {
    let id = game["id"].as_str().expect("id").to_owned();
    while !stop.load(Ordering::Relaxed) && game["status"] == "active" {
        let seat = game["to_move"].as_u64().expect("to_move") as usize;
        let moves = game["legal_moves"].as_array().expect("legal moves").clone();
        let Some(mv) = moves.choose(&mut rand::rng()).cloned() else {
            return;
        };
        let before = game["version"].as_i64().expect("version");
        let resp = client
            .post(format!("{url}/v1/games/{id}/moves"))
            .bearer_auth(&players[seat].token)
            .header("If-Match", format!("\"{before}\""))
            .json(&json!({ "move": mv }))
            .send()
            .await;
        let Ok(resp) = resp else { return };
        if resp.status() == 200 {
            // Acknowledged: the status line arrived. Record it even if the body is cut off.
            let body: Result<Value, _> = resp.json().await;
            let after = body
                .as_ref()
                .ok()
                .and_then(|b| b["version"].as_i64())
                .unwrap_or(before + 1);
            acks.lock().expect("lock").push(Ack {
                game: id.clone(),
                before,
                after,
                mv,
            });
            match body {
                Ok(b) => game = b,
                Err(_) => return,
            }
        } else {
            match client.get(format!("{url}/v1/games/{id}")).send().await {
                Ok(r) if r.status() == 200 => match r.json().await {
                    Ok(g) => game = g,
                    Err(_) => return,
                },
                _ => return,
            }
        }
    }
}

async fn all_events(client: &reqwest::Client, url: &str, id: &str) -> Vec<StoredEvent> {
    let mut all: Vec<StoredEvent> = Vec::new();
    loop {
        let page: Value = client
            .get(format!(
                "{url}/v1/games/{id}/events?after={}&limit=1000",
                all.len()
            ))
            .send()
            .await
            .expect("request")
            .json()
            .await
            .expect("json");
        let events: Vec<StoredEvent> =
            serde_json::from_value(page["events"].clone()).expect("events");
        let done = events.len() < 1000;
        all.extend(events);
        if done {
            return all;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_server_killed_mid_load_loses_no_acknowledged_move() {
    killed_mid_load(&fresh_postgres().await).await;
}

/// The same on SQLite: the writer thread's batches commit durably before they answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_server_on_sqlite_killed_mid_load_loses_no_acknowledged_move() {
    let (database, _dir) = fresh_database(Backend::Sqlite).await;
    killed_mid_load(&database).await;
}

async fn killed_mid_load(database: &str) {
    let port = free_port();
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .expect("client");
    let server = start_server(database, port).await;
    let url = server.url.clone();

    // Six clients, each with two players and a game of its own.
    let mut games = Vec::new();
    for c in 0..6 {
        let players = vec![
            player(&client, &url, &format!("k{c}a")).await,
            player(&client, &url, &format!("k{c}b")).await,
        ];
        let g = game(&client, &url, &players).await;
        games.push((players, g));
    }
    let stop = Arc::new(AtomicBool::new(false));
    let acks = Arc::new(Mutex::new(Vec::new()));
    let mut tasks = Vec::new();
    for (players, g) in &games {
        tasks.push(tokio::spawn(drive(
            client.clone(),
            url.clone(),
            players.clone(),
            g.clone(),
            stop.clone(),
            acks.clone(),
        )));
    }
    // Under load (a hundred moves acknowledged, however slow the machine, or every game
    // over), SIGKILL the server.
    let deadline = Instant::now() + Duration::from_secs(60);
    while acks.lock().expect("lock").len() < 100 && !tasks.iter().all(|t| t.is_finished()) {
        assert!(
            Instant::now() < deadline,
            "no load: moves were not acknowledged"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let before_kill = acks.lock().expect("lock").len();
    drop(server);
    for t in tasks {
        t.await.expect("client task");
    }
    let acks = acks.lock().expect("lock").clone();
    assert!(before_kill > 0, "no move was acknowledged before the kill");

    // Restart on the same database.
    let server = start_server(database, free_port()).await;
    let url = server.url.clone();
    for (players, g) in &games {
        let id = g["id"].as_str().expect("id");
        let events = all_events(&client, &url, id).await;
        // No gap, no duplicate, nothing partial: 1..n, the chain intact, every event replays.
        for (i, e) in events.iter().enumerate() {
            assert_eq!(e.seq, i as i64 + 1, "game {id}: sequence");
        }
        let table = Table::from_events(&events).expect("the log replays");
        let served: Value = client
            .get(format!("{url}/v1/games/{id}"))
            .send()
            .await
            .expect("request")
            .json()
            .await
            .expect("json");
        let replayed =
            serde_json::to_value(GameView::of(&table, &Default::default()).expect("view"))
                .expect("view");
        for field in [
            "version",
            "state",
            "legal_moves",
            "to_move",
            "status",
            "head_hash",
        ] {
            assert_eq!(served[field], replayed[field], "game {id}: {field}");
        }
        // Every acknowledged move is in the log, where its answer said.
        for ack in acks.iter().filter(|a| a.game == id) {
            assert!(ack.after <= table.version, "{ack:?} is beyond the log");
            let e = &events[ack.before as usize];
            match e.event().expect("event") {
                Event::MovePlayed { mv, .. } => assert_eq!(mv, ack.mv, "{ack:?}"),
                other => panic!("{ack:?}: event {} is {other:?}", e.seq),
            }
        }
        // Play continues.
        if served["status"] == "active" {
            let seat = served["to_move"].as_u64().expect("to_move") as usize;
            let resp = client
                .post(format!("{url}/v1/games/{id}/moves"))
                .bearer_auth(&players[seat].token)
                .json(&json!({ "move": served["legal_moves"][0] }))
                .send()
                .await
                .expect("request");
            assert_eq!(resp.status(), 200, "game {id}: a move after the restart");
        }
    }
    eprintln!(
        "{} moves acknowledged ({} before the kill); all in the log after the restart",
        acks.len(),
        before_kill
    );
}

/// The name of the PostgreSQL database `app` runs on.
pub async fn database_of(app: &crate::helpers::TestApp) -> String {
    let Store::Postgres(pg) = &app.store else {
        panic!("a PostgreSQL app")
    };
    sqlx::query_scalar("SELECT current_database()")
        .fetch_one(&pg.pool)
        .await
        .expect("database name")
}

/// Blocks or allows new connections to `db` and ends the existing ones.
pub async fn database_away(db: &str, away: bool) {
    let mut admin = sqlx::PgConnection::connect(&postgres_admin_url())
        .await
        .expect("admin connection");
    // `db` comes from current_database() of a database the tests created (hex only).
    sqlx::query(&format!(
        "ALTER DATABASE \"{db}\" ALLOW_CONNECTIONS {}",
        if away { "false" } else { "true" }
    ))
    .execute(&mut admin)
    .await
    .expect("alter database");
    if away {
        sqlx::query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE datname = $1 AND pid <> pg_backend_pid()",
        )
        .bind(db)
        .execute(&mut admin)
        .await
        .expect("terminate backends");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_database_going_away_answers_503_and_the_server_recovers() {
    let app = spawn_app(Backend::Postgres).await;
    let Store::Postgres(pg) = &app.store else {
        panic!("a PostgreSQL app")
    };
    let db: String = sqlx::query_scalar("SELECT current_database()")
        .fetch_one(&pg.pool)
        .await
        .expect("database name");
    let (a, b) = (app.player("a").await, app.player("b").await);
    let g = app
        .create(
            &a,
            two_seat_variant(),
            Value::Null,
            vec![Some(a.id), Some(b.id)],
        )
        .await;
    let id = g["id"].as_str().expect("id").to_owned();
    let mover = if g["to_move"] == 0 { &a } else { &b };
    let mv = g["legal_moves"][0].clone();

    database_away(&db, true).await;
    // Eight clients for three seconds: reads, moves and health checks.
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .expect("client");
    let started = Instant::now();
    let mut tasks = Vec::new();
    for c in 0..8 {
        let (client, base, id, token, mv) = (
            client.clone(),
            app.address.clone(),
            id.clone(),
            mover.token.clone(),
            mv.clone(),
        );
        tasks.push(tokio::spawn(async move {
            let mut seen = Vec::new();
            while started.elapsed() < Duration::from_secs(3) {
                let req = match c % 3 {
                    0 => client.get(format!("{base}/v1/games/{id}")),
                    1 => client
                        .post(format!("{base}/v1/games/{id}/moves"))
                        .bearer_auth(&token)
                        .json(&json!({ "move": mv })),
                    _ => client.get(format!("{base}/healthz")),
                };
                let t = Instant::now();
                let resp = req.send().await.expect("an answer, not a hang");
                let status = resp.status().as_u16();
                let content_type = resp
                    .headers()
                    .get("content-type")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_owned();
                let retry_after = resp.headers().contains_key("retry-after");
                seen.push((status, content_type, retry_after, t.elapsed()));
            }
            seen
        }));
    }
    let mut seen = Vec::new();
    for t in tasks {
        seen.extend(t.await.expect("task"));
    }
    database_away(&db, false).await;
    assert!(!seen.is_empty());
    let mut by_status = std::collections::BTreeMap::new();
    for (status, ..) in &seen {
        *by_status.entry(*status).or_insert(0) += 1;
    }
    for (status, content_type, retry_after, took) in &seen {
        assert_eq!(*status, 503, "answers by status: {by_status:?}");
        assert_eq!(content_type, "application/problem+json");
        assert!(retry_after, "503 without Retry-After");
        assert!(*took < Duration::from_secs(8), "an answer took {took:?}");
    }

    // Back by itself: reads and moves work again.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let r = app.get(&format!("/v1/games/{id}")).await;
        if r.status() == 200 {
            break;
        }
        assert!(Instant::now() < deadline, "no recovery: {}", r.status());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let resp = app
        .client
        .post(app.url(&format!("/v1/games/{id}/moves")))
        .bearer_auth(&mover.token)
        .json(&json!({ "move": mv }))
        .send()
        .await
        .expect("request");
    assert_eq!(resp.status(), 200, "a move after the database came back");
    eprintln!(
        "{} requests while the database was away: all 503 problem+json",
        seen.len()
    );
}
