//! `--reads N`: how fast the pages a player opens answer on a database that has lived for
//! years (seed it first with `--seed-finished` and `--seed-players`). Each round asks
//! every page below N times, one request at a time over one keep-alive connection, the
//! pages in turn, and reports each one's p50/p99/max. The target: p99 under 20 ms each.
//!
//! The pages: the listing of every game, of the finished and of the active ones, a page
//! deep in the listing (by its cursor, ten pages in), a player's games, the lobby, a
//! player's page and the backgammon leaderboard. The players are drawn from those the
//! listing of finished games shows.

use std::time::Instant;

use serde_json::Value;

use crate::{cpu, latency_summary, percentile, Args, Out, Verdict};

/// A page by name, and its path for the i-th request.
type Page = (String, Box<dyn Fn(usize) -> String>);

/// The target: each page's p99, in milliseconds.
const P99_TARGET_MS: f64 = 20.0;

/// Runs `--reads`.
pub(crate) async fn run(args: &Args, n: usize, out: &Out) -> Result<Verdict, String> {
    let url = args.url.trim_end_matches('/').to_owned();
    let http = reqwest::Client::new();
    let players = players(&http, &url).await?;
    let deep = deep_cursor(&http, &url).await?;
    out.line(format!(
        "{} players drawn from the listing; the deep page starts {}",
        players.len(),
        if deep.is_some() {
            "ten pages in"
        } else {
            "at the top (fewer than ten pages)"
        }
    ));
    let mut pages: Vec<Page> = vec![
        (
            "every game".into(),
            Box::new(|_| "/v1/games?limit=50".into()),
        ),
        (
            "finished games".into(),
            Box::new(|_| "/v1/games?status=finished&limit=50".into()),
        ),
        (
            "active games".into(),
            Box::new(|_| "/v1/games?status=active&limit=50".into()),
        ),
        ("the lobby".into(), Box::new(|_| "/v1/lobby".into())),
        (
            "the leaderboard".into(),
            Box::new(|_| "/v1/leaderboard?variant=backgammon".into()),
        ),
    ];
    if let Some(cursor) = deep {
        pages.push((
            "ten pages in".into(),
            Box::new(move |_| format!("/v1/games?limit=50&after={cursor}")),
        ));
    }
    if !players.is_empty() {
        let (a, b) = (players.clone(), players);
        pages.push((
            "a player's games".into(),
            Box::new(move |i| format!("/v1/games?player={}&limit=50", a[i % a.len()])),
        ));
        pages.push((
            "a player's page".into(),
            Box::new(move |i| format!("/v1/players/{}", b[i % b.len()])),
        ));
    }
    let mut met = true;
    for round in 1..=args.rounds {
        out.line(format!(
            "Round {round} of {} (load averages before it: {})",
            args.rounds,
            cpu::load_average()
        ));
        let mut micros: Vec<Vec<u32>> = vec![Vec::with_capacity(n); pages.len()];
        for i in 0..n {
            for (k, (name, path)) in pages.iter().enumerate() {
                let path = path(i);
                let started = Instant::now();
                let resp = http
                    .get(format!("{url}{path}"))
                    .send()
                    .await
                    .map_err(|e| format!("{name}: {e}"))?;
                let status = resp.status();
                resp.bytes().await.map_err(|e| format!("{name}: {e}"))?;
                let took = started.elapsed();
                if status != 200 {
                    return Err(format!("{name} ({path}): HTTP {status}"));
                }
                micros[k].push(u32::try_from(took.as_micros()).unwrap_or(u32::MAX));
            }
        }
        for ((name, _), m) in pages.iter().zip(&mut micros) {
            m.sort_unstable();
            let p99 = percentile(m, 99.0).unwrap_or(f64::INFINITY);
            met &= p99 < P99_TARGET_MS;
            out.line(format!("  {name:<18} {} ms", latency_summary(m)));
        }
    }
    out.line(format!(
        "Target: every page's p99 under {P99_TARGET_MS} ms: {}",
        if met { "met" } else { "NOT met" }
    ));
    Ok(if met { Verdict::Met } else { Verdict::NotMet })
}

async fn get(http: &reqwest::Client, url: &str) -> Result<Value, String> {
    let resp = http.get(url).send().await.map_err(|e| e.to_string())?;
    if !resp.status().is_success() {
        return Err(format!("GET {url}: HTTP {}", resp.status()));
    }
    resp.json().await.map_err(|e| e.to_string())
}

/// Up to 200 players seated in the newest finished games.
async fn players(http: &reqwest::Client, url: &str) -> Result<Vec<String>, String> {
    let page = get(http, &format!("{url}/v1/games?status=finished&limit=200")).await?;
    let mut ids: Vec<String> = page["games"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|g| g["seats"].as_array().cloned().unwrap_or_default())
        .filter_map(|s| s.as_str().map(str::to_owned))
        .collect();
    ids.sort();
    ids.dedup();
    ids.truncate(200);
    Ok(ids)
}

/// The cursor of the listing's tenth page, if it has one.
async fn deep_cursor(http: &reqwest::Client, url: &str) -> Result<Option<String>, String> {
    let mut cursor: Option<String> = None;
    for _ in 0..10 {
        let path = match &cursor {
            None => format!("{url}/v1/games?limit=50"),
            Some(c) => format!("{url}/v1/games?limit=50&after={c}"),
        };
        let page = get(http, &path).await?;
        match page["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => return Ok(None),
        }
    }
    Ok(cursor)
}
