//! Complete games of every variant over HTTP, checked against their own event log.

use serde_json::{json, Value};
use worp::events::StoredEvent;
use worp::service::views::GameView;
use worp::table::Table;
use worp_engine::playout::SplitMix64;

use crate::helpers::{spawn_app, Backend, TestApp, TestPlayer, BACKENDS};

/// Plays a game to its end by picking random legal moves; returns the final view.
async fn play_to_end(
    app: &TestApp,
    id: &str,
    players: &[TestPlayer],
    seats: &[usize],
    rng: &mut SplitMix64,
) -> Value {
    let mut game = app.get_json(&format!("/v1/games/{id}")).await;
    for _ in 0..20_000 {
        if game["status"] == "finished" {
            // Played to its end: every finished game says why, in the game's own terms.
            let reasons = [
                "goal",
                "no_pawns_left",
                "cannot_move",
                "quiet_moves",
                "all_pawns_removed",
            ];
            assert!(
                reasons.iter().any(|r| game["reason"] == *r),
                "{}",
                game["reason"]
            );
            return game;
        }
        assert_eq!(game["status"], "active", "{game}");
        let seat = game["to_move"].as_u64().expect("a seat to move") as usize;
        let who = &players[seats[seat]];
        let moves = game["legal_moves"].as_array().expect("legal moves");
        assert!(
            !moves.is_empty(),
            "a move is awaited but none is legal: {game}"
        );
        let mv = moves[rng.below(moves.len())].clone();
        let version = game["version"].as_i64().expect("version");
        let resp = app.play_if_match(id, who, mv, version).await;
        let status = resp.status();
        let etag = resp
            .headers()
            .get("etag")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        game = resp.json().await.expect("json");
        assert_eq!(status, 200, "{game}");
        assert_eq!(etag, Some(format!("\"{}\"", game["version"])));
        assert!(game["version"].as_i64().expect("version") > version);
    }
    panic!("game {id} did not end in 20,000 moves");
}

/// The served game equals a fresh replay of its log; the chain and every roll verify.
async fn check_log(app: &TestApp, id: &str, served: &Value) {
    let raw = app.events(id).await;
    let events: Vec<StoredEvent> = raw
        .iter()
        .map(|e| serde_json::from_value(e.clone()).expect("event"))
        .collect();
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e.seq, i as i64 + 1, "sequence without gaps");
    }
    assert!(events.windows(2).all(|w| w[0].position < w[1].position));
    let report = worp::audit::audit(&events).expect("the log audits clean");
    assert_eq!(report.events, events.len());
    assert!(report.seed_revealed);
    assert!(report.rolls_verified > 0);
    let replayed = Table::from_events(&events).expect("replay");
    let mut fresh = serde_json::to_value(GameView::of(&replayed, app.worp.names()).expect("view"))
        .expect("json");
    let mut served = served.clone();
    // Times are rounded by some backends' JSON; compare everything else exactly.
    for v in [&mut fresh, &mut served] {
        v.as_object_mut().map(|o| {
            o.remove("created_at");
            o.remove("updated_at");
            // Folded from every game's finish, not this game's log alone.
            o.remove("rating_changes");
            o.remove("not_rated");
            o.remove("last_move_at")
        });
    }
    assert_eq!(fresh, served);
    assert_eq!(
        served["head_hash"].as_str(),
        events.last().map(|e| e.hash.as_str())
    );
    replay_offline(&events, &served);
}

/// `worp replay` on the game's record (built from its events) ends in the served state.
fn replay_offline(events: &[StoredEvent], served: &Value) {
    use worp::events::Event;
    let Ok(Event::GameCreated {
        variant,
        options,
        seats,
        ..
    }) = events[0].event()
    else {
        panic!("the first event creates the game");
    };
    let steps: Vec<Value> = worp::export::record_steps(events)
        .expect("steps")
        .iter()
        .map(|s| serde_json::to_value(s).expect("json"))
        .collect();
    let mut record = json!({"variant": variant, "options": options, "seats": seats.len()});
    let count = steps.len();
    record["steps"] = Value::Array(steps);
    if !built_in_worp_plays(&variant) {
        // A game this test binary registered itself: the same replay, in process.
        let record = serde_json::from_value(record).expect("a record");
        let game = worp_engine::replay::replay(&record, |_| {}).expect("replays");
        assert_eq!(game.state().expect("state"), served["state"]);
        assert_eq!(
            serde_json::to_value(game.awaiting()).expect("json"),
            served["awaiting"]
        );
        return;
    }
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_worp"))
        .arg("replay")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run worp replay");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("stdin");
        stdin
            .write_all(record.to_string().as_bytes())
            .expect("write");
    }
    let out = child.wait_with_output().expect("wait");
    assert!(out.status.success(), "worp replay failed");
    let text = String::from_utf8(out.stdout).expect("utf8");
    assert_eq!(text.lines().count(), count);
    let last: Value = serde_json::from_str(text.lines().last().expect("a line")).expect("json");
    assert_eq!(last["state"], served["state"]);
    assert_eq!(last["awaiting"], served["awaiting"]);
}

/// Whether the built `worp` binary plays `variant`: it knows the engine's games, not
/// those this test binary registers (`sixth_game.rs`).
fn built_in_worp_plays(variant: &str) -> bool {
    static NAMES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    NAMES
        .get_or_init(|| {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_worp"))
                .arg("variants")
                .output()
                .expect("run worp variants");
            let all: Vec<Value> = serde_json::from_slice(&out.stdout).expect("json");
            all.iter()
                .filter_map(|v| v["name"].as_str().map(str::to_owned))
                .collect()
        })
        .iter()
        .any(|n| n == variant)
}

async fn play_variant(app: &TestApp, variant: &str, options: Value, seats: usize, seed: u64) {
    let mut players = Vec::new();
    for i in 0..seats {
        players.push(app.player(&format!("p{i}")).await);
    }
    let mut rng = SplitMix64(seed);
    // The creator takes seat 0; the others join through the open seats.
    let mut seat_ids = vec![None; seats];
    seat_ids[0] = Some(players[0].id);
    let created = app.create(&players[0], variant, options, seat_ids).await;
    let id = created["id"].as_str().expect("id").to_owned();
    assert_eq!(created["status"], "waiting");
    assert_eq!(
        created["version"], 1,
        "no dice are rolled before every seat is taken"
    );
    for (i, p) in players.iter().enumerate().skip(1) {
        let resp = app
            .post(
                &format!("/v1/games/{id}/seats/{i}"),
                p,
                json!({"client_seed": format!("seed of {i}")}),
            )
            .await;
        assert_eq!(resp.status(), 200);
    }
    let seats_of: Vec<usize> = (0..seats).collect();
    let end = play_to_end(app, &id, &players, &seats_of, &mut rng).await;
    assert!(end["result"].is_object(), "{end}");
    assert!(end["server_seed"].is_string());
    check_log(app, &id, &end).await;
    // The listing shows it finished.
    let page = app
        .get_json(&format!(
            "/v1/games?player={}&status=finished",
            players[0].id
        ))
        .await;
    assert!(page["games"]
        .as_array()
        .expect("games")
        .iter()
        .any(|g| g["id"] == id.as_str()));
}

/// The seat counts and options each game is played with over HTTP; a game not listed
/// here is played with its default options at its fewest and most seats.
fn table_of_games(name: &str, min: usize, max: usize) -> Vec<(usize, Value)> {
    match name {
        "mens_erger_je_niet" => vec![
            (2, Value::Null),
            (4, Value::Null),
            (6, json!({"board": 6})),
            (3, json!({"board": 6, "three_tries": true})),
        ],
        "ludo" => vec![
            (2, Value::Null),
            (3, json!({"die": "plain"})),
            (4, Value::Null),
            (4, json!({"die": "plain", "pawns": 2})),
        ],
        "hoofden" => vec![
            (2, Value::Null),
            (2, json!({"movement": "by_head"})),
            (2, json!({"forced_attack": true})),
        ],
        "ali_baba" => vec![
            (2, Value::Null),
            (3, json!({"planks": 3})),
            (4, Value::Null),
        ],
        _ => {
            let mut v = vec![(min, Value::Null), (max, Value::Null)];
            v.dedup();
            v
        }
    }
}

async fn every_variant(backend: Backend) {
    let app = spawn_app(backend).await;
    let variants = app.get_json("/v1/variants").await;
    let variants = variants.as_array().expect("variants");
    assert_eq!(variants.len(), worp_engine::variants().len());
    for (k, v) in variants.iter().enumerate() {
        let name = v["name"].as_str().expect("name");
        let min = v["min_seats"].as_u64().expect("min") as usize;
        let max = v["max_seats"].as_u64().expect("max") as usize;
        for (j, (seats, options)) in table_of_games(name, min, max).into_iter().enumerate() {
            play_variant(&app, name, options, seats, 7 + k as u64 * 31 + j as u64).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_variant_plays_to_the_end_on_postgres() {
    every_variant(Backend::Postgres).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_variant_plays_to_the_end_on_sqlite() {
    every_variant(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resigning_a_two_seat_game_lets_the_other_seat_win() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (a, b) = (app.player("a").await, app.player("b").await);
        let variant = two_seat_variant();
        let game = app
            .create(&a, variant, Value::Null, vec![Some(a.id), Some(b.id)])
            .await;
        let id = game["id"].as_str().expect("id");
        assert_eq!(game["status"], "active");
        let resp = app
            .post(&format!("/v1/games/{id}/resign"), &b, Value::Null)
            .await;
        assert_eq!(resp.status(), 200);
        let end: Value = resp.json().await.expect("json");
        assert_eq!(end["status"], "finished");
        assert_eq!(end["result"]["winner"], 0);
        assert_eq!(end["result"]["ending"], "opponents_retired");
        check_log(&app, id, &end).await;
        // Nothing more can happen.
        let again = app
            .post(&format!("/v1/games/{id}/resign"), &a, Value::Null)
            .await;
        assert_eq!(again.status(), 409);
    }
}

/// A seat that retired already is the player's still: asked to resign again, it is a
/// conflict (409), not someone else's seat (403).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resigning_a_retired_seat_again_is_a_conflict() {
    let app = spawn_app(Backend::Sqlite).await;
    let (a, b, c) = (
        app.player("a").await,
        app.player("b").await,
        app.player("c").await,
    );
    let game = app
        .create(
            &a,
            "mens_erger_je_niet",
            Value::Null,
            vec![Some(a.id), Some(a.id), Some(b.id), Some(c.id)],
        )
        .await;
    let id = game["id"].as_str().expect("id");
    assert_eq!(game["status"], "active", "{game}");
    let path = format!("/v1/games/{id}/resign");
    let first = app.post(&path, &a, json!({ "seat": 1 })).await;
    assert_eq!(first.status(), 200);
    let again = app.post(&path, &a, json!({ "seat": 1 })).await;
    assert_eq!(again.status(), 409);
    let problem: Value = again.json().await.expect("problem");
    assert_eq!(problem["detail"], "seat 1 has retired already", "{problem}");
    let other = app.post(&path, &b, json!({ "seat": 1 })).await;
    assert_eq!(other.status(), 403, "not b's seat");
}

/// A registered variant that can be played by two seats.
pub fn two_seat_variant() -> &'static str {
    worp_engine::variants()
        .iter()
        .find(|v| v.min_seats <= 2 && v.max_seats >= 2)
        .map(|v| v.name)
        .expect("a two-seat variant")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn state_at_shows_the_game_after_each_event_and_matches_the_cache() {
    let app = spawn_app(Backend::Sqlite).await;
    let (a, b, game) = app.two_player_game(two_seat_variant()).await;
    let id = game["id"].as_str().expect("id").to_owned();
    let mut rng = SplitMix64(99);
    let end = play_to_end(&app, &id, &[a, b], &[0, 1], &mut rng).await;
    let n = end["version"].as_i64().expect("version");
    // Served from the cache where it holds the state, else by replay: both must agree
    // with a fresh replay of the log prefix.
    let events: Vec<StoredEvent> = app
        .events(&id)
        .await
        .into_iter()
        .map(|e| serde_json::from_value(e).expect("event"))
        .collect();
    for at in [1, 2, n / 2, n - 1, n] {
        let served = app.get_json(&format!("/v1/games/{id}/state?at={at}")).await;
        let fresh = Table::from_events(&events[..at as usize]).expect("replay");
        assert_eq!(served["version"], at);
        assert_eq!(served["state"], fresh.game.state().expect("state"));
        assert_eq!(served["head_hash"], fresh.head_hash.as_str());
    }
    let cached = app
        .worp
        .cache()
        .newest(id.parse().expect("uuid"))
        .expect("cached");
    let fresh = Table::from_events(&events).expect("replay");
    assert_eq!(cached.game.state(), fresh.game.state());
    assert_eq!(cached.version, fresh.version);
    let missing = app.get(&format!("/v1/games/{id}/state?at={}", n + 1)).await;
    assert_eq!(missing.status(), 404);
}
