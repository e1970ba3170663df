//! The store itself: history cannot be rewritten, read models rebuild from the log, and
//! on PostgreSQL a move updates its game's row in place (heap-only) while the listing
//! stays newest change first.

use serde_json::{json, Value};
use worp::store::Store;

use crate::helpers::{
    spawn_app, spawn_app_with, Backend, ManualClock, TestApp, TestPlayer, BACKENDS,
};
use crate::play::two_seat_variant;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_database_refuses_to_update_or_delete_events() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (a, b) = (app.player("a").await, app.player("b").await);
        app.create(
            &a,
            two_seat_variant(),
            Value::Null,
            vec![Some(a.id), Some(b.id)],
        )
        .await;
        let (update, delete) = match &app.store {
            Store::Postgres(s) => (
                sqlx::query("UPDATE events SET kind = 'forged'")
                    .execute(&s.pool)
                    .await
                    .err(),
                sqlx::query("DELETE FROM events")
                    .execute(&s.pool)
                    .await
                    .err(),
            ),
            Store::Sqlite(s) => (
                sqlx::query("UPDATE events SET kind = 'forged'")
                    .execute(&s.pool)
                    .await
                    .err(),
                sqlx::query("DELETE FROM events")
                    .execute(&s.pool)
                    .await
                    .err(),
            ),
        };
        let update = update.expect("UPDATE must fail").to_string();
        let delete = delete.expect("DELETE must fail").to_string();
        assert!(update.contains("immutable"), "{update}");
        assert!(delete.contains("immutable"), "{delete}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rebuild_remakes_the_listing_from_the_log() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (a, b) = (app.player("a").await, app.player("b").await);
        for _ in 0..3 {
            app.create(
                &a,
                two_seat_variant(),
                Value::Null,
                vec![Some(a.id), Some(b.id)],
            )
            .await;
        }
        app.create(&a, two_seat_variant(), Value::Null, vec![Some(a.id), None])
            .await;
        let before = app.get_json(&format!("/v1/games?player={}", a.id)).await;
        app.store.replace_read_models(&[]).await.expect("clear");
        let empty = app.get_json(&format!("/v1/games?player={}", a.id)).await;
        assert_eq!(empty["games"].as_array().map(Vec::len), Some(0));
        assert_eq!(app.worp.rebuild().await.expect("rebuild"), 4);
        let after = app.get_json(&format!("/v1/games?player={}", a.id)).await;
        assert_eq!(before, after);
    }
}

/// One legal move in `game` by whichever of `a` (seat 0) and `b` is to move.
pub(crate) async fn move_once(
    app: &TestApp,
    game: &Value,
    a: &TestPlayer,
    b: &TestPlayer,
) -> Value {
    let who = if game["to_move"] == 0 { a } else { b };
    let id = game["id"].as_str().expect("id");
    let resp = app
        .post(
            &format!("/v1/games/{id}/moves"),
            who,
            json!({"move": game["legal_moves"][0]}),
        )
        .await;
    assert_eq!(resp.status(), 200);
    resp.json().await.expect("json")
}

/// The ids of `/v1/games`, in its order.
async fn listed(app: &TestApp) -> Vec<String> {
    let page = app.get_json("/v1/games").await;
    page["games"]
        .as_array()
        .expect("games")
        .iter()
        .map(|g| g["id"].as_str().expect("id").to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_rewrites_its_game_row_heap_only_and_the_listing_stays_newest_change_first() {
    use chrono::{Duration, DurationRound};
    use sqlx::Connection;
    let clock = ManualClock::new();
    // A tenth of a second into a whole second.
    let start = chrono::Utc::now()
        .duration_trunc(Duration::seconds(1))
        .expect("whole second")
        + Duration::milliseconds(100);
    *clock.0.lock().expect("clock") = start;
    let app = spawn_app_with(Backend::Postgres, clock.clone()).await;
    let (a, b) = (app.player("a").await, app.player("b").await);
    let mut games = Vec::new();
    // Game 0 at .1 s, game 1 at .3 s, game 2 a second later.
    for step in [0, 200, 1000] {
        clock.advance(Duration::milliseconds(step));
        games.push(
            app.create(
                &a,
                two_seat_variant(),
                Value::Null,
                vec![Some(a.id), Some(b.id)],
            )
            .await,
        );
    }
    let id = |g: &Value| g["id"].as_str().expect("id").to_owned();
    assert_eq!(
        listed(&app).await,
        [id(&games[2]), id(&games[1]), id(&games[0])]
    );
    // Within the first second, game 0 moves after game 1's creation: it lists before
    // game 1, still after game 2 (a later second).
    *clock.0.lock().expect("clock") = start + Duration::milliseconds(600);
    games[0] = move_once(&app, &games[0], &a, &b).await;
    assert_eq!(
        listed(&app).await,
        [id(&games[2]), id(&games[0]), id(&games[1])]
    );
    // Two seconds on, game 1 moves: first.
    clock.advance(Duration::seconds(2));
    games[1] = move_once(&app, &games[1], &a, &b).await;
    assert_eq!(
        listed(&app).await,
        [id(&games[1]), id(&games[2]), id(&games[0])]
    );
    // More moves of game 1 within that second: its row is updated in place, the new
    // version a heap-only tuple (no new index entries, no dead version to walk).
    for _ in 0..3 {
        clock.advance(Duration::milliseconds(10));
        games[1] = move_once(&app, &games[1], &a, &b).await;
    }
    assert_eq!(
        listed(&app).await,
        [id(&games[1]), id(&games[2]), id(&games[0])]
    );
    let mut db = sqlx::PgConnection::connect(&app.database)
        .await
        .expect("connect");
    sqlx::query("CREATE EXTENSION IF NOT EXISTS pageinspect")
        .execute(&mut db)
        .await
        .expect("pageinspect");
    let heap_only: bool = sqlx::query_scalar(
        "SELECT (i.t_infomask2 & 32768) <> 0 FROM games g, \
         heap_page_items(get_raw_page('games', (g.ctid::text::point)[0]::int)) i \
         WHERE g.id = $1 AND i.lp = (g.ctid::text::point)[1]::int",
    )
    .bind(uuid::Uuid::parse_str(&id(&games[1])).expect("uuid"))
    .fetch_one(&mut db)
    .await
    .expect("the row's tuple");
    assert!(
        heap_only,
        "the last update of the game's row was not heap-only"
    );
}

/// Every event is written to the log's one full B-tree index, its key `(game_id, seq)`;
/// the other indexes of `events` are partial (finishes, messages) or block summaries
/// (the global position's BRIN, which a move leaves as it is until a vacuum summarises
/// the newest pages). A B-tree index of the position cost each move two more index
/// entries.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_is_indexed_once_by_its_game_and_sequence_number() {
    use sqlx::Connection;
    let app = spawn_app(Backend::Postgres).await;
    let mut db = sqlx::PgConnection::connect(&app.database)
        .await
        .expect("connect");
    let full: Vec<(String, bool)> = sqlx::query_as(
        "SELECT pg_get_indexdef(i.indexrelid), i.indisunique FROM pg_index i \
         WHERE i.indrelid = 'events'::regclass AND i.indpred IS NULL",
    )
    .fetch_all(&mut db)
    .await
    .expect("the indexes of events");
    let (summaries, full): (Vec<_>, Vec<_>) = full
        .into_iter()
        .partition(|(def, _)| def.contains("USING brin"));
    assert_eq!(full.len(), 1, "full indexes of events: {full:?}");
    assert!(
        summaries
            .iter()
            .all(|(def, _)| def.contains("(\"position\")")),
        "summaries of events: {summaries:?}"
    );
    assert!(
        full[0].1 && full[0].0.ends_with("(game_id, seq)"),
        "the log's key: {full:?}"
    );
}

/// A move changes its game's player to move, and on neither backend does an index cover
/// that column: a player's turns are read through `game_seats`, so an index on it only
/// cost every move two index entries (on SQLite, a page or two of each commit's log).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_index_covers_the_player_to_move() {
    use sqlx::Connection;
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let covering: Vec<String> = match backend {
            Backend::Postgres => {
                let mut db = sqlx::PgConnection::connect(&app.database)
                    .await
                    .expect("connect");
                sqlx::query_scalar(
                    "SELECT indexname::text FROM pg_indexes \
                     WHERE tablename = 'games' AND indexdef LIKE '%to_move_player%'",
                )
                .fetch_all(&mut db)
                .await
                .expect("the indexes of games")
            }
            Backend::Sqlite => {
                let url = format!("sqlite://{}", app.database);
                let mut db = sqlx::SqliteConnection::connect(&url)
                    .await
                    .expect("connect");
                sqlx::query_scalar(
                    "SELECT DISTINCT l.name FROM pragma_index_list('games') l, \
                     pragma_index_info(l.name) c WHERE c.name = 'to_move_player'",
                )
                .fetch_all(&mut db)
                .await
                .expect("the indexes of games")
            }
        };
        assert!(covering.is_empty(), "{backend:?}: {covering:?}");
    }
}

/// Kept answers are compressed by lz4 where the server has it (a keyed move's answer is
/// over the size PostgreSQL compresses, and pglz cost it about 20 µs of the database's
/// time), and stay readable either way.
#[tokio::test]
async fn kept_answers_are_compressed_by_lz4_where_the_server_has_it() {
    use sqlx::Connection;
    let app = spawn_app(Backend::Postgres).await;
    let mut db = sqlx::PgConnection::connect(&app.database)
        .await
        .expect("connect");
    let lz4 = sqlx::query("CREATE TEMP TABLE lz4_here (b text COMPRESSION lz4)")
        .execute(&mut db)
        .await
        .is_ok();
    let method: String = sqlx::query_scalar(
        "SELECT attcompression::text FROM pg_attribute \
         WHERE attrelid = 'idempotency'::regclass AND attname = 'body'",
    )
    .fetch_one(&mut db)
    .await
    .expect("the answers' body");
    assert_eq!(method, if lz4 { "l" } else { "" }, "lz4 supported: {lz4}");

    // A keyed move's answer, kept and answered again.
    let (a, b, game) = app.two_player_game("backgammon").await;
    let who = if game["to_move"] == 0 { &a } else { &b };
    let id = game["id"].as_str().expect("id");
    let send = || {
        app.client
            .post(app.url(&format!("/v1/games/{id}/moves")))
            .bearer_auth(&who.token)
            .header("if-match", format!("\"{}\"", game["version"]))
            .header("idempotency-key", "kept-by-lz4")
            .json(&serde_json::json!({ "move": game["legal_moves"][0] }))
            .send()
    };
    let first = send().await.expect("an answer");
    assert_eq!(first.status(), 200);
    let first: serde_json::Value = first.json().await.expect("a body");
    let again = send().await.expect("an answer");
    assert_eq!(again.status(), 200);
    let again: serde_json::Value = again.json().await.expect("a body");
    assert_eq!(again, first, "the kept answer");
    if lz4 {
        let kept: Vec<Option<String>> =
            sqlx::query_scalar("SELECT pg_column_compression(body) FROM idempotency")
                .fetch_all(&mut db)
                .await
                .expect("kept answers");
        assert_eq!(kept.len(), 1, "{kept:?}");
        assert!(
            kept[0].as_deref().is_none_or(|m| m == "lz4"),
            "stored as it is (small) or by lz4: {kept:?}"
        );
    }
}
