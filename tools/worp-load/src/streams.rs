//! `--streams N`: a crowd watching one game. Each round opens N live streams of a new
//! backgammon game and, as the anchor, 100 streams of another, in turn (which goes
//! first alternates); then plays `MOVES` moves in the watched game, one at a time, each
//! once every stream has the one before. Reported for each: how long a move took to
//! reach the streams (from the moment it was sent to the moment each stream read its
//! `move_played`; p50/p99 over every stream and move), and with `--server-pid` the
//! server's resident memory per open idle stream (its growth while the streams were
//! opened, after they had settled, over N; judged in the first round only, since later
//! crowds reuse the memory earlier ones left resident: run the server afresh for it). The target: a move reaches 10,000 streams
//! with p99 under 250 ms, at most 8 KiB a stream.
//!
//! The server limits the live streams of one client address (`WORP_STREAMS_PER_ADDRESS`,
//! 32 by default): the streams come from many loopback addresses (127.0.x.y, which
//! Linux routes to itself), [`PER_ADDRESS`] each, so the server must listen on
//! 127.0.0.1 or on every address.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpSocket;

use crate::{cpu, percentile, Args, Out, Seen, Verdict};

/// Streams opened from one client address.
const PER_ADDRESS: usize = 16;
/// The anchor's streams.
const ANCHOR: usize = 100;
/// Moves played in the watched game each time.
const MOVES: usize = 20;
/// The most streams a crowd may have (for the addresses each crowd is given).
const MOST_STREAMS: usize = 20_000;
/// Crowds watched so far by this process.
static CROWDS: AtomicUsize = AtomicUsize::new(0);
/// Streams being opened at once.
const OPENING: usize = 256;
/// The target: a move reaches every stream within this (p99).
const P99_TARGET_MS: f64 = 250.0;
/// The target: the server's memory per open idle stream.
const KIB_TARGET: f64 = 8.0;
/// The longest wait for anything (opening a stream, a move reaching every stream).
const PATIENCE: Duration = Duration::from_secs(60);

/// What one crowd of streams measured.
struct Crowd {
    streams: usize,
    /// Milliseconds from a move sent to a stream reading it, every stream and move.
    latencies: Vec<f64>,
    /// The server's resident memory per open stream, in KiB (with `--server-pid`).
    kib_per_stream: Option<f64>,
    opened_in: Duration,
}

/// The moves' send times and how many streams have read each.
struct Moves {
    sent: Vec<OnceLock<Instant>>,
    read: Vec<AtomicUsize>,
    latencies: std::sync::Mutex<Vec<f64>>,
}

/// Runs `--streams`: `args.rounds` rounds of the anchor and the crowd.
pub(crate) async fn run(args: &Args, n: usize, out: &Out) -> Result<Verdict, String> {
    if n > MOST_STREAMS {
        return Err(format!("--streams {n}: at most {MOST_STREAMS}"));
    }
    raise_open_files();
    let url = args.url.trim_end_matches('/').to_owned();
    let server: SocketAddr = {
        let parsed = reqwest::Url::parse(&url).map_err(|e| format!("--url: {e}"))?;
        let host = parsed.host_str().ok_or("--url has no host")?.to_owned();
        let port = parsed.port_or_known_default().ok_or("--url has no port")?;
        let mut found = tokio::net::lookup_host((host.as_str(), port))
            .await
            .map_err(|e| format!("--url: {e}"))?;
        found
            .find(SocketAddr::is_ipv4)
            .ok_or("--url: no IPv4 address (the streams come from 127.0.x.y)")?
    };
    let http = reqwest::Client::new();
    let mut met = true;
    for round in 1..=args.rounds {
        out.line(format!(
            "Round {round} of {} (load averages before it: {})",
            args.rounds,
            cpu::load_average()
        ));
        let order = if round % 2 == 1 {
            [ANCHOR, n]
        } else {
            [n, ANCHOR]
        };
        let mut seen = Vec::new();
        for k in order {
            let crowd = watch(&http, &url, server, k, args.server_pid).await?;
            out.line(format!(
                "  {k} streams (opened in {:.1} s): a move reached them in {}; {}",
                crowd.opened_in.as_secs_f64(),
                summary(&crowd.latencies),
                crowd
                    .kib_per_stream
                    .map_or("memory not measured (--server-pid)".into(), |k| format!(
                        "{k:.1} KiB of the server's memory a stream"
                    ))
            ));
            seen.push(crowd);
        }
        seen.sort_by_key(|c| c.streams);
        let (anchor, crowd) = (&seen[0], &seen[1]);
        let (p99, anchor_p99) = (p99(&crowd.latencies), p99(&anchor.latencies));
        let ratio = p99 / anchor_p99.max(1e-9);
        // Memory is judged in the first round only: the streams of a later round reuse
        // what the earlier ones left resident (the process's RSS does not fall back).
        let kib_ok = round > 1 || crowd.kib_per_stream.is_none_or(|k| k <= KIB_TARGET);
        let ok = p99 < P99_TARGET_MS && kib_ok;
        met &= ok;
        out.line(format!(
            "  Round {round}: p99 {p99:.1} ms to {} streams, {ratio:.2}× the anchor's to {}; \
             target p99 < {P99_TARGET_MS} ms and ≤ {KIB_TARGET} KiB a stream: {}",
            crowd.streams,
            anchor.streams,
            if ok { "met" } else { "NOT met" }
        ));
    }
    Ok(if met { Verdict::Met } else { Verdict::NotMet })
}

fn p99(latencies: &[f64]) -> f64 {
    let mut sorted: Vec<u32> = latencies.iter().map(|ms| (ms * 1000.0) as u32).collect();
    sorted.sort_unstable();
    percentile(&sorted, 99.0).unwrap_or(f64::INFINITY)
}

fn summary(latencies: &[f64]) -> String {
    let mut sorted: Vec<u32> = latencies.iter().map(|ms| (ms * 1000.0) as u32).collect();
    sorted.sort_unstable();
    let at = |q| percentile(&sorted, q).map_or("-".into(), |ms| format!("{ms:.1}"));
    format!(
        "p50 {} ms, p99 {} ms, max {} ms ({} readings)",
        at(50.0),
        at(99.0),
        at(100.0),
        sorted.len()
    )
}

/// Each connection is an open file: take the hard limit.
fn raise_open_files() {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit read and write the struct given, nothing else.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 {
            limit.rlim_cur = limit.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
}

fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

async fn post(
    http: &reqwest::Client,
    url: String,
    token: &str,
    body: Value,
) -> Result<Value, String> {
    let resp = http
        .post(url)
        .bearer_auth(token)
        .json(&body)
        .send()
        .await
        .map_err(|e| e.to_string())?;
    let status = resp.status();
    let body: Value = resp.json().await.map_err(|e| e.to_string())?;
    if !status.is_success() {
        return Err(format!("HTTP {status}: {body}"));
    }
    Ok(body)
}

/// A new backgammon game between two new players: its id and their tokens by seat.
async fn new_game(http: &reqwest::Client, url: &str) -> Result<(String, [String; 2]), String> {
    let mut players = Vec::new();
    for side in ["a", "b"] {
        let name = crate::unique_name(&format!("watched {side}"));
        let resp = http
            .post(format!("{url}/v1/players"))
            .json(&json!({ "name": name }))
            .send()
            .await
            .map_err(|e| e.to_string())?;
        let body: Value = resp.json().await.map_err(|e| e.to_string())?;
        let (Some(token), Some(id)) = (body["token"].as_str(), body["id"].as_str()) else {
            return Err(format!("a player was not registered: {body}"));
        };
        players.push((token.to_owned(), id.to_owned()));
    }
    let game = post(
        http,
        format!("{url}/v1/games"),
        &players[0].0,
        json!({"variant": "backgammon", "seats": [players[0].1, players[1].1]}),
    )
    .await?;
    let id = game["id"]
        .as_str()
        .ok_or("a game without an id")?
        .to_owned();
    post(
        http,
        format!("{url}/v1/games/{id}/seats/1"),
        &players[1].0,
        Value::Null,
    )
    .await?;
    Ok((id, [players[0].0.clone(), players[1].0.clone()]))
}

/// Opens `k` streams of a new game, measures the server's memory for them, plays
/// [`MOVES`] moves and times each one's arrival at every stream.
async fn watch(
    http: &reqwest::Client,
    url: &str,
    server: SocketAddr,
    k: usize,
    server_pid: Option<u32>,
) -> Result<Crowd, String> {
    let (game, tokens) = new_game(http, url).await?;
    let moves = Arc::new(Moves {
        sent: (0..MOVES).map(|_| OnceLock::new()).collect(),
        read: (0..MOVES).map(|_| AtomicUsize::new(0)).collect(),
        latencies: std::sync::Mutex::new(Vec::with_capacity(k * MOVES)),
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before_streams = open_streams(http, url).await?;
    let before = server_pid.and_then(rss_kib);
    let started = Instant::now();
    let request = format!(
        "GET /v1/games/{game}/stream HTTP/1.1\r\nHost: {server}\r\nAccept: text/event-stream\r\n\r\n"
    );
    let opened = Arc::new(tokio::sync::Semaphore::new(0));
    let opening = Arc::new(tokio::sync::Semaphore::new(OPENING));
    let mut readers = tokio::task::JoinSet::new();
    // Each crowd from addresses of its own: the server counts a stream against its
    // address until it notices the stream closed (at its next write, a keep-alive).
    let first = CROWDS.fetch_add(1, Ordering::Relaxed) * (MOST_STREAMS / PER_ADDRESS);
    for i in 0..k {
        let address = (first + i / PER_ADDRESS) % (250 * 250);
        let from = Ipv4Addr::new(127, 1 + (address / 250) as u8, (address % 250) as u8, 2);
        let (request, moves, opened, opening) = (
            request.clone(),
            moves.clone(),
            opened.clone(),
            opening.clone(),
        );
        readers.spawn(async move {
            let permit = opening.acquire_owned().await.map_err(|e| e.to_string())?;
            let reader = open(from, server, &request).await;
            drop(permit);
            let (mut conn, mut buf) = reader?;
            opened.add_permits(1);
            read_moves(&mut conn, &mut buf, &moves).await
        });
    }
    match tokio::time::timeout(PATIENCE, opened.acquire_many(k as u32)).await {
        Ok(Ok(permits)) => permits.forget(),
        _ => {
            let failed = readers
                .try_join_next()
                .and_then(|r| r.ok())
                .and_then(Result::err)
                .unwrap_or_else(|| "no stream failed yet".into());
            return Err(format!(
                "{} of {k} streams opened in {} s: {failed}",
                opened.available_permits(),
                PATIENCE.as_secs()
            ));
        }
    }
    let opened_in = started.elapsed();
    // Settled: the allocator has taken back what the opening used for a moment.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let after = server_pid.and_then(rss_kib);
    let mut seen = Seen::read(&get(http, &format!("{url}/v1/games/{game}")).await?)?;
    for m in 0..MOVES {
        let (Some(seat), Some(mv)) = (seen.to_move, seen.next_move.take()) else {
            return Err(format!(
                "the watched game has no move to play: {:?}",
                seen.status
            ));
        };
        let token = &tokens[seat as usize % 2];
        let _ = moves.sent[m].set(Instant::now());
        let resp = http
            .post(format!("{url}/v1/games/{game}/moves"))
            .bearer_auth(token)
            .header("content-type", "application/json")
            .body(format!("{{\"move\":{mv}}}"))
            .send()
            .await
            .map_err(|e| e.to_string())?;
        let status = resp.status();
        let body = resp.bytes().await.map_err(|e| e.to_string())?;
        if status != 200 {
            return Err(format!(
                "move {m}: HTTP {status}: {}",
                String::from_utf8_lossy(&body)
            ));
        }
        seen = Seen::read(&body)?;
        let waited = Instant::now();
        while moves.read[m].load(Ordering::Acquire) < k {
            if waited.elapsed() > PATIENCE {
                return Err(format!(
                    "move {m} reached {} of {k} streams in {} s",
                    moves.read[m].load(Ordering::Acquire),
                    PATIENCE.as_secs()
                ));
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }
    readers.abort_all();
    while readers.join_next().await.is_some() {}
    // The server notices a closed stream at its next write (a keep-alive): wait until
    // it holds no more streams than before, so that the next crowd has the room.
    let waited = Instant::now();
    while open_streams(http, url).await? > before_streams {
        if waited.elapsed() > PATIENCE {
            return Err(format!(
                "the server still held the streams {} s after they closed",
                PATIENCE.as_secs()
            ));
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let latencies = std::mem::take(
        &mut *moves
            .latencies
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    );
    Ok(Crowd {
        streams: k,
        latencies,
        kib_per_stream: before
            .zip(after)
            .map(|(b, a)| a.saturating_sub(b) as f64 / k as f64),
        opened_in,
    })
}

/// The live streams the server holds open (`worp_sse_streams_open` of `GET /metrics`).
async fn open_streams(http: &reqwest::Client, url: &str) -> Result<u64, String> {
    let text = String::from_utf8(get(http, &format!("{url}/metrics")).await?)
        .map_err(|e| e.to_string())?;
    text.lines()
        .find_map(|l| l.strip_prefix("worp_sse_streams_open "))
        .and_then(|v| v.trim().parse::<f64>().ok())
        .map(|v| v as u64)
        .ok_or_else(|| "GET /metrics shows no worp_sse_streams_open".into())
}

async fn get(http: &reqwest::Client, url: &str) -> Result<Vec<u8>, String> {
    let resp = http.get(url).send().await.map_err(|e| e.to_string())?;
    if !resp.status().is_success() {
        return Err(format!("GET {url}: HTTP {}", resp.status()));
    }
    Ok(resp.bytes().await.map_err(|e| e.to_string())?.to_vec())
}

/// A stream from address `from`, read up to its first comment.
async fn open(
    from: Ipv4Addr,
    server: SocketAddr,
    request: &str,
) -> Result<(tokio::net::TcpStream, Vec<u8>), String> {
    let socket = TcpSocket::new_v4().map_err(|e| e.to_string())?;
    socket
        .bind(SocketAddr::new(from.into(), 0))
        .map_err(|e| format!("bind {from}: {e}"))?;
    let mut conn = socket
        .connect(server)
        .await
        .map_err(|e| format!("connect from {from}: {e}"))?;
    conn.write_all(request.as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    let mut buf = Vec::with_capacity(1024);
    while !contains(&buf, b"worp game stream") {
        if conn.read_buf(&mut buf).await.map_err(|e| e.to_string())? == 0 {
            return Err(format!(
                "the stream from {from} closed: {}",
                String::from_utf8_lossy(&buf)
            ));
        }
        if buf.starts_with(b"HTTP/1.1 ") && !buf.starts_with(b"HTTP/1.1 200") {
            return Err(format!(
                "the stream from {from} was refused: {}",
                String::from_utf8_lossy(&buf[..buf.len().min(200)])
            ));
        }
    }
    buf.clear();
    Ok((conn, buf))
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Reads the stream, counting its `move_played` events: the m-th is move m.
async fn read_moves(
    conn: &mut tokio::net::TcpStream,
    buf: &mut Vec<u8>,
    moves: &Moves,
) -> Result<(), String> {
    const NEEDLE: &[u8] = b"event: move_played\n";
    let mut heard = 0;
    loop {
        if conn.read_buf(buf).await.map_err(|e| e.to_string())? == 0 {
            return Err("the stream closed".into());
        }
        let now = Instant::now();
        let mut from = 0;
        while let Some(at) = buf[from..].windows(NEEDLE.len()).position(|w| w == NEEDLE) {
            from += at + NEEDLE.len();
            if let Some(sent) = moves.sent.get(heard).and_then(OnceLock::get) {
                let ms = now.duration_since(*sent).as_secs_f64() * 1e3;
                moves
                    .latencies
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .push(ms);
                moves.read[heard].fetch_add(1, Ordering::Release);
            }
            heard += 1;
        }
        // Keep what may be the start of the next event's name.
        let keep = buf.len().saturating_sub(NEEDLE.len()).max(from);
        buf.drain(..keep);
    }
}
