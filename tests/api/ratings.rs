//! Players find each other in the lobby, play rated games, and earn Glicko-2 ratings that
//! are a projection of the log: folded again from the log alone, they are the same. Games
//! that would farm a rating do not count (docs/api.md, "Which games count"): aborted ones, those of
//! players who have barely played, and the same two players' fourth in a day.

use serde_json::{json, Value};

use std::sync::Arc;

use worp::clock::SystemClock;

use crate::helpers::{
    spawn_app, spawn_app_from, spawn_app_with, test_settings, Backend, ManualClock, TestApp,
    TestPlayer, BACKENDS,
};

/// Plays the first legal move of the seat to move of game `id` until each seat has
/// made `each` moves (or the game ends); returns the game.
async fn play_moves(app: &TestApp, id: &str, players: [&TestPlayer; 2], each: u32) -> Value {
    let mut game = app.get_json(&format!("/v1/games/{id}")).await;
    let mut made = [0u32; 2];
    while made.iter().any(|m| *m < each) && game["status"] == "active" {
        let seat = game["to_move"].as_u64().expect("a seat to move") as usize;
        let mv = game["legal_moves"][0].clone();
        let resp = app
            .post(
                &format!("/v1/games/{id}/moves"),
                players[seat],
                json!({ "move": mv }),
            )
            .await;
        assert_eq!(resp.status(), 200, "{game}");
        game = resp.json().await.expect("json");
        made[seat] += 1;
    }
    game
}

/// `a` and `b` play an unrated game of ten moves each, then `b` resigns: both have now
/// played enough for their rated games to count.
async fn season(app: &TestApp, a: &TestPlayer, b: &TestPlayer) {
    let game = app
        .create_from(
            a,
            json!({"variant": "backgammon", "seats": [a.id, b.id], "rated": false}),
        )
        .await;
    let id = game["id"].as_str().expect("id");
    play_moves(app, id, [a, b], 10).await;
    let resp = app
        .post(&format!("/v1/games/{id}/resign"), b, Value::Null)
        .await;
    assert_eq!(resp.status(), 200);
}

/// `creator` opens a game of backgammon with one open seat; `joiner` finds it in the
/// lobby and takes it; each plays two moves; `loser` resigns. Returns the finished game.
async fn rated_game(
    app: &TestApp,
    creator: &TestPlayer,
    joiner: &TestPlayer,
    loser: &TestPlayer,
) -> Value {
    let id = open_and_join(app, creator, joiner).await;
    play_moves(app, &id, [creator, joiner], 2).await;
    let resp = app
        .post(&format!("/v1/games/{id}/resign"), loser, Value::Null)
        .await;
    assert_eq!(resp.status(), 200);
    resp.json().await.expect("json")
}

/// `creator` opens a rated game of backgammon; `joiner` finds it in the lobby and takes
/// it. Returns its id.
async fn open_and_join(app: &TestApp, creator: &TestPlayer, joiner: &TestPlayer) -> String {
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
    id
}

#[tokio::test]
async fn two_players_meet_in_the_lobby_play_rated_games_and_climb_the_leaderboard() {
    for backend in BACKENDS {
        let clock = ManualClock::new();
        let app = spawn_app_with(backend, clock.clone()).await;
        let (alice, bob) = (app.player("alice").await, app.player("bob").await);
        season(&app, &alice, &bob).await;
        clock.advance(chrono::Duration::minutes(1));
        let first = rated_game(&app, &alice, &bob, &bob).await;
        assert_eq!(first["not_rated"], Value::Null, "{backend:?}: {first}");
        assert_eq!(first["aborted"], false);
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
        // Three games a day between the same two count.
        for i in 0..11 {
            clock.advance(chrono::Duration::hours(9));
            let loser = if i % 4 == 3 { &alice } else { &bob };
            let game = rated_game(&app, &bob, &alice, loser).await;
            assert_eq!(game["rating_changes"].as_array().map(Vec::len), Some(2));
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
        assert_eq!(
            again.folded, 13,
            "{backend:?}: the seasoning game and twelve rated"
        );
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
            if second.worp.ratings().0.lock().await.book.folded == 1 {
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
    app.worp.ratings().0.lock().await.checked_at = None;
    let book = app.worp.rating_book().await.expect("ratings");
    let projection = app.worp.ratings().0.lock().await;
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
    }
}

/// The live book, a fold of the whole log, and a fold after `worp rebuild` are the same.
async fn assert_rebuilds_identically(app: &TestApp, backend: Backend) {
    let live = app.worp.rating_book().await.expect("live");
    let again = app.worp.rating_book_from_scratch().await.expect("fold");
    assert_eq!(*live, again, "{backend:?}");
    // Listing entries as they were written before they kept the moves per seat (a
    // database from before the upgrade): the fold counts the moves in the log, and the
    // book is the same before `worp rebuild` writes them.
    match &app.store {
        worp::store::Store::Postgres(pg) => {
            sqlx::query("UPDATE games SET summary = (summary::jsonb - 'moves')::json")
                .execute(&pg.pool)
                .await
                .expect("strip the moves");
        }
        worp::store::Store::Sqlite(sq) => {
            sqlx::query("UPDATE games SET summary = json_remove(summary, '$.moves')")
                .execute(&sq.pool)
                .await
                .expect("strip the moves");
        }
    }
    let before_rebuild = app.worp.rating_book_from_scratch().await.expect("fold");
    assert_eq!(
        *live, before_rebuild,
        "{backend:?}: listings without their moves"
    );
    app.worp.rebuild().await.expect("rebuild");
    let after_rebuild = app.worp.rating_book_from_scratch().await.expect("fold");
    assert_eq!(*live, after_rebuild, "{backend:?}: after worp rebuild");
}

#[tokio::test]
async fn a_rated_game_resigned_before_every_seat_moved_is_aborted_and_changes_no_rating() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (alice, bob) = (app.player("alice").await, app.player("bob").await);
        season(&app, &alice, &bob).await;
        // Bob resigns before any move; then after one move of his own (backgammon asks
        // two of each seat).
        for moves in [0, 1] {
            let id = open_and_join(&app, &alice, &bob).await;
            play_moves(&app, &id, [&alice, &bob], moves).await;
            let resp = app
                .post(&format!("/v1/games/{id}/resign"), &bob, Value::Null)
                .await;
            assert_eq!(resp.status(), 200);
            let game: Value = resp.json().await.expect("json");
            assert_eq!(game["status"], "finished", "{backend:?}");
            assert_eq!(game["reason"], "resigned", "{backend:?}");
            assert_eq!(game["aborted"], true, "{backend:?}: {game}");
            assert_eq!(game["not_rated"], "aborted", "{backend:?}: {game}");
            assert_eq!(game["rating_changes"], Value::Null, "{backend:?}");
            let read = app.get_json(&format!("/v1/games/{id}")).await;
            assert_eq!(read, game, "{backend:?}: read again");
            let listing = app.get_json(&format!("/v1/games?player={}", bob.id)).await;
            let entry = listing["games"]
                .as_array()
                .expect("games")
                .iter()
                .find(|g| g["id"] == id.as_str())
                .cloned()
                .expect("listed");
            assert_eq!(entry["aborted"], true, "{backend:?}: {entry}");
        }
        let page = app.get_json(&format!("/v1/players/{}", alice.id)).await;
        assert_eq!(page["ratings"], json!([]), "{backend:?}: {page}");
        // Two moves each: not aborted, and it counts.
        let game = rated_game(&app, &alice, &bob, &bob).await;
        assert_eq!(game["aborted"], false, "{backend:?}: {game}");
        assert_eq!(game["rating_changes"].as_array().map(Vec::len), Some(2));
        assert_rebuilds_identically(&app, backend).await;
    }
}

/// The farm that was found, smaller: rated games against puppet accounts made for the
/// purpose, each resigned by the puppet before any move, or after its first moves.
#[tokio::test]
async fn games_won_from_fresh_puppets_that_resign_at_once_farm_no_rating() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let farmer = app.player("farmer").await;
        for i in 0..4 {
            let puppet = app.player(&format!("puppet {i}")).await;
            for moves in [0, 2] {
                let id = open_and_join(&app, &farmer, &puppet).await;
                play_moves(&app, &id, [&farmer, &puppet], moves).await;
                let game: Value = app
                    .post(&format!("/v1/games/{id}/resign"), &puppet, Value::Null)
                    .await
                    .json()
                    .await
                    .expect("json");
                let why = if moves == 0 { "aborted" } else { "new_player" };
                assert_eq!(game["not_rated"], why, "{backend:?}: {game}");
                assert_eq!(game["rating_changes"], Value::Null, "{backend:?}");
            }
        }
        let page = app.get_json(&format!("/v1/players/{}", farmer.id)).await;
        assert_eq!(page["ratings"], json!([]), "{backend:?}: {page}");
        let board = app.get_json("/v1/leaderboard?variant=backgammon").await;
        assert_eq!(board["players"], json!([]), "{backend:?}");
        assert_rebuilds_identically(&app, backend).await;
    }
}

/// The same two accounts playing rated game after rated game: three a day count.
#[tokio::test]
async fn the_same_two_players_fourth_rated_game_within_a_day_does_not_count() {
    for backend in BACKENDS {
        let clock = ManualClock::new();
        let app = spawn_app_with(backend, clock.clone()).await;
        let (alice, bob) = (app.player("alice").await, app.player("bob").await);
        season(&app, &alice, &bob).await;
        let mut why = Vec::new();
        for _ in 0..5 {
            clock.advance(chrono::Duration::minutes(10));
            let game = rated_game(&app, &alice, &bob, &bob).await;
            why.push(game["not_rated"].clone());
        }
        assert_eq!(
            why,
            vec![
                Value::Null,
                Value::Null,
                Value::Null,
                json!("same_opponents"),
                json!("same_opponents")
            ],
            "{backend:?}"
        );
        // Another opponent the same day counts.
        let carol = app.player("carol").await;
        season(&app, &alice, &carol).await;
        let game = rated_game(&app, &carol, &alice, &carol).await;
        assert_eq!(game["not_rated"], Value::Null, "{backend:?}: {game}");
        // A day after the first of the three, alice and bob count again.
        clock.advance(chrono::Duration::hours(24) - chrono::Duration::minutes(20));
        let game = rated_game(&app, &bob, &alice, &alice).await;
        assert_eq!(game["not_rated"], Value::Null, "{backend:?}: {game}");
        let page = app.get_json(&format!("/v1/players/{}", bob.id)).await;
        assert_eq!(page["ratings"][0]["games"], 4, "{backend:?}: {page}");
        assert_rebuilds_identically(&app, backend).await;
    }
}
