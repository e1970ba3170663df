//! `worp-load`: a load generator and measuring tool for a running Worp server.
//!
//! - HTTP load: `--clients` concurrent clients each play games against `--url` (two or
//!   more players of their own, random legal moves from `legal_moves`, `If-Match` on every
//!   move) for `--duration`, and the tool reports acknowledged moves per second, p50/p95/
//!   p99 latency of the move requests and every error by status. A 429 answer (the
//!   server's rate limit) is waited out as its `Retry-After` asks and the request sent
//!   again; the 429s are reported, and the rate is each client's moves over the time it
//!   played (less its waits and any time after it stopped), summed.
//! - `--pgbench-db URL`: afterwards, PostgreSQL's own ceiling on this machine: `pgbench`
//!   with single-row INSERT transactions into a scratch table, the same client count and
//!   duration, durable commits; our rate is printed as a fraction of it. With
//!   `--rounds N` the two alternate N times and the means are compared.
//! - `--hop-anchor` (with `--pgbench-db` or `--sqlite-anchor`): after the anchor in each
//!   round, the anchor's insert behind a minimal HTTP hop ([`hop_anchor`]), with the same
//!   clients and duration: how much of the anchor's rate an HTTP hop alone leaves, and
//!   our rate as a fraction of it.
//! - `--sqlite-anchor PATH` (the server's SQLite file): afterwards, SQLite's own ceiling
//!   on the same disk, durable single-row inserts with the server's settings, the same
//!   client count and duration ([`sqlite_anchor`]); our rate as a fraction of it.
//! - With either anchor, on Linux: the CPU the machine spent per acknowledged move and
//!   per anchor transaction in each round (`/proc`, [`cpu`]), and the ratio of the two;
//!   with `--server-pid`, the server's own CPU per move too.
//! - `--database-url URL` (the server's database): the time to rebuild games from their
//!   events, engine only and from the database (events per second).
//! - `--seed-finished N` (with `--database-url`): plays one game to its end through the
//!   service, then stores it N times more under new ids through the store's append (the
//!   events re-chained for each id, with the read models and the dice secret), so the move
//!   rate can be measured with many finished games already stored.
//! - `--replay N` (with `--database-url`): the cost of scrubbing N states of a long game
//!   (`state?at=k` for each k) against an `--against` anchor scrub in the same rounds,
//!   the same states scrubbed backward against the forward scrub, the cold first `GET`,
//!   and memory (`replay.rs`).
//!
//! Example: `worp-load --url http://127.0.0.1:8080 --clients 32 --duration 30s
//! --variant ali_baba --pgbench-db postgres://postgres@127.0.0.1/worp_load`
//!
//! The HTTP load speaks only HTTP to the server. The crate still depends on `worp` as a
//! library, because the other two measurements are the server's own code paths and
//! must not be imitated: `--seed-finished` plays a game through `worp::service` and
//! stores its copies through `worp::store`'s append (events re-chained by
//! `worp::events`, read models by `worp::service::game_row`), and the rebuild
//! measurement folds the stored events with `worp::table::Table`, as the server does.
//!
//! The binary (`src/main.rs`) parses [`Args`] and calls [`run`]; the integration tests
//! of `worp` call [`run`] in-process against a server they start.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Parser;
use rand::seq::IndexedRandom;
use serde_json::{json, Value};
use uuid::Uuid;
use worp::events::{Event, EventRow};
use worp::service::{game_row, CreateGame, SeatRequest, SystemClock, Worp};
use worp::store::{Append, Store};
use worp::table::Table;

mod bot_crowd;
mod cpu;
mod hop_anchor;
mod pg_counters;
mod reads;
pub mod replay;
mod sqlite_anchor;
mod streams;

#[derive(Debug, Parser)]
#[command(
    name = "worp-load",
    about = "Load generator and measurements for a Worp server"
)]
pub struct Args {
    /// The running server.
    #[arg(long, default_value = "http://127.0.0.1:8080")]
    pub url: String,
    /// Concurrent clients (each plays its own games).
    #[arg(long, default_value_t = 32)]
    pub clients: usize,
    /// How long to play: `30s`, `2m`, `500ms`.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub duration: Duration,
    /// The variant to play (see `GET /v1/variants`).
    #[arg(long, default_value = "backgammon")]
    pub variant: String,
    /// The variant's options (JSON); default: the defaults.
    #[arg(long, default_value = "null")]
    pub options: String,
    /// Skip the HTTP load (e.g. to only seed or measure rebuilds).
    #[arg(long)]
    pub no_http: bool,
    /// Measure PostgreSQL's ceiling with pgbench on this database (a scratch table is
    /// created and dropped in it).
    #[arg(long)]
    pub pgbench_db: Option<String>,
    /// Measure SQLite's ceiling (durable single-row inserts, the server's settings) in a
    /// scratch file beside this one (the server's SQLite database: the same disk).
    #[arg(long, conflicts_with = "pgbench_db")]
    pub sqlite_anchor: Option<std::path::PathBuf>,
    /// Also measure the anchor's insert (pgbench's, or SQLite's) behind a minimal HTTP
    /// hop (an actix-web handler running it), after the anchor in each round (see
    /// `hop_anchor.rs`). It does not change the target's verdict.
    #[arg(long)]
    pub hop_anchor: bool,
    /// The server's database, for `--seed-finished` and the rebuild measurement.
    #[arg(long)]
    pub database_url: Option<String>,
    /// Store this many finished games before the load (needs `--database-url`).
    #[arg(long, default_value_t = 0)]
    pub seed_finished: usize,
    /// The recorded game the seeding copies: `played` (random legal moves to the end) or
    /// `resigned` (one move, then a resignation: a short finished game, for seeding fast).
    #[arg(long, default_value = "played")]
    pub seed_game: String,
    /// The players the seeded copies are played between, two of them chosen in turn for
    /// each copy (0: the recorded game's own two players in every copy). Many players
    /// make a rating book with many standings (the leaderboard's cost).
    #[arg(long, default_value_t = 0)]
    pub seed_players: usize,
    /// Concurrent appends while seeding.
    #[arg(long, default_value_t = 16)]
    pub seed_concurrency: usize,
    /// Alternate the HTTP load and pgbench this many times, each for `--duration`, and
    /// compare the totals: on a machine whose speed drifts (a shared virtual machine),
    /// interleaving keeps the two measurements under the same conditions.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub rounds: u32,
    /// How many stored games the rebuild measurement replays (0: skip it).
    #[arg(long, default_value_t = 200)]
    pub rebuild_games: usize,
    /// Measure the replay (`replay.rs`): scrub this many states of a `--variant` game
    /// against the `--against` anchor, then backward (needs `--database-url`).
    #[arg(long)]
    pub replay: Option<usize>,
    /// The anchor of `--replay`, measured in the same rounds: `VARIANT:STATES`.
    #[arg(long, default_value = "backgammon:128")]
    pub against: String,
    /// The server's process id: to report its CPU per acknowledged move (the load) and
    /// its resident memory (`--replay`).
    #[arg(long)]
    pub server_pid: Option<u32>,
    /// Send each move with an `Idempotency-Key` (its game and version), as a client that
    /// retries safely does: the server then keeps each answer with the move.
    #[arg(long)]
    pub idempotency_keys: bool,
    /// Measure each round's HTTP load twice: players alone, then while this many
    /// backgammon games against `--bot` are played (`bot_crowd.rs`).
    #[arg(long, default_value_t = 0)]
    pub bot_crowd: usize,
    /// The bot of `--bot-crowd`'s games.
    #[arg(long, default_value = "gnubg-expert")]
    pub bot: String,
    /// Measure a crowd watching one game instead of the load (`streams.rs`): this many
    /// live streams against 100, in each of `--rounds`.
    #[arg(long, default_value_t = 0)]
    pub streams: usize,
    /// Measure the pages players open instead of the load (`reads.rs`): each this many
    /// times in each of `--rounds` (after `--seed-finished`, if given).
    #[arg(long, default_value_t = 0)]
    pub reads: usize,
}

fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (num, unit) = s
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .map_or((s, "s"), |i| (&s[..i], &s[i..]));
    let n: f64 = num.parse().map_err(|_| format!("not a duration: {s:?}"))?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "s" => n,
        "m" | "min" => n * 60.0,
        _ => return Err(format!("unknown unit in {s:?} (ms, s, m)")),
    };
    Ok(Duration::from_secs_f64(secs))
}

/// Where the tool's report goes besides the [`Report`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Echo {
    /// Each line is printed as it is written (the command line: the load's progress
    /// shows while it runs).
    Stdout,
    /// Nothing is printed (a test reads the [`Report`]).
    Quiet,
}

/// What a run found.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// Every line the run wrote, as the command line prints them.
    pub transcript: String,
    /// What it says of the target (>= 50% of pgbench's rate, p99 < 25 ms).
    pub verdict: Verdict,
}

/// What a run says of the target (>= 50% of pgbench's rate, p99 < 25 ms).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Nothing was compared against pgbench (the command line exits 0).
    NotCompared,
    /// The target was met (exits 0).
    Met,
    /// The target was not met (exits 1).
    NotMet,
    /// The load gave nothing to judge by, e.g. no acknowledged move in some round: no
    /// latency samples, so no p99 (exits 3). Says why.
    CannotJudge(String),
}

impl Verdict {
    /// The command line's exit code for this verdict (2 is left for a failure).
    pub fn exit_code(&self) -> i32 {
        match self {
            Verdict::NotCompared | Verdict::Met => 0,
            Verdict::NotMet => 1,
            Verdict::CannotJudge(_) => 3,
        }
    }
}

/// The report being written, line by line; clones write to the same transcript (pgbench
/// runs on a blocking thread).
#[derive(Clone)]
struct Out {
    echo: Echo,
    transcript: Arc<Mutex<String>>,
}

impl Out {
    /// Everything written so far, taken out.
    fn take(&self) -> String {
        std::mem::take(
            &mut *self
                .transcript
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        )
    }

    fn line(&self, line: String) {
        if self.echo == Echo::Stdout {
            println!("{line}");
        }
        let mut transcript = self
            .transcript
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        transcript.push_str(&line);
        transcript.push('\n');
    }
}

/// What one client saw.
#[derive(Default)]
struct ClientStats {
    /// Latencies of acknowledged moves, microseconds.
    latencies: Vec<u32>,
    /// Latencies of all move requests (including refused ones), microseconds.
    all_latencies: Vec<u32>,
    errors: std::collections::BTreeMap<String, u64>,
    games_finished: u64,
    games_created: u64,
    /// The 429 answers it met and how it waited them out.
    patience: Patience,
    /// When and why it stopped before it was asked to.
    stopped: Option<(Instant, String)>,
}

impl ClientStats {
    fn error(&mut self, what: String) {
        *self.errors.entry(what).or_default() += 1;
    }
}

/// How a client ended.
enum ClientEnd {
    /// It was asked to stop: the measurement is over.
    Stopped,
    /// It could not go on.
    Failed(String),
}

impl From<String> for ClientEnd {
    fn from(e: String) -> ClientEnd {
        ClientEnd::Failed(e)
    }
}

/// A 429 answer (the server's rate limit) is waited out as its `Retry-After` asks, and
/// the request sent again; this is how long when it does not say in seconds.
const RETRY_AFTER_UNSAID: Duration = Duration::from_secs(1);

/// The delay of a `Retry-After` header in seconds (the form the server sends); `None`
/// for another form (a date).
fn retry_after(value: &[u8]) -> Option<Duration> {
    let secs: u64 = std::str::from_utf8(value).ok()?.trim().parse().ok()?;
    Some(Duration::from_secs(secs))
}

/// The 429 answers a client met, and the time it spent waiting them out.
#[derive(Default)]
struct Patience {
    /// Set when the measurement is over: a wait ends at once.
    stop: Arc<AtomicBool>,
    /// How many 429 answers it met.
    rate_limited: u64,
    /// When it waited: from, to.
    pauses: Vec<(Instant, Instant)>,
}

impl Patience {
    /// Counts a 429 answer and waits as it asks (`Retry-After`, else
    /// [`RETRY_AFTER_UNSAID`]); `Err(Stopped)` if the client is asked to stop meanwhile.
    async fn wait_out(&mut self, retry_after: Option<Duration>) -> Result<(), ClientEnd> {
        self.rate_limited += 1;
        let from = Instant::now();
        let until = from + retry_after.unwrap_or(RETRY_AFTER_UNSAID);
        let stopped = loop {
            if self.stop.load(Ordering::Relaxed) {
                break true;
            }
            let now = Instant::now();
            if now >= until {
                break false;
            }
            tokio::time::sleep((until - now).min(Duration::from_millis(50))).await;
        };
        self.pauses.push((from, Instant::now()));
        if stopped {
            Err(ClientEnd::Stopped)
        } else {
            Ok(())
        }
    }

    /// Sends the request `build` makes, and again after each 429 once it has been waited
    /// out. Errors name `what` was sent.
    async fn send(
        &mut self,
        what: &str,
        build: impl Fn() -> reqwest::RequestBuilder,
    ) -> Result<reqwest::Response, ClientEnd> {
        loop {
            let resp = build()
                .send()
                .await
                .map_err(|e| format!("{what}: {}", e.without_url()))?;
            if resp.status() != reqwest::StatusCode::TOO_MANY_REQUESTS {
                return Ok(resp);
            }
            let after = resp
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| retry_after(v.as_bytes()));
            drop(resp);
            self.wait_out(after).await?;
        }
    }
}

struct Player {
    token: String,
    id: String,
}

async fn new_player(
    http: &reqwest::Client,
    patience: &mut Patience,
    url: &str,
    name: &str,
) -> Result<Player, ClientEnd> {
    let resp = patience
        .send("create player", || {
            http.post(format!("{url}/v1/players"))
                .json(&json!({ "name": name }))
        })
        .await?;
    if resp.status() != 201 {
        return Err(format!("create player: HTTP {}", resp.status()).into());
    }
    let body: Value = resp.json().await.map_err(|e| e.to_string())?;
    Ok(Player {
        token: body["token"].as_str().unwrap_or_default().to_owned(),
        id: body["id"].as_str().unwrap_or_default().to_owned(),
    })
}

async fn new_game(
    http: &reqwest::Client,
    patience: &mut Patience,
    plan: &Plan,
    players: &[Player],
) -> Result<Seen, ClientEnd> {
    let Plan {
        url,
        variant,
        options,
        ..
    } = plan;
    let seats: Vec<&str> = players.iter().map(|p| p.id.as_str()).collect();
    let resp = patience
        .send("create game", || {
            http.post(format!("{url}/v1/games"))
                .bearer_auth(&players[0].token)
                .json(&json!({ "variant": variant, "options": options, "seats": seats }))
        })
        .await?;
    let status = resp.status();
    let mut body = resp.bytes().await.map_err(|e| e.to_string())?;
    if status != 201 {
        return Err(format!(
            "create game: HTTP {status}: {}",
            String::from_utf8_lossy(&body)
        )
        .into());
    }
    // Naming the other players invited them: each takes the seat reserved for them.
    let id = Seen::read(&body)
        .map_err(|e| format!("create game: {e}"))?
        .id;
    for (seat, p) in players.iter().enumerate().skip(1) {
        let resp = patience
            .send(&format!("accept seat {seat}"), || {
                http.post(format!("{url}/v1/games/{id}/seats/{seat}"))
                    .bearer_auth(&p.token)
            })
            .await?;
        let status = resp.status();
        body = resp.bytes().await.map_err(|e| e.to_string())?;
        if status != 200 {
            return Err(format!(
                "accept seat {seat}: HTTP {status}: {}",
                String::from_utf8_lossy(&body)
            )
            .into());
        }
    }
    Ok(Seen::read(&body).map_err(|e| format!("create game: {e}"))?)
}

/// Where a game stands, as far as a client needs to know to move: the game view is read
/// borrowing from the response (the state and the rest are skipped, not built), and the
/// move to send next is chosen while reading, among the listed legal moves, and kept
/// verbatim.
#[derive(Debug)]
struct Seen {
    id: Uuid,
    status: GameStatus,
    version: i64,
    to_move: Option<u64>,
    /// A legal move chosen at random, as listed (JSON text); `None` when none is listed.
    next_move: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GameStatus {
    Active,
    Finished,
    Other,
}

#[derive(serde::Deserialize)]
struct SeenRef<'a> {
    id: Uuid,
    #[serde(borrow)]
    status: std::borrow::Cow<'a, str>,
    version: i64,
    to_move: Option<u64>,
    #[serde(borrow)]
    legal_moves: Vec<&'a serde_json::value::RawValue>,
}

impl Seen {
    /// Reads a game view (JSON) and chooses the next move among its legal moves.
    fn read(body: &[u8]) -> Result<Seen, String> {
        let r: SeenRef<'_> = serde_json::from_slice(body).map_err(|e| e.to_string())?;
        Ok(Seen {
            id: r.id,
            status: match &*r.status {
                "active" => GameStatus::Active,
                "finished" => GameStatus::Finished,
                _ => GameStatus::Other,
            },
            version: r.version,
            to_move: r.to_move,
            next_move: r
                .legal_moves
                .choose(&mut rand::rng())
                .map(|m| m.get().to_owned()),
        })
    }
}

/// How a client sends its moves. Over plain HTTP: a keep-alive HTTP/1.1 connection of
/// its own, spoken directly (one write per request, the answer read into a buffer kept
/// for the next), so that the tool, which shares the machine with the server it
/// measures, spends as little of it as a lean client would. Over HTTPS: the shared
/// `reqwest` client.
enum Mover {
    Own(Box<OwnConnection>),
    /// Through the shared client; with an `Idempotency-Key` on each move or not.
    Shared(reqwest::Client, bool),
}

struct OwnConnection {
    /// `host:port`, for connecting and for the `Host` header.
    authority: String,
    /// The URL's path prefix, if the server is mounted below `/`.
    base: String,
    stream: Option<tokio::net::TcpStream>,
    /// The request being written, then the answer being read.
    request: Vec<u8>,
    answer: Vec<u8>,
    /// Whether each move carries an `Idempotency-Key`.
    keyed: bool,
}

/// Where the body of an answer is, once its head has been read.
enum Framing {
    Length(usize),
    Chunked,
    /// Until the server closes the connection.
    Close,
}

impl Mover {
    fn new(url: &str, http: &reqwest::Client, keyed: bool) -> Result<Mover, String> {
        let parsed = reqwest::Url::parse(url).map_err(|e| format!("--url {url:?}: {e}"))?;
        if parsed.scheme() != "http" {
            return Ok(Mover::Shared(http.clone(), keyed));
        }
        let host = parsed
            .host_str()
            .ok_or_else(|| format!("--url {url:?} has no host"))?;
        let port = parsed.port_or_known_default().unwrap_or(80);
        Ok(Mover::Own(Box::new(OwnConnection {
            authority: format!("{host}:{port}"),
            base: parsed.path().trim_end_matches('/').to_owned(),
            stream: None,
            request: Vec::with_capacity(1024),
            answer: Vec::with_capacity(16 * 1024),
            keyed,
        })))
    }

    /// Sends a move and reads the answer. Transport errors are `Err`.
    async fn send(
        &mut self,
        url: &str,
        game: Uuid,
        token: &str,
        version: i64,
        body: &str,
    ) -> Result<Sent, String> {
        let started = Instant::now();
        let micros = || u32::try_from(started.elapsed().as_micros()).unwrap_or(u32::MAX);
        match self {
            Mover::Shared(http, keyed) => {
                let mut request = http.post(format!("{url}/v1/games/{game}/moves"));
                if *keyed {
                    request = request.header("Idempotency-Key", format!("{game}-{version}"));
                }
                let r = request
                    .bearer_auth(token)
                    .header("If-Match", format!("\"{version}\""))
                    .header(reqwest::header::CONTENT_TYPE, "application/json")
                    .body(body.to_owned())
                    .send()
                    .await
                    .map_err(|e| e.without_url().to_string())?;
                let status = r.status().as_u16();
                let retry_after = r
                    .headers()
                    .get(reqwest::header::RETRY_AFTER)
                    .and_then(|v| retry_after(v.as_bytes()));
                let body = r.bytes().await.map_err(|e| e.to_string())?;
                let micros = micros();
                Ok(Sent {
                    status,
                    seen: Seen::read(&body).ok(),
                    micros,
                    retry_after,
                })
            }
            Mover::Own(conn) => {
                let answer = conn.exchange(game, token, version, body).await;
                if answer.is_err() {
                    // Open a new connection for the next move.
                    conn.stream = None;
                }
                let (head, body) = answer?;
                let micros = micros();
                let seen = conn.answer.get(body).and_then(|b| Seen::read(b).ok());
                if !head.keep {
                    conn.stream = None;
                }
                Ok(Sent {
                    status: head.status,
                    seen,
                    micros,
                    retry_after: head.retry_after,
                })
            }
        }
    }
}

/// What the answer to a move said.
#[derive(Debug, Default)]
struct Sent {
    /// Its status (0 when there was none: a transport error).
    status: u16,
    /// What it says of the game; `None` when its body is not a game view.
    seen: Option<Seen>,
    /// From sending the request to having read the whole answer.
    micros: u32,
    /// Its `Retry-After`, in seconds.
    retry_after: Option<Duration>,
}

/// What the head of an answer says that the client uses.
struct Head {
    status: u16,
    /// Whether the connection stays open.
    keep: bool,
    retry_after: Option<Duration>,
}

impl OwnConnection {
    /// Writes the request, reads the whole answer into `self.answer`: what its head says,
    /// and where its body is.
    async fn exchange(
        &mut self,
        game: Uuid,
        token: &str,
        version: i64,
        body: &str,
    ) -> Result<(Head, std::ops::Range<usize>), String> {
        use std::io::Write as _;
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        if self.stream.is_none() {
            let stream = tokio::net::TcpStream::connect(&self.authority)
                .await
                .map_err(|e| format!("connect: {e}"))?;
            stream.set_nodelay(true).map_err(|e| e.to_string())?;
            self.stream = Some(stream);
        }
        let Some(stream) = self.stream.as_mut() else {
            return Err("no connection".into());
        };
        self.request.clear();
        write!(
            self.request,
            "POST {}/v1/games/{game}/moves HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {token}\r\n\
             If-Match: \"{version}\"\r\n",
            self.base,
            self.authority,
        )
        .map_err(|e| e.to_string())?;
        if self.keyed {
            write!(self.request, "Idempotency-Key: {game}-{version}\r\n")
                .map_err(|e| e.to_string())?;
        }
        write!(
            self.request,
            "Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .map_err(|e| e.to_string())?;
        stream
            .write_all(&self.request)
            .await
            .map_err(|e| format!("write: {e}"))?;
        self.answer.clear();
        // The head.
        let (mut head, head_len, framing) = loop {
            self.fill().await?;
            let mut headers = [httparse::EMPTY_HEADER; 32];
            let mut response = httparse::Response::new(&mut headers);
            match response.parse(&self.answer) {
                Ok(httparse::Status::Partial) => continue,
                Ok(httparse::Status::Complete(len)) => {
                    let mut head = Head {
                        status: response.code.unwrap_or(0),
                        keep: response.version == Some(1),
                        retry_after: None,
                    };
                    let mut framing = Framing::Close;
                    for h in response.headers.iter() {
                        if h.name.eq_ignore_ascii_case("content-length") {
                            let n = std::str::from_utf8(h.value)
                                .ok()
                                .and_then(|v| v.trim().parse().ok())
                                .ok_or("a malformed Content-Length")?;
                            framing = Framing::Length(n);
                        } else if h.name.eq_ignore_ascii_case("transfer-encoding")
                            && h.value.eq_ignore_ascii_case(b"chunked")
                        {
                            framing = Framing::Chunked;
                        } else if h.name.eq_ignore_ascii_case("connection") {
                            head.keep = !h.value.eq_ignore_ascii_case(b"close");
                        } else if h.name.eq_ignore_ascii_case("retry-after") {
                            head.retry_after = retry_after(h.value);
                        }
                    }
                    break (head, len, framing);
                }
                Err(e) => return Err(format!("a malformed answer: {e}")),
            }
        };
        // The body.
        match framing {
            Framing::Length(n) => {
                let end = head_len + n;
                self.answer.reserve(end.saturating_sub(self.answer.len()));
                while self.answer.len() < end {
                    self.fill().await?;
                }
                Ok((head, head_len..end))
            }
            Framing::Close => {
                let Some(stream) = self.stream.as_mut() else {
                    return Err("no connection".into());
                };
                stream
                    .read_to_end(&mut self.answer)
                    .await
                    .map_err(|e| format!("read: {e}"))?;
                head.keep = false;
                Ok((head, head_len..self.answer.len()))
            }
            Framing::Chunked => {
                // Reassembled in place: each chunk's data moved down over the sizes.
                let mut read = head_len;
                let mut body_end = head_len;
                loop {
                    let line = loop {
                        if let Some(i) = self.answer[read..].windows(2).position(|w| w == b"\r\n") {
                            break i;
                        }
                        self.fill().await?;
                    };
                    let size_text = std::str::from_utf8(&self.answer[read..read + line])
                        .map_err(|e| e.to_string())?;
                    let size =
                        usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
                            .map_err(|_| format!("a malformed chunk size {size_text:?}"))?;
                    read += line + 2;
                    while self.answer.len() < read + size + 2 {
                        self.fill().await?;
                    }
                    if size == 0 {
                        // No trailers are expected.
                        return Ok((head, head_len..body_end));
                    }
                    self.answer.copy_within(read..read + size, body_end);
                    body_end += size;
                    read += size + 2;
                }
            }
        }
    }

    /// Reads more of the answer (at least one byte).
    async fn fill(&mut self) -> Result<(), String> {
        use tokio::io::AsyncReadExt;
        let Some(stream) = self.stream.as_mut() else {
            return Err("no connection".into());
        };
        self.answer.reserve(4096);
        match stream.read_buf(&mut self.answer).await {
            Ok(0) => Err("the server closed the connection".into()),
            Ok(_) => Ok(()),
            Err(e) => Err(format!("read: {e}")),
        }
    }
}

/// What every client plays.
struct Plan {
    url: String,
    variant: String,
    options: Value,
    seats: usize,
    /// Whether each move carries an `Idempotency-Key`.
    keyed: bool,
}

/// One client: plays until it is asked to stop (`stats.patience.stop`) or cannot go on
/// (`stats.stopped` says when and why), counting its acknowledged moves in `acked`.
async fn client(
    n: usize,
    http: reqwest::Client,
    plan: Arc<Plan>,
    stop: Arc<AtomicBool>,
    acked: Arc<Vec<AtomicU64>>,
) -> ClientStats {
    let mut stats = ClientStats::default();
    stats.patience.stop = stop;
    match play(n, &http, &plan, &acked[n], &mut stats).await {
        Ok(()) | Err(ClientEnd::Stopped) => {}
        Err(ClientEnd::Failed(e)) => stats.stopped = Some((Instant::now(), e)),
    }
    stats
}

async fn play(
    n: usize,
    http: &reqwest::Client,
    plan: &Plan,
    acked: &AtomicU64,
    stats: &mut ClientStats,
) -> Result<(), ClientEnd> {
    let url = plan.url.as_str();
    let mut mover = Mover::new(url, http, plan.keyed)?;
    let mut players = Vec::new();
    for s in 0..plan.seats {
        players.push(
            new_player(
                http,
                &mut stats.patience,
                url,
                &unique_name(&format!("load-{n}-{s}")),
            )
            .await?,
        );
    }
    let mut game = new_game(http, &mut stats.patience, plan, &players).await?;
    stats.games_created += 1;
    while !stats.patience.stop.load(Ordering::Relaxed) {
        if game.status != GameStatus::Active {
            if game.status == GameStatus::Finished {
                stats.games_finished += 1;
            }
            game = new_game(http, &mut stats.patience, plan, &players).await?;
            stats.games_created += 1;
            continue;
        }
        let id = game.id;
        let Some(seat) = game.to_move else {
            stats.error("active game without a seat to move".into());
            game = new_game(http, &mut stats.patience, plan, &players).await?;
            continue;
        };
        let Some(mv) = &game.next_move else {
            stats.error("no legal moves".into());
            game = new_game(http, &mut stats.patience, plan, &players).await?;
            continue;
        };
        let body = format!("{{\"move\":{mv}}}");
        let token = &players[seat as usize % players.len()].token;
        let sent = match mover.send(url, id, token, game.version, &body).await {
            Ok(sent) => {
                stats.all_latencies.push(sent.micros);
                if sent.status == 200 && sent.seen.is_some() {
                    stats.latencies.push(sent.micros);
                }
                sent
            }
            Err(e) => {
                stats.error(format!("transport: {e}"));
                Sent::default()
            }
        };
        match sent {
            Sent {
                status: 200,
                seen: Some(g),
                ..
            } => {
                acked.fetch_add(1, Ordering::Relaxed);
                game = g;
            }
            // Refused before it was looked at: the same move again once waited out.
            Sent {
                status: 429,
                retry_after,
                ..
            } => stats.patience.wait_out(retry_after).await?,
            Sent { status, .. } => {
                if status != 0 {
                    stats.error(format!("HTTP {status}"));
                }
                // Find out where the game is and go on.
                let read = stats
                    .patience
                    .send("read the game", || http.get(format!("{url}/v1/games/{id}")))
                    .await;
                match read {
                    Ok(r) if r.status() == 200 => {
                        let b = r.bytes().await.map_err(|e| e.to_string())?;
                        game = Seen::read(&b)?;
                    }
                    Err(ClientEnd::Stopped) => return Err(ClientEnd::Stopped),
                    _ => tokio::time::sleep(Duration::from_millis(100)).await,
                }
            }
        }
    }
    Ok(())
}

/// One client's part in a measurement window.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Share {
    /// Moves it had acknowledged within the window.
    moves: u64,
    /// The time it played: the window less the two below.
    played: Duration,
    /// The time it waited out 429 answers.
    waiting: Duration,
    /// The time after it stopped.
    stopped: Duration,
}

impl Share {
    /// The part in `window` of a client that made `moves` in it, waited in `pauses` and
    /// stopped at `stopped`, if it did.
    fn new(
        window: (Instant, Instant),
        moves: u64,
        pauses: &[(Instant, Instant)],
        stopped: Option<Instant>,
    ) -> Share {
        let (from, to) = window;
        let end = stopped.map_or(to, |at| at.clamp(from, to));
        let waiting = pauses
            .iter()
            .map(|&(a, b)| b.min(end).saturating_duration_since(a.max(from)))
            .sum();
        Share {
            moves,
            played: end.duration_since(from).saturating_sub(waiting),
            waiting,
            stopped: to.duration_since(end),
        }
    }
}

/// Acknowledged moves per second over the time the clients played: each client's moves
/// over the time it played, summed. `None` when no client played.
fn rate(shares: &[Share]) -> Option<f64> {
    let playing: Vec<&Share> = shares.iter().filter(|s| !s.played.is_zero()).collect();
    if playing.is_empty() {
        return None;
    }
    Some(
        playing
            .iter()
            .map(|s| s.moves as f64 / s.played.as_secs_f64())
            .sum(),
    )
}

/// The `p`th percentile of latencies in microseconds, sorted ascending, in milliseconds:
/// nearest rank, the smallest sample with at least `p` % of the samples at or below it
/// (`p` 0 or NaN: the smallest; 100 or more: the largest). `None` without samples, never
/// NaN.
fn percentile(sorted: &[u32], p: f64) -> Option<f64> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    // `p * n` is exact for whole `p`, so the division only rounds when the rank is not
    // whole, and `ceil` cannot be pushed up by a rounding error. `as` maps NaN to 0.
    let rank = (p.clamp(0.0, 100.0) * n as f64 / 100.0).ceil() as usize;
    Some(f64::from(sorted[rank.clamp(1, n) - 1]) / 1000.0)
}

/// `p50 … p95 … p99 … max …` of latencies in microseconds, sorted ascending, in
/// milliseconds; `no samples` when there are none.
fn latency_summary(sorted: &[u32]) -> String {
    if sorted.is_empty() {
        return "no samples".into();
    }
    let ms = |p| percentile(sorted, p).map_or_else(String::new, |v| format!("{v:.2}"));
    format!(
        "p50 {}  p95 {}  p99 {}  max {}",
        ms(50.0),
        ms(95.0),
        ms(99.0),
        ms(100.0)
    )
}

/// The worst (highest) of the rounds' p99s; `None` if some round had none. Compared by
/// `total_cmp`, so no value is skipped the way `f64::max` skips a NaN.
fn worst(p99s: &[Option<f64>]) -> Option<f64> {
    p99s.iter()
        .copied()
        .collect::<Option<Vec<f64>>>()?
        .into_iter()
        .max_by(f64::total_cmp)
}

/// What one round of HTTP load measured.
struct Measured {
    /// Acknowledged moves per second over the time the clients played ([`rate`]);
    /// `None` when none played.
    rate: Option<f64>,
    /// The p99 latency of acknowledged moves, ms; `None` without any.
    p99: Option<f64>,
    /// Acknowledged moves.
    moves: u64,
    /// The CPU the measured window took (Linux).
    cpu: Option<cpu::Spent>,
}

impl Measured {
    /// Why the target cannot be judged by this round, if it cannot.
    fn unjudged(&self) -> Option<&'static str> {
        match (self.rate, self.p99) {
            (None, _) => Some("no client played during the measurement"),
            (_, None) => Some("no acknowledged move, no samples"),
            _ => None,
        }
    }
}

/// The clients listed by name in the report at the most (the rest are counted).
const CLIENTS_LISTED: usize = 8;

/// Runs the HTTP load; returns acknowledged moves per second and the p99.
async fn http_load(args: &Args, out: &Out) -> Result<Measured, String> {
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(args.clients * 2)
        .timeout(Duration::from_secs(30))
        .build()
        .map_err(|e| e.to_string())?;
    let variants: Value = http
        .get(format!("{}/v1/variants", args.url))
        .send()
        .await
        .map_err(|e| format!("is the server at {} running? {e}", args.url))?
        .json()
        .await
        .map_err(|e| e.to_string())?;
    let info = variants
        .as_array()
        .and_then(|vs| vs.iter().find(|v| v["name"] == args.variant.as_str()))
        .ok_or_else(|| {
            let names: Vec<String> = variants
                .as_array()
                .map(|vs| vs.iter().map(|v| v["name"].to_string()).collect())
                .unwrap_or_default();
            format!(
                "the server has no variant {:?} (it has {})",
                args.variant,
                names.join(", ")
            )
        })?;
    let seats = info["min_seats"].as_u64().unwrap_or(2) as usize;
    let options: Value =
        serde_json::from_str(&args.options).map_err(|e| format!("--options: {e}"))?;
    out.line(format!(
        "HTTP load: {} clients, {:?}, variant {} ({} seats), server {}",
        args.clients, args.duration, args.variant, seats, args.url
    ));
    let stop = Arc::new(AtomicBool::new(false));
    // Each client's acknowledged moves.
    let acked: Arc<Vec<AtomicU64>> =
        Arc::new((0..args.clients).map(|_| AtomicU64::new(0)).collect());
    let total =
        |acked: &[AtomicU64]| -> u64 { acked.iter().map(|a| a.load(Ordering::Relaxed)).sum() };
    let plan = Arc::new(Plan {
        url: args.url.clone(),
        variant: args.variant.clone(),
        options,
        seats,
        keyed: args.idempotency_keys,
    });
    let mut tasks = Vec::new();
    for n in 0..args.clients {
        tasks.push(tokio::spawn(client(
            n,
            http.clone(),
            plan.clone(),
            stop.clone(),
            acked.clone(),
        )));
    }
    let all_ended =
        |tasks: &[tokio::task::JoinHandle<ClientStats>]| tasks.iter().all(|t| t.is_finished());
    // Measure from the first acknowledged move of any client, so set-up is not counted.
    let setup = Instant::now();
    while total(&acked) == 0 && setup.elapsed() < Duration::from_secs(30) && !all_ended(&tasks) {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let started = Instant::now();
    let cpu_at_start = cpu::Snapshot::take(args.server_pid);
    let at_start: Vec<u64> = acked.iter().map(|a| a.load(Ordering::Relaxed)).collect();
    let mut last = at_start.iter().sum::<u64>();
    let mut second = 0;
    while started.elapsed() < args.duration && !all_ended(&tasks) {
        tokio::time::sleep(Duration::from_secs(1).min(args.duration)).await;
        second += 1;
        let now = total(&acked);
        if second % 5 == 0 {
            out.line(format!("  {second:>4}s  {:>7} moves/s", now - last));
        }
        last = now;
    }
    let ended = Instant::now();
    let at_end: Vec<u64> = acked.iter().map(|a| a.load(Ordering::Relaxed)).collect();
    let spent = cpu_at_start.to(
        &cpu::Snapshot::take(args.server_pid),
        cpu::Client::Own("this load generator"),
    );
    stop.store(true, Ordering::Relaxed);
    let mut clients = Vec::with_capacity(tasks.len());
    for t in tasks {
        clients.push(t.await.map_err(|e| format!("a client panicked: {e}"))?);
    }
    let window = (started, ended);
    let shares: Vec<Share> = clients
        .iter()
        .zip(at_start.iter().zip(&at_end))
        .map(|(c, (a, b))| {
            Share::new(
                window,
                b - a,
                &c.patience.pauses,
                c.stopped.as_ref().map(|s| s.0),
            )
        })
        .collect();
    let rate = rate(&shares);
    let (mut latencies, mut all_latencies) = (Vec::new(), Vec::new());
    let mut errors = std::collections::BTreeMap::<String, u64>::new();
    let (mut created, mut finished) = (0, 0);
    for c in &clients {
        latencies.extend_from_slice(&c.latencies);
        all_latencies.extend_from_slice(&c.all_latencies);
        for (k, v) in &c.errors {
            *errors.entry(k.clone()).or_default() += v;
        }
        created += c.games_created;
        finished += c.games_finished;
        if c.stopped.is_some() {
            *errors
                .entry("client stopped (see above)".into())
                .or_default() += 1;
        }
    }
    latencies.sort_unstable();
    all_latencies.sort_unstable();
    out.line(acknowledged_line(&shares, ended - started, rate));
    out.line(format!(
        "  latency of acknowledged moves (ms): {}",
        latency_summary(&latencies)
    ));
    out.line(format!(
        "  latency of all move requests (ms): {}  ({} requests)",
        latency_summary(&all_latencies),
        all_latencies.len()
    ));
    out.line(format!("  games created {created}, finished {finished}"));
    for line in rate_limited_lines(&clients, &shares) {
        out.line(line);
    }
    for line in stopped_lines(&clients, started) {
        out.line(line);
    }
    out.line(format!("  errors: {}", errors.values().sum::<u64>()));
    for (k, v) in &errors {
        out.line(format!("    {k}: {v}"));
    }
    let moves = shares.iter().map(|s| s.moves).sum();
    if let Some(spent) = &spent {
        out.line(spent.line("acknowledged move", moves as f64));
    }
    Ok(Measured {
        rate,
        p99: percentile(&latencies, 99.0),
        moves,
        cpu: spent,
    })
}

/// `acknowledged moves: N in T s = R moves/s (how)`.
fn acknowledged_line(shares: &[Share], window: Duration, rate: Option<f64>) -> String {
    let sum = |f: fn(&Share) -> Duration| shares.iter().map(f).sum::<Duration>().as_secs_f64();
    let moves: u64 = shares.iter().map(|s| s.moves).sum();
    let window = window.as_secs_f64();
    let rate = rate.map_or_else(
        || "no rate: no client played".to_owned(),
        |r| format!("{r:.0} moves/s"),
    );
    format!(
        "  acknowledged moves: {moves} in {window:.1} s = {rate} (each client's moves over \
         the time it played, summed: {:.2} of {:.2} client-s played; left out {:.2} s \
         waiting out 429s, {:.2} s after clients stopped)",
        sum(|s| s.played),
        window * shares.len() as f64,
        sum(|s| s.waiting),
        sum(|s| s.stopped),
    )
}

/// The 429 answers the clients met, in all and by client; nothing if none.
fn rate_limited_lines(clients: &[ClientStats], shares: &[Share]) -> Vec<String> {
    let met: Vec<(usize, &ClientStats)> = clients
        .iter()
        .enumerate()
        .filter(|(_, c)| c.patience.rate_limited > 0)
        .collect();
    if met.is_empty() {
        return Vec::new();
    }
    let waited = |c: &ClientStats| -> f64 {
        c.patience
            .pauses
            .iter()
            .map(|(a, b)| b.duration_since(*a))
            .sum::<Duration>()
            .as_secs_f64()
    };
    let mut lines = vec![format!(
        "  429 Too Many Requests (the server's rate limit): {} answers to {} of {} clients, \
         each waited out as its Retry-After asked, then sent again",
        met.iter()
            .map(|(_, c)| c.patience.rate_limited)
            .sum::<u64>(),
        met.len(),
        clients.len()
    )];
    for (n, c) in met.iter().take(CLIENTS_LISTED) {
        lines.push(format!(
            "    client {n}: {} answers, waited {:.2} s ({:.2} s of it in the measurement)",
            c.patience.rate_limited,
            waited(c),
            shares[*n].waiting.as_secs_f64()
        ));
    }
    if met.len() > CLIENTS_LISTED {
        lines.push(format!(
            "    and {} more clients",
            met.len() - CLIENTS_LISTED
        ));
    }
    lines
}

/// The clients that stopped before the end, when and why; nothing if none did.
fn stopped_lines(clients: &[ClientStats], started: Instant) -> Vec<String> {
    let stopped: Vec<(usize, &(Instant, String))> = clients
        .iter()
        .enumerate()
        .filter_map(|(n, c)| Some((n, c.stopped.as_ref()?)))
        .collect();
    if stopped.is_empty() {
        return Vec::new();
    }
    let mut lines = vec![format!(
        "  clients stopped before the end: {} of {} (their time after it is not counted)",
        stopped.len(),
        clients.len()
    )];
    for (n, (at, why)) in stopped.iter().take(CLIENTS_LISTED) {
        let when = if *at < started {
            "during set-up".to_owned()
        } else {
            format!(
                "{:.2} s into the measurement",
                at.duration_since(started).as_secs_f64()
            )
        };
        lines.push(format!("    client {n}: {when}: {why}"));
    }
    if stopped.len() > CLIENTS_LISTED {
        lines.push(format!(
            "    and {} more clients",
            stopped.len() - CLIENTS_LISTED
        ));
    }
    lines
}

/// What one anchor run measured (pgbench, or SQLite's durable inserts).
struct Anchor {
    /// Transactions per second.
    tps: f64,
    /// The CPU the run took, and its transactions (Linux).
    cpu: Option<(cpu::Spent, f64)>,
}

/// The anchor's scratch table and its transaction, the same files `tools/pgbench` and
/// `tools/latency` run.
const ANCHOR_TABLE: &str = include_str!("../../pgbench/anchor_table.sql");
const ANCHOR: &str = include_str!("../../pgbench/anchor.sql");
/// Drops the anchor's table once a measurement is done with it.
const ANCHOR_DROP: &str = "DROP TABLE IF EXISTS anchor";

/// Runs pgbench; returns its transactions per second and the CPU its run took.
fn pgbench(db: &str, clients: usize, duration: Duration, out: &Out) -> Result<Anchor, String> {
    let psql = |sql: &str| -> Result<String, String> {
        let out = std::process::Command::new("psql")
            .args([
                "-X",
                "-q",
                "-At",
                "-v",
                "ON_ERROR_STOP=1",
                "-d",
                db,
                "-c",
                sql,
            ])
            .output()
            .map_err(|e| format!("psql: {e} (install postgresql-client)"))?;
        if !out.status.success() {
            return Err(format!(
                "psql: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    };
    let settings = psql("SELECT current_setting('fsync') || ' ' || current_setting('synchronous_commit') || ' ' || current_setting('server_version')")?;
    out.line(format!(
        "pgbench: PostgreSQL fsync / synchronous_commit / version: {settings}"
    ));
    psql(ANCHOR_TABLE)?;
    let script = std::env::temp_dir().join(format!("worp-load-{}.sql", Uuid::new_v4().simple()));
    std::fs::write(&script, ANCHOR).map_err(|e| e.to_string())?;
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let before = cpu::Snapshot::take(None);
    let ran = std::process::Command::new("pgbench")
        .env("PGOPTIONS", "-c synchronous_commit=on")
        .args([
            "-n",
            "-M",
            "prepared",
            "-c",
            &clients.to_string(),
            "-j",
            &threads.min(clients).to_string(),
            "-T",
            &duration.as_secs().max(1).to_string(),
            "-f",
        ])
        .arg(&script)
        .arg(db)
        .output();
    let spent = before.to(&cpu::Snapshot::take(None), cpu::Client::Children("pgbench"));
    let _ = std::fs::remove_file(&script);
    let _ = psql(ANCHOR_DROP);
    let ran = ran.map_err(|e| format!("pgbench: {e} (install postgresql-contrib)"))?;
    let text = String::from_utf8_lossy(&ran.stdout).to_string();
    if !ran.status.success() {
        return Err(format!(
            "pgbench failed: {}{}",
            text,
            String::from_utf8_lossy(&ran.stderr)
        ));
    }
    for line in text.lines() {
        if line.starts_with("latency") || line.starts_with("tps") {
            out.line(format!("  pgbench: {line}"));
        }
    }
    let tps = text
        .lines()
        .find(|l| l.starts_with("tps ="))
        .and_then(|l| l.split_whitespace().nth(2))
        .and_then(|t| t.parse().ok())
        .ok_or_else(|| format!("no tps in pgbench's output: {text}"))?;
    // `number of transactions actually processed: N` (`N/M` with a limit of transactions).
    let transactions = text
        .lines()
        .find_map(|l| l.strip_prefix("number of transactions actually processed: "))
        .and_then(|n| n.split('/').next())
        .and_then(|n| n.trim().parse::<f64>().ok());
    let cpu = cpu::anchor(
        spent,
        transactions,
        "pgbench transaction (its connections included)",
        out,
    );
    Ok(Anchor { tps, cpu })
}

/// The service over the database at `url`, and its store (to seed and read it directly).
async fn open(url: &str) -> Result<(Worp, Store), String> {
    let store = Store::connect(url, 32)
        .await
        .map_err(|e| format!("cannot open {url}: {e}"))?;
    Ok((Worp::new(store.clone(), 100, Arc::new(SystemClock)), store))
}

/// Plays one game to its end through the service (random legal moves).
async fn play_one(
    worp: &Worp,
    variant: &str,
    options: &Value,
    resign_after: Option<usize>,
) -> Result<Uuid, String> {
    let v = worp_engine::variant(variant).map_err(|e| e.to_string())?;
    let mut players = Vec::new();
    for s in 0..v.min_seats {
        let (p, _) = worp
            .create_player(&unique_name(&format!("seed-{s}")))
            .await
            .map_err(|e| e.to_string())?;
        players.push(p);
    }
    let req = CreateGame {
        variant: variant.to_owned(),
        options: options.clone(),
        seats: players
            .iter()
            .map(|p| Some(SeatRequest::Player(p.id)))
            .collect(),
        days_per_move: None,
        client_seed: None,
        rated: None,
        public_chat: false,
    };
    let mut table = worp
        .create_game(&players[0], req)
        .await
        .map_err(|e| e.to_string())?;
    // The other players accept the seats they were invited to.
    for (seat, p) in players.iter().enumerate().skip(1) {
        table = worp
            .take_seat(p, table.id, seat as u8, None)
            .await
            .map_err(|e| e.to_string())?;
    }
    let mut played = 0;
    while let Some(seat) = table.to_move() {
        if resign_after == Some(played) {
            let player = table.seats[seat.index()]
                .player_id
                .and_then(|id| players.iter().find(|p| p.id == id))
                .ok_or("no player in the seat to move")?;
            table = worp
                .resign(player, table.id, Some(seat.0))
                .await
                .map_err(|e| e.to_string())?;
            continue;
        }
        played += 1;
        let moves = table.game.legal_moves().map_err(|e| e.to_string())?;
        let mv = moves
            .choose(&mut rand::rng())
            .cloned()
            .ok_or("no legal moves")?;
        let player = table.seats[seat.index()]
            .player_id
            .and_then(|id| players.iter().find(|p| p.id == id))
            .ok_or("no player in the seat to move")?;
        let mv = serde_json::value::to_raw_value(&mv).map_err(|e| e.to_string())?;
        table = worp
            .play(player, table.id, &mv, None, None)
            .await
            .map_err(|e| e.to_string())?
            .table;
    }
    Ok(table.id)
}

/// `ev` with every player in it replaced by `seat_player`'s choice.
fn reseat(ev: &Event, seat_player: &impl Fn(Uuid) -> Uuid) -> Event {
    let mut ev = ev.clone();
    match &mut ev {
        Event::GameCreated {
            seats,
            invited,
            created_by,
            ..
        } => {
            for p in seats.iter_mut().chain(invited.iter_mut()).flatten() {
                *p = seat_player(*p);
            }
            *created_by = seat_player(*created_by);
        }
        Event::SeatTaken { player_id, .. } | Event::InvitationDeclined { player_id, .. } => {
            *player_id = seat_player(*player_id);
        }
        _ => {}
    }
    ev
}

/// Stores `n` copies of one finished game under new ids.
async fn seed_finished(args: &Args, db: &str, n: usize, out: &Out) -> Result<(), String> {
    let (worp, store) = open(db).await?;
    let worp = Arc::new(worp);
    let options: Value =
        serde_json::from_str(&args.options).map_err(|e| format!("--options: {e}"))?;
    let variant = if worp_engine::variant(&args.variant).is_ok() {
        args.variant.clone()
    } else {
        worp_engine::variants()[0].name.to_owned()
    };
    let resign_after = match args.seed_game.as_str() {
        "played" => None,
        "resigned" => Some(1),
        other => return Err(format!("--seed-game {other:?}: played or resigned")),
    };
    let id = play_one(&worp, &variant, &options, resign_after).await?;
    let events = worp.all_events(id).await.map_err(|e| e.to_string())?;
    let seed = store
        .secret(id)
        .await
        .map_err(|e| e.to_string())?
        .ok_or("the recorded game has no secret")?;
    let decoded = events
        .iter()
        .map(|e| e.event().map(|ev| (ev, e.recorded_at)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    out.line(format!(
        "seeding {n} finished {variant} games of {} events each ({} events) into the database",
        events.len(),
        n * events.len()
    ));
    let recorded: Vec<Uuid> = match decoded.first() {
        // The player of each seat: seated at once, or invited and then seated.
        Some((Event::GameCreated { seats, invited, .. }, _)) => seats
            .iter()
            .zip(invited.iter().chain(std::iter::repeat(&None)))
            .filter_map(|(s, i)| s.or(*i))
            .collect(),
        _ => return Err("the recorded game does not start with game_created".into()),
    };
    let mut seated = Vec::with_capacity(args.seed_players);
    for i in 0..args.seed_players {
        let (p, _) = worp
            .create_player(&unique_name(&format!("seeded-{i}")))
            .await
            .map_err(|e| e.to_string())?;
        seated.push(p.id);
    }
    if !seated.is_empty() && seated.len() < recorded.len() {
        return Err(format!(
            "--seed-players {}: at least {} (one per seat)",
            seated.len(),
            recorded.len()
        ));
    }
    let decoded = Arc::new(decoded);
    let (recorded, seated) = (Arc::new(recorded), Arc::new(seated));
    let seed = Arc::new(seed);
    let started = Instant::now();
    let next = Arc::new(AtomicU64::new(0));
    let mut tasks = Vec::new();
    for _ in 0..args.seed_concurrency.max(1) {
        let (store, decoded, seed, next) =
            (store.clone(), decoded.clone(), seed.clone(), next.clone());
        let (recorded, seated) = (recorded.clone(), seated.clone());
        tasks.push(tokio::spawn(async move {
            loop {
                let copy = next.fetch_add(1, Ordering::Relaxed) as usize;
                if copy >= n {
                    break;
                }
                let id = Uuid::new_v4();
                // Copy k seats players k·s, k·s + 1, … (s seats a game): with enough
                // copies each player meets several others.
                let seat_player = |p: Uuid| -> Uuid {
                    if seated.is_empty() {
                        return p;
                    }
                    let seat = recorded.iter().position(|r| *r == p).unwrap_or(0);
                    let step = 1 + copy / seated.len() % (seated.len() - 1).max(1);
                    seated[(copy + seat * step) % seated.len()]
                };
                // Copy k was played (n - k) · HISTORY / n ago: a history spread over
                // years, as a database that lived them holds, not a million games
                // finished in one second (which no index of the listing's order helps).
                let ago = HISTORY * u32::try_from(n - copy).unwrap_or(u32::MAX) / n.max(1) as u32;
                let ago = chrono::Duration::from_std(ago).unwrap_or_default();
                let mut rows: Vec<EventRow> = Vec::with_capacity(decoded.len());
                for (seq, (ev, at)) in decoded.iter().enumerate() {
                    let prev = rows.last().map_or("", |r| r.event.hash.as_str());
                    let ev = reseat(ev, &seat_player);
                    let row = EventRow::new(id, seq as i64 + 1, &ev, *at - ago, prev)
                        .map_err(|e| e.to_string())?;
                    rows.push(row);
                }
                let table = Table::from_events(&rows).map_err(|e| e.to_string())?;
                let row = game_row(&table).map_err(|e| e.to_string())?;
                store
                    .append(Append {
                        game_id: id,
                        expected_version: 0,
                        events: rows,
                        row,
                        secret: Some(seed.to_vec()),
                        answer_to_keep: None,
                        notices: Vec::new(),
                    })
                    .await
                    .map_err(|e| e.to_string())?;
            }
            Ok::<(), String>(())
        }));
    }
    for t in tasks {
        t.await.map_err(|e| e.to_string())??;
    }
    let secs = started.elapsed().as_secs_f64();
    // The seeded history happened before the server's notifier started following the
    // log: it starts after it, as it would have followed it as it was written.
    if db.starts_with("postgres") {
        let pool = sqlx::PgPool::connect(db).await.map_err(|e| e.to_string())?;
        let end: i64 = sqlx::query_scalar("SELECT COALESCE(max(position), 0) FROM events")
            .fetch_one(&pool)
            .await
            .map_err(|e| e.to_string())?;
        store
            .advance_notifier_cursor(end)
            .await
            .map_err(|e| e.to_string())?;
    }
    out.line(format!(
        "  seeded {n} games in {secs:.1} s ({:.0} games/s, {:.0} events/s)",
        n as f64 / secs,
        (n * events.len()) as f64 / secs
    ));
    Ok(())
}

/// How far back the seeded history reaches (`--seed-finished`): three years.
const HISTORY: Duration = Duration::from_secs(3 * 365 * 24 * 3600);

/// Replays up to `k` stored games: engine only, and from the database.
async fn rebuild(db: &str, k: usize, out: &Out) -> Result<(), String> {
    let (worp, store) = open(db).await?;
    let mut ids = store.game_ids().await.map_err(|e| e.to_string())?;
    ids.reverse();
    ids.truncate(k);
    if ids.is_empty() {
        out.line("rebuild: no games stored".into());
        return Ok(());
    }
    // From the database: read every event and fold it.
    let started = Instant::now();
    let mut all = Vec::with_capacity(ids.len());
    let mut events_total = 0usize;
    for id in &ids {
        let events = worp.all_events(*id).await.map_err(|e| e.to_string())?;
        Table::from_events(&events).map_err(|e| e.to_string())?;
        events_total += events.len();
        all.push(events);
    }
    let db_secs = started.elapsed().as_secs_f64();
    // Engine only: fold the events already in memory (best of three).
    let mut engine_secs = f64::MAX;
    for _ in 0..3 {
        let started = Instant::now();
        for events in &all {
            std::hint::black_box(Table::from_events(events).map_err(|e| e.to_string())?);
        }
        engine_secs = engine_secs.min(started.elapsed().as_secs_f64());
    }
    let per_game = events_total as f64 / ids.len() as f64;
    out.line(format!(
        "Rebuild of {} games ({events_total} events, {per_game:.0} per game):",
        ids.len()
    ));
    out.line(format!(
        "  engine only (events in memory): {:.0} events/s, {:.3} ms per game",
        events_total as f64 / engine_secs,
        engine_secs * 1000.0 / ids.len() as f64
    ));
    out.line(format!(
        "  from the database (SELECT + fold): {:.0} events/s, {:.3} ms per game",
        events_total as f64 / db_secs,
        db_secs * 1000.0 / ids.len() as f64
    ));
    Ok(())
}

/// Runs what `args` ask for, in order: the seeding, the rounds of HTTP load and pgbench,
/// the rebuild measurement. An `Err` is a failure (the command line exits 2); a report
/// whose target was not met or cannot be judged is not (see [`Verdict`]).
pub async fn run(args: &Args, echo: Echo) -> Result<Report, String> {
    let out = Out {
        echo,
        transcript: Arc::default(),
    };
    if args.hop_anchor && args.pgbench_db.is_none() && args.sqlite_anchor.is_none() {
        return Err("--hop-anchor needs --pgbench-db or --sqlite-anchor".into());
    }
    if args.seed_finished > 0 {
        let db = args
            .database_url
            .as_deref()
            .ok_or("--seed-finished needs --database-url")?;
        seed_finished(args, db, args.seed_finished, &out).await?;
    }
    if args.streams > 0 || args.reads > 0 {
        let verdict = if args.streams > 0 {
            streams::run(args, args.streams, &out).await?
        } else {
            reads::run(args, args.reads, &out).await?
        };
        return Ok(Report {
            transcript: out.take(),
            verdict,
        });
    }
    // Why the target cannot be judged, round by round.
    let mut unjudged = Vec::new();
    // PostgreSQL's own counts for the server's tables, before the load.
    let counted = match &args.database_url {
        Some(db) if !args.no_http => pg_counters::read(db),
        _ => None,
    };
    let crowd = match args.bot_crowd {
        0 => None,
        n => Some(bot_crowd::Crowd::set_up(args, n, &out).await?),
    };
    let mut moves = 0;
    // Each round: the HTTP load, then pgbench, for `--duration` each.
    let (mut rates, mut ceilings, mut p99s) = (Vec::new(), Vec::new(), Vec::new());
    let mut hops = hop_anchor::Rounds::new(if args.sqlite_anchor.is_some() {
        "SQLite"
    } else {
        "pgbench"
    });
    let mut cpus = cpu::Rounds::default();
    for round in 1..=args.rounds {
        out.line(format!(
            "Round {round} of {} (the machine's load averages before it: {})",
            args.rounds,
            cpu::load_average()
        ));
        let ours = if args.no_http {
            None
        } else {
            Some(http_load(args, &out).await?)
        };
        if let (Some(crowd), Some(alone)) = (&crowd, &ours) {
            out.line(format!(
                "  ... and again while the {} bot games are played:",
                args.bot_crowd
            ));
            let (busy, answered, took) = crowd.while_playing(http_load(args, &out)).await?;
            let ratio = match (busy.p99, alone.p99) {
                (Some(b), Some(a)) if a > 0.0 => format!("{:.2}", b / a),
                _ => "-".into(),
            };
            out.line(format!(
                "  Bot crowd: p99 {} ms against {} ms alone ({ratio}×); {:.0} moves/s against {:.0}; \
                 the bots were answered {answered} times ({:.0}/s)",
                busy.p99.map_or("-".into(), |p| format!("{p:.1}")),
                alone.p99.map_or("-".into(), |p| format!("{p:.1}")),
                busy.rate.unwrap_or(0.0),
                alone.rate.unwrap_or(0.0),
                answered as f64 / took.as_secs_f64().max(1e-9),
            ));
        }
        moves += ours.as_ref().map_or(0, |m| m.moves);
        if let Some(why) = ours.as_ref().and_then(Measured::unjudged) {
            unjudged.push(format!("round {round}: {why}"));
        }
        if let Some(file) = &args.sqlite_anchor {
            let judged = sqlite_anchor::round(
                file,
                args.clients,
                args.duration,
                ours.as_ref(),
                &mut cpus,
                &out,
            )
            .await?;
            if let Some((rate, tps, p99)) = judged {
                rates.push(rate);
                ceilings.push(tps);
                p99s.push(Some(p99));
                if args.hop_anchor {
                    let store = hop_anchor::Store::Sqlite(file.clone());
                    let hop = hop_anchor::measure(store, args.clients, args.duration).await?;
                    out.line(hops.round(&hop, tps, Some(rate)));
                }
            }
        }
        if let Some(db) = &args.pgbench_db {
            let (hop_db, ours_rate) = (db.clone(), ours.as_ref().and_then(|m| m.rate));
            let (db, clients, duration) = (db.clone(), args.clients, args.duration);
            let pgbench_out = out.clone();
            let anchor =
                tokio::task::spawn_blocking(move || pgbench(&db, clients, duration, &pgbench_out))
                    .await
                    .map_err(|e| e.to_string())??;
            let tps = anchor.tps;
            out.line(format!(
                "  pgbench single-row INSERT transactions: {tps:.0} tx/s"
            ));
            cpus.round(ours.as_ref(), anchor.cpu, &out);
            match ours {
                Some(Measured {
                    rate: Some(rate),
                    p99: Some(p99),
                    ..
                }) => {
                    out.line(format!(
                        "  this round: {:.1}% of pgbench's rate ({rate:.0} / {tps:.0}), p99 {p99:.2} ms",
                        rate / tps * 100.0
                    ));
                    rates.push(rate);
                    ceilings.push(tps);
                    p99s.push(Some(p99));
                }
                Some(m) => out.line(format!(
                    "  this round: cannot be judged ({})",
                    m.unjudged().unwrap_or_default()
                )),
                None => {}
            }
            if args.hop_anchor {
                let store = hop_anchor::Store::Postgres(hop_db);
                let hop = hop_anchor::measure(store, clients, duration).await?;
                out.line(hops.round(&hop, tps, ours_rate));
            }
        }
    }
    if let Some(db) = &args.database_url {
        // pgbench ran after the last load for as long: the statistics have arrived.
        let waited = args.pgbench_db.is_some();
        pg_counters::report(db, counted, moves, waited, &out).await;
    }
    // The anchor, and the target against it (issue 20's targets).
    let (anchor, share_target, p99_target) = target(args.sqlite_anchor.is_some(), args.clients);
    let target_text = format!(
        "Target (>= {:.0}% and p99 < {p99_target} ms)",
        share_target * 100.0
    );
    let mut verdict = Verdict::NotCompared;
    if !unjudged.is_empty() {
        let why = unjudged.join("; ");
        out.line(format!("{target_text}: CANNOT BE JUDGED ({why})"));
        verdict = Verdict::CannotJudge(why);
    } else if let (false, Some(p99)) = (rates.is_empty(), worst(&p99s)) {
        // Equal durations: the mean rates compare the totals.
        let rate = rates.iter().sum::<f64>() / rates.len() as f64;
        let tps = ceilings.iter().sum::<f64>() / ceilings.len() as f64;
        let fraction = rate / tps;
        let ok = fraction >= share_target && p99 < p99_target;
        verdict = if ok { Verdict::Met } else { Verdict::NotMet };
        out.line(format!(
            "Our rate is {:.1}% of {anchor} ({rate:.0} / {tps:.0}{}); p99 {p99:.2} ms{}. {target_text}: {}",
            fraction * 100.0,
            if rates.len() > 1 { ", means over the rounds" } else { "" },
            if rates.len() > 1 { " (the worst round)" } else { "" },
            if ok { "MET" } else { "NOT MET" }
        ));
    }
    cpus.summary(anchor, &out);
    if let Some(summary) = hops.summary() {
        out.line(summary);
    }
    if let Some(states) = args.replay {
        replay::measure(args, states, &out).await?;
    }
    if let Some(db) = &args.database_url {
        if args.rebuild_games > 0 {
            rebuild(db, args.rebuild_games, &out).await?;
        }
    }
    Ok(Report {
        transcript: out.take(),
        verdict,
    })
}

/// The anchor's name, the share of its rate to reach and the p99 to stay under (ms), as
/// issue 20 sets them: on SQLite at least half of its durable single-row inserts, p99
/// under 15 ms; on PostgreSQL at least half of pgbench's rate with one client (each move
/// waits for its own flush, as each pgbench transaction does) and 70 % with more (group
/// commit shares each flush), p99 under 15 ms.
pub fn target(sqlite: bool, clients: usize) -> (&'static str, f64, f64) {
    match (sqlite, clients) {
        (true, _) => ("SQLite's durable inserts", 0.5, 15.0),
        (false, 0 | 1) => ("pgbench's", 0.5, 15.0),
        (false, _) => ("pgbench's", 0.7, 15.0),
    }
}

/// `prefix` and eight random hex digits: players' names are unique on a server (look-alikes
/// refused too), and the tool registers players on databases that may already hold its
/// names from an earlier round or run.
pub(crate) fn unique_name(prefix: &str) -> String {
    let id = Uuid::new_v4().simple().to_string();
    format!("{prefix}-{}", &id[..8])
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    const GAME: &str = r#"{"id":"6f1c6c1e-8d3a-4a53-9d55-0d6c4e6f9a11","variant":"backgammon","status":"active","version":7,"to_move":1,"state":{"board":[2,0,-1],"note":"a \"quoted\" text"},"legal_moves":[[{"from":24,"to":18}],[{"from":13,"to":7}]],"result":null}"#;

    /// A server that reads one request per answer in `answers` (head and
    /// `Content-Length` body) and writes the answer back verbatim, in two pieces.
    async fn serve(answers: Vec<String>) -> (String, tokio::task::JoinHandle<Vec<String>>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let authority = listener.local_addr().unwrap().to_string();
        let task = tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut requests = Vec::new();
            for answer in answers {
                let mut got = Vec::new();
                let request = loop {
                    let mut chunk = [0u8; 4096];
                    let n = socket.read(&mut chunk).await.unwrap();
                    assert!(n > 0, "the client closed the connection");
                    got.extend_from_slice(&chunk[..n]);
                    let text = String::from_utf8(got.clone()).unwrap();
                    if let Some(end) = text.find("\r\n\r\n") {
                        let length: usize = text
                            .lines()
                            .find_map(|l| l.strip_prefix("Content-Length: "))
                            .and_then(|v| v.trim().parse().ok())
                            .unwrap_or(0);
                        if text.len() >= end + 4 + length {
                            break text;
                        }
                    }
                };
                requests.push(request);
                let (a, b) = answer.as_bytes().split_at(answer.len() / 2);
                socket.write_all(a).await.unwrap();
                socket.flush().await.unwrap();
                tokio::time::sleep(Duration::from_millis(5)).await;
                socket.write_all(b).await.unwrap();
            }
            requests
        });
        (authority, task)
    }

    fn mover(authority: &str) -> Mover {
        Mover::new(
            &format!("http://{authority}"),
            &reqwest::Client::new(),
            false,
        )
        .unwrap()
    }

    #[test]
    fn percentiles_are_nearest_ranks_and_none_without_samples() {
        assert_eq!(percentile(&[], 99.0), None);
        assert_eq!(latency_summary(&[]), "no samples");
        // One sample is every percentile.
        for p in [0.0, 1.0, 50.0, 99.0, 100.0, 250.0, -3.0, f64::NAN] {
            assert_eq!(percentile(&[1500], p), Some(1.5), "p{p}");
        }
        assert_eq!(
            latency_summary(&[1500]),
            "p50 1.50  p95 1.50  p99 1.50  max 1.50"
        );
        // 1..=100 ms: the pth percentile is the pth sample, with no rounding up.
        let hundred: Vec<u32> = (1..=100).map(|ms| ms * 1000).collect();
        for p in [1, 7, 29, 50, 95, 99, 100] {
            assert_eq!(
                percentile(&hundred, f64::from(p)),
                Some(f64::from(p)),
                "p{p}"
            );
        }
        assert_eq!(percentile(&hundred, 99.5), Some(100.0));
        assert_eq!(percentile(&hundred, 0.0), Some(1.0));
        let thousand: Vec<u32> = (1..=1000).collect();
        assert_eq!(percentile(&thousand, 99.0), Some(0.99));
        assert_eq!(percentile(&thousand, 95.0), Some(0.95));
        assert_eq!(percentile(&thousand, 29.0), Some(0.29));
        // Two samples: the median is the lower one (nearest rank), p51 the upper.
        assert_eq!(percentile(&[1000, 3000], 50.0), Some(1.0));
        assert_eq!(percentile(&[1000, 3000], 51.0), Some(3.0));
        // Never NaN, whatever is asked.
        for p in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -1.0, 1e300] {
            assert!(percentile(&hundred, p).is_some_and(f64::is_finite), "p{p}");
        }
    }

    #[test]
    fn the_worst_p99_is_the_highest_and_none_if_a_round_had_no_samples() {
        assert_eq!(worst(&[Some(3.0), Some(12.5), Some(0.4)]), Some(12.5));
        // f64::max would have skipped the missing round and said 3.00.
        assert_eq!(worst(&[Some(3.0), None]), None);
        assert_eq!(worst(&[]), None);
    }

    #[test]
    fn verdicts_give_the_exit_codes() {
        assert_eq!(Verdict::NotCompared.exit_code(), 0);
        assert_eq!(Verdict::Met.exit_code(), 0);
        assert_eq!(Verdict::NotMet.exit_code(), 1);
        assert_eq!(Verdict::CannotJudge("no samples".into()).exit_code(), 3);
    }

    /// `--hop-anchor` without an anchor to stand beside is refused before any load.
    #[tokio::test]
    async fn a_hop_without_an_anchor_is_refused() {
        use clap::Parser;
        let args = Args::try_parse_from(["worp-load", "--hop-anchor"]).expect("parses");
        let refused = run(&args, Echo::Quiet).await.expect_err("refused");
        assert!(refused.contains("--hop-anchor needs"), "{refused}");
    }

    #[test]
    fn targets_are_issue_20s_per_anchor_and_client_count() {
        assert_eq!(target(false, 1), ("pgbench's", 0.5, 15.0));
        assert_eq!(target(false, 32), ("pgbench's", 0.7, 15.0));
        assert_eq!(target(true, 1).1, 0.5);
        assert_eq!(target(true, 32), ("SQLite's durable inserts", 0.5, 15.0));
    }

    #[test]
    fn seen_reads_what_a_client_needs_and_chooses_a_listed_move() {
        let seen = Seen::read(GAME.as_bytes()).unwrap();
        assert_eq!(seen.status, GameStatus::Active);
        assert_eq!(seen.version, 7);
        assert_eq!(seen.to_move, Some(1));
        let mv = seen.next_move.unwrap();
        assert!(
            mv == r#"[{"from":24,"to":18}]"# || mv == r#"[{"from":13,"to":7}]"#,
            "{mv}"
        );
        let over = GAME.replace(r#""status":"active""#, r#""status":"finished""#);
        let over = over.replace(
            r#""legal_moves":[[{"from":24,"to":18}],[{"from":13,"to":7}]]"#,
            r#""legal_moves":[]"#,
        );
        let seen = Seen::read(over.as_bytes()).unwrap();
        assert_eq!(seen.status, GameStatus::Finished);
        assert_eq!(seen.next_move, None);
        assert!(Seen::read(b"{\"type\":\"about:blank\",\"status\":409}").is_err());
    }

    #[tokio::test]
    async fn own_connection_reads_answers_by_length_and_by_chunks_on_one_connection() {
        let chunked_body = GAME.split_at(40);
        let answers = vec![
            format!(
                "HTTP/1.1 200 OK\r\ncontent-length: {}\r\ncontent-type: application/json\r\n\r\n{GAME}",
                GAME.len()
            ),
            format!(
                "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n{:x}\r\n{}\r\n{:x};ext=1\r\n{}\r\n0\r\n\r\n",
                chunked_body.0.len(),
                chunked_body.0,
                chunked_body.1.len(),
                chunked_body.1
            ),
            "HTTP/1.1 409 Conflict\r\ncontent-length: 2\r\n\r\n{}".to_owned(),
        ];
        let (authority, server) = serve(answers).await;
        let mut mover = mover(&authority);
        let game = Uuid::nil();
        let body = r#"{"move":[]}"#;
        for _ in 0..2 {
            let sent = mover.send("", game, "tok", 7, body).await.unwrap();
            assert_eq!(sent.status, 200);
            assert_eq!(sent.seen.unwrap().version, 7);
        }
        let sent = mover.send("", game, "tok", 7, body).await.unwrap();
        assert_eq!((sent.status, sent.seen.is_none()), (409, true));
        let requests = server.await.unwrap();
        assert_eq!(requests.len(), 3, "one connection carried every request");
        let first = &requests[0];
        assert!(first.starts_with(&format!(
            "POST /v1/games/{game}/moves HTTP/1.1\r\nHost: {authority}\r\n"
        )));
        assert!(first.contains("\r\nAuthorization: Bearer tok\r\n"));
        assert!(first.contains("\r\nIf-Match: \"7\"\r\n"));
        assert!(first.ends_with(&format!("Content-Length: 11\r\n\r\n{body}")));
        assert!(!first.contains("Idempotency-Key"));
    }

    #[tokio::test]
    async fn keyed_moves_carry_their_game_and_version_as_the_idempotency_key() {
        let answer = format!(
            "HTTP/1.1 200 OK\r\ncontent-length: {}\r\ncontent-type: application/json\r\n\r\n{GAME}",
            GAME.len()
        );
        let (authority, server) = serve(vec![answer]).await;
        let mut mover = Mover::new(
            &format!("http://{authority}"),
            &reqwest::Client::new(),
            true,
        )
        .unwrap();
        let game = Uuid::nil();
        let body = r#"{"move":[]}"#;
        let sent = mover.send("", game, "tok", 7, body).await.unwrap();
        assert_eq!(sent.status, 200);
        let requests = server.await.unwrap();
        assert!(requests[0].contains(&format!("\r\nIdempotency-Key: {game}-7\r\n")));
        assert!(requests[0].ends_with(&format!("Content-Length: 11\r\n\r\n{body}")));
    }

    #[tokio::test]
    async fn own_connection_reads_to_the_end_and_reconnects_when_the_server_closes() {
        let answers = vec![format!(
            "HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n{GAME}"
        )];
        let (authority, server) = serve(answers).await;
        let mut mover = mover(&authority);
        let send = mover.send("", Uuid::nil(), "tok", 7, "{}");
        // The server closes its side once it has answered.
        let (sent, requests) = tokio::join!(send, async {
            let requests = server.await.unwrap();
            requests
        });
        let sent = sent.unwrap();
        assert_eq!((sent.status, sent.seen.unwrap().version), (200, 7));
        assert_eq!(requests.len(), 1);
        let Mover::Own(conn) = &mover else {
            panic!("plain HTTP uses its own connection")
        };
        assert!(conn.stream.is_none(), "the closed connection is not reused");
    }

    #[test]
    fn the_rate_is_each_clients_moves_over_the_time_it_played() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let window = (at(1000), at(6000));
        // Played the whole window.
        let whole = Share::new(window, 500, &[], None);
        assert_eq!(whole.played, Duration::from_secs(5));
        assert_eq!(rate(&[whole]), Some(100.0));
        // Waited 4 s of it out (one wait begun during set-up, one running past the end):
        // 100 moves in the 1 s it played.
        let waited = Share::new(
            window,
            100,
            &[(at(500), at(2500)), (at(3500), at(9000))],
            None,
        );
        assert_eq!(waited.played, Duration::from_secs(1));
        assert_eq!(waited.waiting, Duration::from_secs(4));
        assert_eq!(rate(&[waited]), Some(100.0));
        // Stopped 2 s in, after a 0.5 s wait: 150 moves in 1.5 s.
        let stopped = Share::new(window, 150, &[(at(1500), at(2000))], Some(at(3000)));
        assert_eq!(
            (stopped.played, stopped.waiting, stopped.stopped),
            (
                Duration::from_millis(1500),
                Duration::from_millis(500),
                Duration::from_secs(3)
            )
        );
        assert_eq!(rate(&[stopped]), Some(100.0));
        // Stopped during set-up: it never played and counts for nothing.
        let never = Share::new(window, 0, &[], Some(at(200)));
        assert_eq!(
            (never.played, never.stopped),
            (Duration::ZERO, Duration::from_secs(5))
        );
        assert_eq!(rate(&[never]), None);
        // Together: the rates add up; the whole duration would have said 750 / 5 s.
        let all = [whole, waited, stopped, never];
        assert_eq!(rate(&all), Some(300.0));
        let line = acknowledged_line(&all, Duration::from_secs(5), rate(&all));
        assert!(
            line.starts_with("  acknowledged moves: 750 in 5.0 s = 300 moves/s (each client's moves over the time it played, summed: 7.50 of 20.00 client-s played; left out 4.50 s waiting out 429s, 8.00 s after clients stopped)"),
            "{line}"
        );
        let none = acknowledged_line(&[never], Duration::from_secs(5), None);
        assert!(none.contains("= no rate: no client played"), "{none}");
    }

    /// A server for whole clients: every connection is served; each request is answered
    /// by `answer` from its method and path and how many requests came before it with
    /// the same method and path.
    async fn serve_routes(answer: fn(&str, usize) -> String) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(std::collections::HashMap::<String, usize>::new()));
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let seen = seen.clone();
                tokio::spawn(async move {
                    let mut got = Vec::new();
                    loop {
                        let text = String::from_utf8_lossy(&got).into_owned();
                        let Some(end) = text.find("\r\n\r\n") else {
                            let mut chunk = [0u8; 4096];
                            match socket.read(&mut chunk).await {
                                Ok(n) if n > 0 => got.extend_from_slice(&chunk[..n]),
                                _ => return,
                            }
                            continue;
                        };
                        let length: usize = text[..end]
                            .lines()
                            .find_map(|l| {
                                let (name, value) = l.split_once(':')?;
                                name.eq_ignore_ascii_case("content-length").then_some(value)
                            })
                            .and_then(|v| v.trim().parse().ok())
                            .unwrap_or(0);
                        if got.len() < end + 4 + length {
                            let mut chunk = [0u8; 4096];
                            match socket.read(&mut chunk).await {
                                Ok(n) if n > 0 => got.extend_from_slice(&chunk[..n]),
                                _ => return,
                            }
                            continue;
                        }
                        let route = text.split(" HTTP/").next().unwrap_or("").to_owned();
                        got.drain(..end + 4 + length);
                        let before = {
                            let mut seen = seen.lock().unwrap();
                            let count = seen.entry(route.clone()).or_default();
                            *count += 1;
                            *count - 1
                        };
                        let reply = answer(&route, before);
                        if socket.write_all(reply.as_bytes()).await.is_err() {
                            return;
                        }
                    }
                });
            }
        });
        url
    }

    fn answer(status: &str, headers: &str, body: &str) -> String {
        format!(
            "HTTP/1.1 {status}\r\ncontent-type: application/json\r\n{headers}content-length: {}\r\n\r\n{body}",
            body.len()
        )
    }

    #[tokio::test]
    async fn a_client_waits_out_429s_as_retry_after_asks_and_plays_on() {
        // The first game and the first move are refused with 429 (Retry-After: 1); all
        // the rest is answered, the game never ending.
        let url = serve_routes(|route, before| {
            let too_many = || {
                answer(
                    "429 Too Many Requests",
                    "retry-after: 1\r\n",
                    r#"{"status":429}"#,
                )
            };
            match route.split_once(' ') {
                Some(("POST", "/v1/players")) => answer(
                    "201 Created",
                    "",
                    &format!(r#"{{"id":"p{before}","token":"t{before}"}}"#),
                ),
                Some(("POST", "/v1/games")) if before == 0 => too_many(),
                Some(("POST", "/v1/games")) => answer("201 Created", "", GAME),
                Some(("POST", path)) if path.ends_with("/moves") && before == 0 => too_many(),
                Some(("POST", _)) => answer("200 OK", "", GAME),
                _ => answer("404 Not Found", "", "{}"),
            }
        })
        .await;
        let plan = Arc::new(Plan {
            url,
            variant: "backgammon".into(),
            options: Value::Null,
            seats: 2,
            keyed: false,
        });
        let stop = Arc::new(AtomicBool::new(false));
        let acked = Arc::new(vec![AtomicU64::new(0)]);
        let started = Instant::now();
        let task = tokio::spawn(client(
            0,
            reqwest::Client::new(),
            plan,
            stop.clone(),
            acked.clone(),
        ));
        tokio::time::sleep(Duration::from_millis(2600)).await;
        let ended = Instant::now();
        stop.store(true, Ordering::Relaxed);
        let stats = task.await.unwrap();
        assert!(stats.stopped.is_none(), "{:?}", stats.stopped);
        assert!(stats.errors.is_empty(), "{:?}", stats.errors);
        assert_eq!(stats.patience.rate_limited, 2);
        let waits: Vec<Duration> = stats
            .patience
            .pauses
            .iter()
            .map(|(a, b)| b.duration_since(*a))
            .collect();
        assert_eq!(waits.len(), 2);
        for wait in &waits {
            assert!(
                (Duration::from_secs(1)..Duration::from_millis(1500)).contains(wait),
                "{waits:?}"
            );
        }
        // It went on after each: the game was created, and moves were acknowledged.
        assert_eq!(stats.games_created, 1);
        let moves = acked[0].load(Ordering::Relaxed);
        assert!(moves > 0 && stats.latencies.len() as u64 == moves);
        assert_eq!(stats.all_latencies.len() as u64, moves + 1, "the 429 too");
        // The 2 s of waiting are not time it played.
        let share = Share::new((started, ended), moves, &stats.patience.pauses, None);
        assert_eq!(share.played + share.waiting, ended - started);
        assert!(share.played < Duration::from_millis(700), "{share:?}");
        let line = rate_limited_lines(&[stats], &[share]).join("\n");
        assert!(
            line.starts_with(
                "  429 Too Many Requests (the server's rate limit): 2 answers to 1 of 1 clients"
            ),
            "{line}"
        );
        assert!(
            line.contains("\n    client 0: 2 answers, waited 2."),
            "{line}"
        );
    }

    #[tokio::test]
    async fn a_wait_for_retry_after_ends_when_the_client_is_asked_to_stop() {
        let mut patience = Patience::default();
        let stop = patience.stop.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            stop.store(true, Ordering::Relaxed);
        });
        let started = Instant::now();
        let waited = patience.wait_out(Some(Duration::from_secs(60))).await;
        assert!(matches!(waited, Err(ClientEnd::Stopped)));
        assert!(started.elapsed() < Duration::from_secs(2));
        assert_eq!(patience.rate_limited, 1);
        assert_eq!(patience.pauses.len(), 1);
        assert_eq!(retry_after(b" 7 "), Some(Duration::from_secs(7)));
        assert_eq!(retry_after(b"Wed, 21 Oct 2015 07:28:00 GMT"), None);
    }

    #[test]
    fn stopped_clients_are_listed_with_when_and_why() {
        let started = Instant::now();
        let stopped = |at: Instant, why: &str| ClientStats {
            stopped: Some((at, why.into())),
            ..ClientStats::default()
        };
        let early = stopped(started - Duration::from_millis(10), "create game: HTTP 500");
        let late = stopped(started + Duration::from_millis(2310), "read: reset");
        let lines = stopped_lines(&[ClientStats::default(), early, late], started);
        assert_eq!(
            lines,
            [
                "  clients stopped before the end: 2 of 3 (their time after it is not counted)",
                "    client 1: during set-up: create game: HTTP 500",
                "    client 2: 2.31 s into the measurement: read: reset",
            ]
        );
        assert!(stopped_lines(&[ClientStats::default()], started).is_empty());
    }
}
