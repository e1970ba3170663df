//! `--replay N`: what a client walking a game state by state costs the server (the web
//! client's replay slider calls `GET /v1/games/{id}/state?at=k` for each k).
//!
//! Each round plays, through the service on `--database-url` (so the server has never
//! seen them), a game of `--against` (the anchor, `VARIANT:N`, default `backgammon:128`)
//! and a game of `--variant`/`--options` (one seat played by the tool, bots in the
//! others, the most seats the options allow), each at least its N events long. It then
//! times, over HTTP, one at a time: the cold first `GET /v1/games/{id}` of each, the
//! first `state?at` halfway through the long one (which that load, from the newest
//! stored checkpoint, did not pass), then the scrub of each (`state?at=k` for k =
//! 1..N), the long one in up to 20 slices, each after a whole scrub of the anchor. The
//! long game's costs are given as ratios to the anchor's (the mean of its scrubs) in
//! the same round: the target is a scrub under 20× the anchor's. The long game is then
//! scrubbed backward (k = N..1, the slider dragged the other way), given as a ratio to
//! its forward scrub: stepping back should cost what stepping forward does.
//!
//! With `--server-pid`, the server's resident memory is read from `/proc` before the
//! first round and after the last. The memory one kept table takes (a checkpoint, or a
//! game in the live cache) is measured in this process, on the same allocator, by
//! keeping 10,000 copies of the long game's states in the server's own caches.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use uuid::Uuid;
use worp::bots::BotKind;
use worp::cache::StateCache;
use worp::checkpoints::Checkpoints;
use worp::service::{CreateGame, SeatRequest, Worp};
use worp::table::Table;

use crate::cpu::load_average;
use crate::{open, Args, Out};

/// Plays a game of `variant` to its end through the service: the creator in seat 0 plays
/// the legal moves a fixed sequence picks (from `pick`), bots play the other `seats - 1`
/// seats (greedy and random in turn). Returns its id.
pub async fn bot_game(
    worp: &Worp,
    variant: &str,
    options: Value,
    seats: usize,
    mut pick: usize,
) -> Result<Uuid, String> {
    let (creator, _) = worp
        .create_player(&crate::unique_name(&format!("replay-{variant}")))
        .await
        .map_err(|e| e.to_string())?;
    let mut requests = vec![Some(SeatRequest::Player(creator.id))];
    for s in 1..seats {
        let bot = if s % 2 == 0 {
            BotKind::Greedy
        } else {
            BotKind::Random
        };
        requests.push(Some(SeatRequest::Bot { bot }));
    }
    let req = CreateGame {
        variant: variant.to_owned(),
        options,
        seats: requests,
        days_per_move: None,
        client_seed: None,
        rated: None,
        public_chat: false,
    };
    let mut table = worp
        .create_game(&creator, req)
        .await
        .map_err(|e| e.to_string())?;
    while table.to_move().is_some() {
        let moves = table.game.legal_moves().map_err(|e| e.to_string())?;
        pick = pick.wrapping_mul(31).wrapping_add(7);
        let mv = moves
            .get(pick % moves.len().max(1))
            .cloned()
            .ok_or("no legal move")?;
        let mv = serde_json::value::to_raw_value(&mv).map_err(|e| e.to_string())?;
        table = worp
            .play(&creator, table.id, &mv, None, None)
            .await
            .map_err(|e| e.to_string())?
            .table;
    }
    Ok(table.id)
}

/// A game of `variant` at least `events` long (the longest of 30 tries if none is), and
/// its length.
pub async fn long_game(
    worp: &Worp,
    variant: &str,
    options: &Value,
    events: usize,
    round: usize,
) -> Result<(Uuid, usize), String> {
    let v = worp_engine::variant(variant).map_err(|e| e.to_string())?;
    let mut best: Option<(Uuid, usize)> = None;
    for attempt in 0..30 {
        // The most seats the options allow.
        let mut seats = usize::from(v.max_seats);
        let id = loop {
            let pick = round * 1000 + attempt;
            match bot_game(worp, variant, options.clone(), seats, pick).await {
                Ok(id) => break id,
                Err(_) if seats > usize::from(v.min_seats) => seats -= 1,
                Err(e) => return Err(format!("{variant}: {e}")),
            }
        };
        let n = worp.all_events(id).await.map_err(|e| e.to_string())?.len();
        if n >= events {
            return Ok((id, n));
        }
        if best.is_none_or(|(_, m)| m < n) {
            best = Some((id, n));
        }
    }
    best.ok_or_else(|| format!("no {variant} game"))
}

/// One timed GET, which must answer 200.
async fn get(http: &reqwest::Client, url: &str) -> Result<Duration, String> {
    let started = Instant::now();
    let resp = http.get(url).send().await.map_err(|e| e.to_string())?;
    let status = resp.status();
    resp.bytes().await.map_err(|e| e.to_string())?;
    if status != 200 {
        return Err(format!("GET {url}: HTTP {status}"));
    }
    Ok(started.elapsed())
}

/// `state?at=k` for each k of `states`, one after the other.
async fn scrub(
    http: &reqwest::Client,
    url: &str,
    id: Uuid,
    states: impl IntoIterator<Item = usize>,
) -> Result<f64, String> {
    let started = Instant::now();
    for k in states {
        get(http, &format!("{url}/v1/games/{id}/state?at={k}")).await?;
    }
    Ok(started.elapsed().as_secs_f64())
}

/// `VARIANT:N`.
fn anchor(against: &str) -> Result<(String, usize), String> {
    let (variant, n) = against
        .split_once(':')
        .ok_or_else(|| format!("--against {against:?}: VARIANT:EVENTS"))?;
    let n = n
        .parse()
        .map_err(|_| format!("--against {against:?}: VARIANT:EVENTS"))?;
    Ok((variant.to_owned(), n))
}

/// The resident memory of process `pid`, in KiB.
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Runs the replay measurement of `states` states (see the module's doc).
pub(crate) async fn measure(args: &Args, states: usize, out: &Out) -> Result<(), String> {
    let db = args
        .database_url
        .as_deref()
        .ok_or("--replay needs --database-url")?;
    let options: Value =
        serde_json::from_str(&args.options).map_err(|e| format!("--options: {e}"))?;
    let (anchor_variant, anchor_states) = anchor(&args.against)?;
    let (worp, _) = open(db).await?;
    let http = reqwest::Client::new();
    let url = args.url.trim_end_matches('/');
    let idle = args.server_pid.and_then(rss_kib);
    let (mut ratios, mut backs, mut colds, mut mids) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut long_table = None;
    for round in 1..=args.rounds as usize {
        let (a, a_len) =
            long_game(&worp, &anchor_variant, &Value::Null, anchor_states, round).await?;
        let (l, l_len) = long_game(&worp, &args.variant, &options, states, round).await?;
        let (a_states, l_states) = (anchor_states.min(a_len), states.min(l_len));
        let a_cold = get(&http, &format!("{url}/v1/games/{a}")).await?;
        let l_cold = get(&http, &format!("{url}/v1/games/{l}")).await?;
        let l_warm = get(&http, &format!("{url}/v1/games/{l}")).await?;
        // A state halfway through the long game, which the cold load (from its newest
        // stored checkpoint) did not pass: a fold from the nearest checkpoint before it,
        // against the anchor's cold load (a fold from event 1).
        let l_mid = get(
            &http,
            &format!("{url}/v1/games/{l}/state?at={}", l_states / 2),
        )
        .await?;
        // The long scrub in slices, each after a whole scrub of the anchor: both see the
        // same drifts of a shared machine.
        let slices = l_states.div_ceil(a_states.max(1)).clamp(1, 20);
        let (mut a_scrub, mut l_scrub) = (0.0, 0.0);
        for slice in 0..slices {
            a_scrub += scrub(&http, url, a, 1..=a_states).await?;
            let from = slice * l_states / slices + 1;
            l_scrub += scrub(&http, url, l, from..=(slice + 1) * l_states / slices).await?;
        }
        a_scrub /= slices as f64;
        let ratio = l_scrub / a_scrub;
        let back = scrub(&http, url, l, (1..=l_states).rev()).await?;
        out.line(format!(
            "Round {round} (load {}): anchor {anchor_variant} ({a_len} events) scrub of {a_states} states {:.3} s ({:.0} µs a state, mean of {slices} scrubs); {} ({l_len} events) scrub of {l_states} states {:.3} s ({:.0} µs a state): {ratio:.1}× the anchor ({:.2}× per state)",
            load_average(),
            a_scrub,
            a_scrub / a_states as f64 * 1e6,
            args.variant,
            l_scrub,
            l_scrub / l_states as f64 * 1e6,
            (l_scrub / l_states as f64) / (a_scrub / a_states as f64),
        ));
        out.line(format!(
            "  cold first GET: {} ({l_len} events) {:.2} ms, {:.1}× the anchor's ({a_len} events, {:.2} ms); then warm {:.2} ms",
            args.variant,
            l_cold.as_secs_f64() * 1e3,
            l_cold.as_secs_f64() / a_cold.as_secs_f64(),
            a_cold.as_secs_f64() * 1e3,
            l_warm.as_secs_f64() * 1e3,
        ));
        out.line(format!(
            "  first state?at halfway: {} (at {}) {:.2} ms, {:.1}× the anchor's cold first GET",
            args.variant,
            l_states / 2,
            l_mid.as_secs_f64() * 1e3,
            l_mid.as_secs_f64() / a_cold.as_secs_f64(),
        ));
        out.line(format!(
            "  backward: {} scrub of {l_states} states {back:.3} s ({:.0} µs a state): {:.2}× the forward scrub",
            args.variant,
            back / l_states as f64 * 1e6,
            back / l_scrub,
        ));
        ratios.push(ratio);
        backs.push(back / l_scrub);
        colds.push(l_cold.as_secs_f64() / a_cold.as_secs_f64());
        mids.push(l_mid.as_secs_f64() / a_cold.as_secs_f64());
        long_table = Some(l);
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let ratio = mean(&ratios);
    out.line(format!(
        "Scrub of {states} {} states: {ratio:.1}× the {anchor_variant} anchor's (mean of {} rounds). Target (< 20×): {}",
        args.variant,
        ratios.len(),
        if ratio < 20.0 { "MET" } else { "NOT MET" }
    ));
    out.line(format!(
        "Backward scrub: {:.2}× the forward one (mean)",
        mean(&backs)
    ));
    out.line(format!(
        "Cold first GET: {:.1}× the anchor's (mean)",
        mean(&colds)
    ));
    out.line(format!(
        "First state?at halfway: {:.1}× the anchor's cold first GET (mean)",
        mean(&mids)
    ));
    if let Some(pid) = args.server_pid {
        let after = rss_kib(pid);
        out.line(format!(
            "Server RSS: {} KiB before the first round, {} KiB after the last",
            idle.map_or("?".into(), |k| k.to_string()),
            after.map_or("?".into(), |k| k.to_string()),
        ));
    }
    if let Some(id) = long_table {
        table_memory(&worp, id, out).await?;
    }
    Ok(())
}

/// The memory kept tables take: 10,000 states of the long game kept as checkpoints (each
/// under its own game id, so none replaces another), then as live games.
async fn table_memory(worp: &Worp, id: Uuid, out: &Out) -> Result<(), String> {
    const TABLES: usize = 10_000;
    let events = worp.all_events(id).await.map_err(|e| e.to_string())?;
    let mut table =
        Table::from_events(events.get(..1).unwrap_or_default()).map_err(|e| e.to_string())?;
    let mut states = Vec::with_capacity(events.len());
    for e in events.iter().skip(1) {
        table.apply(e).map_err(|e| e.to_string())?;
        states.push(table.clone());
    }
    let pid = std::process::id();
    let copies = |states: &[Table]| -> Vec<Arc<Table>> {
        (0..TABLES)
            .map(|i| {
                let mut t = states[i % states.len().max(1)].clone();
                t.id = Uuid::new_v4();
                Arc::new(t)
            })
            .collect()
    };
    let before = rss_kib(pid).unwrap_or(0);
    let checkpoints = Checkpoints::new(TABLES);
    for t in copies(&states) {
        checkpoints.keep(t);
    }
    let kept = rss_kib(pid).unwrap_or(0);
    let live = StateCache::new(TABLES);
    for t in copies(&states) {
        live.put(t);
    }
    let cached = rss_kib(pid).unwrap_or(0);
    out.line(format!(
        "Memory of a kept {} table ({} states of one game, {TABLES} kept): {:.1} KiB a checkpoint or visited state, {:.1} KiB a game in the live cache",
        table.variant,
        states.len(),
        kept.saturating_sub(before) as f64 / TABLES as f64,
        cached.saturating_sub(kept) as f64 / TABLES as f64,
    ));
    drop((checkpoints, live));
    Ok(())
}
