//! Players find each other in the lobby, play rated games, and earn Glicko-2 ratings that
//! are a projection of the log: folded again from the log alone, they are the same.

use serde_json::{json, Value};

use std::sync::Arc;

use worp::clock::SystemClock;

use crate::helpers::{
    spawn_app, spawn_app_from, test_settings, Backend, TestApp, TestPlayer, BACKENDS,
};

/// `creator` opens a game of backgammon with one open seat; `joiner` finds it in the
/// lobby and takes it; `loser` resigns. Returns the finished game.
async fn rated_game(
    app: &TestApp,
    creator: &TestPlayer,
    joiner: &TestPlayer,
    loser: &TestPlayer,
) -> Value {
    let resp = app
        .post(
            "/v1/games",
            creator,
            json!({"variant": "backgammon", "seats": [creator.id, null]}),
        )
        .await;
    assert_eq!(resp.status(), 201);
    let game: Value = resp.json().await.expect("json");
    let id = game["id"].as_str().expect("id").to_owned();
    assert_eq!(game["rated"], true, "rated by default: {game}");
    let lobby = app.get_json("/v1/lobby?variant=backgammon").await;
    let entry = lobby["games"]
        .as_array()
        .expect("games")
        .iter()
        .find(|g| g["game"]["id"] == id.as_str())
        .cloned()
        .expect("the new game is in the lobby");
    assert_eq!(entry["game"]["open_seats"], json!([1]));
    let seat = entry["game"]["open_seats"][0].as_u64().expect("seat");
    let taken = app
        .post(&format!("/v1/games/{id}/seats/{seat}"), joiner, Value::Null)
        .await;
    assert_eq!(taken.status(), 200);
    let lobby = app.get_json("/v1/lobby").await;
    assert!(
        lobby["games"]
            .as_array()
            .expect("games")
            .iter()
            .all(|g| g["game"]["id"] != id.as_str()),
        "a full game leaves the lobby"
    );
    let resp = app
        .post(&format!("/v1/games/{id}/resign"), loser, Value::Null)
        .await;
    assert_eq!(resp.status(), 200);
    resp.json().await.expect("json")
}

#[tokio::test]
async fn two_players_meet_in_the_lobby_play_rated_games_and_climb_the_leaderboard() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (alice, bob) = (app.player("alice").await, app.player("bob").await);
        let first = rated_game(&app, &alice, &bob, &bob).await;
        let changes = first["rating_changes"].as_array().expect("changes");
        assert_eq!(changes.len(), 2, "{backend:?}: {first}");
        let of = |p: &TestPlayer| {
            changes
                .iter()
                .find(|c| c["player_id"] == p.id.to_string())
                .cloned()
                .expect("a change per player")
        };
        assert_eq!(of(&alice)["before"], 1500.0);
        assert_eq!(of(&alice)["after"].as_f64().map(f64::round), Some(1662.0));
        assert_eq!(of(&bob)["after"].as_f64().map(f64::round), Some(1338.0));
        let page = app.get_json(&format!("/v1/players/{}", alice.id)).await;
        assert_eq!(page["ratings"][0]["variant"], "backgammon");
        assert_eq!(page["ratings"][0]["games"], 1);
        assert_eq!(page["ratings"][0]["won"], 1);
        assert_eq!(page["recent_games"][0]["id"], first["id"]);
        assert_eq!(page["recent_games"][0]["names"], json!(["alice", "bob"]));
        // Nobody is settled after one game.
        let board = app.get_json("/v1/leaderboard?variant=backgammon").await;
        assert_eq!(board["players"], json!([]), "{backend:?}: {board}");
        // Alice wins most; bob some: both settle under the threshold.
        for i in 0..11 {
            let loser = if i % 4 == 3 { &alice } else { &bob };
            rated_game(&app, &bob, &alice, loser).await;
        }
        let board = app.get_json("/v1/leaderboard?variant=backgammon").await;
        let players = board["players"].as_array().expect("players");
        assert_eq!(players.len(), 2, "{backend:?}: {board}");
        assert_eq!(players[0]["name"], "alice");
        assert_eq!(players[1]["name"], "bob");
        assert!(players[0]["rating"].as_f64() > players[1]["rating"].as_f64());
        assert!(players[0]["deviation"].as_f64() < board["max_deviation"].as_f64());
        assert_eq!(players[0]["games"], 12);
        assert_eq!(
            players[0]["won"].as_u64().unwrap_or(0) + players[0]["lost"].as_u64().unwrap_or(0),
            12
        );
        let unknown = app.get("/v1/leaderboard?variant=chess").await;
        assert_eq!(unknown.status(), 400);

        // The ratings are a projection of the log: a fresh fold of the log alone, and a
        // second process reading it, give exactly the same numbers.
        let live = app.worp.rating_book().await.expect("live");
        let again = app.worp.rating_book_from_scratch().await.expect("fold");
        assert_eq!(*live, again, "{backend:?}");
        assert_eq!(again.folded, 12);
        app.worp.rebuild().await.expect("rebuild");
        let after_rebuild = app.worp.rating_book_from_scratch().await.expect("fold");
        assert_eq!(*live, after_rebuild, "{backend:?}: after worp rebuild");
    }
}

#[tokio::test]
async fn bots_and_unrated_games_change_no_rating() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (alice, bob) = (app.player("alice").await, app.player("bob").await);
        let refused = app
            .post(
                "/v1/games",
                &alice,
                json!({"variant": "backgammon", "seats": [alice.id, {"bot": "greedy"}], "rated": true}),
            )
            .await;
        assert_eq!(refused.status(), 400, "{backend:?}");
        let with_bot = app
            .create_from(
                &alice,
                json!({"variant": "backgammon", "seats": [alice.id, {"bot": "greedy"}]}),
            )
            .await;
        assert_eq!(with_bot["rated"], false);
        let id = with_bot["id"].as_str().expect("id");
        let end: Value = app
            .post(&format!("/v1/games/{id}/resign"), &alice, Value::Null)
            .await
            .json()
            .await
            .expect("json");
        assert_eq!(end["status"], "finished");
        assert_eq!(end["rating_changes"], Value::Null);
        let unrated = app
            .create_from(
                &alice,
                json!({"variant": "backgammon", "seats": [alice.id, bob.id], "rated": false}),
            )
            .await;
        assert_eq!(unrated["rated"], false);
        let id = unrated["id"].as_str().expect("id");
        let end: Value = app
            .post(&format!("/v1/games/{id}/resign"), &bob, Value::Null)
            .await
            .json()
            .await
            .expect("json");
        assert_eq!(end["status"], "finished");
        assert_eq!(end["rating_changes"], Value::Null);
        let page = app.get_json(&format!("/v1/players/{}", alice.id)).await;
        assert_eq!(page["ratings"], json!([]), "{backend:?}: {page}");
        assert_eq!(page["recent_games"].as_array().map(Vec::len), Some(2));
    }
}

#[tokio::test]
async fn a_server_folds_the_ratings_as_it_starts_before_a_request_needs_them() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (alice, bob) = (app.player("alice").await, app.player("bob").await);
        rated_game(&app, &alice, &bob, &bob).await;
        // A second server on the same log, asked nothing.
        let second = spawn_app_from(
            test_settings(app.database.clone()),
            Arc::new(SystemClock),
            None,
        )
        .await;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            if second.worp.ratings.0.lock().await.book.folded == 1 {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "{backend:?}: the ratings were not folded within 10 s of the start"
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }
}

/// Asks for the ratings with the check for late finishes due, and returns the book's
/// number of finishes folded and the settled mark.
async fn check_now(app: &TestApp) -> (u64, i64, u64) {
    app.worp.ratings.0.lock().await.checked_at = None;
    let book = app.worp.rating_book().await.expect("ratings");
    let projection = app.worp.ratings.0.lock().await;
    (
        book.folded,
        projection.settled.position,
        projection.settled.folded,
    )
}

/// A finish that took its position before another and committed after it (two writers,
/// or two processes) is still folded in: the check waits for the transactions that were
/// writing events when it noted the book's end, then counts the finishes from the last
/// settled mark to that end only, never the whole log again.
#[tokio::test]
async fn a_finish_that_commits_late_is_caught_by_counting_the_newest_finishes_only() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (alice, bob) = (app.player("alice").await, app.player("bob").await);
        let first = rated_game(&app, &alice, &bob, &bob).await;
        // Settles the first finish: a first step notes it, a second counts it.
        check_now(&app).await;
        let (folded, settled_at, settled) = check_now(&app).await;
        assert_eq!((folded, settled), (1, 1), "{backend:?}");
        assert!(settled_at > 0, "{backend:?}");

        // On PostgreSQL, a copy of the first game's finish under a new game takes its
        // position now and commits only after the next game's finish has been read.
        let mut late = None;
        if backend == Backend::Postgres {
            use sqlx::Connection;
            let mut conn = sqlx::PgConnection::connect(&app.database)
                .await
                .expect("connect");
            let copy = uuid::Uuid::new_v4();
            sqlx::query("BEGIN")
                .execute(&mut conn)
                .await
                .expect("begin");
            sqlx::query(
                "INSERT INTO games (id, variant, status, version, to_move_seat, to_move_player, \
                 summary, deadline, created_at, updated_at, listed_second) \
                 SELECT $1, variant, status, version, to_move_seat, to_move_player, summary, \
                 deadline, created_at, updated_at, listed_second FROM games WHERE id = $2::uuid",
            )
            .bind(copy)
            .bind(first["id"].as_str().expect("id"))
            .execute(&mut conn)
            .await
            .expect("the copy's row");
            sqlx::query(
                "INSERT INTO events (game_id, seq, kind, payload, rules_version, recorded_at, hash) \
                 SELECT $1, 1, kind, payload, rules_version, recorded_at, hash FROM events \
                 WHERE game_id = $2::uuid AND kind = 'game_finished'",
            )
            .bind(copy)
            .bind(first["id"].as_str().expect("id"))
            .execute(&mut conn)
            .await
            .expect("the copy's finish");
            late = Some(conn);
        }
        rated_game(&app, &bob, &alice, &alice).await;
        // The first step notes the end, with the late writer among those writing.
        let (folded, settled_at_now, _) = check_now(&app).await;
        assert_eq!((folded, settled_at_now), (2, settled_at), "{backend:?}");
        if let Some(mut conn) = late.take() {
            // While it may still commit, nothing settles.
            assert_eq!(check_now(&app).await, (2, settled_at, 1));
            sqlx::query("COMMIT")
                .execute(&mut conn)
                .await
                .expect("commit");
        }
        // The second step counts the finishes after the settled mark.
        let (folded, settled_at_now, settled) = check_now(&app).await;
        let expected = if backend == Backend::Postgres { 3 } else { 2 };
        assert_eq!((folded, settled), (expected, expected), "{backend:?}");
        assert!(
            settled_at_now > settled_at,
            "{backend:?}: the mark moved on"
        );
        let live = app.worp.rating_book().await.expect("live");
        let again = app.worp.rating_book_from_scratch().await.expect("fold");
        assert_eq!(*live, again, "{backend:?}");
        let page = app.get_json(&format!("/v1/players/{}", alice.id)).await;
        assert_eq!(page["ratings"][0]["games"], expected, "{backend:?}: {page}");
    }
}
