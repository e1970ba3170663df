//! What a hostile client, or a broken game, must not get away with. Each test failed
//! before its fix.

use serde_json::{json, Value};
use worp::events::StoredEvent;
use worp::export::{audit_export, Export};

use crate::helpers::{spawn_app, spawn_app_with, Backend, ManualClock};

/// A game whose log does not replay must not stop the time-outs of the others.
#[tokio::test]
async fn the_deadline_sweep_skips_a_game_that_does_not_replay_and_times_out_the_rest() {
    let clock = ManualClock::new();
    let app = spawn_app_with(Backend::Sqlite, clock.clone()).await;
    let (a, b) = (app.player("a").await, app.player("b").await);
    let mut ids = Vec::new();
    for _ in 0..2 {
        let game = app
            .create_from(
                &a,
                json!({"variant": "backgammon", "seats": [a.id, b.id], "days_per_move": 1}),
            )
            .await;
        ids.push(
            game["id"]
                .as_str()
                .expect("id")
                .parse::<uuid::Uuid>()
                .expect("uuid"),
        );
        clock.advance(chrono::Duration::minutes(1));
    }
    // The first game (the first due) gets an event the rules cannot apply.
    let broken = app.worp.all_events(ids[0]).await.expect("events");
    let last = broken.last().expect("event");
    let worp::store::Store::Sqlite(s) = &app.store else {
        unreachable!("SQLite app")
    };
    sqlx::query(
        "INSERT INTO events (game_id, seq, kind, payload, rules_version, recorded_at, hash) \
         VALUES ($1, $2, 'move_played', '{\"seat\":0,\"move\":\"nonsense\"}', 1, $3, 'x')",
    )
    .bind(ids[0])
    .bind(last.seq + 1)
    .bind(last.recorded_at)
    .execute(&s.pool)
    .await
    .expect("append a broken event");
    clock.advance(chrono::Duration::days(2));
    // A process that has not cached the game reads the broken log.
    let store = worp::store::Store::connect(&app.database, 1)
        .await
        .expect("connect");
    let other = worp::service::Worp::new(store, 10, clock.clone());
    assert_eq!(other.sweep_deadlines().await.expect("sweep"), 1);
    let second = app.get_json(&format!("/v1/games/{}", ids[1])).await;
    assert_eq!(second["status"], "finished", "{second}");
}

#[tokio::test]
async fn a_stream_cannot_start_after_a_negative_sequence_number() {
    let app = spawn_app(Backend::Sqlite).await;
    let (_, _, game) = app.two_player_game("backgammon").await;
    let id = game["id"].as_str().expect("id");
    let resp = app.get(&format!("/v1/games/{id}/stream?after=-1")).await;
    assert_eq!(resp.status(), 400);
    let problem: Value = resp.json().await.expect("problem");
    assert_eq!(problem["status"], 400);
}

#[tokio::test]
async fn a_bot_seat_with_unknown_fields_is_refused() {
    let app = spawn_app(Backend::Sqlite).await;
    let a = app.player("a").await;
    let resp = app
        .post(
            "/v1/games",
            &a,
            json!({"variant": "backgammon", "seats": [a.id, {"bot": "random", "x": 1}]}),
        )
        .await;
    assert_eq!(resp.status(), 400);
    let resp = app
        .post(
            "/v1/games",
            &a,
            json!({"variant": "backgammon", "seats": [a.id, {"bot": "random"}]}),
        )
        .await;
    assert_eq!(resp.status(), 201);
}

#[tokio::test]
async fn an_inbox_offset_near_the_largest_number_does_not_overflow() {
    let app = spawn_app(Backend::Sqlite).await;
    let a = app.player("a").await;
    // Beyond the 10,000 an offset may skip: a clear refusal, not an overflow.
    let resp = app
        .client
        .get(app.url(&format!(
            "/v1/players/me/games?offset={}&limit=200",
            i64::MAX - 10
        )))
        .bearer_auth(&a.token)
        .send()
        .await
        .expect("request");
    assert_eq!(resp.status(), 400);
    let problem: serde_json::Value = resp.json().await.expect("problem");
    assert!(
        problem["detail"]
            .as_str()
            .is_some_and(|d| d.contains("next_cursor")),
        "{problem}"
    );
    let page = app
        .get_json_as("/v1/players/me/games?offset=10000&limit=200", &a)
        .await;
    assert_eq!(page["games"], json!([]));
}

#[tokio::test]
async fn a_state_at_near_the_largest_number_is_not_found_and_the_server_stays_up() {
    let app = spawn_app(Backend::Sqlite).await;
    let (_, _, game) = app.two_player_game("backgammon").await;
    let id = game["id"].as_str().expect("id");
    // Found by Schemathesis: the checkpoint after such a number overflowed.
    for at in [i64::MAX - 1, i64::MAX] {
        for game in [id.to_owned(), uuid::Uuid::new_v4().to_string()] {
            let resp = app.get(&format!("/v1/games/{game}/state?at={at}")).await;
            assert_eq!(resp.status(), 404, "{game} at {at}");
        }
    }
    assert_eq!(app.get(&format!("/v1/games/{id}")).await.status(), 200);
}

/// An export whose events claim a rules version that never existed is refused, even
/// with its chain made anew to match.
#[tokio::test]
async fn the_audit_refuses_rules_versions_that_never_existed() {
    let app = spawn_app(Backend::Sqlite).await;
    let (_, _, game) = app.two_player_game("backgammon").await;
    let id = game["id"].as_str().expect("id");
    let x: Export = serde_json::from_value(app.get_json(&format!("/v1/games/{id}/export")).await)
        .expect("export");
    audit_export(&x).expect("the real export audits");
    for version in [0, -1, worp_engine::RULES_VERSION as i32 + 1] {
        let mut forged = x.clone();
        let mut prev = String::new();
        for e in &mut forged.events {
            e.rules_version = version;
            e.hash = StoredEvent::chain_hash(e, &prev);
            prev = e.hash.clone();
        }
        forged.head_hash = prev;
        let err = audit_export(&forged).expect_err("a forged rules version");
        assert!(err.reason.contains("rules version"), "{err}");
    }
}
