//! Naming another player in a new game invites them; nothing of the game reaches them
//! but one `invited` notice until they accept, and they may decline.

use std::time::Duration;

use serde_json::{json, Value};

use crate::helpers::{spawn_app, Backend, TestApp, TestPlayer, BACKENDS};

/// The events a player's stream sends within `wait`: (event name, data).
async fn stream_events(resp: &mut reqwest::Response, wait: Duration) -> Vec<(String, Value)> {
    let mut text = String::new();
    let until = tokio::time::Instant::now() + wait;
    while let Ok(Ok(Some(chunk))) = tokio::time::timeout_at(until, resp.chunk()).await {
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    text.split("\n\n")
        .filter_map(|block| {
            let event = block.lines().find_map(|l| l.strip_prefix("event: "))?;
            let data = block.lines().find_map(|l| l.strip_prefix("data: "))?;
            Some((event.to_owned(), serde_json::from_str(data).ok()?))
        })
        .collect()
}

async fn player_stream(app: &TestApp, who: &TestPlayer) -> reqwest::Response {
    let resp = app
        .client
        .get(app.url("/v1/players/me/stream"))
        .bearer_auth(&who.token)
        .send()
        .await
        .expect("stream");
    assert_eq!(resp.status(), 200);
    resp
}

/// Creates a two-seat game of `a` inviting `b`, with a clock; returns it unaccepted.
async fn invite(app: &TestApp, a: &TestPlayer, b: &TestPlayer) -> Value {
    let resp = app
        .post(
            "/v1/games",
            a,
            json!({"variant": "backgammon", "seats": [a.id, b.id], "days_per_move": 1}),
        )
        .await;
    assert_eq!(resp.status(), 201);
    resp.json().await.expect("json")
}

#[tokio::test]
async fn an_invited_player_gets_no_turn_clock_or_notice_but_one_invitation() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (a, b, c) = (
            app.player("a").await,
            app.player("b").await,
            app.player("c").await,
        );
        let mut b_stream = player_stream(&app, &b).await;
        let game = invite(&app, &a, &b).await;
        let id = game["id"].as_str().expect("id").to_owned();
        assert_eq!(game["status"], "waiting", "{game}");
        assert_eq!(game["seats"][1]["player_id"], Value::Null);
        assert_eq!(game["seats"][1]["invited"], json!(b.id));
        assert_eq!(game["to_move"], Value::Null);
        assert_eq!(game["deadline"], Value::Null);
        assert_eq!(game["legal_moves"], json!([]));
        // No dice were rolled for a game that has not started.
        let events = app.events(&id).await;
        assert_eq!(events.len(), 1, "{events:?}");

        // Exactly one notice reaches the invited player: the invitation.
        let heard = stream_events(&mut b_stream, Duration::from_millis(700)).await;
        assert_eq!(heard.len(), 1, "{heard:?}");
        assert_eq!(heard[0].0, "invited");
        assert_eq!(heard[0].1["game_id"], json!(id));
        assert_eq!(heard[0].1["seat"], 1);

        // Listed in their inbox, as an invitation.
        let inbox = app.get_json_as("/v1/players/me/games", &b).await;
        let listed = inbox["games"]
            .as_array()
            .and_then(|g| g.iter().find(|g| g["id"] == json!(id)).cloned())
            .expect("the invitation is in the inbox");
        assert_eq!(listed["invited"][1], json!(b.id));
        assert_eq!(listed["seats"][1], Value::Null);
        let my_turn = app
            .get_json_as("/v1/players/me/games?my_turn=true", &b)
            .await;
        assert_eq!(my_turn["games"], json!([]));

        // Nobody else may take the reserved seat; the invited player cannot act as seated.
        let taken = app
            .post(&format!("/v1/games/{id}/seats/1"), &c, Value::Null)
            .await;
        assert_eq!(taken.status(), 403);
        let resign = app
            .post(&format!("/v1/games/{id}/resign"), &b, Value::Null)
            .await;
        assert_eq!(resign.status(), 403);

        // Accepting starts the game.
        let accepted = app
            .post(&format!("/v1/games/{id}/seats/1"), &b, Value::Null)
            .await;
        assert_eq!(accepted.status(), 200);
        let accepted: Value = accepted.json().await.expect("json");
        assert_eq!(accepted["status"], "active", "{accepted}");
        assert_eq!(accepted["seats"][1]["player_id"], json!(b.id));
        assert_eq!(accepted["seats"][1]["invited"], Value::Null);
        assert!(accepted["deadline"].is_string());
    }
}

#[tokio::test]
async fn a_declined_invitation_opens_the_seat_and_tells_the_creator() {
    let app = spawn_app(Backend::Postgres).await;
    let (a, b, c) = (
        app.player("a").await,
        app.player("b").await,
        app.player("c").await,
    );
    let game = invite(&app, &a, &b).await;
    let id = game["id"].as_str().expect("id").to_owned();
    let mut a_stream = player_stream(&app, &a).await;
    // Only the invited player may decline, and only their own seat.
    let wrong = app
        .post(&format!("/v1/games/{id}/seats/1/decline"), &c, Value::Null)
        .await;
    assert_eq!(wrong.status(), 403);
    let wrong = app
        .post(&format!("/v1/games/{id}/seats/0/decline"), &b, Value::Null)
        .await;
    assert_eq!(wrong.status(), 403);
    let declined = app
        .post(&format!("/v1/games/{id}/seats/1/decline"), &b, Value::Null)
        .await;
    assert_eq!(declined.status(), 200);
    let declined: Value = declined.json().await.expect("json");
    assert_eq!(declined["status"], "waiting");
    assert_eq!(declined["seats"][1]["invited"], Value::Null);
    let heard = stream_events(&mut a_stream, Duration::from_millis(700)).await;
    assert_eq!(heard.len(), 1, "{heard:?}");
    assert_eq!(heard[0].0, "invitation_declined");
    // The game is no longer in the decliner's inbox; the seat is anyone's now.
    let inbox = app.get_json_as("/v1/players/me/games", &b).await;
    assert!(inbox["games"]
        .as_array()
        .is_some_and(|g| g.iter().all(|g| g["id"] != json!(id))));
    let twice = app
        .post(&format!("/v1/games/{id}/seats/1/decline"), &b, Value::Null)
        .await;
    assert_eq!(twice.status(), 403);
    let taken = app
        .post(&format!("/v1/games/{id}/seats/1"), &c, Value::Null)
        .await;
    assert_eq!(taken.status(), 200);
    let taken: Value = taken.json().await.expect("json");
    assert_eq!(taken["status"], "active");
    // The log says what happened, and audits clean.
    let kinds: Vec<Value> = app
        .events(&id)
        .await
        .iter()
        .map(|e| e["type"].clone())
        .collect();
    assert_eq!(
        kinds[..3],
        [
            json!("game_created"),
            json!("invitation_declined"),
            json!("seat_taken")
        ]
    );
    let audit = app.get(&format!("/v1/games/{id}/audit")).await;
    assert_eq!(audit.status(), 200);
}

#[tokio::test]
async fn a_player_who_turned_invitation_notices_off_hears_nothing_until_seated() {
    let app = spawn_app(Backend::Sqlite).await;
    let (a, b) = (app.player("a").await, app.player("b").await);
    let me = app.get_json_as("/v1/players/me", &b).await;
    assert_eq!(me["invitation_notices"], true);
    let off = app
        .client
        .patch(app.url("/v1/players/me"))
        .bearer_auth(&b.token)
        .json(&json!({"invitation_notices": false}))
        .send()
        .await
        .expect("patch");
    assert_eq!(off.status(), 200);
    let off: Value = off.json().await.expect("json");
    assert_eq!(off["invitation_notices"], false);
    let mut b_stream = player_stream(&app, &b).await;
    let game = invite(&app, &a, &b).await;
    let heard = stream_events(&mut b_stream, Duration::from_millis(600)).await;
    assert!(heard.is_empty(), "{heard:?}");
    // Still in the inbox: turning notices off hides nothing there.
    let inbox = app.get_json_as("/v1/players/me/games", &b).await;
    assert_eq!(inbox["games"][0]["id"], game["id"]);
    let unknown = app
        .client
        .patch(app.url("/v1/players/me"))
        .bearer_auth(&b.token)
        .json(&json!({"invitations": false}))
        .send()
        .await
        .expect("patch");
    assert_eq!(unknown.status(), 400);
}

/// The limit on open games counts the games a player created: invitations to others'
/// games cannot be used to block a player from creating their own.
#[tokio::test]
async fn invitations_do_not_count_against_the_invited_players_open_games() {
    let app = crate::settings::app_with(Backend::Sqlite, |s| s.open_games_per_player = 1).await;
    let (a, b, c) = (
        app.player("a").await,
        app.player("b").await,
        app.player("c").await,
    );
    invite(&app, &a, &b).await;
    invite(&app, &c, &b).await;
    let own = app
        .post(
            "/v1/games",
            &b,
            json!({"variant": "backgammon", "seats": [b.id, null]}),
        )
        .await;
    assert_eq!(own.status(), 201);
    // The creator's own count is what the limit holds.
    let again = app
        .post(
            "/v1/games",
            &a,
            json!({"variant": "backgammon", "seats": [a.id, c.id]}),
        )
        .await;
    assert_eq!(again.status(), 429);
}
