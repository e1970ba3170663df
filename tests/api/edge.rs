//! The HTTP edge against a hostile client: rate limits that a token's spelling does not
//! escape, limits on registrations per address and on open games per player, and
//! requests whose head or body never arrive.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use worp::clock::SystemClock;
use worp::configuration::Settings;

use crate::helpers::{fresh_database, spawn_app_from, test_settings, Backend, TestApp, BACKENDS};

pub(crate) async fn app_with(change: impl FnOnce(&mut Settings)) -> TestApp {
    app_on(Backend::Sqlite, change).await
}

async fn app_on(backend: Backend, change: impl FnOnce(&mut Settings)) -> TestApp {
    let (url, dir) = fresh_database(backend).await;
    let mut settings = test_settings(url);
    // The default, so that the 60,000 bytes the slow bodies announce are allowed.
    settings.body_limit = 64 * 1024;
    change(&mut settings);
    spawn_app_from(settings, Arc::new(SystemClock), dir).await
}

pub(crate) fn socket(app: &TestApp) -> SocketAddr {
    app.address
        .trim_start_matches("http://")
        .parse()
        .expect("the app's address")
}

/// A 429 with `Retry-After` (whole seconds, at least 1) and a problem document.
async fn assert_limited(resp: reqwest::Response) -> u64 {
    assert_eq!(resp.status(), 429);
    let retry: u64 = resp
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .expect("Retry-After in seconds");
    assert!(retry >= 1);
    assert_eq!(
        resp.headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok()),
        Some("application/problem+json")
    );
    let body: Value = resp.json().await.expect("problem+json");
    assert_eq!(body["status"], 429);
    retry
}

#[tokio::test]
async fn a_token_is_limited_however_its_header_is_spelled() {
    let app = app_with(|s| {
        s.rate_limits.per_token = 3;
        s.rate_limits.per_address = 0;
    })
    .await;
    let a = app.player("a").await;
    let me = |auth: String| {
        app.client
            .get(app.url("/v1/players/me"))
            .header("authorization", auth)
            .send()
    };
    for _ in 0..3 {
        let resp = me(format!("Bearer {}", a.token)).await.expect("request");
        assert_eq!(resp.status(), 200);
    }
    assert_limited(me(format!("Bearer {}", a.token)).await.expect("request")).await;
    for spelling in [
        format!("bearer {}", a.token),
        format!("Bearer  {}", a.token),
        format!("BEARER {}", a.token),
        format!(" Bearer {} ", a.token),
        format!("bEaReR \t{}", a.token),
    ] {
        let resp = me(spelling.clone()).await.expect("request");
        assert_eq!(resp.status(), 429, "{spelling:?} escaped the limit");
    }
    // Another token is not limited by a's bucket, and the health check is never limited.
    let b = app.player("b").await;
    let resp = me(format!("Bearer {}", b.token)).await.expect("request");
    assert_eq!(resp.status(), 200);
    let health = app
        .client
        .get(app.url("/healthz"))
        .bearer_auth(&a.token)
        .send()
        .await
        .expect("request");
    assert_eq!(health.status(), 200);
}

/// Load balancers probe with HEAD: the health and readiness checks answer it as GET,
/// without a body.
#[tokio::test]
async fn the_health_checks_answer_head() {
    let app = app_with(|_| {}).await;
    for path in ["/healthz", "/readyz"] {
        let resp = app
            .client
            .head(app.url(path))
            .send()
            .await
            .expect("request");
        assert_eq!(resp.status(), 200, "{path}");
        assert_eq!(resp.bytes().await.expect("body").len(), 0, "{path}");
    }
}

#[tokio::test]
async fn an_address_may_register_only_so_many_players_an_hour() {
    let app = app_with(|s| s.players_per_hour_per_address = 3).await;
    for name in ["a", "b", "c"] {
        app.player(name).await;
    }
    let resp = app
        .client
        .post(app.url("/v1/players"))
        .json(&json!({"name": "d"}))
        .send()
        .await
        .expect("request");
    // 3 an hour: the next registration is 20 minutes away.
    let retry = assert_limited(resp).await;
    assert!((1000..=1200).contains(&retry), "{retry}");
    // Other requests from the address are not refused, nor is the health check.
    assert_eq!(app.get("/v1/variants").await.status(), 200);
    assert_eq!(app.get("/healthz").await.status(), 200);
}

#[test]
fn the_limits_on_registrations_and_open_games_have_defaults() {
    let settings = Settings::from_env().expect("settings");
    assert_eq!(settings.players_per_hour_per_address, 20);
    assert_eq!(settings.open_games_per_player, 20);
    assert_eq!(settings.body_timeout, Duration::from_secs(10));
    assert_eq!(settings.header_timeout, Duration::from_secs(5));
    assert_eq!(
        settings.max_connections,
        worp::admission::default_max_connections(worp::admission::open_file_limit())
    );
    assert_eq!(settings.connections_per_address, 64);
    assert_eq!(settings.streams_per_address, 32);
    assert_eq!(settings.keep_alive, Duration::from_secs(30));
}

#[tokio::test]
async fn a_player_may_have_only_so_many_open_games() {
    for backend in BACKENDS {
        open_games_are_limited(backend).await;
    }
}

async fn open_games_are_limited(backend: Backend) {
    let app = app_on(backend, |s| s.open_games_per_player = 2).await;
    let a = app.player("a").await;
    let b = app.player("b").await;
    let open = |who: &crate::helpers::TestPlayer| json!({"variant": "backgammon", "seats": [who.id, null]});
    let first = app
        .create(&a, "backgammon", json!({}), vec![Some(a.id), None])
        .await;
    app.create(&a, "backgammon", json!({}), vec![Some(a.id), None])
        .await;
    assert_limited(app.post("/v1/games", &a, open(&a)).await).await;
    // Many at once do not slip past the count either.
    let tries =
        futures_util::future::join_all((0..10).map(|_| app.post("/v1/games", &a, open(&a)))).await;
    assert!(tries.iter().all(|r| r.status() == 429));
    // A game that starts at once is not open.
    let vs_bot = app
        .post(
            "/v1/games",
            &a,
            json!({"variant": "backgammon", "seats": [a.id, {"bot": "random"}]}),
        )
        .await;
    assert_eq!(vs_bot.status(), 201);
    // Others may still open games; a game that starts is no longer open.
    app.create(&b, "backgammon", json!({}), vec![Some(b.id), None])
        .await;
    let id = first["id"].as_str().expect("id");
    let joined = app
        .post(&format!("/v1/games/{id}/seats/1"), &b, json!({}))
        .await;
    assert_eq!(joined.status(), 200);
    app.create(&a, "backgammon", json!({}), vec![Some(a.id), None])
        .await;
    assert_limited(app.post("/v1/games", &a, open(&a)).await).await;
}

/// Opening a game counts the waiting games its creator has; the count reads the waiting
/// games only, through their index, however many games are stored (before the index it
/// read every game ever stored: 46 ms at 100,000 games, on every game opened).
#[tokio::test]
async fn counting_a_players_open_games_reads_only_the_waiting_ones() {
    use worp::store::{sql, Store};
    for backend in BACKENDS {
        let app = app_on(backend, |_| {}).await;
        let a = app.player("a").await;
        app.create(&a, "backgammon", json!({}), vec![Some(a.id), None])
            .await;
        let plan: Vec<String> = match &app.store {
            Store::Postgres(pg) => {
                crate::helpers::store_finished_games(&pg.pool, 5000, 1).await;
                sqlx::query_scalar(&format!("EXPLAIN {}", sql::OPEN_GAMES_OF_POSTGRES))
                    .bind(a.id.to_string())
                    .fetch_all(&pg.pool)
                    .await
                    .expect("plan")
            }
            Store::Sqlite(lite) => {
                sqlx::query(
                    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n \
                     WHERE i < 5000) INSERT INTO games (id, variant, status, version, summary, \
                     created_at, updated_at) SELECT randomblob(16), 'backgammon', 'finished', \
                     10, '{}', '2026-01-01', '2026-01-01' FROM n",
                )
                .execute(&lite.pool)
                .await
                .expect("finished games");
                sqlx::query(
                    "INSERT INTO events (game_id, seq, kind, payload, rules_version, \
                     recorded_at, hash) SELECT id, 1, 'game_created', '{}', 1, created_at, 'h' \
                     FROM games WHERE status = 'finished'",
                )
                .execute(&lite.pool)
                .await
                .expect("their first events");
                sqlx::query("ANALYZE")
                    .execute(&lite.pool)
                    .await
                    .expect("analyze");
                let rows: Vec<(i64, i64, i64, String)> =
                    sqlx::query_as(&format!("EXPLAIN QUERY PLAN {}", sql::OPEN_GAMES_OF_SQLITE))
                        .bind(a.id.to_string())
                        .fetch_all(&lite.pool)
                        .await
                        .expect("plan");
                rows.into_iter().map(|r| r.3).collect()
            }
        };
        // The waiting games' own index, or (SQLite) the games by status, searched for
        // the waiting ones.
        assert!(
            plan.iter().any(|line| line.contains("games_waiting")
                || line.contains("INDEX games_by_status (status=?)")),
            "{backend:?}: the count reads the waiting games' index: {plan:#?}"
        );
        // No table read whole: PostgreSQL's sequential scans, SQLite's scans without an
        // index.
        assert!(
            !plan.iter().any(|line| line.contains("Seq Scan")
                || (line.starts_with("SCAN ") && !line.contains(" INDEX "))),
            "{backend:?}: no game but the waiting ones is read: {plan:#?}"
        );
        // And the limit still counts this player's waiting game.
        let stored = app.store.open_games_of(a.id).await.expect("count");
        assert_eq!(stored, 1, "{backend:?}");
    }
}

/// Opens a connection that sends a request head announcing a 60,000-byte body, then a
/// few bytes of it, and then nothing.
async fn slow_body(at: SocketAddr) -> std::io::Result<TcpStream> {
    let mut s = TcpStream::connect(at).await?;
    s.write_all(
        b"POST /v1/players HTTP/1.1\r\nHost: worp\r\nContent-Type: application/json\r\n\
          Content-Length: 60000\r\n\r\n{\"name\": \"",
    )
    .await?;
    Ok(s)
}

/// What the server sends on `s` within `within` (empty: it closed without a word;
/// `None`: it sent nothing and kept the connection open).
async fn answer(s: &mut TcpStream, within: Duration) -> Option<String> {
    let mut buf = vec![0u8; 4096];
    match tokio::time::timeout(within, s.read(&mut buf)).await {
        Ok(Ok(n)) => Some(String::from_utf8_lossy(&buf[..n]).into_owned()),
        Ok(Err(_)) => Some(String::new()),
        Err(_) => None,
    }
}

#[tokio::test]
async fn a_body_that_does_not_arrive_in_time_is_answered_408() {
    let app = app_with(|s| s.body_timeout = Duration::from_secs(1)).await;
    let mut s = slow_body(socket(&app)).await.expect("connect");
    let started = Instant::now();
    let said = answer(&mut s, Duration::from_secs(4))
        .await
        .expect("the server answers a body that stalls");
    assert!(said.starts_with("HTTP/1.1 408"), "{said}");
    assert!(said.contains("application/problem+json"), "{said}");
    assert!(started.elapsed() >= Duration::from_millis(900));
}

#[tokio::test]
async fn a_head_that_does_not_arrive_in_time_is_answered_408() {
    let app = app_with(|s| s.header_timeout = Duration::from_secs(1)).await;
    let mut s = TcpStream::connect(socket(&app)).await.expect("connect");
    s.write_all(b"GET /v1/variants HTTP/1.1\r\nHost: worp\r\n")
        .await
        .expect("write");
    let said = answer(&mut s, Duration::from_secs(3))
        .await
        .expect("the server gives up on a head that stalls");
    assert!(
        said.is_empty() || said.starts_with("HTTP/1.1 408"),
        "{said}"
    );
}

/// 600 connections each stalling in their body leave the server answering others. (The
/// test process's own limit of open files must hold 600 client and up to 600 server
/// sockets at once; the soft limit is checked first and the test says so if it is too
/// low, rather than failing for a reason that is not the server's.)
#[tokio::test]
async fn six_hundred_slow_bodies_leave_the_server_answering() {
    const SLOW: usize = 600;
    if let Some(limit) = soft_open_files_limit() {
        assert!(
            limit >= 2 * SLOW as u64 + 200,
            "raise the soft limit of open files (ulimit -n) to run this test: it is {limit}"
        );
    }
    let app = app_with(|s| {
        s.body_timeout = Duration::from_secs(1);
        s.max_connections = 256;
    })
    .await;
    let at = socket(&app);
    let mut slow = Vec::with_capacity(SLOW);
    for _ in 0..SLOW {
        slow.push(slow_body(at).await.expect("connect"));
    }
    let started = Instant::now();
    let fresh = reqwest::Client::new();
    for i in 0..20 {
        let resp = tokio::time::timeout(
            Duration::from_secs(8),
            fresh.get(app.url("/v1/variants")).send(),
        )
        .await
        .unwrap_or_else(|_| panic!("request {i} was not answered in 8 s"))
        .expect("request");
        assert_eq!(resp.status(), 200);
    }
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    // The stalled connections were answered and closed, not kept.
    let mut answered = 0;
    for s in slow.iter_mut().take(50) {
        if answer(s, Duration::from_secs(3)).await.is_some() {
            answered += 1;
        }
    }
    assert_eq!(answered, 50);
}

#[tokio::test]
async fn connections_beyond_the_cap_wait_to_be_accepted() {
    // Each worker thread of the server takes its share of the cap, at least one.
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let app = app_with(|s| {
        s.body_timeout = Duration::from_secs(2);
        s.max_connections = workers;
    })
    .await;
    let at = socket(&app);
    let mut slow = Vec::new();
    for _ in 0..workers {
        slow.push(slow_body(at).await.expect("connect"));
    }
    // The stalled connections hold the cap once the server has accepted them.
    let clients: Vec<SocketAddr> = slow
        .iter()
        .map(|s| s.local_addr().expect("the client's address"))
        .collect();
    crate::helpers::until_accepted(at, &clients).await;
    let started = Instant::now();
    let resp = app.get("/v1/variants").await;
    assert_eq!(resp.status(), 200);
    // It was accepted only when a stalled body timed out and freed a place.
    assert!(
        started.elapsed() >= Duration::from_millis(1200),
        "{:?}",
        started.elapsed()
    );
    drop(slow);
}

/// The soft limit of open files of this process, from `/proc/self/limits` (Linux).
fn soft_open_files_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

/// Every connection the server accepts has Nagle's algorithm off. With it on, a
/// compressed answer (written as its head and first chunk, then its last chunk) waited
/// for the client's delayed acknowledgement: about 40 ms each on a kept-alive connection,
/// every request of a browser. The server's end of a connection is found among this
/// process's sockets (the app runs in it) by its two addresses, and its option read.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn every_connection_sends_its_answers_without_waiting_for_acknowledgements() {
    let app = app_with(|_| {}).await;
    let server = socket(&app);
    let mut s = TcpStream::connect(server).await.expect("connect");
    let client = s.local_addr().expect("the client's address");
    s.write_all(b"GET /healthz HTTP/1.1\r\nHost: worp\r\nAccept-Encoding: gzip\r\n\r\n")
        .await
        .expect("write");
    let said = answer(&mut s, Duration::from_secs(5))
        .await
        .expect("an answer");
    assert!(said.starts_with("HTTP/1.1 200"), "{said}");
    assert_eq!(
        sockets::no_delay_of(server, client),
        Some(true),
        "the server's end of {client} -> {server} must have TCP_NODELAY"
    );
}

/// This process's TCP sockets, read through `/proc/self/fd` and the socket calls.
#[cfg(target_os = "linux")]
mod sockets {
    use std::mem::size_of;
    use std::net::{Ipv4Addr, SocketAddr};

    type AddressOf =
        unsafe extern "C" fn(libc::c_int, *mut libc::sockaddr, *mut libc::socklen_t) -> libc::c_int;

    /// Whether the socket bound to `local` and connected to `peer` has TCP_NODELAY
    /// (`None`: no such socket here).
    pub fn no_delay_of(local: SocketAddr, peer: SocketAddr) -> Option<bool> {
        let fds = std::fs::read_dir("/proc/self/fd").ok()?;
        for entry in fds.flatten() {
            let Some(fd) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
                continue;
            };
            if address(fd, libc::getsockname) != Some(local)
                || address(fd, libc::getpeername) != Some(peer)
            {
                continue;
            }
            let mut on: libc::c_int = 0;
            let mut len = size_of::<libc::c_int>() as libc::socklen_t;
            // SAFETY: `on` and `len` are valid for the call; a descriptor closed since it
            // was listed makes the call fail, nothing more.
            let rc = unsafe {
                libc::getsockopt(
                    fd,
                    libc::IPPROTO_TCP,
                    libc::TCP_NODELAY,
                    (&mut on as *mut libc::c_int).cast(),
                    &mut len,
                )
            };
            if rc == 0 {
                return Some(on != 0);
            }
        }
        None
    }

    /// The IPv4 address `of` (getsockname or getpeername) gives for `fd`.
    fn address(fd: libc::c_int, of: AddressOf) -> Option<SocketAddr> {
        // SAFETY: an all-zero sockaddr_storage is a valid value of it.
        let mut storage: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
        let mut len = size_of::<libc::sockaddr_storage>() as libc::socklen_t;
        // SAFETY: the buffer and its length are valid; any descriptor may be asked.
        let rc = unsafe {
            of(
                fd,
                (&mut storage as *mut libc::sockaddr_storage).cast(),
                &mut len,
            )
        };
        if rc != 0 || i32::from(storage.ss_family) != libc::AF_INET {
            return None;
        }
        // SAFETY: the family is AF_INET, so the storage holds a sockaddr_in.
        let v4 =
            unsafe { &*(&storage as *const libc::sockaddr_storage).cast::<libc::sockaddr_in>() };
        Some(SocketAddr::from((
            Ipv4Addr::from(u32::from_be(v4.sin_addr.s_addr)),
            u16::from_be(v4.sin_port),
        )))
    }
}
