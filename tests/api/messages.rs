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
        let mut hub = app.worp.changes();
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

/// A message is an event and moves the game's version, yet it never makes a move stale:
/// a move sent with the `If-Match` read before the opponent said "good luck" is played
/// (both generated clients once got 412 in 5 of 5 games). A read still sees the message
/// (its ETag moved), and a move judged against a board that has moved on is still 412.
#[tokio::test]
async fn a_message_never_makes_a_move_stale() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (alice, bob, game) = app.two_player_game("backgammon").await;
        let id = game["id"].as_str().expect("id").to_owned();
        let seen = app.get_json(&format!("/v1/games/{id}")).await;
        let version = seen["version"].as_i64().expect("version");
        assert_eq!(seen["board_version"], version, "{seen}");
        let mover = if seen["to_move"] == 0 { &alice } else { &bob };
        let other = if seen["to_move"] == 0 { &bob } else { &alice };
        assert_eq!(
            write(&app, &id, other, "good luck").await.status(),
            201,
            "{backend:?}"
        );
        // The read is not answered 304 for the old version: it shows the message.
        let read = app
            .client
            .get(app.url(&format!("/v1/games/{id}")))
            .header("If-None-Match", format!("\"{version}\""))
            .send()
            .await
            .expect("request");
        assert_eq!(read.status(), 200, "{backend:?}");
        let now: Value = read.json().await.expect("json");
        assert_eq!(now["version"], version + 1, "{now}");
        assert_eq!(now["board_version"], version, "{now}");
        let mv = seen["legal_moves"][0].clone();
        let resp = app.play_if_match(&id, mover, mv, version).await;
        let status = resp.status();
        let after: Value = resp.json().await.expect("json");
        assert_eq!(status, 200, "{backend:?}: {after}");
        assert!(after["board_version"].as_i64().expect("board") > version + 1);
        // The board has moved on from `version` now: a move judged on it is stale.
        let next = if after["to_move"] == seen["to_move"] {
            mover
        } else {
            other
        };
        let mv = after["legal_moves"].get(0).cloned().unwrap_or(json!("x"));
        let resp = app.play_if_match(&id, next, mv, version + 1).await;
        assert_eq!(resp.status(), 412, "{backend:?}");
    }
}

/// A spectator sees a private message's commitment only, and it is salted: a
/// dictionary of short texts ("gg", "thanks") no longer reads it back. The players get
/// the salt with the text and check one against the other; both exports audit.
#[tokio::test]
async fn a_withheld_message_cannot_be_guessed_back_from_its_commitment() {
    use sha2::{Digest, Sha256};
    use worp::export::{audit_export, Export};
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (alice, bob, game) = app.two_player_game("backgammon").await;
        let id = game["id"].as_str().expect("id").to_owned();
        for _ in 0..2 {
            assert_eq!(write(&app, &id, &alice, "gg").await.status(), 201);
        }
        let unsalted = hex::encode(Sha256::digest(b"gg"));
        let public = events_as(&app, &id, None).await;
        let seen: Vec<&Value> = public
            .iter()
            .filter(|e| e["type"] == "message_posted")
            .map(|e| &e["payload"])
            .collect();
        assert_eq!(seen.len(), 2);
        for p in &seen {
            assert!(p.get("text").is_none() && p.get("salt").is_none(), "{p}");
            assert_ne!(
                p["text_sha256"],
                unsalted.as_str(),
                "{backend:?}: guessable"
            );
        }
        assert_ne!(
            seen[0]["text_sha256"], seen[1]["text_sha256"],
            "one salt each"
        );
        let mine = events_as(&app, &id, Some(&bob)).await;
        for e in mine.iter().filter(|e| e["type"] == "message_posted") {
            let p = &e["payload"];
            let salt = hex::decode(p["salt"].as_str().expect("salt")).expect("hex");
            assert_eq!(salt.len(), 16, "{p}");
            let mut h = Sha256::new();
            h.update(&salt);
            h.update(p["text"].as_str().expect("text").as_bytes());
            assert_eq!(p["text_sha256"], hex::encode(h.finalize()), "{p}");
        }
        // Both exports audit: the spectator's verifies the chain, the player's every text
        // too, and a text changed in it does not pass.
        let spectators: Export =
            serde_json::from_value(app.get_json(&format!("/v1/games/{id}/export")).await)
                .expect("export");
        audit_export(&spectators).expect("the spectator's export audits");
        let players: Export = serde_json::from_value(
            app.get_json_as(&format!("/v1/games/{id}/export"), &bob)
                .await,
        )
        .expect("export");
        assert!(serde_json::to_string(&players)
            .expect("json")
            .contains("\"salt\""));
        audit_export(&players).expect("the player's export audits");
        let mut forged = players.clone();
        for e in &mut forged.events {
            if let Some(t) = e.payload.get_mut("text") {
                *t = json!("GG");
            }
        }
        assert!(audit_export(&forged).is_err(), "a changed text is caught");
    }
}

/// Messages that show other than they read are refused: bidi controls (embeddings,
/// overrides, isolates, marks), line and paragraph separators, and texts with nothing
/// visible (zero-width spaces, U+FEFF, the Hangul filler U+3164, the blank Braille
/// pattern U+2800). All were accepted before; nothing refused reaches the log.
#[tokio::test]
async fn messages_that_lie_about_what_they_show_are_refused() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (alice, _bob, game) = app.two_player_game("backgammon").await;
        let id = game["id"].as_str().expect("id").to_owned();
        for bad in [
            "\u{202e}dg",
            "gg \u{202d}x",
            "a\u{2066}b\u{2069}",
            "\u{200f}gg",
            "\u{061c}gg",
            "gg\u{2028}wp",
            "gg\u{2029}",
            "\u{200b}",
            "\u{feff}\u{200b}",
            "\u{3164}",
            "\u{2800}\u{2800}",
            " \u{200b} ",
        ] {
            let resp = write(&app, &id, &alice, bad).await;
            assert_eq!(resp.status(), 400, "{backend:?}: {bad:?}");
            let problem: Value = resp.json().await.expect("problem");
            assert_eq!(problem["status"], 400, "{problem}");
        }
        // What shows what it reads still passes: accents, emoji, a joiner inside one.
        for good in ["gg 👍", "Ça va?", "👩\u{200d}💻 wp"] {
            assert_eq!(
                write(&app, &id, &alice, good).await.status(),
                201,
                "{good:?}"
            );
        }
        let written = app
            .events(&id)
            .await
            .iter()
            .filter(|e| e["type"] == "message_posted")
            .count();
        assert_eq!(written, 3, "{backend:?}");
    }
}
