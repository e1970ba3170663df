//! Leaving: a player downloads everything the server holds about them, and deletes their
//! account; the log stays as it was and every audit still verifies.

use std::time::Duration;

use serde_json::{json, Value};
use worp::export::{audit_export, Export};

use crate::accounts::{name_of, sign_in, sign_in_with, token_with, with_password, PASSWORD};
use crate::helpers::{
    fresh_postgres, spawn_app, spawn_app_from, test_settings, TestApp, TestPlayer, BACKENDS,
};
use crate::oauth::status_with;
use worp::clock::SystemClock;

async fn delete(app: &TestApp, who: &TestPlayer, confirm: &str) -> u16 {
    app.client
        .delete(app.url("/v1/players/me"))
        .bearer_auth(&who.token)
        .json(&json!({ "confirm_name": confirm }))
        .send()
        .await
        .expect("request")
        .status()
        .as_u16()
}

#[tokio::test]
async fn a_player_downloads_their_data_and_deletes_their_account() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (ann, bob) = (app.player("ann").await, app.player("bob").await);
        with_password(&app, &ann).await;
        let name = name_of(&app, &ann).await;
        let browser = sign_in(&app, &name).await;
        let pat = token_with(&app, &ann, &["game:read"]).await;
        let hook = app
            .post(
                "/v1/players/me/webhooks",
                &ann,
                json!({ "url": "https://hooks.example/ann" }),
            )
            .await;
        assert_eq!(hook.status(), 201);
        let game = app
            .create(
                &ann,
                "backgammon",
                Value::Null,
                vec![Some(ann.id), Some(bob.id)],
            )
            .await;
        let id = game["id"].as_str().expect("id").to_owned();
        let said = app
            .post(
                &format!("/v1/games/{id}/messages"),
                &ann,
                json!({ "text": "good luck" }),
            )
            .await;
        assert_eq!(said.status(), 201);

        let resp = app
            .client
            .get(app.url("/v1/players/me/export"))
            .bearer_auth(&ann.token)
            .send()
            .await
            .expect("request");
        assert_eq!(resp.status(), 200);
        let text = resp.text().await.expect("text");
        let export: Value = serde_json::from_str(&text).expect("json");
        assert_eq!(export["name"], name.as_str());
        assert_eq!(export["has_password"], true);
        assert_eq!(export["sessions"].as_array().map(Vec::len), Some(1));
        assert_eq!(export["tokens"].as_array().map(Vec::len), Some(1));
        assert_eq!(export["webhooks"][0]["url"], "https://hooks.example/ann");
        assert_eq!(export["games"][0]["id"], id.as_str());
        assert_eq!(export["messages"][0]["text"], "good luck");
        assert_eq!(export["messages"][0]["game_id"], id.as_str());
        for secret in [
            ann.token.as_str(),
            pat.as_str(),
            "whsec_",
            "worp_ses_",
            "argon2",
        ] {
            assert!(
                !text.contains(secret),
                "{backend:?}: the export holds {secret}"
            );
        }

        let before: Export =
            serde_json::from_value(app.get_json(&format!("/v1/games/{id}/export")).await)
                .expect("export");

        assert_eq!(delete(&app, &ann, "not my name").await, 400);
        assert_eq!(
            status_with(&app, &ann.token, "/v1/players/me").await,
            200,
            "nothing changed"
        );
        let limited = TestPlayer {
            id: ann.id,
            token: pat.clone(),
        };
        assert_eq!(
            delete(&app, &limited, &name).await,
            403,
            "account:write is needed"
        );
        assert_eq!(delete(&app, &ann, &name).await, 204, "{backend:?}");

        // Every credential is gone.
        assert_eq!(status_with(&app, &ann.token, "/v1/players/me").await, 401);
        assert_eq!(status_with(&app, &pat, "/v1/players/me/games").await, 401);
        let by_cookie = app
            .client
            .get(app.url("/v1/players/me"))
            .header("cookie", &browser.cookie)
            .send()
            .await
            .expect("request");
        assert_eq!(by_cookie.status(), 401);
        let (s, _, _) = sign_in_with(&app, json!({ "name": name, "password": PASSWORD })).await;
        assert_eq!(s, 401);
        assert_eq!(delete(&app, &ann, &name).await, 401);

        // The name is replaced wherever it is shown, and free again.
        let shown = app.get_json(&format!("/v1/games/{id}")).await;
        let seat_names: Vec<&str> = shown["seats"]
            .as_array()
            .expect("seats")
            .iter()
            .filter_map(|s| s["name"].as_str())
            .collect();
        assert!(
            seat_names.contains(&"Deleted player"),
            "{backend:?}: {seat_names:?}"
        );
        assert!(!seat_names.contains(&name.as_str()));
        let profile = app
            .client
            .get(app.url(&format!("/v1/players/{}", ann.id)))
            .send()
            .await
            .expect("request");
        assert_eq!(profile.status(), 404);
        let again = app
            .client
            .post(app.url("/v1/players"))
            .json(&json!({ "name": name }))
            .send()
            .await
            .expect("request");
        assert_eq!(again.status(), 201, "the name is free");

        // The log is as it was, and audits.
        let after: Export =
            serde_json::from_value(app.get_json(&format!("/v1/games/{id}/export")).await)
                .expect("export");
        assert_eq!(
            serde_json::to_value(&before.events).expect("events"),
            serde_json::to_value(&after.events).expect("events")
        );
        audit_export(&after).expect("the game still audits");
        let audited = app.get_json(&format!("/v1/games/{id}/audit")).await;
        assert_eq!(audited["events"].as_u64(), Some(after.events.len() as u64));
        // The opponent plays on.
        assert_eq!(
            status_with(&app, &bob.token, "/v1/players/me/games").await,
            200
        );
    }
}

#[tokio::test]
async fn another_server_process_forgets_a_deleted_players_token_at_once() {
    let database = fresh_postgres().await;
    let one = spawn_app_from(
        test_settings(database.clone()),
        std::sync::Arc::new(SystemClock),
        None,
    )
    .await;
    let two = spawn_app_from(
        test_settings(database),
        std::sync::Arc::new(SystemClock),
        None,
    )
    .await;
    let cy = one.player("cy").await;
    let name = name_of(&one, &cy).await;
    // The second process has the first token in its cache.
    assert_eq!(status_with(&two, &cy.token, "/v1/players/me").await, 200);
    assert_eq!(delete(&one, &cy, &name).await, 204);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let status = status_with(&two, &cy.token, "/v1/players/me").await;
        if status == 401 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the other process still takes the deleted player's token ({status})"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_game_of_a_deleted_player_is_never_answered_304_with_the_old_name() {
    let app = spawn_app(BACKENDS[1]).await;
    let (dan, eve) = (app.player("dan").await, app.player("eve").await);
    let game = app
        .create(
            &dan,
            "backgammon",
            Value::Null,
            vec![Some(dan.id), Some(eve.id)],
        )
        .await;
    let id = game["id"].as_str().expect("id");
    let version = game["version"].as_i64().expect("version");
    let get = || {
        app.client
            .get(app.url(&format!("/v1/games/{id}")))
            .header("if-none-match", format!("\"{version}\""))
            .send()
    };
    assert_eq!(get().await.expect("request").status(), 304);
    let name = name_of(&app, &dan).await;
    assert_eq!(delete(&app, &dan, &name).await, 204);
    // The version did not change, the names did: the whole game again.
    let resp = get().await.expect("request");
    assert_eq!(resp.status(), 200);
    let body: Value = resp.json().await.expect("json");
    assert!(body["seats"].to_string().contains("Deleted player"));
    // Nobody registers the name a deleted account is shown by.
    let taken = app
        .client
        .post(app.url("/v1/players"))
        .json(&json!({ "name": "deleted PLAYER" }))
        .send()
        .await
        .expect("request");
    assert_eq!(taken.status(), 409);
}
