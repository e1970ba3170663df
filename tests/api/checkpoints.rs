//! Historical states (`state?at=N`) folded from checkpoints and visited states
//! (`checkpoints/mod.rs`) are exactly what a replay from event 1 gives, in any order of
//! visits, on both backends; and walking old states never evicts a live game.

use std::sync::Arc;

use serde_json::{json, Value};
use uuid::Uuid;
use worp::checkpoints::CHECKPOINT_EVERY;
use worp::clock::SystemClock;
use worp::events::{LogEntry, StoredEvent};
use worp::service::Worp;
use worp::table::Table;

use crate::helpers::{
    fresh_database, spawn_app, spawn_app_from, test_settings, Backend, TestApp, BACKENDS,
};

/// A game of `variant` played to its end by bots and one seat through the service (the
/// replay benchmark's, `worp_load::replay::bot_game`).
async fn bot_game(worp: &Worp, variant: &str, options: Value, seats: usize) -> Uuid {
    worp_load::replay::bot_game(worp, variant, options, seats, 0)
        .await
        .expect("a game played to its end")
}

/// Every state of the game as one fold from event 1 gives it, written out whole (the
/// engine's game, seats, chain head, dice count, clocks: everything a `Table` holds).
pub(crate) fn full_replay(events: &[StoredEvent]) -> Vec<String> {
    let mut table = Table::from_events(&events[..1]).expect("first event");
    let mut states = vec![format!("{table:?}")];
    for e in &events[1..] {
        table.apply(e).expect("replay");
        states.push(format!("{table:?}"));
    }
    states
}

async fn served(worp: &Worp, id: Uuid, at: usize) -> String {
    let table = worp.load_at(id, at as i64).await.expect("load_at");
    format!("{table:?}")
}

async fn walks_agree_with_the_full_replay(backend: Backend) {
    let (url, dir) = fresh_database(backend).await;
    let app = spawn_app_from(test_settings(url), Arc::new(SystemClock), dir).await;
    let games = [
        ("mens_erger_je_niet", json!({ "board": 6 }), 6),
        ("backgammon", Value::Null, 2),
        ("ludo", Value::Null, 4),
        ("ali_baba", Value::Null, 4),
        ("hoofden", Value::Null, 2),
        ("dice_race", Value::Null, 3),
    ];
    for (variant, options, seats) in games {
        let id = bot_game(&app.worp, variant, options, seats).await;
        let events = app.worp.all_events(id).await.expect("events");
        let n = events.len();
        let expected = full_replay(&events);
        // Forward (the replay slider), backward, then jumping about.
        for at in 1..=n {
            assert_eq!(
                served(&app.worp, id, at).await,
                expected[at - 1],
                "{variant} at {at} of {n}, walking forward"
            );
        }
        for at in (1..=n).rev() {
            assert_eq!(
                served(&app.worp, id, at).await,
                expected[at - 1],
                "{variant} at {at} of {n}, walking backward"
            );
        }
        for i in 0..n {
            let at = (i * 7919) % n + 1;
            assert_eq!(
                served(&app.worp, id, at).await,
                expected[at - 1],
                "{variant} at {at} of {n}, jumping"
            );
        }
        // And over HTTP, as clients see it.
        for at in [1, n / 3, n / 2, n - 1, n] {
            let at = at.max(1);
            let body = app.get_json(&format!("/v1/games/{id}/state?at={at}")).await;
            let fresh = Table::from_events(&events[..at]).expect("replay");
            assert_eq!(body["version"], at as i64, "{variant}");
            assert_eq!(
                body["state"],
                fresh.game.state().expect("state"),
                "{variant} at {at}"
            );
            assert_eq!(body["head_hash"], fresh.head_hash.as_str(), "{variant}");
        }
        let past = app.get(&format!("/v1/games/{id}/state?at={}", n + 1)).await;
        assert_eq!(past.status(), 404, "{variant}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_state_folded_from_checkpoints_is_the_full_replay_postgres() {
    walks_agree_with_the_full_replay(Backend::Postgres).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_state_folded_from_checkpoints_is_the_full_replay_sqlite() {
    walks_agree_with_the_full_replay(Backend::Sqlite).await;
}

/// A long Mens-erger-je-niet game (more than four checkpoints) played on a fresh database
/// by one server; a second server on that database, which has never seen it and finds
/// no checkpoint of it stored; the game and its events.
async fn unseen_long_game(backend: Backend) -> (TestApp, TestApp, Uuid, Vec<StoredEvent>) {
    let (url, dir) = fresh_database(backend).await;
    let first = spawn_app_from(test_settings(url.clone()), Arc::new(SystemClock), None).await;
    // A game's length is the dice's: games are played until one is long enough.
    let options = json!({ "board": 6 });
    let long = 4 * CHECKPOINT_EVERY as usize + 1;
    let (id, _) =
        worp_load::replay::long_game(&first.worp, "mens_erger_je_niet", &options, long, 0)
            .await
            .expect("a game played to its end");
    let events = first.worp.all_events(id).await.expect("events");
    let n = events.len() as i64;
    assert!(n > 4 * CHECKPOINT_EVERY, "a long game: {n} events");
    // Without the checkpoints the first server stored (`stored_checkpoints.rs`).
    first.worp.checkpoints_stored().await;
    crate::stored_checkpoints::execute(&first.store, "DELETE FROM checkpoints").await;
    let second = spawn_app_from(test_settings(url), Arc::new(SystemClock), dir).await;
    (first, second, id, events)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cold_load_keeps_checkpoints_and_starts_from_them() {
    for backend in BACKENDS {
        let (_first, second, id, events) = unseen_long_game(backend).await;
        let n = events.len() as i64;
        // The second server has never seen the game: its first load replays the log and
        // keeps a checkpoint every CHECKPOINT_EVERY events.
        let history = second.worp.cache().history();
        assert!(history.is_empty());
        let expected = full_replay(&events);
        let table = second.worp.load(id).await.expect("cold load");
        assert_eq!(format!("{table:?}"), expected[n as usize - 1]);
        assert_eq!(history.len() as i64, n / CHECKPOINT_EVERY, "{backend:?}");
        for k in 1..=n / CHECKPOINT_EVERY {
            let at = k * CHECKPOINT_EVERY;
            let kept = history.nearest(id, at).expect("checkpoint");
            assert_eq!(kept.version, at);
            assert_eq!(format!("{kept:?}"), expected[at as usize - 1]);
        }
        // A state between two checkpoints starts from the one before it.
        let at = 2 * CHECKPOINT_EVERY + 5;
        assert_eq!(
            history.nearest(id, at).expect("checkpoint").version,
            2 * CHECKPOINT_EVERY
        );
        second.worp.load_at(id, at).await.expect("load_at");
        assert_eq!(history.nearest(id, at).expect("visited").version, at);
        // And the other states of its stretch, before and after it, are kept too.
        for kept in [2 * CHECKPOINT_EVERY + 1, 3 * CHECKPOINT_EVERY - 1] {
            assert_eq!(history.nearest(id, kept).expect("kept").version, kept);
        }
        assert_eq!(
            history.len() as i64,
            n / CHECKPOINT_EVERY + CHECKPOINT_EVERY - 1
        );
        // Once the live state is gone (evicted), a load starts from the newest checkpoint
        // and gives the same table.
        let cold = Worp::new(second.store.clone(), 8, Arc::new(SystemClock));
        cold.load_at(id, n - 1).await.expect("historical");
        let again = cold.load(id).await.expect("load from the checkpoint");
        assert_eq!(format!("{again:?}"), format!("{table:?}"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_stepping_back_finds_the_states_before_it_kept() {
    for backend in BACKENDS {
        let (_first, second, id, events) = unseen_long_game(backend).await;
        let expected = full_replay(&events);
        let worp = &second.worp;
        let history = worp.cache().history();
        // Dropped in the middle of the fourth stretch (after checkpoint 192), as the
        // replay slider is, then stepping back to its start: one fold, the rest kept.
        let landed = 3 * CHECKPOINT_EVERY + 40;
        worp.load_at(id, landed).await.expect("a state");
        for at in (3 * CHECKPOINT_EVERY + 1..landed).rev() {
            let kept = history.nearest(id, at).expect("kept");
            assert_eq!(kept.version, at, "{backend:?}: state {at} not kept");
            let served = worp.load_at(id, at).await.expect("a kept state");
            assert!(
                Arc::ptr_eq(&served, &kept),
                "{backend:?}: state {at} folded again"
            );
            assert_eq!(
                format!("{served:?}"),
                expected[at as usize - 1],
                "{backend:?}"
            );
        }
        // The stretch's checkpoints, and nothing of the stretch before.
        assert_eq!(
            history.nearest(id, 3 * CHECKPOINT_EVERY).map(|t| t.version),
            Some(3 * CHECKPOINT_EVERY)
        );
        assert_eq!(
            history
                .nearest(id, 3 * CHECKPOINT_EVERY - 1)
                .map(|t| t.version),
            Some(2 * CHECKPOINT_EVERY),
            "{backend:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn walking_an_old_game_never_evicts_a_live_one() {
    for backend in BACKENDS {
        let (url, dir) = fresh_database(backend).await;
        let mut settings = test_settings(url);
        settings.cache_states = 16;
        let app = spawn_app_from(settings, Arc::new(SystemClock), dir).await;
        let old = bot_game(&app.worp, "backgammon", Value::Null, 2).await;
        let live = bot_game(&app.worp, "ludo", Value::Null, 4).await;
        let newest = app.worp.cache().newest(live).expect("live game cached");
        let n = app.worp.all_events(old).await.expect("events").len();
        assert!(n > 16);
        for at in 1..=n {
            let body = app
                .get_json(&format!("/v1/games/{old}/state?at={at}"))
                .await;
            assert_eq!(body["version"], at as i64);
        }
        let still = app.worp.cache().newest(live).expect("still cached");
        assert!(Arc::ptr_eq(&still, &newest), "{backend:?}");
        assert!(app.worp.cache().history().len() <= app.worp.cache().history().capacity());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_replay_benchmark_scrubs_a_long_game_against_its_anchor() {
    use clap::Parser as _;
    let app = spawn_app(Backend::Postgres).await;
    let flags = "--no-http --rebuild-games 0 --variant mens_erger_je_niet --replay 150 \
                 --against backgammon:40";
    let server = ["--url", &app.address, "--database-url", &app.database];
    let args = worp_load::Args::try_parse_from(
        std::iter::once("worp-load")
            .chain(server)
            .chain(flags.split_whitespace()),
    )
    .expect("worp-load's arguments");
    let report = worp_load::run(&args, worp_load::Echo::Quiet)
        .await
        .unwrap_or_else(|e| panic!("worp-load failed: {e}"));
    let transcript = report.transcript.as_str();
    assert!(
        transcript.contains("scrub of 40 states") && transcript.contains("scrub of 150 states"),
        "{transcript}"
    );
    assert!(
        transcript.contains("Scrub of 150 mens_erger_je_niet states:"),
        "{transcript}"
    );
    assert!(transcript.contains("cold first GET"), "{transcript}");
    assert!(
        transcript.contains("backward: mens_erger_je_niet scrub of 150 states")
            && transcript.contains("Backward scrub:"),
        "{transcript}"
    );
    assert!(transcript.contains("KiB a checkpoint"), "{transcript}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_evicted_from_the_live_cache_leaves_its_newest_state_behind() {
    let app = spawn_app(Backend::Sqlite).await;
    let live = worp::cache::StateCache::new(8);
    let id = bot_game(&app.worp, "ludo", Value::Null, 4).await;
    let table = app.worp.load(id).await.expect("load");
    live.put(table.clone());
    // Eight other tables push it out.
    for v in 1..=8 {
        let mut other = (*table).clone();
        other.id = Uuid::from_u128(v);
        live.put(Arc::new(other));
    }
    assert!(live.newest(id).is_none());
    let kept = live.history().nearest(id, i64::MAX).expect("kept");
    assert!(Arc::ptr_eq(&kept, &table));
    // An older version of a game whose newest is still cached is not kept.
    let mut older = (*table).clone();
    older.id = Uuid::from_u128(100);
    older.version -= 1;
    live.put(Arc::new(older.clone()));
    older.version += 1;
    live.put(Arc::new(older));
    for v in 1..=7 {
        let mut other = (*table).clone();
        other.id = Uuid::from_u128(200 + v);
        live.put(Arc::new(other));
    }
    assert!(live
        .history()
        .nearest(Uuid::from_u128(100), i64::MAX)
        .is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_game_takes_one_entry_of_the_live_cache() {
    let app = spawn_app(Backend::Sqlite).await;
    let live = worp::cache::StateCache::new(8);
    let id = bot_game(&app.worp, "ludo", Value::Null, 4).await;
    let table = app.worp.load(id).await.expect("load");
    // Seven quiet games, each at its newest state.
    let quiet: Vec<Uuid> = (1..=7).map(Uuid::from_u128).collect();
    for q in &quiet {
        let mut t = (*table).clone();
        t.id = *q;
        live.put(Arc::new(t));
    }
    // The busy game moves a hundred times: each state supersedes the one before.
    for v in 1..=100 {
        let mut t = (*table).clone();
        t.version = v;
        live.put(Arc::new(t));
    }
    for q in &quiet {
        assert!(live.newest(*q).is_some(), "game {q} was pushed out");
    }
    assert_eq!(live.newest(id).map(|t| t.version), Some(100));
    assert!(live.get(id, 99).is_none());
    // A state older than the newest (a slower reader's) is not kept either.
    let mut old = (*table).clone();
    old.version = 50;
    live.put(Arc::new(old));
    assert_eq!(live.newest(id).map(|t| t.version), Some(100));
    assert!(live.get(id, 50).is_none());
}

/// The most rows any node of a PostgreSQL plan (`EXPLAIN (ANALYZE, FORMAT JSON)`)
/// yielded.
fn most_rows(plan: &Value) -> i64 {
    let own = plan["Actual Rows"].as_i64().unwrap_or(0);
    let below = plan["Plans"]
        .as_array()
        .map(|plans| plans.iter().map(most_rows).max().unwrap_or(0))
        .unwrap_or(0);
    own.max(below)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_of_a_fold_reads_only_its_own_events() {
    use sqlx::Connection;
    let (_first, second, id, events) = unseen_long_game(Backend::Postgres).await;
    let n = events.len() as i64;
    let mut db = sqlx::PgConnection::connect(&second.database)
        .await
        .expect("connect");
    // One step of a replay slider near the start of the game, and a cold load's page.
    for (after, limit) in [(CHECKPOINT_EVERY, CHECKPOINT_EVERY), (0, 100)] {
        let explained: Value = sqlx::query_scalar(&format!(
            "EXPLAIN (ANALYZE, FORMAT JSON) {}",
            worp::store::sql::EVENTS_IN_RANGE
        ))
        .bind(id)
        .bind(after)
        .bind(limit)
        .fetch_one(&mut db)
        .await
        .expect("explain");
        let plan = &explained[0]["Plan"];
        assert!(
            most_rows(plan) <= limit,
            "a page of {limit} events of a game of {n} read {} rows: {plan}",
            most_rows(plan)
        );
    }
    // The pages a fold reads are the game's events.
    let logged = second
        .store
        .raw_events(id, CHECKPOINT_EVERY, CHECKPOINT_EVERY)
        .await
        .expect("a page");
    let seqs: Vec<i64> = logged.iter().map(|e| e.seq).collect();
    assert_eq!(
        seqs,
        (CHECKPOINT_EVERY + 1..=2 * CHECKPOINT_EVERY).collect::<Vec<_>>()
    );
    for e in &logged {
        let stored = &events[e.seq as usize - 1];
        assert_eq!(e.event().expect("event"), stored.event().expect("event"));
        assert_eq!(
            (e.hash.as_str(), e.recorded_at),
            (stored.hash.as_str(), stored.recorded_at)
        );
    }
}
