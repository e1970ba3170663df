//! The holes a hostile user found: what is stored is text a database can keep, the log
//! cannot be rewritten, retry keys answer only their own request, and neither overload,
//! a bad read-model row nor a rebuild loses or hides anything.

use serde_json::{json, Value};
use uuid::Uuid;
use worp::store::Store;

use crate::helpers::{spawn_app, Backend, TestApp, TestPlayer, BACKENDS};
use crate::play::two_seat_variant;

/// Runs `sql` (binding `id` when given) on the app's own database.
async fn run_sql(app: &TestApp, sql: &str, id: Option<Uuid>) -> Result<u64, sqlx::Error> {
    match &app.worp.store {
        Store::Postgres(s) => {
            let q = sqlx::query(sql);
            let q = if let Some(id) = id { q.bind(id) } else { q };
            q.execute(&s.pool).await.map(|r| r.rows_affected())
        }
        Store::Sqlite(s) => {
            let q = sqlx::query(sql);
            let q = if let Some(id) = id { q.bind(id) } else { q };
            q.execute(&s.pool).await.map(|r| r.rows_affected())
        }
    }
}

fn game_id(game: &Value) -> String {
    game["id"].as_str().expect("id").to_owned()
}

/// Plays `mv` in `game` as `who`, with an `Idempotency-Key` when given.
async fn play(
    app: &TestApp,
    game: &str,
    who: &TestPlayer,
    mv: &Value,
    key: Option<&str>,
) -> reqwest::Response {
    let mut req = app
        .client
        .post(app.url(&format!("/v1/games/{game}/moves")))
        .bearer_auth(&who.token)
        .json(&json!({ "move": mv }));
    if let Some(k) = key {
        req = req.header("Idempotency-Key", k);
    }
    req.send().await.expect("request")
}

/// Who is to move in `game`: `a` holds seat 0, `b` seat 1.
fn mover<'p>(game: &Value, a: &'p TestPlayer, b: &'p TestPlayer) -> &'p TestPlayer {
    if game["to_move"] == 0 {
        a
    } else {
        b
    }
}

/// A new game between `a` (seat 0) and `b` (seat 1) in which `who` is to move.
async fn game_to_move(app: &TestApp, a: &TestPlayer, b: &TestPlayer, who: &TestPlayer) -> Value {
    for _ in 0..50 {
        let game = app
            .create(
                a,
                two_seat_variant(),
                Value::Null,
                vec![Some(a.id), Some(b.id)],
            )
            .await;
        if mover(&game, a, b).id == who.id {
            return game;
        }
    }
    panic!("{} never got the first move", who.id);
}

// ---- F5: text a database cannot keep ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strings_with_nul_or_control_characters_are_refused_with_400() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let resp = app
            .client
            .post(app.url("/v1/players"))
            .json(&json!({"name": "a\u{0}b"}))
            .send()
            .await
            .expect("request");
        assert_eq!(resp.status(), 400, "{backend:?}: name");
        let (a, b) = (app.player("a").await, app.player("b").await);
        for body in [
            json!({"variant": two_seat_variant(), "seats": [a.id, b.id], "client_seed": "x\u{0}y"}),
            json!({"variant": two_seat_variant(), "seats": [a.id, b.id], "client_seed": "x\u{7}y"}),
            json!({"variant": two_seat_variant(), "seats": [a.id, b.id], "options": {"k": "\u{0}"}}),
            json!({"variant": two_seat_variant(), "seats": [a.id, b.id], "options": {"\u{0}": 1}}),
        ] {
            let resp = app.post("/v1/games", &a, body.clone()).await;
            assert_eq!(resp.status(), 400, "{backend:?}: {body}");
        }
        let open = app
            .create(&a, two_seat_variant(), Value::Null, vec![Some(a.id), None])
            .await;
        let resp = app
            .post(
                &format!("/v1/games/{}/seats/1", game_id(&open)),
                &b,
                json!({"client_seed": "\u{0}"}),
            )
            .await;
        assert_eq!(resp.status(), 400, "{backend:?}: seat client_seed");
        let (a, b, game) = app.two_player_game(two_seat_variant()).await;
        let who = mover(&game, &a, &b);
        for mv in [json!({"k\u{0}": 1}), json!(["\u{0}"]), json!("a\u{0}")] {
            let resp = play(&app, &game_id(&game), who, &mv, None).await;
            assert_eq!(resp.status(), 400, "{backend:?}: move {mv}");
        }
        let resp = app
            .post(
                "/v1/players/me/webhooks",
                &a,
                json!({"url": "https://hooks.example/a\u{0}b"}),
            )
            .await;
        assert_eq!(resp.status(), 400, "{backend:?}: webhook url");
        // The game is where it was, and still plays.
        let after = app.get_json(&format!("/v1/games/{}", game_id(&game))).await;
        assert_eq!(after["version"], game["version"]);
        let resp = play(&app, &game_id(&game), who, &game["legal_moves"][0], None).await;
        assert_eq!(resp.status(), 200, "{backend:?}");
    }
}
