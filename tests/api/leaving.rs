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

        // The log is as it was, with Ann's resignation after it, and audits.
        let after: Export =
            serde_json::from_value(app.get_json(&format!("/v1/games/{id}/export")).await)
                .expect("export");
        assert_eq!(
            serde_json::to_value(&before.events).expect("events"),
            serde_json::to_value(&after.events[..before.events.len()]).expect("events")
        );
        audit_export(&after).expect("the game still audits");
        let audited = app.get_json(&format!("/v1/games/{id}/audit")).await;
        assert_eq!(audited["events"].as_u64(), Some(after.events.len() as u64));
        // The opponent won: Ann's seat resigned as she left.
        assert_eq!(shown["status"], "finished", "{backend:?}: {shown}");
        assert_eq!(shown["result"]["winner"], 1, "{backend:?}: {shown}");
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
    // A finished game: deleting the account changes nothing in it.
    let resp = app
        .post(&format!("/v1/games/{id}/resign"), &eve, Value::Null)
        .await;
    assert_eq!(resp.status(), 200);
    let game: Value = resp.json().await.expect("json");
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

/// `path`'s status and JSON body, as `who` (`null` when there is no body).
async fn post_as(app: &TestApp, path: &str, who: &TestPlayer, body: Value) -> (u16, Value) {
    let resp = app.post(path, who, body).await;
    let status = resp.status().as_u16();
    let text = resp.text().await.expect("body");
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// A backgammon game made by `who` with `seats` as they are given (invitations stay
/// unanswered); its id.
async fn create(app: &TestApp, who: &TestPlayer, seats: Value) -> String {
    let body = json!({ "variant": "backgammon", "seats": seats });
    let (status, game) = post_as(app, "/v1/games", who, body).await;
    assert_eq!(status, 201, "{game}");
    game["id"].as_str().expect("id").to_owned()
}

/// Game `id`'s export audits, offline and on the server.
async fn audits(app: &TestApp, id: &str) -> Export {
    let export: Export =
        serde_json::from_value(app.get_json(&format!("/v1/games/{id}/export")).await)
            .expect("export");
    audit_export(&export).expect("the game audits");
    let audited = app.get_json(&format!("/v1/games/{id}/audit")).await;
    assert_eq!(audited["events"].as_u64(), Some(export.events.len() as u64));
    export
}

/// A deleted player's games do not wait for them: the seat of an active game resigns,
/// an open game they made ends before anyone joins it, an invitation to them is
/// declined, and a tournament they registered for lets them go; every log audits.
#[tokio::test]
async fn deleting_an_account_leaves_its_games_for_others_to_finish() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (ann, bob) = (app.player("ann").await, app.player("bob").await);
        let (cy, dan) = (app.player("cy").await, app.player("dan").await);
        let name = name_of(&app, &ann).await;
        // Ann plays Bob; Ann waits in the lobby; Cy invites Ann.
        let active = create(&app, &ann, json!([ann.id, null])).await;
        let (taken, _) = post_as(
            &app,
            &format!("/v1/games/{active}/seats/1"),
            &bob,
            json!({}),
        )
        .await;
        assert_eq!(taken, 200);
        let open = create(&app, &ann, json!([ann.id, null])).await;
        let invited = create(&app, &cy, json!([cy.id, ann.id])).await;
        let (reserved, _) = post_as(
            &app,
            &format!("/v1/games/{invited}/seats/1"),
            &dan,
            json!({}),
        )
        .await;
        assert_eq!(
            reserved, 403,
            "{backend:?}: the seat is Ann's until she answers"
        );
        let lobby = app.get_json("/v1/lobby").await;
        assert!(lobby.to_string().contains(&open), "{backend:?}: {lobby}");
        let before = audits(&app, &active).await;
        // Ann is in a tournament that has not started.
        let (status, tournament) = post_as(
            &app,
            "/v1/tournaments",
            &cy,
            json!({
                "name": "Spring Swiss",
                "variant": "backgammon",
                "format": {"kind": "swiss", "rounds": 3},
                "max_players": 8,
                "days_per_move": 3,
            }),
        )
        .await;
        assert_eq!(status, 201, "{tournament}");
        let tournament = tournament["id"].as_str().expect("id").to_owned();
        let (registered, _) = post_as(
            &app,
            &format!("/v1/tournaments/{tournament}/players"),
            &ann,
            Value::Null,
        )
        .await;
        assert_eq!(registered, 200);

        assert_eq!(delete(&app, &ann, &name).await, 204, "{backend:?}");

        // The active game: Ann's seat resigned, Bob won; the log only grew.
        let game = app.get_json(&format!("/v1/games/{active}")).await;
        assert_eq!(game["status"], "finished", "{backend:?}: {game}");
        assert_eq!(game["result"]["winner"], 1, "{backend:?}: {game}");
        assert_eq!(game["reason"], "resigned", "{backend:?}: {game}");
        assert_eq!(game["seats"][0]["retired"], true);
        let after = audits(&app, &active).await;
        assert_eq!(
            serde_json::to_value(&before.events).expect("events"),
            serde_json::to_value(&after.events[..before.events.len()]).expect("events"),
            "{backend:?}: the log is appended to, never changed"
        );

        // The open game: out of the lobby, and nobody joins it.
        let lobby = app.get_json("/v1/lobby").await;
        assert!(!lobby.to_string().contains(&open), "{backend:?}: {lobby}");
        let game = app.get_json(&format!("/v1/games/{open}")).await;
        assert_eq!(game["status"], "finished", "{backend:?}: {game}");
        assert_eq!(game["seats"][0]["retired"], true);
        let (joined, body) =
            post_as(&app, &format!("/v1/games/{open}/seats/1"), &dan, json!({})).await;
        assert_eq!(joined, 409, "{backend:?}: {body}");
        audits(&app, &open).await;

        // The invitation: declined; Dan takes the seat and Cy's game starts.
        let events = app.events(&invited).await;
        assert!(
            events.iter().any(|e| e["type"] == "invitation_declined"),
            "{backend:?}: {events:?}"
        );
        let (took, game) = post_as(
            &app,
            &format!("/v1/games/{invited}/seats/1"),
            &dan,
            json!({}),
        )
        .await;
        assert_eq!(took, 200, "{backend:?}: {game}");
        assert_eq!(game["status"], "active", "{backend:?}: {game}");
        audits(&app, &invited).await;

        // The tournament: Ann is no longer in it.
        let page = app.get_json(&format!("/v1/tournaments/{tournament}")).await;
        let ann_id = ann.id.to_string();
        assert!(
            page["players"]
                .as_array()
                .expect("players")
                .iter()
                .all(|p| p["player_id"] != ann_id.as_str()
                    || !p["withdrawn_after_round"].is_null()),
            "{backend:?}: {page}"
        );

        // Bob's game is over for him too: nothing of Ann's is left to wait for.
        let mine = app.get_json_as("/v1/players/me/games", &bob).await;
        assert!(
            !mine.to_string().contains("\"active\""),
            "{backend:?}: {mine}"
        );

        // Nor can a new invitation wait for her for ever.
        let (refused, body) = post_as(
            &app,
            "/v1/games",
            &bob,
            json!({"variant": "backgammon", "seats": [bob.id, ann.id]}),
        )
        .await;
        assert_eq!(refused, 400, "{backend:?}: {body}");
        assert!(
            body["detail"]
                .as_str()
                .is_some_and(|d| d.contains("deleted their account")),
            "{backend:?}: {body}"
        );
    }
}
