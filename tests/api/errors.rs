//! Malformed, oversized, hostile and unauthorised requests: a clear problem+json answer,
//! and nothing stored.

use serde_json::{json, Value};

use crate::helpers::{spawn_app, Backend, BACKENDS};
use crate::play::two_seat_variant;

async fn problem(resp: reqwest::Response, status: u16) -> Value {
    assert_eq!(resp.status().as_u16(), status);
    let ct = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert_eq!(ct, "application/problem+json");
    let body: Value = resp.json().await.expect("json");
    assert_eq!(body["status"], status);
    assert!(body["type"]
        .as_str()
        .is_some_and(|t| t.starts_with("/problems/")));
    assert!(body["title"].is_string() && body["detail"].is_string());
    body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_get_problems_and_store_nothing() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (a, b) = (app.player("a").await, app.player("b").await);
        let variant = two_seat_variant();

        // Players: malformed bodies and names.
        for body in [
            "{",
            "[]",
            "{\"name\": 5}",
            "{\"name\": \"\"}",
            "{\"name\": \"x\", \"admin\": true}",
        ] {
            let resp = app
                .client
                .post(app.url("/v1/players"))
                .header("content-type", "application/json")
                .body(body)
                .send()
                .await
                .expect("request");
            problem(resp, 400).await;
        }
        let long = "n".repeat(65);
        problem(
            app.client
                .post(app.url("/v1/players"))
                .json(&json!({"name": long}))
                .send()
                .await
                .expect("r"),
            400,
        )
        .await;

        // Creating games: no token, a bad token, unknown variant, bad options, bad seats.
        let create = json!({"variant": variant, "seats": [a.id, b.id]});
        problem(
            app.client
                .post(app.url("/v1/games"))
                .json(&create)
                .send()
                .await
                .expect("r"),
            401,
        )
        .await;
        problem(
            app.client
                .post(app.url("/v1/games"))
                .bearer_auth("worp_forged")
                .json(&create)
                .send()
                .await
                .expect("r"),
            401,
        )
        .await;
        problem(
            app.post(
                "/v1/games",
                &a,
                json!({"variant": "chess", "seats": [a.id, b.id]}),
            )
            .await,
            400,
        )
        .await;
        problem(app.post("/v1/games", &a, json!({"variant": variant, "options": {"no_such_option": 1}, "seats": [a.id, b.id]})).await, 400).await;
        problem(
            app.post(
                "/v1/games",
                &a,
                json!({"variant": variant, "seats": [a.id]}),
            )
            .await,
            400,
        )
        .await;
        problem(
            app.post(
                "/v1/games",
                &a,
                json!({"variant": variant, "seats": [b.id, null]}),
            )
            .await,
            400,
        )
        .await;
        problem(
            app.post(
                "/v1/games",
                &a,
                json!({"variant": variant, "seats": [a.id, uuid::Uuid::new_v4()]}),
            )
            .await,
            400,
        )
        .await;
        problem(
            app.post(
                "/v1/games",
                &a,
                json!({"variant": variant, "seats": [a.id, "not-a-uuid"]}),
            )
            .await,
            400,
        )
        .await;
        let listing = app.get_json(&format!("/v1/games?player={}", a.id)).await;
        assert_eq!(
            listing["games"].as_array().map(Vec::len),
            Some(0),
            "nothing was stored"
        );

        // Oversized bodies.
        let huge = json!({"variant": variant, "seats": [a.id, b.id], "options": {"pad": "x".repeat(20_000)}});
        problem(app.post("/v1/games", &a, huge).await, 413).await;

        // A real game to misbehave in.
        let game = app
            .create(&a, variant, Value::Null, vec![Some(a.id), Some(b.id)])
            .await;
        let id = game["id"].as_str().expect("id").to_owned();
        let version = game["version"].as_i64().expect("version");
        let to_move = game["to_move"].as_u64().expect("to move");
        let (mover, waiter) = if to_move == 0 { (&a, &b) } else { (&b, &a) };
        let legal = game["legal_moves"][0].clone();
        let c = app.player("c").await;

        problem(
            app.get(&format!("/v1/games/{}", uuid::Uuid::new_v4()))
                .await,
            404,
        )
        .await;
        problem(app.get("/v1/games/not-a-uuid").await, 404).await;
        problem(
            app.post(&format!("/v1/games/{id}/moves"), &c, json!({"move": legal}))
                .await,
            403,
        )
        .await;
        problem(
            app.post(
                &format!("/v1/games/{id}/moves"),
                waiter,
                json!({"move": legal}),
            )
            .await,
            409,
        )
        .await;
        problem(
            app.post(
                &format!("/v1/games/{id}/moves"),
                mover,
                json!({"move": {"nonsense": true}}),
            )
            .await,
            422,
        )
        .await;
        problem(
            app.post(
                &format!("/v1/games/{id}/moves"),
                mover,
                json!({"move": "e2e4"}),
            )
            .await,
            422,
        )
        .await;
        problem(
            app.post(
                &format!("/v1/games/{id}/moves"),
                mover,
                json!({"mv": legal}),
            )
            .await,
            400,
        )
        .await;
        let stale = app
            .client
            .post(app.url(&format!("/v1/games/{id}/moves")))
            .bearer_auth(&mover.token)
            .header("If-Match", "\"0\"")
            .json(&json!({"move": legal}))
            .send()
            .await
            .expect("r");
        problem(stale, 412).await;
        let garbage = app
            .client
            .post(app.url(&format!("/v1/games/{id}/moves")))
            .bearer_auth(&mover.token)
            .header("If-Match", "yesterday")
            .json(&json!({"move": legal}))
            .send()
            .await
            .expect("r");
        problem(garbage, 400).await;
        problem(
            app.post(&format!("/v1/games/{id}/seats/1"), &c, Value::Null)
                .await,
            409,
        )
        .await;
        problem(
            app.post(&format!("/v1/games/{id}/seats/9"), &c, Value::Null)
                .await,
            404,
        )
        .await;
        problem(
            app.get(&format!("/v1/games/{id}/events?limit=0")).await,
            400,
        )
        .await;
        problem(
            app.get(&format!("/v1/games/{id}/events?after=x")).await,
            400,
        )
        .await;
        problem(app.get("/v1/games?my_turn=true").await, 401).await;
        problem(app.get("/v1/games?status=sleeping").await, 400).await;
        problem(app.get("/v1/nothing-here").await, 404).await;

        // None of that changed the game.
        let after = app.get_json(&format!("/v1/games/{id}")).await;
        assert_eq!(after["version"], version);

        // The legal move still works, and the inbox follows the turn.
        let inbox = app
            .client
            .get(app.url("/v1/games?my_turn=true"))
            .bearer_auth(&mover.token)
            .send()
            .await
            .expect("r")
            .json::<Value>()
            .await
            .expect("json");
        assert_eq!(inbox["games"][0]["id"], id.as_str());
        let resp = app
            .post(
                &format!("/v1/games/{id}/moves"),
                mover,
                json!({"move": legal}),
            )
            .await;
        assert_eq!(resp.status(), 200);
        if backend == Backend::Postgres {
            // CORS: a browser front-end on an allowed origin may call the API.
            let pre = app
                .client
                .request(reqwest::Method::OPTIONS, app.url("/v1/games"))
                .header("Origin", "https://front.example")
                .header("Access-Control-Request-Method", "POST")
                .send()
                .await
                .expect("r");
            assert_eq!(
                pre.headers()
                    .get("access-control-allow-origin")
                    .and_then(|v| v.to_str().ok()),
                Some("https://front.example")
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn etag_and_if_none_match_answer_304_when_unchanged() {
    let app = spawn_app(Backend::Sqlite).await;
    let (_, _, game) = app.two_player_game(two_seat_variant()).await;
    let id = game["id"].as_str().expect("id");
    let resp = app.get(&format!("/v1/games/{id}")).await;
    let etag = resp
        .headers()
        .get("etag")
        .and_then(|v| v.to_str().ok())
        .expect("etag")
        .to_owned();
    // The tag itself; any tag of a list, weakly; `*` (any version at all). Another
    // version: the game.
    for (sent, status) in [
        (etag.clone(), 304),
        (format!("\"x\", W/{etag}"), 304),
        ("*".to_owned(), 304),
        ("\"999999\"".to_owned(), 200),
    ] {
        let resp = app
            .client
            .get(app.url(&format!("/v1/games/{id}")))
            .header("If-None-Match", sent.as_str())
            .send()
            .await
            .expect("r");
        assert_eq!(resp.status(), status, "{sent}");
    }
}
