//! The group commit on SQLite: the changes waiting for the writer share one transaction,
//! each judged on its own; an answer is given only after the commit that holds it.
//!
//! To put changes in one batch for certain, a test holds the database's write lock from
//! another connection and sends a first change: the writer waits for the lock (busy
//! timeout) with that change alone in hand. The changes sent then queue behind it, and
//! once the lock is let go they are written together, in the writer's next transaction.

use std::time::Duration;

use sqlx::pool::PoolConnection;
use worp::store::{Append, Store, StoreError};
use worp::table::Table;

use crate::group_commit::{assert_log, move_on};
use crate::helpers::{spawn_app, Backend, TestApp};
use crate::play::two_seat_variant;

fn pool(app: &TestApp) -> &sqlx::SqlitePool {
    match &app.store {
        Store::Sqlite(s) => &s.pool,
        Store::Postgres(_) => panic!("an SQLite store"),
    }
}

async fn games(app: &TestApp, n: usize) -> Vec<std::sync::Arc<Table>> {
    let mut tables = Vec::new();
    for _ in 0..n {
        let (_, _, game) = app.two_player_game(two_seat_variant()).await;
        let id: uuid::Uuid = game["id"].as_str().expect("id").parse().expect("uuid");
        tables.push(app.worp.load(id).await.expect("load"));
    }
    tables
}

/// Appends `first` (a move in a game of its own), then `changes` all at once, while the
/// write lock is held elsewhere, then lets it go: the answers to `changes`, in order,
/// and how many transactions the writer committed after the one of `first`.
async fn appended_together(
    app: &TestApp,
    first: Append,
    changes: Vec<Append>,
) -> (Vec<Result<Vec<worp::events::StoredEvent>, StoreError>>, u64) {
    let mut lock: PoolConnection<sqlx::Sqlite> = pool(app).acquire().await.expect("connection");
    sqlx::query("BEGIN IMMEDIATE")
        .execute(&mut *lock)
        .await
        .expect("the write lock");
    let store = &app.store;
    let Store::Sqlite(sqlite) = store else {
        panic!("an SQLite store")
    };
    let batches = sqlite.commit.batches();
    // Queued now (the answer is awaited later).
    let first = store.append(first);
    // The writer takes it alone, and waits for the lock with it.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while sqlite.commit.batches() == batches {
        assert!(
            std::time::Instant::now() < deadline,
            "the writer did not take the first change"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let commits = store.sqlite_commits().expect("sqlite") + 1;
    // All queued behind it now, while the writer waits.
    let answers = futures_util::future::join_all(changes.into_iter().map(|a| store.append(a)));
    sqlx::query("COMMIT")
        .execute(&mut *lock)
        .await
        .expect("let the lock go");
    drop(lock);
    first.await.expect("the first change is written");
    let answers = answers.await;
    let commits = app.store.sqlite_commits().expect("sqlite") - commits;
    (answers, commits)
}

/// A stale change in a batch is refused alone while the others of the batch land, in
/// one commit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stale_change_in_a_sqlite_batch_is_refused_alone_while_the_others_land() {
    let app = spawn_app(Backend::Sqlite).await;
    let tables = games(&app, 9).await;
    let (first, tables) = (move_on(&tables[8], 0).0, &tables[..8]);
    let mut changes = Vec::new();
    for (i, table) in tables.iter().enumerate() {
        if i % 3 == 1 {
            // Judged on a version the log has not reached.
            let mut ahead = (**table).clone();
            ahead.version += 1;
            changes.push(move_on(&ahead, 0).0);
        } else {
            changes.push(move_on(table, 0).0);
        }
    }
    // And a second move judged on the same state as the first: the log has moved on
    // when its turn in the batch comes.
    changes.push(move_on(&tables[0], usize::MAX).0);
    let hashes: Vec<String> = changes
        .iter()
        .map(|c| c.events[0].event.hash.clone())
        .collect();
    let (answers, commits) = appended_together(&app, first, changes).await;
    assert_eq!(commits, 1, "9 changes in one transaction");
    for (i, table) in tables.iter().enumerate() {
        let last = app.worp.all_events(table.id).await.expect("events");
        if i % 3 == 1 {
            assert!(
                matches!(answers[i], Err(StoreError::Conflict)),
                "a stale change is refused: {:?}",
                answers[i]
            );
            assert_log(&app, table.id, table.version, &last[last.len() - 1].hash).await;
        } else {
            let events = answers[i].as_ref().expect("a current change is written");
            let answered: Vec<i64> = events.iter().map(|e| e.position).collect();
            let stored: Vec<i64> = last[last.len() - events.len()..]
                .iter()
                .map(|e| e.position)
                .collect();
            assert_eq!(answered, stored, "its positions in the log are answered");
            assert_log(&app, table.id, table.version + 1, &hashes[i]).await;
        }
    }
    assert!(
        matches!(answers[8], Err(StoreError::Conflict)),
        "the second of two racing moves is refused: {:?}",
        answers[8]
    );
}

/// A change the database refuses (here a trigger) is rolled back alone; a change that
/// makes SQLite roll back the whole transaction fails the batch, whose other changes are
/// then written each on its own: every change answered as written is in the log.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_batch_loses_no_acknowledged_move() {
    let app = spawn_app(Backend::Sqlite).await;
    sqlx::query(
        "CREATE TRIGGER test_refusal BEFORE INSERT ON events \
         WHEN NEW.kind IN ('refused', 'rolled_back') BEGIN \
         SELECT CASE NEW.kind WHEN 'refused' THEN RAISE(ABORT, 'refused by the test') \
         ELSE RAISE(ROLLBACK, 'rolled back by the test') END; END",
    )
    .execute(pool(&app))
    .await
    .expect("trigger");
    let tables = games(&app, 14).await;
    for (round, kind) in [(0, "refused"), (1, "rolled_back")] {
        let games = &tables[round * 7..round * 7 + 6];
        let first = move_on(&tables[round * 7 + 6], 0).0;
        let mut changes: Vec<Append> = games.iter().map(|t| move_on(t, 0).0).collect();
        // The last change of the batch fails.
        changes[5].events[0].event.kind = kind.into();
        let hashes: Vec<String> = changes
            .iter()
            .map(|c| c.events[0].event.hash.clone())
            .collect();
        let (answers, commits) = appended_together(&app, first, changes).await;
        if kind == "refused" {
            assert_eq!(commits, 1, "{kind}: the batch is one transaction");
        } else {
            assert_eq!(
                commits, 5,
                "{kind}: the batch failed, then its changes were written one by one"
            );
        }
        for (i, table) in games.iter().enumerate() {
            if i == 5 {
                assert!(
                    matches!(answers[i], Err(StoreError::Sqlite(_))),
                    "{kind}: the failing change gets its error: {:?}",
                    answers[i]
                );
                let last = app.worp.all_events(table.id).await.expect("events");
                assert_log(&app, table.id, table.version, &last[last.len() - 1].hash).await;
            } else {
                assert!(answers[i].is_ok(), "{kind}: {:?}", answers[i]);
                assert_log(&app, table.id, table.version + 1, &hashes[i]).await;
            }
        }
    }
}

/// The writer's statements for a change open no temporary b-tree: SQLite runs an
/// `INSERT ... RETURNING`, and an `INSERT ... SELECT` reading the table it inserts into,
/// through one opened and closed for each statement, which cost the writer (the one
/// thread every SQLite change waits for) a quarter of its instructions.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_writers_statements_open_no_temporary_btree() {
    let app = spawn_app(Backend::Sqlite).await;
    // A connection as the writer opens it.
    let connection = worp::store::sqlite_commit::open(&app.database).expect("open");
    for statement in worp::store::sql::SQLITE_WRITER_CHANGE {
        let mut explain = connection
            .prepare(&format!("EXPLAIN {statement}"))
            .expect("explain");
        // Every parameter bound to NULL.
        let nulls = vec![rusqlite::types::Null; explain.parameter_count()];
        let opcodes: Vec<String> = explain
            .query_map(rusqlite::params_from_iter(nulls), |r| r.get("opcode"))
            .expect("the program")
            .collect::<Result<_, _>>()
            .expect("opcodes");
        assert!(
            opcodes.iter().any(|o| o == "Halt"),
            "{statement}: {opcodes:?}"
        );
        assert!(
            !opcodes.iter().any(|o| o == "OpenEphemeral"),
            "{statement} opens a temporary b-tree: {opcodes:?}"
        );
    }
}
