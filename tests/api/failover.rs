//! What a failover of the PostgreSQL cluster looks like from one server, without the
//! cluster (tests/ha/ runs the real one): the primary turned read-only under the server
//! (a demoted primary still routed to), and a commit that does not return (a primary
//! waiting for a synchronous standby that is not there). Both answer 503 with
//! `Retry-After`, never 500 and never a hang, and the server recovers by itself.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use sqlx::Connection;
use worp::store::DATABASE_DEADLINE;

use crate::faults::database_of;
use crate::helpers::{postgres_admin_url, spawn_app, Backend, TestApp, TestPlayer};
use crate::play::two_seat_variant;

async fn admin() -> sqlx::PgConnection {
    sqlx::PgConnection::connect(&postgres_admin_url())
        .await
        .expect("admin connection")
}

/// Ends every connection to `db` but the caller's.
async fn end_connections(admin: &mut sqlx::PgConnection, db: &str) {
    sqlx::query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE datname = $1 AND pid <> pg_backend_pid()",
    )
    .bind(db)
    .execute(admin)
    .await
    .expect("terminate backends");
}

/// A game of two players in play: its id and the players.
async fn game_in_play(app: &TestApp) -> (String, TestPlayer, TestPlayer) {
    let (a, b, g) = app.two_player_game(two_seat_variant()).await;
    (g["id"].as_str().expect("id").to_owned(), a, b)
}

/// Makes new connections to `db` read-only, as on a standby (SQLSTATE 25006 on every
/// write), or writable again; and ends the existing ones, as a demotion does.
async fn read_only(admin: &mut sqlx::PgConnection, db: &str, on: bool) {
    // `db` comes from current_database() of a database the tests created (hex only).
    let setting = if on {
        "SET default_transaction_read_only = on"
    } else {
        "RESET default_transaction_read_only"
    };
    sqlx::query(&format!("ALTER DATABASE \"{db}\" {setting}"))
        .execute(&mut *admin)
        .await
        .expect("alter database");
    end_connections(admin, db).await;
}

/// Sends the first legal move of whoever is to move; (status, Retry-After present, time).
async fn move_once(
    app: &TestApp,
    id: &str,
    a: &TestPlayer,
    b: &TestPlayer,
) -> (u16, bool, Duration) {
    // A server that hangs fails the test rather than stalling it.
    let limit = DATABASE_DEADLINE + Duration::from_secs(20);
    let started = Instant::now();
    let g = app
        .client
        .get(app.url(&format!("/v1/games/{id}")))
        .timeout(limit)
        .send()
        .await
        .expect("an answer, not a hang");
    if g.status() != 200 {
        let retry = g.headers().contains_key("retry-after");
        return (g.status().as_u16(), retry, started.elapsed());
    }
    let g: Value = g.json().await.expect("game");
    let mover = if g["to_move"] == 0 { a } else { b };
    let resp = app
        .client
        .post(app.url(&format!("/v1/games/{id}/moves")))
        .bearer_auth(&mover.token)
        .header("if-match", format!("\"{}\"", g["version"]))
        .json(&json!({ "move": g["legal_moves"][0] }))
        .timeout(limit)
        .send()
        .await
        .expect("an answer, not a hang");
    let retry = resp.headers().contains_key("retry-after");
    (resp.status().as_u16(), retry, started.elapsed())
}

/// Moves until one is acknowledged, within 20 s.
async fn recovers(app: &TestApp, id: &str, a: &TestPlayer, b: &TestPlayer) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (status, ..) = move_once(app, id, a, b).await;
        if status == 200 {
            return;
        }
        assert!(Instant::now() < deadline, "no recovery: still {status}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn writes_to_a_primary_turned_standby_answer_503_and_the_server_recovers() {
    let app = spawn_app(Backend::Postgres).await;
    let db = database_of(&app).await;
    let (id, a, b) = game_in_play(&app).await;
    let mut admin = admin().await;
    read_only(&mut admin, &db, true).await;
    let mut seen = Vec::new();
    for _ in 0..6 {
        seen.push(move_once(&app, &id, &a, &b).await);
        let registered = app
            .client
            .post(app.url("/v1/players"))
            .json(&json!({ "name": "late" }))
            .send()
            .await
            .expect("an answer");
        seen.push((
            registered.status().as_u16(),
            registered.headers().contains_key("retry-after"),
            Duration::ZERO,
        ));
    }
    read_only(&mut admin, &db, false).await;
    for (status, retry_after, _) in &seen {
        assert_eq!(*status, 503, "answers: {seen:?}");
        assert!(retry_after, "503 without Retry-After");
    }
    recovers(&app, &id, &a, &b).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_commit_that_does_not_return_answers_503_within_the_deadline() {
    let app = spawn_app(Backend::Postgres).await;
    let (id, a, b) = game_in_play(&app).await;
    // Every write to the games table waits behind this lock, as a commit waits for a
    // synchronous standby that is not there.
    let mut admin = sqlx::PgConnection::connect(&app.database)
        .await
        .expect("connection");
    let mut lock = admin.begin().await.expect("begin");
    sqlx::query("LOCK TABLE games IN ACCESS EXCLUSIVE MODE")
        .execute(&mut *lock)
        .await
        .expect("lock");
    let (status, retry_after, took) = move_once(&app, &id, &a, &b).await;
    lock.rollback().await.expect("release");
    assert_eq!(status, 503);
    assert!(retry_after, "503 without Retry-After");
    assert!(
        took < DATABASE_DEADLINE + Duration::from_secs(5),
        "the move took {took:?}"
    );
    // Whether the move was recorded once the lock went is unknown to the client (as
    // when a connection breaks); the game goes on either way.
    recovers(&app, &id, &a, &b).await;
}
