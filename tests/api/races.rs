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
        // 50 clients send a move at the same moment; every other one states the version
        // it saw with If-Match.
        const CLIENTS: usize = 50;
        let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(CLIENTS));
        let mut tasks = Vec::new();
        for i in 0..CLIENTS {
            let client = app.client.clone();
            let url = app.url(&format!("/v1/games/{id}/moves"));
            let token = mover.token.clone();
            let mv = moves[i % moves.len()].clone();
            let if_match = i % 2 == 0;
            let barrier = barrier.clone();
            tasks.push(tokio::spawn(async move {
                let mut req = client
                    .post(url)
                    .bearer_auth(token)
                    .json(&json!({"move": mv}));
                if if_match {
                    req = req.header("If-Match", format!("\"{version}\""));
                }
                barrier.wait().await;
                let resp = req.send().await.expect("response");
                let status = resp.status().as_u16();
                let body: Value = resp.json().await.unwrap_or(Value::Null);
                (if_match, status, body["version"].as_i64())
            }));
        }
        let mut answers = Vec::new();
        for t in tasks {
            answers.push(t.await.expect("task"));
        }
        let statuses: Vec<(bool, u16)> = answers.iter().map(|(m, s, _)| (*m, *s)).collect();
        // Every If-Match client saw the same version: at most one of them may act on it,
        // and the others get 409 (lost the race) or 412 (the game has moved on).
        assert!(
            statuses.iter().filter(|(m, s)| *m && *s == 200).count() <= 1,
            "{backend:?}: {statuses:?}"
        );
        assert!(
            statuses
                .iter()
                .all(|(m, s)| !*m || [200, 409, 412].contains(s)),
            "{backend:?}: {statuses:?}"
        );
        // Without If-Match a request is judged against the game as it is when it is
        // served: 409 when it is no longer the caller's turn or the race was lost, or
        // (when the mover moves again) played on the new version or refused with 422.
        assert!(
            statuses
                .iter()
                .all(|(m, s)| *m || [200, 409, 422].contains(s)),
            "{backend:?}: {statuses:?}"
        );
        // Per version exactly one append: the log has no gap and no duplicate, every 200
        // names a different version, and the moves recorded after `version` are exactly
        // the acknowledged ones (at least the first).
        let events = app.events(&id).await;
        for (i, e) in events.iter().enumerate() {
            assert_eq!(e["seq"], i as i64 + 1);
        }
        let mut acked: Vec<i64> = answers
            .iter()
            .filter(|(_, s, _)| *s == 200)
            .map(|(_, _, v)| v.expect("a 200 carries the game's version"))
            .collect();
        acked.sort_unstable();
        let distinct = acked.len();
        acked.dedup();
        assert_eq!(
            acked.len(),
            distinct,
            "{backend:?}: two answers for one version"
        );
        let moves_after = events
            .iter()
            .filter(|e| e["seq"].as_i64() > Some(version) && e["type"] == "move_played")
            .count();
        assert!(moves_after >= 1, "{backend:?}: no move was recorded");
        assert_eq!(moves_after, distinct, "{backend:?}: {statuses:?}");
        assert_eq!(
            events[version as usize]["type"], "move_played",
            "{backend:?}: the event after {version} is the winning move"
        );
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
        assert_eq!(
            first, second,
            "{backend:?}: the retry is answered as the first time"
        );
        let now = app.get_json(&format!("/v1/games/{id}")).await;
        assert_eq!(now["version"], first["version"]);
    }
}
