//! The answer to a move is written while the move's commit is in flight: it must be the
//! game exactly as read once the move is committed, and what a retry with the same
//! `Idempotency-Key` is answered.

use serde_json::{json, Value};
use uuid::Uuid;
use worp_engine::playout::SplitMix64;

use crate::helpers::{spawn_app, Backend, TestApp, TestPlayer, BACKENDS};

#[tokio::test]
async fn a_moves_answer_is_the_game_as_read_after_it() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (a, b, mut game) = app.two_player_game("backgammon").await;
        assert_eq!(game["rated"], true, "{game}");
        let id = game["id"].as_str().expect("id").to_owned();
        let mut rng = SplitMix64(11);
        let mut moves = 0;
        while game["status"] == "active" {
            let who = if game["to_move"] == 0 { &a } else { &b };
            let legal = game["legal_moves"].as_array().expect("legal moves");
            let mv = legal[rng.below(legal.len())].clone();
            let resp = app
                .post(&format!("/v1/games/{id}/moves"), who, json!({ "move": mv }))
                .await;
            assert_eq!(resp.status(), 200, "{backend:?}");
            let etag = resp.headers().get("etag").cloned();
            let answer: Value = resp.json().await.expect("json");
            let read = app.get(&format!("/v1/games/{id}")).await;
            assert_eq!(read.headers().get("etag").cloned(), etag, "{backend:?}");
            let read: Value = read.json().await.expect("json");
            assert_eq!(answer, read, "{backend:?}: after move {moves}");
            game = answer;
            moves += 1;
            assert!(moves < 5_000, "{backend:?}: no end after {moves} moves");
        }
        // The move that ends a rated game is answered after its commit, with the rating
        // changes it made.
        assert_eq!(
            game["rating_changes"].as_array().map(Vec::len),
            Some(2),
            "{backend:?}: {game}"
        );
    }
}

/// A move sent again with its `Idempotency-Key` is answered what it was answered the
/// first time: for the move that ends a rated game, with the rating changes it made
/// (known only after the commit, when the answer for the key was already kept).
#[tokio::test]
async fn a_final_move_sent_again_is_answered_as_the_first_time() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (a, b, mut game) = app.two_player_game("backgammon").await;
        let id = game["id"].as_str().expect("id").to_owned();
        let mut rng = SplitMix64(5);
        let mut last = None;
        for n in 0..5_000 {
            if game["status"] != "active" {
                break;
            }
            let who = if game["to_move"] == 0 { &a } else { &b };
            let legal = game["legal_moves"].as_array().expect("legal moves");
            let body = json!({ "move": legal[rng.below(legal.len())].clone() });
            let key = format!("move-{n}");
            let resp = keyed_move(&app, who, &id, &key, &body).await;
            assert_eq!(resp.status(), 200, "{backend:?}");
            game = resp.json().await.expect("json");
            last = Some((who, key, body));
        }
        assert_eq!(game["status"], "finished", "{backend:?}");
        assert_eq!(game["rating_changes"].as_array().map(Vec::len), Some(2));
        let (who, key, body) = last.expect("a move");
        let again = keyed_move(&app, who, &id, &key, &body).await;
        assert_eq!(again.status(), 200, "{backend:?}");
        assert_eq!(again.headers()["idempotent-replayed"], "true");
        let again: Value = again.json().await.expect("json");
        assert_eq!(again, game, "{backend:?}");
    }
}

/// `POST /v1/games/{id}/moves` with `body`, as `who`, with an `Idempotency-Key`.
async fn keyed_move(
    app: &TestApp,
    who: &TestPlayer,
    id: &str,
    key: &str,
    body: &Value,
) -> reqwest::Response {
    app.client
        .post(format!("{}/v1/games/{id}/moves", app.address))
        .bearer_auth(&who.token)
        .header("Idempotency-Key", key)
        .json(body)
        .send()
        .await
        .expect("move")
}

/// Every future around a move's copies it when it starts, so the rare paths inside it
/// (a load from the log, a second judgement, a lone append) are boxed, not kept in
/// place: before, it took 35,736 bytes.
#[tokio::test]
async fn the_future_of_a_move_stays_small() {
    let app = spawn_app(Backend::Sqlite).await;
    let player = worp::store::Player {
        id: Uuid::new_v4(),
        name: "nobody".into(),
        token_hash: Vec::new(),
    };
    let mv = serde_json::value::to_raw_value(&Value::Null).expect("null is JSON");
    let future = app.worp.play(&player, Uuid::new_v4(), &mv, None, None);
    let size = std::mem::size_of_val(&future);
    assert!(size <= 8 * 1024, "a move's future takes {size} bytes");
}
