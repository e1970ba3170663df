//! Readiness and graceful shutdown: `/readyz`, and SIGTERM to a real `worp serve` process
//! under load of moves, which loses no acknowledged move and resets no request.

use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::helpers::{fresh_postgres, spawn_app, Backend, TestApp, BACKENDS};
use crate::play::two_seat_variant;

#[tokio::test]
async fn readyz_is_ready_when_the_database_answers_and_is_migrated() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let resp = app.get("/readyz").await;
        assert_eq!(resp.status(), 200, "{backend:?}");
        let body: Value = resp.json().await.expect("json");
        assert_eq!(body["status"], "ready");
    }
}

/// While the ratings' first fold runs (35 s for a million finished games), the process
/// is not ready: the lobby, the leaderboard and players' pages would wait for it.
#[tokio::test]
async fn readyz_is_not_ready_while_the_ratings_are_first_folded() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        // The book held, as a long fold holds it.
        let held = app.worp.ratings().0.lock().await;
        let fold = app.worp.fold_ratings();
        let resp = app.get("/readyz").await;
        assert_eq!(resp.status(), 503, "{backend:?}");
        let body: Value = resp.json().await.expect("json");
        assert!(
            body["detail"]
                .as_str()
                .is_some_and(|d| d.contains("ratings")),
            "{backend:?}: {body}"
        );
        drop(held);
        fold.await.expect("the fold");
        assert_eq!(app.get("/readyz").await.status(), 200, "{backend:?}");
    }
}

#[tokio::test]
async fn readyz_is_not_ready_when_a_migration_is_missing() {
    let app = spawn_app(Backend::Postgres).await;
    let worp::store::Store::Postgres(pg) = &app.store else {
        panic!("PostgreSQL")
    };
    sqlx::query(
        "DELETE FROM _sqlx_migrations WHERE version = (SELECT max(version) FROM _sqlx_migrations)",
    )
    .execute(&pg.pool)
    .await
    .expect("forget a migration");
    let resp = app.get("/readyz").await;
    assert_eq!(resp.status(), 503);
    assert_eq!(resp.headers()["content-type"], "application/problem+json");
    // Liveness does not care.
    assert_eq!(app.get("/healthz").await.status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readyz_is_not_ready_while_the_database_is_away() {
    let app = spawn_app(Backend::Postgres).await;
    let db = crate::faults::database_of(&app).await;
    crate::faults::database_away(&db, true).await;
    let away = app.get("/readyz").await.status();
    crate::faults::database_away(&db, false).await;
    assert_eq!(away, 503);
    let deadline = Instant::now() + Duration::from_secs(20);
    while app.get("/readyz").await.status() != 200 {
        assert!(Instant::now() < deadline, "never ready again");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A free port on loopback.
pub fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port()
}

/// `worp serve` on `database` at `port`, its output discarded.
fn worp_serve(database: &str, port: u16) -> Child {
    worp_serve_with(database, port, &[])
}

/// The same with more environment variables.
pub fn worp_serve_with(database: &str, port: u16, env: &[(&str, &str)]) -> Child {
    worp_command(database, port, env)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("worp serve starts")
}

/// The command of `worp serve` on `database` at `port` (`RUST_LOG=warn` unless `env`
/// says otherwise), not started.
pub fn worp_command(database: &str, port: u16, env: &[(&str, &str)]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_worp"));
    command
        .arg("serve")
        .env("RUST_LOG", "warn")
        .env("DATABASE_URL", database)
        .env("WORP_BIND", "127.0.0.1")
        .env("WORP_PORT", port.to_string())
        .env_remove("PORT")
        .envs(env.iter().copied());
    command
}

/// Waits until `url` answers 200.
pub async fn until_ready(url: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let client = reqwest::Client::new();
    loop {
        if let Ok(r) = client.get(url).send().await {
            if r.status() == 200 {
                return;
            }
        }
        assert!(Instant::now() < deadline, "{url} never became ready");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Sends SIGTERM to `server`.
pub fn sigterm(server: &Child) {
    let killed = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
}

/// Waits (25 s at most) for `server` to exit; its status and how long it took.
pub async fn exit_of(server: &mut Child) -> (std::process::ExitStatus, Duration) {
    let stopping = Instant::now();
    loop {
        if let Some(status) = server.try_wait().expect("wait") {
            return (status, stopping.elapsed());
        }
        if stopping.elapsed() > Duration::from_secs(25) {
            let _ = server.kill();
            panic!("worp serve did not exit within 25 s of SIGTERM");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn during_the_shutdown_grace_the_server_answers_but_is_not_ready() {
    let database = fresh_postgres().await;
    let port = free_port();
    let mut server = worp_serve_with(&database, port, &[("WORP_SHUTDOWN_GRACE_SECS", "3")]);
    let address = format!("http://127.0.0.1:{port}");
    until_ready(&format!("{address}/readyz")).await;
    let signalled = Instant::now();
    sigterm(&server);
    // Ready until the signal is handled, then not ready for the rest of the grace.
    let client = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let ready = client
            .get(format!("{address}/readyz"))
            .send()
            .await
            .expect("answered during the grace");
        if ready.status() == 503 {
            break;
        }
        assert_eq!(ready.status(), 200);
        assert!(Instant::now() < deadline, "still ready 2 s after SIGTERM");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let live = client
        .get(format!("{address}/healthz"))
        .send()
        .await
        .expect("answered");
    assert_eq!(live.status(), 200);
    assert_eq!(live.headers()["connection"], "close");
    let (status, _) = exit_of(&mut server).await;
    assert!(status.success());
    let took = signalled.elapsed();
    assert!(
        took >= Duration::from_millis(2500),
        "exited {took:?} after SIGTERM"
    );
}

#[tokio::test]
async fn the_shutdown_timeout_bounds_the_wait_for_requests_in_flight() {
    use tokio::io::AsyncWriteExt;
    let database = fresh_postgres().await;
    let port = free_port();
    let mut server = worp_serve_with(
        &database,
        port,
        &[
            ("WORP_SHUTDOWN_GRACE_SECS", "0"),
            ("WORP_SHUTDOWN_TIMEOUT_SECS", "1"),
            ("WORP_BODY_TIMEOUT_SECS", "60"),
        ],
    );
    let address = format!("http://127.0.0.1:{port}");
    until_ready(&format!("{address}/readyz")).await;
    // A request whose body never comes: in flight until the body time-out (60 s).
    let mut slow = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .expect("connect");
    slow.write_all(
        b"POST /v1/players HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
    )
    .await
    .expect("write");
    let at = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let client = slow.local_addr().expect("the client's address");
    crate::helpers::until_accepted(at, &[client]).await;
    sigterm(&server);
    let (status, took) = exit_of(&mut server).await;
    assert!(status.success());
    assert!(took < Duration::from_secs(10), "exited after {took:?}");
}

/// What one client of the load saw.
#[derive(Debug, Default)]
struct Seen {
    /// The versions its moves were acknowledged with (200), by game.
    acknowledged: Vec<(String, i64)>,
    /// Answers that were neither 200 nor a refused connection.
    failures: Vec<String>,
}

/// Plays `game` as its two players, move after move, until the load balancer has
/// taken the server out of rotation (`routed_away`), a connection is refused (the server
/// stopped listening) or the game ends.
async fn play_on(
    app: Arc<TestApp>,
    tokens: [String; 2],
    mut game: Value,
    seen: Arc<Mutex<Seen>>,
    routed_away: Arc<AtomicBool>,
) {
    let id = game["id"].as_str().expect("id").to_owned();
    let client = reqwest::Client::new();
    while game["status"] == "active" && !routed_away.load(Ordering::SeqCst) {
        let token = &tokens[usize::from(game["to_move"] != 0)];
        let moves = game["legal_moves"].as_array().expect("moves");
        let mv = moves[0].clone();
        let sent = client
            .post(app.url(&format!("/v1/games/{id}/moves")))
            .bearer_auth(token)
            .json(&json!({"move": mv}))
            .timeout(Duration::from_secs(30))
            .send()
            .await;
        let resp = match sent {
            Ok(resp) => resp,
            Err(e) if e.is_connect() => return,
            Err(e) => {
                seen.lock().expect("seen").failures.push(format!("{e:?}"));
                return;
            }
        };
        let status = resp.status();
        match resp.json::<Value>().await {
            Ok(body) if status == 200 => {
                let version = body["version"].as_i64().expect("version");
                seen.lock()
                    .expect("seen")
                    .acknowledged
                    .push((id.clone(), version));
                game = body;
            }
            Ok(body) => {
                seen.lock()
                    .expect("seen")
                    .failures
                    .push(format!("{status}: {body}"));
                return;
            }
            Err(e) => {
                seen.lock()
                    .expect("seen")
                    .failures
                    .push(format!("{status}: {e:?}"));
                return;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_under_load_loses_no_acknowledged_move_and_resets_no_request() {
    let database = fresh_postgres().await;
    let port = free_port();
    let mut server = worp_serve(&database, port);
    let address = format!("http://127.0.0.1:{port}");
    until_ready(&format!("{address}/readyz")).await;
    let app = Arc::new(TestApp::at(address, database.clone()).await);

    let mut games = Vec::new();
    for _ in 0..6 {
        let (a, b, game) = app.two_player_game(two_seat_variant()).await;
        games.push(([a.token, b.token], game));
    }
    // A live stream, which must end with its shutdown event rather than hold the
    // shutdown to its time-out.
    let first = games[0].1["id"].as_str().expect("id").to_owned();
    let stream = app
        .client
        .get(app.url(&format!("/v1/games/{first}/stream")))
        .send()
        .await
        .expect("the stream opens");
    assert_eq!(stream.status(), 200);
    let stream = tokio::spawn(async move {
        let mut text = String::new();
        let mut stream = stream;
        while let Ok(Some(chunk)) = stream.chunk().await {
            text.push_str(&String::from_utf8_lossy(&chunk));
        }
        text
    });

    // A load balancer's health check: once `/readyz` fails, no new request is routed
    // here (the requests under way still must be answered). A connection the kernel
    // completed but the server never accepted is reset when it stops listening, so no
    // server can promise more to clients that keep connecting after it said it is going.
    let routed_away = Arc::new(AtomicBool::new(false));
    let balancer = {
        let (app, routed_away) = (app.clone(), routed_away.clone());
        tokio::spawn(async move {
            loop {
                let ready = app.client.get(app.url("/readyz")).send().await;
                if !ready.is_ok_and(|r| r.status() == 200) {
                    routed_away.store(true, Ordering::SeqCst);
                    return;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        })
    };
    let seen = Arc::new(Mutex::new(Seen::default()));
    let players: Vec<_> = games
        .into_iter()
        .map(|(tokens, game)| {
            tokio::spawn(play_on(
                app.clone(),
                tokens,
                game,
                seen.clone(),
                routed_away.clone(),
            ))
        })
        .collect();
    // Under load: more than ten moves acknowledged (however slow the machine), then the
    // signal.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while seen.lock().expect("seen").acknowledged.len() <= 10
        && !players.iter().all(|p| p.is_finished())
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "no load: {:?}",
            seen.lock().expect("seen").failures
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    sigterm(&server);
    let (status, _) = exit_of(&mut server).await;
    assert!(status.success(), "worp serve exited with {status}");
    balancer.await.expect("the health check");
    for p in players {
        tokio::time::timeout(Duration::from_secs(30), p)
            .await
            .expect("the clients end")
            .expect("a client");
    }
    let text = tokio::time::timeout(Duration::from_secs(10), stream)
        .await
        .expect("the stream ends")
        .expect("the stream's reader");
    assert!(text.ends_with("event: shutdown\ndata: {}\n\n"), "{text}");

    let seen = std::mem::take(&mut *seen.lock().expect("seen"));
    assert!(seen.failures.is_empty(), "{:?}", seen.failures);
    assert!(
        seen.acknowledged.len() > 10,
        "too little load: {} moves",
        seen.acknowledged.len()
    );
    // Every acknowledged move is in the log: each game's log reaches the last version
    // acknowledged for it (and a move applied but never acknowledged would be a dropped
    // request: the log ends exactly there).
    for (id, version) in &seen.acknowledged {
        let last = seen
            .acknowledged
            .iter()
            .filter(|(g, _)| g == id)
            .map(|(_, v)| *v)
            .max()
            .unwrap_or(0);
        let table = app
            .worp
            .load(id.parse().expect("uuid"))
            .await
            .expect("the game is in the log");
        assert!(table.version >= *version);
        assert_eq!(table.version, last, "game {id}");
    }
}
