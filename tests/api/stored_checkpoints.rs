//! Checkpoints stored in the database (`checkpoints/stored.rs`): a game played past
//! `STORED_EVERY` events leaves its newest checkpoint in the `checkpoints` table, and a
//! server that has never seen the game (a restart) folds only the events after it, to
//! exactly the state a fold from event 1 gives. A stored checkpoint that does not fit
//! (another game's chain, other rules, an unreadable body) is not used, and is replaced.

use std::sync::Arc;

use serde_json::json;
use uuid::Uuid;
use worp::checkpoints::stored::STORED_EVERY;
use worp::checkpoints::CHECKPOINT_EVERY;
use worp::clock::SystemClock;
use worp::events::StoredEvent;
use worp::service::Worp;
use worp::store::{Store, StoredCheckpoint};
use worp::table::Table;

use crate::checkpoints::full_replay;
use crate::helpers::{fresh_database, spawn_app_from, test_settings, Backend, TempDir, BACKENDS};

/// Runs one statement on the store's database.
pub async fn execute(store: &Store, statement: &str) {
    match store {
        Store::Postgres(s) => sqlx::query(statement).execute(&s.pool).await.map(|_| ()),
        Store::Sqlite(s) => sqlx::query(statement).execute(&s.pool).await.map(|_| ()),
    }
    .unwrap_or_else(|e| panic!("{statement}: {e}"));
}

/// A long six-colour Mens-erger-je-niet game played by a first server, once its stored
/// checkpoints are written: the game, its events and its stored checkpoint.
async fn played(
    backend: Backend,
) -> (
    String,
    Option<TempDir>,
    Uuid,
    Vec<StoredEvent>,
    StoredCheckpoint,
) {
    let (url, dir) = fresh_database(backend).await;
    let settings = test_settings(url.clone());
    let first = spawn_app_from(settings, Arc::new(SystemClock), None).await;
    // Long enough for every test here (a stored checkpoint 1,000 events behind the end):
    // a game's length is the dice's, so games are played until one is.
    let options = json!({"board": 6});
    let (id, _) =
        worp_load::replay::long_game(&first.worp, "mens_erger_je_niet", &options, 1_100, 0)
            .await
            .expect("a game played to its end");
    first.worp.checkpoints_stored().await;
    let events = first.worp.all_events(id).await.expect("events");
    let n = events.len() as i64;
    assert!(n > 2 * STORED_EVERY, "a long game: {n} events");
    // One stored at each multiple of STORED_EVERY the game passed, even where one
    // change (a person's move and the bots' after it) passed several.
    let stored = all_stored(&first.store, id).await;
    let versions: Vec<i64> = stored.iter().map(|c| c.version).collect();
    let multiples: Vec<i64> = (1..=n / STORED_EVERY).map(|k| k * STORED_EVERY).collect();
    assert_eq!(versions, multiples, "{n} events");
    for c in &stored {
        fits(id, c, &events);
    }
    let newest = stored
        .last()
        .expect("stored while the game was played")
        .clone();
    (url, dir, id, events, newest)
}

/// Every checkpoint stored for game `id`, oldest first.
async fn all_stored(store: &Store, id: Uuid) -> Vec<StoredCheckpoint> {
    let mut all = Vec::new();
    let mut at = i64::MAX;
    while let Some(c) = store.stored_checkpoint(id, at).await.expect("read") {
        at = c.version - 1;
        all.push(c);
    }
    all.reverse();
    all
}

/// Asserts that `c` is a checkpoint of game `id` that fits its log, `events`.
fn fits(id: Uuid, c: &StoredCheckpoint, events: &[StoredEvent]) {
    let table = worp::checkpoints::stored::table(id, c)
        .unwrap_or_else(|e| panic!("the checkpoint at {}: {e}", c.version));
    let event = events.get(c.version as usize - 1).expect("in the log");
    assert_eq!(table.head_hash, event.hash, "at {}", c.version);
}

/// A server that has never seen the game, on the same database.
fn restarted(store: &Store) -> Worp {
    Worp::new(store.clone(), 1024, Arc::new(SystemClock))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cold_load_after_a_restart_folds_only_the_events_after_the_stored_checkpoint() {
    for backend in BACKENDS {
        let (url, _dir, id, events, stored) = played(backend).await;
        let expected = full_replay(&events);
        let n = events.len() as i64;
        let app = spawn_app_from(test_settings(url), Arc::new(SystemClock), None).await;
        let table = app.worp.load(id).await.expect("cold load");
        assert_eq!(
            format!("{table:?}"),
            expected[n as usize - 1],
            "{backend:?}"
        );
        // The fold started at the stored checkpoint: it kept in memory only the
        // checkpoints after it (each a fold of CHECKPOINT_EVERY events would have kept).
        let history = app.worp.cache().history();
        assert!(history.nearest(id, stored.version).is_none(), "{backend:?}");
        let after = (stored.version / CHECKPOINT_EVERY + 1..=n / CHECKPOINT_EVERY).count();
        assert_eq!(history.len(), after, "{backend:?}");
        // Old states before and after it are still every fold's.
        let fresh = restarted(&app.store);
        for at in [
            stored.version,
            stored.version - 1,
            stored.version + 1,
            n,
            1,
            n / 2,
        ]
        .into_iter()
        .filter(|&at| at <= n)
        {
            let t = fresh.load_at(id, at).await.expect("load_at");
            assert_eq!(
                format!("{t:?}"),
                expected[at as usize - 1],
                "{backend:?} at {at}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_checkpoint_that_does_not_fit_is_not_used_and_is_replaced() {
    for backend in BACKENDS {
        let (url, _dir, id, events, stored) = played(backend).await;
        let expected = full_replay(&events);
        let n = events.len() as i64;
        let app = spawn_app_from(test_settings(url), Arc::new(SystemClock), None).await;
        let store = &app.store;
        let other_hash = "0".repeat(64);
        let head = events[stored.version as usize - 1].hash.clone();
        let breakages = [
            // Another chain: its last event's hash is not the log's.
            format!("UPDATE checkpoints SET body = replace(body, '{head}', '{other_hash}')"),
            // Written under other rules, or in another layout.
            "UPDATE checkpoints SET rules_version = rules_version + 1".to_owned(),
            "UPDATE checkpoints SET format = format + 1".to_owned(),
            // Unreadable, or a version its body does not hold.
            "UPDATE checkpoints SET body = '{\"id\": 7}'".to_owned(),
            "UPDATE checkpoints SET version = version - 1".to_owned(),
            // Past the log's end (no fold reaches it to store another in its place).
            "UPDATE checkpoints SET version = version + 100000".to_owned(),
        ];
        for broken in breakages {
            execute(store, "DELETE FROM checkpoints").await;
            store
                .store_checkpoint(&stored, chrono::Utc::now(), true)
                .await
                .expect("the good checkpoint back");
            execute(store, &broken).await;
            let cold = restarted(store);
            let table = cold.load(id).await.expect("cold load");
            assert_eq!(
                format!("{table:?}"),
                expected[n as usize - 1],
                "{backend:?}: {broken}"
            );
            // Folded from event 1: every in-memory checkpoint was kept on the way.
            assert_eq!(
                cold.cache().history().len() as i64,
                n / CHECKPOINT_EVERY,
                "{backend:?}: {broken}"
            );
            // And the checkpoints were stored again, fitting: one at each multiple of
            // STORED_EVERY and the newest state, the broken one replaced (or deleted,
            // past the log's end).
            cold.checkpoints_stored().await;
            let again = all_stored(store, id).await;
            let mut versions: Vec<i64> = (1..=n / STORED_EVERY).map(|k| k * STORED_EVERY).collect();
            if broken.contains("version - 1") {
                versions.push(stored.version - 1);
            } else if !broken.contains("version + 100000") {
                versions.push(stored.version);
            }
            versions.push(n);
            versions.sort_unstable();
            versions.dedup();
            let found: Vec<i64> = again.iter().map(|c| c.version).collect();
            assert_eq!(found, versions, "{backend:?}: {broken}");
            for c in &again {
                fits(id, c, &events);
            }
            let fresh = restarted(store);
            fresh.load(id).await.expect("load");
            assert!(fresh.cache().history().is_empty(), "{backend:?}: {broken}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_state_below_the_newest_stored_checkpoint_is_folded_from_the_one_before_it() {
    for backend in BACKENDS {
        let (url, _dir, id, events, _) = played(backend).await;
        let expected = full_replay(&events);
        let n = events.len() as i64;
        let app = spawn_app_from(test_settings(url), Arc::new(SystemClock), None).await;
        let store = &app.store;
        // A state just after each stored checkpoint, and just before the next.
        let stored: Vec<i64> = all_stored(store, id)
            .await
            .iter()
            .map(|c| c.version)
            .collect();
        let mut states: Vec<(i64, i64)> = stored.iter().map(|&v| (v + 10, v)).collect();
        states.extend(stored.windows(2).map(|w| (w[1] - 1, w[0])));
        for (at, from) in states.into_iter().filter(|&(at, _)| at <= n) {
            let fresh = restarted(store);
            let t = fresh.load_at(id, at).await.expect("load_at");
            assert_eq!(
                format!("{t:?}"),
                expected[at as usize - 1],
                "{backend:?} at {at}"
            );
            // The fold started at the newest checkpoint stored at or before `at`: it
            // kept nothing before it.
            let history = fresh.cache().history();
            assert!(
                history.nearest(id, from - 1).is_none(),
                "{backend:?} at {at}: folded from before {from}"
            );
            assert!(
                history.nearest(id, at).is_some(),
                "{backend:?} at {at}: kept"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_checkpoint_far_behind_the_log_is_folded_on_to_its_end() {
    for backend in BACKENDS {
        let (url, _dir, id, events, _) = played(backend).await;
        let expected = full_replay(&events);
        let n = events.len();
        // A checkpoint more than a page of a fold (1,000 events) behind the log's end.
        let old = 40;
        assert!(n > old + 1_000, "{n} events");
        let mut table = Table::from_events(&events[..1]).expect("first event");
        for e in &events[1..old] {
            table.apply(e).expect("replay");
        }
        let stored = worp::checkpoints::stored::stored(&table).expect("written");
        let app = spawn_app_from(test_settings(url), Arc::new(SystemClock), None).await;
        let store = &app.store;
        execute(store, "DELETE FROM checkpoints").await;
        store
            .store_checkpoint(&stored, chrono::Utc::now(), true)
            .await
            .expect("stored");
        let cold = restarted(store);
        let head = cold.load(id).await.expect("cold load");
        assert_eq!(format!("{head:?}"), expected[n - 1], "{backend:?}");
        // Its in-memory checkpoints are those after the stored one.
        let kept = (old as i64 / CHECKPOINT_EVERY + 1..=n as i64 / CHECKPOINT_EVERY).count();
        assert_eq!(cold.cache().history().len(), kept, "{backend:?}");
        for at in [old + 1, old + 999, old + 1_000, old + 1_001, n] {
            let t = restarted(store)
                .load_at(id, at as i64)
                .await
                .expect("load_at");
            assert_eq!(format!("{t:?}"), expected[at - 1], "{backend:?} at {at}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_state_behind_the_log_is_folded_on_and_the_store_is_not_asked() {
    for backend in BACKENDS {
        let (url, _dir, id, events, _) = played(backend).await;
        let expected = full_replay(&events);
        let n = events.len();
        let app = spawn_app_from(test_settings(url), Arc::new(SystemClock), None).await;
        let store = &app.store;
        // The game's newest state stored; a process whose live state is far behind (another
        // process played on).
        let mut head = Table::from_events(&events[..1]).expect("first event");
        for e in &events[1..] {
            head.apply(e).expect("replay");
        }
        let stored = worp::checkpoints::stored::stored(&head).expect("written");
        store
            .store_checkpoint(&stored, chrono::Utc::now(), true)
            .await
            .expect("stored");
        let mut behind = Table::from_events(&events[..1]).expect("first event");
        for e in &events[1..300] {
            behind.apply(e).expect("replay");
        }
        let process = restarted(store);
        process.cache().put(Arc::new(behind));
        let table = process.load(id).await.expect("load");
        assert_eq!(format!("{table:?}"), expected[n - 1], "{backend:?}");
        // Folded on from the live state, not from the stored checkpoint: it kept the
        // in-memory checkpoints after event 300.
        let kept = (300 / CHECKPOINT_EVERY + 1..=n as i64 / CHECKPOINT_EVERY).count();
        assert_eq!(process.cache().history().len(), kept, "{backend:?}");
    }
}
