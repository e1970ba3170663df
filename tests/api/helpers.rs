//! `spawn_app`: the real application on a random port against a fresh database.

use std::sync::Arc;

use serde_json::{json, Value};
use uuid::Uuid;
use worp::clock::{Clock, SystemClock};
use worp::configuration::Settings;
use worp::service::Worp;
use worp::startup::Application;

/// Which database a test runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Postgres,
    Sqlite,
}

pub const BACKENDS: [Backend; 2] = [Backend::Postgres, Backend::Sqlite];

pub struct TestApp {
    pub address: String,
    /// Where `/metrics` is served when `WORP_METRICS_BIND` gives it its own address.
    pub metrics_address: Option<String>,
    pub client: reqwest::Client,
    pub worp: Arc<Worp>,
    /// The store under `worp`.
    pub store: worp::store::Store,
    /// The database URL (or SQLite path) the app runs on.
    pub database: String,
    /// The token of every player `player` registered, by id (to accept invitations).
    tokens: std::sync::Mutex<std::collections::HashMap<Uuid, String>>,
    /// How many players [`TestApp::player`] registered under each name asked for.
    names_used: std::sync::Mutex<std::collections::HashMap<String, usize>>,
    _dir: Option<TempDir>,
}

/// A directory removed when dropped.
pub struct TempDir(pub std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The PostgreSQL server tests create their databases on: the private, throw-away
/// cluster the README's test command starts (never a shared server).
pub fn postgres_admin_url() -> String {
    std::env::var("WORP_TEST_POSTGRES").unwrap_or_else(|_| {
        panic!(
            "WORP_TEST_POSTGRES is not set: run the README's test command, which starts a \
             private PostgreSQL for the tests, or point it at a server you can create \
             databases on"
        )
    })
}

/// A fresh, uniquely named database; returns its URL.
pub async fn fresh_postgres() -> String {
    use sqlx::Connection;
    let admin = postgres_admin_url();
    let name = format!("worp_test_{}", Uuid::new_v4().simple());
    let mut conn = sqlx::PgConnection::connect(&admin)
        .await
        .unwrap_or_else(|e| {
            panic!("PostgreSQL at {admin} is needed for the tests (set WORP_TEST_POSTGRES): {e}")
        });
    // The name is generated here (hex only), never taken from input.
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&mut conn)
        .await
        .expect("create the test database");
    match admin.rfind('/') {
        Some(i) => format!("{}/{name}", &admin[..i]),
        None => panic!("WORP_TEST_POSTGRES must end in /<database>"),
    }
}

pub async fn spawn_app(backend: Backend) -> TestApp {
    spawn_app_with(backend, Arc::new(SystemClock)).await
}

/// A clock the test moves by hand.
#[derive(Debug)]
pub struct ManualClock(pub std::sync::Mutex<chrono::DateTime<chrono::Utc>>);

impl ManualClock {
    pub fn new() -> Arc<ManualClock> {
        Arc::new(ManualClock(std::sync::Mutex::new(chrono::Utc::now())))
    }
    pub fn advance(&self, by: chrono::Duration) {
        let mut t = self.0.lock().expect("clock");
        *t += by;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> chrono::DateTime<chrono::Utc> {
        *self.0.lock().expect("clock")
    }
}

/// A fresh database URL for `backend` (and the directory to remove afterwards).
pub async fn fresh_database(backend: Backend) -> (String, Option<TempDir>) {
    match backend {
        Backend::Postgres => (fresh_postgres().await, None),
        Backend::Sqlite => {
            let dir = std::env::temp_dir().join(format!("worp-test-{}", Uuid::new_v4().simple()));
            std::fs::create_dir_all(&dir).expect("temp dir");
            (
                dir.join("worp.sqlite").display().to_string(),
                Some(TempDir(dir)),
            )
        }
    }
}

/// The settings every test app runs with: `database`, any free port on loopback, and
/// short intervals so that background work shows within a test.
pub fn test_settings(database: String) -> Settings {
    Settings {
        database_url: Some(database),
        sqlite_path: String::new(),
        bind: [127, 0, 0, 1].into(),
        port: 0,
        cors_origins: vec!["https://front.example".into()],
        public_url: "http://localhost".into(),
        body_limit: 16 * 1024,
        cache_states: 1000,
        db_connections: 8,
        sweep_interval: std::time::Duration::from_secs(3600),
        sse_keepalive: std::time::Duration::from_millis(500),
        webhooks: worp::webhooks::WebhookSettings {
            base_backoff: std::time::Duration::from_millis(200),
            poll: std::time::Duration::from_millis(100),
            timeout: std::time::Duration::from_secs(5),
            // The tests' receivers listen on loopback.
            allow: vec![
                "127.0.0.0/8".parse().expect("cidr"),
                "::1/128".parse().expect("cidr"),
            ],
        },
        notify: worp::notifications::NotifySettings {
            public_url: "http://localhost".into(),
            poll: std::time::Duration::from_millis(50),
            backoff: chrono::Duration::milliseconds(200),
            ..Default::default()
        },
        push: Default::default(),
        rate_limits: worp::ratelimit::Limits::default(),
        write_queue: 4096,
        idempotency_ttl: std::time::Duration::from_secs(24 * 3600),
        // Off: a test server registers many players from one address and leaves games
        // waiting; `edge.rs` tests these limits.
        players_per_hour_per_address: 0,
        open_games_per_player: 0,
        vacation_days: 30,
        // Off: each server would start a gnubg worker; `bots.rs` turns it on.
        bots: worp::service::bots::BotSettings {
            gnubg: false,
            ..Default::default()
        },
        header_timeout: std::time::Duration::from_secs(5),
        body_timeout: std::time::Duration::from_secs(10),
        max_connections: 512,
        // Off: every test client comes from 127.0.0.1; `limits.rs` tests these.
        connections_per_address: 0,
        streams_per_address: 0,
        keep_alive: std::time::Duration::from_secs(30),
        workers: 1,
        shutdown_grace: std::time::Duration::from_secs(1),
        shutdown_timeout: std::time::Duration::from_secs(30),
        log_format: Default::default(),
        metrics_bind: None,
        otlp_endpoint: None,
    }
}

pub async fn spawn_app_with(backend: Backend, clock: Arc<dyn Clock>) -> TestApp {
    let (url, dir) = fresh_database(backend).await;
    spawn_app_from(test_settings(url), clock, dir).await
}

/// The app as `worp serve` builds it, from `settings`, serving in the background.
pub async fn spawn_app_from(
    settings: Settings,
    clock: Arc<dyn Clock>,
    dir: Option<TempDir>,
) -> TestApp {
    // Every server of this binary plays the test's sixth game too.
    crate::sixth_game::register();
    let database = settings.database();
    let app = Application::build(settings, clock)
        .await
        .expect("the application builds");
    let address = format!("http://{}", app.address());
    let metrics_address = app.metrics_address().map(|a| format!("http://{a}"));
    let worp = app.worp();
    let store = app.store();
    tokio::spawn(app.run_until_stopped());
    // As a load balancer would: no request before the start's fold of the ratings is
    // done and `/readyz` could say ready (`shutdown.rs` tests the time before).
    let until = tokio::time::Instant::now() + std::time::Duration::from_secs(120);
    while worp.folding_ratings() {
        assert!(
            tokio::time::Instant::now() < until,
            "the ratings' first fold ends"
        );
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    TestApp {
        address,
        metrics_address,
        client: reqwest::Client::new(),
        worp,
        store,
        database,
        tokens: Default::default(),
        names_used: Default::default(),
        _dir: dir,
    }
}

/// A registered player.
#[derive(Debug, Clone)]
pub struct TestPlayer {
    pub id: Uuid,
    pub token: String,
}

impl TestApp {
    /// A server already running at `address` (e.g. a `worp serve` process) on
    /// `database` (PostgreSQL, which the test's own service shares with it).
    pub async fn at(address: String, database: String) -> TestApp {
        let store = worp::store::Store::connect(&database, 2)
            .await
            .expect("the server's database");
        TestApp {
            address,
            metrics_address: None,
            client: reqwest::Client::new(),
            worp: Arc::new(Worp::new(store.clone(), 10, Arc::new(SystemClock))),
            store,
            database,
            tokens: Default::default(),
            names_used: Default::default(),
            _dir: None,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.address, path)
    }

    /// Registers a player named `name`; the second time this app registers `name`,
    /// `name 2`, and so on (names are unique, and look-alikes refused), and the next
    /// number again where another app on the same database took one.
    pub async fn player(&self, name: &str) -> TestPlayer {
        let resp = loop {
            let n = {
                let mut used = self.names_used.lock().expect("names");
                let n = used.entry(name.to_owned()).or_insert(0);
                *n += 1;
                *n
            };
            let tried = if n == 1 {
                name.to_owned()
            } else {
                format!("{name} {n}")
            };
            let resp = self
                .client
                .post(self.url("/v1/players"))
                .json(&json!({ "name": tried }))
                .send()
                .await
                .expect("request");
            if resp.status() != 409 {
                break resp;
            }
        };
        assert_eq!(resp.status(), 201);
        let body: Value = resp.json().await.expect("json");
        let player = TestPlayer {
            id: body["id"]
                .as_str()
                .and_then(|s| s.parse().ok())
                .expect("id"),
            token: body["token"].as_str().expect("token").to_owned(),
        };
        self.tokens
            .lock()
            .expect("tokens")
            .insert(player.id, player.token.clone());
        player
    }

    /// Every invitation of `game` accepted by its player (who must have been registered
    /// through [`TestApp::player`]); returns the game as it then is.
    pub async fn accept_invitations(&self, game: Value) -> Value {
        let id = game["id"].as_str().expect("id").to_owned();
        let mut game = game;
        let seats = game["seats"].as_array().cloned().unwrap_or_default();
        for seat in seats {
            let Some(invited) = seat["invited"]
                .as_str()
                .and_then(|p| p.parse::<Uuid>().ok())
            else {
                continue;
            };
            let token = self
                .tokens
                .lock()
                .expect("tokens")
                .get(&invited)
                .cloned()
                .expect("an invited player of this test");
            let who = TestPlayer { id: invited, token };
            let resp = self
                .post(
                    &format!("/v1/games/{id}/seats/{}", seat["seat"]),
                    &who,
                    Value::Null,
                )
                .await;
            let status = resp.status();
            game = resp.json().await.expect("json");
            assert_eq!(status, 200, "accepting: {game}");
        }
        game
    }

    pub async fn post(&self, path: &str, who: &TestPlayer, body: Value) -> reqwest::Response {
        self.client
            .post(self.url(path))
            .bearer_auth(&who.token)
            .json(&body)
            .send()
            .await
            .expect("request")
    }

    /// `mv` played by `who` in game `id` with `If-Match: "version"`.
    pub async fn play_if_match(
        &self,
        id: &str,
        who: &TestPlayer,
        mv: Value,
        version: i64,
    ) -> reqwest::Response {
        self.client
            .post(self.url(&format!("/v1/games/{id}/moves")))
            .bearer_auth(&who.token)
            .header("If-Match", format!("\"{version}\""))
            .json(&json!({"move": mv}))
            .send()
            .await
            .expect("request")
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(self.url(path))
            .send()
            .await
            .expect("request")
    }

    /// GET as `who`, expecting 200 and JSON.
    pub async fn get_json_as(&self, path: &str, who: &TestPlayer) -> Value {
        let resp = self
            .client
            .get(self.url(path))
            .bearer_auth(&who.token)
            .send()
            .await
            .expect("request");
        assert_eq!(resp.status(), 200, "GET {path}");
        resp.json().await.expect("json")
    }

    /// Two new players and an active game of `variant` between them (a in seat 0).
    pub async fn two_player_game(&self, variant: &str) -> (TestPlayer, TestPlayer, Value) {
        let (a, b) = (self.player("a").await, self.player("b").await);
        let game = self
            .create(&a, variant, Value::Null, vec![Some(a.id), Some(b.id)])
            .await;
        (a, b, game)
    }

    pub async fn get_json(&self, path: &str) -> Value {
        let resp = self.get(path).await;
        assert_eq!(resp.status(), 200, "GET {path}");
        resp.json().await.expect("json")
    }

    /// Creates a game with every seat given (players or open); the players invited accept.
    pub async fn create(
        &self,
        creator: &TestPlayer,
        variant: &str,
        options: Value,
        seats: Vec<Option<Uuid>>,
    ) -> Value {
        self.create_from(
            creator,
            json!({"variant": variant, "options": options, "seats": seats}),
        )
        .await
    }

    /// Creates a game from a whole `POST /v1/games` body; the players invited accept.
    pub async fn create_from(&self, creator: &TestPlayer, body: Value) -> Value {
        let resp = self.post("/v1/games", creator, body).await;
        let status = resp.status();
        let body: Value = resp.json().await.expect("json");
        assert_eq!(status, 201, "{body}");
        self.accept_invitations(body).await
    }

    /// All events of a game.
    pub async fn events(&self, id: &str) -> Vec<Value> {
        let mut all = Vec::new();
        loop {
            let page = self
                .get_json(&format!(
                    "/v1/games/{id}/events?after={}&limit=1000",
                    all.len()
                ))
                .await;
            let events = page["events"].as_array().cloned().unwrap_or_default();
            let done = events.len() < 1000;
            all.extend(events);
            if done {
                return all;
            }
        }
    }
}

/// Whether the server listening on `server` has accepted the connection from `client`,
/// in this process or another (Linux: the server's end of it in `/proc/net/tcp` has a
/// socket inode; a connection still in the listen queue has none, inode 0).
pub fn accepted(server: std::net::SocketAddr, client: std::net::SocketAddr) -> bool {
    let port = |field: &str| {
        let hex = field.rsplit(':').next()?;
        u16::from_str_radix(hex, 16).ok()
    };
    std::fs::read_to_string("/proc/net/tcp").is_ok_and(|table| {
        table.lines().skip(1).any(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            fields.len() > 9
                && port(fields[1]) == Some(server.port())
                && port(fields[2]) == Some(client.port())
                && fields[9] != "0"
        })
    })
}

/// Waits (30 s at most) until `server` has accepted every connection of `clients`.
pub async fn until_accepted(server: std::net::SocketAddr, clients: &[std::net::SocketAddr]) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !clients.iter().all(|c| accepted(server, *c)) {
        assert!(
            std::time::Instant::now() < deadline,
            "the server did not accept {clients:?} within 30 s"
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

/// Stores `games` finished games straight into PostgreSQL, each with `events` events
/// (placeholders, for the planner's statistics: no game is played), then `ANALYZE`.
pub async fn store_finished_games(pool: &sqlx::PgPool, games: i64, events: i64) {
    sqlx::query(
        "INSERT INTO games (id, variant, status, version, summary, created_at, \
         updated_at, listed_second) SELECT gen_random_uuid(), 'backgammon', \
         'finished', 10, '{}', now(), now(), now() FROM generate_series(1, $1)",
    )
    .bind(games)
    .execute(pool)
    .await
    .expect("finished games");
    sqlx::query(
        "INSERT INTO events (game_id, seq, kind, payload, rules_version, recorded_at, \
         hash) SELECT id, s, 'game_created', '{}', 1, now(), 'h' \
         FROM games, generate_series(1, $1::bigint) AS s WHERE status = 'finished'",
    )
    .bind(events)
    .execute(pool)
    .await
    .expect("their events");
    sqlx::query("ANALYZE").execute(pool).await.expect("analyze");
}
