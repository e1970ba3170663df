//! Players as people in the contract: names beside ids in games and listings, a public
//! profile, and a reason for every finished game.

use std::sync::Arc;

use serde_json::{json, Value};
use uuid::Uuid;
use worp::service::{SystemClock, Worp};
use worp::store::{GameFilter, Store};

use crate::helpers::{spawn_app, BACKENDS};

#[tokio::test]
async fn seat_views_and_listings_name_the_players_and_those_invited() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (alice, bob) = (app.player("alice").await, app.player("bob").await);
        let resp = app
            .post(
                "/v1/games",
                &alice,
                json!({"variant": "backgammon", "seats": [alice.id, bob.id]}),
            )
            .await;
        assert_eq!(resp.status(), 201);
        let game: Value = resp.json().await.expect("json");
        assert_eq!(game["seats"][0]["name"], "alice", "{backend:?}: {game}");
        assert_eq!(game["seats"][1]["name"], Value::Null);
        assert_eq!(game["seats"][1]["invited_name"], "bob");
        let id = game["id"].as_str().expect("id").to_owned();
        let listing = app
            .get_json(&format!("/v1/games?player={}", alice.id))
            .await;
        assert_eq!(listing["games"][0]["names"], json!(["alice", "bob"]));
        let game = app.accept_invitations(game).await;
        assert_eq!(game["seats"][1]["name"], "bob", "{backend:?}: {game}");
        assert_eq!(game["seats"][1]["invited_name"], Value::Null);
        let inbox = app.get_json_as("/v1/players/me/games", &bob).await;
        assert_eq!(inbox["games"][0]["id"], id);
        assert_eq!(inbox["games"][0]["names"], json!(["alice", "bob"]));
    }
}

#[tokio::test]
async fn a_fresh_process_names_every_player_of_a_listing_page_from_the_store() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let names = ["alice", "bob", "carol", "dave", "erin"];
        let mut players = Vec::new();
        for name in names {
            players.push(app.player(name).await);
        }
        // Alice plays twice: the page's ids repeat.
        let seated = [[0, 1], [2, 3], [4, 0]];
        for [x, y] in seated {
            let (x, y) = (&players[x], &players[y]);
            let resp = app
                .post(
                    "/v1/games",
                    x,
                    json!({"variant": "backgammon", "seats": [x.id, y.id]}),
                )
                .await;
            assert_eq!(resp.status(), 201, "{backend:?}");
        }
        // A process that has learnt no name yet: every one comes from the store.
        let store = Store::connect(&app.database, 2).await.expect("connect");
        let fresh = Worp::new(store, 10, Arc::new(SystemClock));
        let filter = GameFilter {
            player: None,
            status: None,
            to_move_player: None,
            limit: 10,
            offset: 0,
            after: None,
        };
        let mut page: Vec<_> = fresh
            .list(&filter)
            .await
            .expect("list")
            .into_iter()
            .map(|(game, _)| game)
            .collect();
        fresh.name_seats(&mut page).await.expect("names");
        assert_eq!(page.len(), 3, "{backend:?}");
        let first = page[0].clone();
        let mut named: Vec<Vec<Option<String>>> = page.into_iter().map(|g| g.names).collect();
        named.sort();
        let mut expected: Vec<Vec<Option<String>>> = seated
            .iter()
            .map(|pair| pair.iter().map(|&i| Some(names[i].to_owned())).collect())
            .collect();
        expected.sort();
        assert_eq!(named, expected, "{backend:?}");

        // The seat names written into files for other programs, from another fresh
        // process: the creator seated, the other seat still an invitation.
        let store = Store::connect(&app.database, 2).await.expect("connect");
        let other = Worp::new(store, 10, Arc::new(SystemClock));
        let table = other.load(first.id).await.expect("load");
        let creator = first.names[0].clone().expect("the creator's name");
        assert_eq!(
            other.seat_names(&table).await.expect("seat names"),
            vec![creator, "seat_1".to_owned()],
            "{backend:?}"
        );

        // The store's answer for several ids at once leaves out those of no player.
        let (alice, bob) = (app.player("alice2").await, app.player("bob2").await);
        let mut found = app
            .store
            .player_names(&[alice.id, Uuid::new_v4(), bob.id])
            .await
            .expect("names");
        found.sort();
        let mut want = vec![(alice.id, "alice2".to_owned()), (bob.id, "bob2".to_owned())];
        want.sort();
        assert_eq!(found, want, "{backend:?}");
        assert!(app.store.player_names(&[]).await.expect("none").is_empty());
    }
}

#[tokio::test]
async fn anyone_sees_a_players_name_and_when_they_joined() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let alice = app.player("alice").await;
        let profile = app.get_json(&format!("/v1/players/{}", alice.id)).await;
        assert_eq!(profile["id"], alice.id.to_string());
        assert_eq!(profile["name"], "alice");
        let joined = profile["joined"].as_str().expect("joined");
        assert!(
            chrono::DateTime::parse_from_rfc3339(joined).is_ok(),
            "{backend:?}: {profile}"
        );
        // Nothing private: no token, no settings (a vacation is public: opponents see it).
        let mut keys: Vec<&String> = profile.as_object().expect("object").keys().collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "id",
                "joined",
                "name",
                "ratings",
                "recent_games",
                "vacation_until"
            ],
            "{backend:?}: {profile}"
        );
        let unknown = app
            .get(&format!("/v1/players/{}", uuid::Uuid::new_v4()))
            .await;
        assert_eq!(unknown.status(), 404);
        let problem: Value = unknown.json().await.expect("problem");
        assert_eq!(problem["status"], 404);
        // `/v1/players/me` is still the caller, not a player called "me".
        let me = app.get_json_as("/v1/players/me", &alice).await;
        assert_eq!(me["id"], alice.id.to_string());
    }
}

#[tokio::test]
async fn a_finished_game_says_why_it_ended() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (a, b, game) = app.two_player_game("backgammon").await;
        let id = game["id"].as_str().expect("id");
        assert_eq!(game["reason"], Value::Null, "{backend:?}: an active game");
        let resp = app
            .post(&format!("/v1/games/{id}/resign"), &b, Value::Null)
            .await;
        assert_eq!(resp.status(), 200);
        let game: Value = resp.json().await.expect("json");
        assert_eq!(game["status"], "finished");
        assert_eq!(game["reason"], "resigned", "{backend:?}: {game}");
        let listing = app.get_json(&format!("/v1/games?player={}", a.id)).await;
        assert_eq!(listing["games"][0]["reason"], "resigned");
    }
}
