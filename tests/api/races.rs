//! Many clients at once on one game: exactly one append per version.

use serde_json::{json, Value};

use crate::helpers::{spawn_app, BACKENDS};
use crate::play::two_seat_variant;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_moves_on_one_game_append_exactly_once() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (a, b, game) = app.two_player_game(two_seat_variant()).await;
        let id = game["id"].as_str().expect("id").to_owned();
        let version = game["version"].as_i64().expect("version");
        let mover = if game["to_move"] == 0 {
            a.clone()
        } else {
            b.clone()
        };
        let moves = game["legal_moves"].as_array().expect("moves").clone();
        let mut tasks = Vec::new();
        for i in 0..20 {
            let client = app.client.clone();
            let url = app.url(&format!("/v1/games/{id}/moves"));
            let token = mover.token.clone();
            let mv = moves[i % moves.len()].clone();
            tasks.push(tokio::spawn(async move {
                // Every client saw the same version: exactly one may act on it. (Without
                // If-Match a request that arrives after the winner's may be a legal move
                // of the new position, and is rightly played.)
                client
                    .post(url)
                    .bearer_auth(token)
                    .header("If-Match", format!("\"{version}\""))
                    .json(&json!({"move": mv}))
                    .send()
                    .await
                    .map(|r| r.status().as_u16())
            }));
        }
        let mut statuses = Vec::new();
        for t in tasks {
            statuses.push(t.await.expect("task").expect("response"));
        }
        assert_eq!(
            statuses.iter().filter(|s| **s == 200).count(),
            1,
            "{backend:?}: {statuses:?}"
        );
        assert!(
            statuses.iter().all(|s| [200, 409, 412].contains(s)),
            "{backend:?}: {statuses:?}"
        );
        // The log has no gap and no duplicate; exactly one move was recorded after `version`.
        let events = app.events(&id).await;
        for (i, e) in events.iter().enumerate() {
            assert_eq!(e["seq"], i as i64 + 1);
        }
        let moves_after = events
            .iter()
            .filter(|e| e["seq"].as_i64() > Some(version) && e["type"] == "move_played")
            .count();
        assert_eq!(moves_after, 1);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_with_the_same_idempotency_key_appends_nothing() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (a, b, game) = app.two_player_game(two_seat_variant()).await;
        let id = game["id"].as_str().expect("id").to_owned();
        let mover = if game["to_move"] == 0 {
            a.clone()
        } else {
            b.clone()
        };
        let mv = game["legal_moves"][0].clone();
        let send = || {
            app.client
                .post(app.url(&format!("/v1/games/{id}/moves")))
                .bearer_auth(&mover.token)
                .header("Idempotency-Key", "move-1")
                .json(&json!({"move": mv}))
                .send()
        };
        let first = send().await.expect("r");
        assert_eq!(first.status(), 200);
        let first: Value = first.json().await.expect("json");
        let second = send().await.expect("r");
        assert_eq!(second.status(), 200);
        assert_eq!(
            second
                .headers()
                .get("idempotent-replayed")
                .and_then(|v| v.to_str().ok()),
            Some("true")
        );
        let second: Value = second.json().await.expect("json");
        assert_eq!(first["version"], second["version"]);
        let now = app.get_json(&format!("/v1/games/{id}")).await;
        assert_eq!(now["version"], first["version"]);
    }
}
