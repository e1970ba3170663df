//! The group commit on PostgreSQL keeps a connection per writer only while changes keep
//! coming: once quiet, the connections go back to the pool for everything else.

use std::time::Duration;

use serde_json::json;
use worp::store::Store;

use crate::helpers::{spawn_app, Backend};
use crate::play::two_seat_variant;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn group_commit_writers_give_their_connections_back_when_quiet() {
    let app = spawn_app(Backend::Postgres).await;
    let Store::Postgres(pg) = &app.worp.store else {
        panic!("a PostgreSQL store");
    };
    // Several games moving at once, so both writers take batches.
    let mut tasks = Vec::new();
    for _ in 0..4 {
        let (a, b, game) = app.two_player_game(two_seat_variant()).await;
        let (client, base) = (app.client.clone(), app.address.clone());
        tasks.push(tokio::spawn(async move {
            let mut game = game;
            for _ in 0..10 {
                if game["status"] != "active" {
                    break;
                }
                let who = if game["to_move"] == 0 { &a } else { &b };
                let id = game["id"].as_str().expect("id").to_owned();
                let resp = client
                    .post(format!("{base}/v1/games/{id}/moves"))
                    .bearer_auth(&who.token)
                    .json(&json!({"move": game["legal_moves"][0]}))
                    .send()
                    .await
                    .expect("move");
                assert_eq!(resp.status(), 200);
                game = resp.json().await.expect("json");
            }
        }));
    }
    for t in tasks {
        t.await.expect("moves");
    }
    // Quiet now: only the LISTEN connection stays checked out (the webhook poller and
    // the announcer borrow one for a moment now and then).
    let until = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let held = pg.pool.size() as usize - pg.pool.num_idle();
        if held <= 1 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < until,
            "{held} connections still held after the moves stopped"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
