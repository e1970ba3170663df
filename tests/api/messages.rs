//! Messages in a game: written by its players, kept in its log, heard by the others;
//! read by spectators only where the chat is public, and the chain verifies either way.

use serde_json::{json, Value};

use crate::helpers::{spawn_app, TestApp, TestPlayer, BACKENDS};

async fn write(app: &TestApp, id: &str, who: &TestPlayer, text: &str) -> reqwest::Response {
    app.post(
        &format!("/v1/games/{id}/messages"),
        who,
        json!({"text": text}),
    )
    .await
}

/// The events of game `id` as `who` (or anyone) reads them.
async fn events_as(app: &TestApp, id: &str, who: Option<&TestPlayer>) -> Vec<Value> {
    let path = format!("/v1/games/{id}/events?limit=1000");
    let page = match who {
        Some(p) => app.get_json_as(&path, p).await,
        None => app.get_json(&path).await,
    };
    page["events"].as_array().cloned().unwrap_or_default()
}

#[tokio::test]
async fn players_talk_and_spectators_read_only_a_public_chat() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (alice, bob, game) = app.two_player_game("backgammon").await;
        let carol = app.player("carol").await;
        let id = game["id"].as_str().expect("id").to_owned();
        let mut hub = app.worp.live.subscribe();
        let resp = write(&app, &id, &alice, "Good luck, have fun ✓").await;
        assert_eq!(resp.status(), 201, "{backend:?}");
        let message: Value = resp.json().await.expect("json");
        assert_eq!(message["text"], "Good luck, have fun ✓");
        assert_eq!(message["seat"], 0);
        // Bob hears of it; Alice, who wrote it, does not.
        let change = hub.recv().await.expect("a change");
        let kinds: Vec<(String, String)> = change
            .notices
            .iter()
            .map(|n| (n.kind.clone(), n.player_id.to_string()))
            .collect();
        assert!(
            kinds.contains(&("message".into(), bob.id.to_string())),
            "{kinds:?}"
        );
        assert!(!kinds
            .iter()
            .any(|(k, p)| k == "message" && *p == alice.id.to_string()));
        let read: Value = app
            .get_json_as(&format!("/v1/games/{id}/messages"), &bob)
            .await;
        assert_eq!(read[0]["text"], "Good luck, have fun ✓");
        assert_eq!(read[0]["player_id"], alice.id.to_string());
        // A spectator is refused the chat, and the log withholds the text from him, yet
        // the chain he is given verifies.
        let refused = app
            .client
            .get(app.url(&format!("/v1/games/{id}/messages")))
            .bearer_auth(&carol.token)
            .send()
            .await
            .expect("request");
        assert_eq!(refused.status(), 403);
        let public = events_as(&app, &id, None).await;
        let posted = public
            .iter()
            .find(|e| e["type"] == "message_posted")
            .expect("the message is in the log");
        assert_eq!(
            posted["payload"]["text"],
            Value::Null,
            "{backend:?}: {posted}"
        );
        assert!(posted["payload"]["text_sha256"].is_string());
        let events: Vec<worp::events::StoredEvent> = public
            .iter()
            .map(|e| serde_json::from_value(e.clone()).expect("event"))
            .collect();
        let mut prev = String::new();
        for e in &events {
            assert_eq!(e.chain_hash(&prev), e.hash, "{backend:?}: event {}", e.seq);
            prev = e.hash.clone();
        }
        let mine = events_as(&app, &id, Some(&bob)).await;
        let posted = mine
            .iter()
            .find(|e| e["type"] == "message_posted")
            .expect("message");
        assert_eq!(posted["payload"]["text"], "Good luck, have fun ✓");
        let export: Value = app.get_json(&format!("/v1/games/{id}/export")).await;
        assert!(!export.to_string().contains("Good luck"), "{backend:?}");
        let audit = app.get(&format!("/v1/games/{id}/audit")).await;
        assert_eq!(audit.status(), 200);

        // A public chat is for everyone.
        let open = app
            .create_from(
                &alice,
                json!({"variant": "backgammon", "seats": [alice.id, bob.id], "public_chat": true}),
            )
            .await;
        let open_id = open["id"].as_str().expect("id");
        assert_eq!(write(&app, open_id, &bob, "gg").await.status(), 201);
        let read = app.get_json(&format!("/v1/games/{open_id}/messages")).await;
        assert_eq!(read[0]["text"], "gg");
        let public = events_as(&app, open_id, None).await;
        assert!(public
            .iter()
            .any(|e| e["type"] == "message_posted" && e["payload"]["text"] == "gg"));
    }
}

#[tokio::test]
async fn bad_messages_and_strangers_are_refused_and_writers_are_rate_limited() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (alice, _bob, game) = app.two_player_game("backgammon").await;
        let carol = app.player("carol").await;
        let id = game["id"].as_str().expect("id").to_owned();
        let version = game["version"].clone();
        for bad in ["", "   ", "line\nbreak", "bell\u{7}", &"x".repeat(501)] {
            let resp = write(&app, &id, &alice, bad).await;
            assert_eq!(resp.status(), 400, "{backend:?}: {bad:?}");
            let problem: Value = resp.json().await.expect("problem");
            assert_eq!(problem["status"], 400);
        }
        assert_eq!(
            write(&app, &id, &alice, &"é".repeat(500)).await.status(),
            201
        );
        assert_eq!(write(&app, &id, &carol, "hi").await.status(), 403);
        for _ in 1..10 {
            assert_eq!(write(&app, &id, &alice, "again").await.status(), 201);
        }
        let limited = write(&app, &id, &alice, "one too many").await;
        assert_eq!(limited.status(), 429, "{backend:?}");
        assert!(limited.headers().contains_key("retry-after"));
        // Nothing refused reached the log: ten messages, no more.
        let events = app.events(&id).await;
        let messages = events
            .iter()
            .filter(|e| e["type"] == "message_posted")
            .count();
        assert_eq!(messages, 10, "{backend:?}");
        assert!(events.len() as i64 >= version.as_i64().unwrap_or(0) + 10);
    }
}

#[tokio::test]
async fn messages_come_in_pages_with_a_link_to_the_next() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (alice, bob, game) = app.two_player_game("backgammon").await;
        let id = game["id"].as_str().expect("id").to_owned();
        let texts = ["one", "two", "three", "four", "five"];
        for (i, text) in texts.iter().enumerate() {
            let who = if i % 2 == 0 { &alice } else { &bob };
            assert_eq!(
                write(&app, &id, who, text).await.status(),
                201,
                "{backend:?}"
            );
        }
        let all = app
            .get_json_as(&format!("/v1/games/{id}/messages"), &bob)
            .await;
        let all: Vec<&str> = all
            .as_array()
            .expect("messages")
            .iter()
            .map(|m| m["text"].as_str().expect("text"))
            .collect();
        assert_eq!(all, texts, "{backend:?}");
        // Two at a time, following the Link header.
        let mut path = format!("/v1/games/{id}/messages?limit=2");
        let mut read = Vec::new();
        for _ in 0..10 {
            let resp = app
                .client
                .get(app.url(&path))
                .bearer_auth(&alice.token)
                .send()
                .await
                .expect("request");
            assert_eq!(resp.status(), 200, "{backend:?} {path}");
            let link = resp
                .headers()
                .get("link")
                .map(|l| l.to_str().expect("ascii").to_owned());
            let page: Value = resp.json().await.expect("json");
            let page = page.as_array().expect("messages").clone();
            assert!(page.len() <= 2);
            read.extend(
                page.iter()
                    .map(|m| m["text"].as_str().expect("text").to_owned()),
            );
            match link {
                Some(l) => {
                    assert_eq!(page.len(), 2, "{backend:?}: a link only after a full page");
                    let next = l
                        .strip_prefix('<')
                        .and_then(|l| l.split_once('>'))
                        .map(|(p, _)| p.to_owned())
                        .expect("a link");
                    let last_seq = page[1]["seq"].as_i64().expect("seq");
                    assert!(next.contains(&format!("after={last_seq}")), "{next}");
                    path = next;
                }
                None => break,
            }
        }
        assert_eq!(read, texts, "{backend:?}: every message once, in order");
        for bad in ["limit=0", "limit=1001", "after=-1", "limit=x"] {
            let resp = app
                .client
                .get(app.url(&format!("/v1/games/{id}/messages?{bad}")))
                .bearer_auth(&alice.token)
                .send()
                .await
                .expect("request");
            assert_eq!(resp.status(), 400, "{backend:?} {bad}");
        }
    }
}
