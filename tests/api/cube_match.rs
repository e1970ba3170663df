//! Backgammon matches with the doubling cube over HTTP (RULES.md §2b): a 7-point match
//! played to its end by two people and by a person against the greedy bot, with every
//! decision a move among `legal_moves`; exported, audited, and imported into GNU
//! Backgammon with the same score and the same Match IDs; a time-out and a resignation
//! lose the match; the inbox says when a double awaits an answer.

use std::collections::HashSet;

use serde_json::{json, Value};
use worp_engine::playout::SplitMix64;

use crate::gnubg_walk::{gnubg_walk, playing, shown_ids};

use crate::helpers::{spawn_app, spawn_app_with, Backend, ManualClock, TestApp, TestPlayer};

/// What a person does: decisions by a fixed policy (double 1 time in 4 while the cube
/// is at 1, never redouble; take 2 times in 3), once per match a resignation offer that
/// the other declines, and otherwise a random checker move. Between two people the cube
/// stays at 2 or below, so no game is worth 7 points and a match has several games.
fn choose(moves: &[Value], cube: u64, rng: &mut SplitMix64, offered: &mut bool) -> Value {
    let has = |m: &str| moves.iter().any(|v| v == m);
    if has("double") {
        let double = cube == 1 && rng.below(4) == 0;
        return json!(if double { "double" } else { "roll" });
    }
    if has("take") {
        return json!(if rng.below(3) > 0 { "take" } else { "pass" });
    }
    if has("decline") {
        return json!("decline");
    }
    let checkers: Vec<&Value> = moves.iter().filter(|m| m.get("steps").is_some()).collect();
    if !*offered && !checkers.is_empty() && moves.contains(&json!({"resign": "backgammon"})) {
        *offered = true;
        return json!({"resign": "backgammon"});
    }
    checkers
        .get(rng.below(checkers.len().max(1)))
        .map(|m| (*m).clone())
        .unwrap_or_else(|| moves[0].clone())
}

/// Plays game `id` to its end; `players[seat]` moves for a seat a person holds.
/// Returns the final game and every (Position ID, Match ID) served on the way.
async fn play_to_the_end(
    app: &TestApp,
    id: &str,
    players: [Option<&TestPlayer>; 2],
    seed: u64,
) -> (Value, HashSet<(String, String)>) {
    let mut rng = SplitMix64(seed);
    let mut offered = false;
    let mut ids = HashSet::new();
    let mut game = app.get_json(&format!("/v1/games/{id}")).await;
    let mut doubles_seen = 0;
    while game["status"] == "active" {
        let state = &game["state"];
        let pair = |s: &Value| {
            (
                s["position_id"].as_str().expect("position id").to_owned(),
                s["match_id"].as_str().expect("match id").to_owned(),
            )
        };
        ids.insert(pair(state));
        let seat = game["to_move"].as_u64().expect("a seat to move") as usize;
        let who = players[seat].expect("a person's turn");
        let moves = game["legal_moves"].as_array().expect("moves").clone();
        if moves.iter().any(|m| m == "take") && doubles_seen < 2 {
            // The inbox of the one who must answer says a double awaits.
            doubles_seen += 1;
            let inbox = app
                .get_json_as("/v1/players/me/games?my_turn=true", who)
                .await;
            let entry = inbox["games"]
                .as_array()
                .and_then(|g| g.iter().find(|g| g["id"] == id))
                .expect("the game in the inbox");
            assert_eq!(entry["question"], "double", "{entry}");
        }
        let cube = state["cube"]["value"].as_u64().expect("cube");
        let mv = choose(&moves, cube, &mut rng, &mut offered);
        let resp = app
            .post(&format!("/v1/games/{id}/moves"), who, json!({"move": mv}))
            .await;
        let status = resp.status();
        game = resp.json().await.expect("json");
        assert_eq!(status, 200, "{mv}: {game}");
    }
    // The states the server rolled on from at once (after a move, or a roll that could
    // not be used, when no double was possible) or the bot decided in, which no answer
    // showed.
    let events = app.events(id).await;
    let by_bot = |e: &Value| {
        e["type"] == "move_played"
            && e["payload"]["seat"]
                .as_u64()
                .is_some_and(|s| players[s as usize].is_none())
    };
    let moves: Vec<i64> = events
        .windows(2)
        .filter(|e| e[1]["type"] == "dice_rolled" || by_bot(&e[1]))
        .filter_map(|e| e[0]["seq"].as_i64())
        .collect();
    for v in moves {
        let past = app.get_json(&format!("/v1/games/{id}/state?at={v}")).await;
        if past["state"]["match_id"].is_string() {
            let s = &past["state"];
            ids.insert((
                s["position_id"].as_str().unwrap_or_default().to_owned(),
                s["match_id"].as_str().unwrap_or_default().to_owned(),
            ));
        }
    }
    (game, ids)
}

/// Exports the finished match, audits it (in-process and with `worp audit`), and has
/// GNU Backgammon import its `.mat` file: the same score, and at every position it steps
/// through while a game is played, a state Worp served with the same Match ID.
async fn export_audit_and_import(
    app: &TestApp,
    id: &str,
    game: &Value,
    ids: &HashSet<(String, String)>,
) {
    let export = app.get_json(&format!("/v1/games/{id}/export")).await;
    let x: worp::export::Export = serde_json::from_value(export.clone()).expect("export");
    let report = worp::export::audit_export(&x).expect("the match audits clean");
    assert!(report.seed_revealed && report.result.is_some());
    let dir = std::env::temp_dir().join(format!("worp-cube-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("match.json");
    std::fs::write(&file, serde_json::to_vec(&export).expect("json")).expect("write");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_worp"))
        .arg("audit")
        .arg(&file)
        .output()
        .expect("worp audit");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    let resp = app.get(&format!("/v1/games/{id}/export?format=mat")).await;
    assert_eq!(resp.status(), 200);
    let mat = resp.text().await.expect("mat");
    assert!(mat.contains("\n 7 point match\n"), "{mat}");
    let m = &game["state"]["match"];
    let games = m["games"].as_array().expect("games").len();
    let Some(text) = gnubg_walk(&mat) else {
        return;
    };
    let name = |n: usize| {
        let tag = format!("; [Player {n} \"");
        mat.lines()
            .find_map(|l| l.strip_prefix(&tag))
            .and_then(|l| l.strip_suffix("\"]"))
            .unwrap_or_default()
            .to_owned()
    };
    let score = format!(
        "The score (after {games} game{}) is: {} {}, {} {} (match to 7 points",
        if games == 1 { "" } else { "s" },
        name(1),
        m["score"]["white"],
        name(2),
        m["score"]["black"],
    );
    let shown_score = text
        .lines()
        .find(|l| l.contains("The score"))
        .unwrap_or_default();
    assert!(
        text.contains(&score),
        "wanted {score:?}, gnubg: {shown_score}\n{mat}"
    );
    assert!(!text.to_lowercase().contains("illegal"), "{text}");
    let shown = shown_ids(&text);
    assert!(shown.len() > 20, "{text}");
    let last = (
        game["state"]["position_id"]
            .as_str()
            .expect("id")
            .to_owned(),
        game["state"]["match_id"].as_str().expect("id").to_owned(),
    );
    assert_eq!(shown[0], last, "the end of the match");
    let mut missing: Vec<_> = shown[1..]
        .iter()
        .filter(|p| playing(&p.1) && !ids.contains(*p))
        .collect();
    missing.dedup();
    assert!(
        missing.is_empty(),
        "gnubg showed states Worp never served: {missing:?}\n{mat}"
    );
}

/// The match score and that its winner has at least 7 points.
fn assert_won(game: &Value) {
    let m = &game["state"]["match"];
    let (w, b) = (
        m["score"]["white"].as_u64().expect("score"),
        m["score"]["black"].as_u64().expect("score"),
    );
    let winner = game["result"]["winner"].as_u64().expect("winner");
    assert!(
        (winner == 0 && w >= 7 && b < 7) || (winner == 1 && b >= 7 && w < 7),
        "{m}"
    );
    let sum: u64 = m["games"]
        .as_array()
        .expect("games")
        .iter()
        .map(|g| g["points"].as_u64().expect("points"))
        .sum();
    assert_eq!(sum, w + b);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_people_play_a_7_point_match_with_the_cube_to_its_end() {
    let app = spawn_app(Backend::Sqlite).await;
    let (a, b) = (app.player("ann").await, app.player("bob").await);
    let game = app
        .create(
            &a,
            "backgammon",
            json!({"match_length": 7}),
            vec![Some(a.id), Some(b.id)],
        )
        .await;
    let id = game["id"].as_str().expect("id").to_owned();
    assert_eq!(game["state"]["match"]["length"], 7);
    assert_eq!(game["state"]["cube"], json!({"value": 1, "owner": null}));
    let (game, ids) = play_to_the_end(&app, &id, [Some(&a), Some(&b)], 7).await;
    assert_won(&game);
    assert!(
        game["state"]["match"]["games"]
            .as_array()
            .expect("games")
            .len()
            >= 2,
        "a match of several games: {}",
        game["state"]["match"]
    );
    export_audit_and_import(&app, &id, &game, &ids).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_plays_a_7_point_match_against_the_greedy_bot_to_its_end() {
    let app = spawn_app(Backend::Postgres).await;
    let a = app.player("ann").await;
    let game = app
        .create_from(
            &a,
            json!({"variant": "backgammon", "options": {"match_length": 7},
                   "seats": [a.id, {"bot": "greedy"}]}),
        )
        .await;
    let id = game["id"].as_str().expect("id").to_owned();
    let (game, ids) = play_to_the_end(&app, &id, [Some(&a), None], 11).await;
    assert_won(&game);
    export_audit_and_import(&app, &id, &game, &ids).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_time_out_or_a_resignation_loses_the_match() {
    let clock = ManualClock::new();
    let app = spawn_app_with(Backend::Sqlite, clock.clone()).await;
    let (a, b) = (app.player("ann").await, app.player("bob").await);
    let body = |days: Option<u8>| {
        json!({"variant": "backgammon", "options": {"match_length": 5},
               "seats": [a.id, b.id], "days_per_move": days})
    };
    // A time-out of the seat to move: the other wins the match.
    let game = app.create_from(&a, body(Some(1))).await;
    let id = game["id"].as_str().expect("id").to_owned();
    let late = game["to_move"].as_u64().expect("seat");
    clock.advance(chrono::Duration::days(1) + chrono::Duration::seconds(1));
    assert_eq!(app.worp.sweep_deadlines().await.expect("sweep"), 1);
    let game = app.get_json(&format!("/v1/games/{id}")).await;
    assert_eq!(game["status"], "finished");
    assert_eq!(game["result"]["winner"], 1 - late);
    assert_eq!(game["result"]["ending"], "opponents_retired");
    // A resignation through the API gives up the whole match at the start position:
    // a backgammon × the cube (Black's back checkers stand in White's home board).
    let game = app.create_from(&a, body(None)).await;
    let id = game["id"].as_str().expect("id").to_owned();
    let resp = app
        .post(&format!("/v1/games/{id}/resign"), &b, Value::Null)
        .await;
    assert_eq!(resp.status(), 200);
    let game: Value = resp.json().await.expect("json");
    assert_eq!(game["status"], "finished");
    assert_eq!(game["result"]["winner"], 0);
    assert_eq!(game["result"]["points"], 3);
    assert_eq!(game["state"]["match"]["score"]["white"], 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_your_turn_notice_says_a_double_awaits_an_answer() {
    let app = spawn_app(Backend::Sqlite).await;
    let (a, b) = (app.player("ann").await, app.player("bob").await);
    let mut streams = Vec::new();
    for p in [&a, &b] {
        let stream = app
            .client
            .get(app.url("/v1/players/me/stream"))
            .bearer_auth(&p.token)
            .send()
            .await
            .expect("stream");
        assert_eq!(stream.status(), 200);
        streams.push(stream);
    }
    let mut game = app
        .create(
            &a,
            "backgammon",
            json!({"cube": true}),
            vec![Some(a.id), Some(b.id)],
        )
        .await;
    let id = game["id"].as_str().expect("id").to_owned();
    let players = [&a, &b];
    let mut rng = SplitMix64(3);
    // Play on until the seat to move may double, and double.
    let doubler = loop {
        let seat = game["to_move"].as_u64().expect("seat") as usize;
        let moves = game["legal_moves"].as_array().expect("moves").clone();
        let double = moves.iter().any(|m| m == "double");
        let mv = if double {
            json!("double")
        } else {
            let checkers: Vec<&Value> = moves.iter().filter(|m| m.get("steps").is_some()).collect();
            checkers[rng.below(checkers.len())].clone()
        };
        game = app
            .post(
                &format!("/v1/games/{id}/moves"),
                players[seat],
                json!({"move": mv}),
            )
            .await
            .json()
            .await
            .expect("json");
        if double {
            break seat;
        }
    };
    let taker = 1 - doubler;
    assert_eq!(game["to_move"], taker);
    assert_eq!(game["state"]["offer"]["kind"], "double");
    let is_double = |m: &(String, String, String)| {
        m.1 == "your_turn"
            && serde_json::from_str::<Value>(&m.2).is_ok_and(|d| d["question"] == "double")
    };
    let seen =
        crate::correspondence::read_sse(&mut streams[taker], |m| m.iter().any(is_double)).await;
    let notice: Value =
        serde_json::from_str(&seen.iter().find(|m| is_double(m)).expect("notice").2).expect("json");
    assert_eq!(notice["game_id"], id.as_str());
    assert_eq!(notice["seat"], taker);
    // An ordinary turn says nothing of a question.
    let ordinary = seen.iter().find(|m| m.1 == "your_turn" && !is_double(m));
    if let Some(m) = ordinary {
        let data: Value = serde_json::from_str(&m.2).expect("json");
        assert!(data.get("question").is_none(), "{data}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_match_ended_by_a_pass_or_an_accepted_resignation_says_so() {
    let app = spawn_app(Backend::Sqlite).await;
    let (a, b) = (app.player("ann").await, app.player("bob").await);
    let players = [&a, &b];
    for (answer, reason) in [
        ("pass", "double_passed"),
        ("accept", "resignation_accepted"),
    ] {
        let mut game = app
            .create(
                &a,
                "backgammon",
                json!({"match_length": 1}),
                vec![Some(a.id), Some(b.id)],
            )
            .await;
        let id = game["id"].as_str().expect("id").to_owned();
        // The opening move, then the other one decides before rolling.
        let mut offer = None;
        while game["status"] == "active" {
            let seat = game["to_move"].as_u64().expect("seat") as usize;
            let moves = game["legal_moves"].as_array().expect("moves").clone();
            let mv = if moves.iter().any(|m| m == "double") {
                offer = Some(seat);
                if answer == "pass" {
                    json!("double")
                } else {
                    json!({"resign": "single"})
                }
            } else if moves.iter().any(|m| m == answer) {
                json!(answer)
            } else {
                moves[0].clone()
            };
            game = app
                .post(
                    &format!("/v1/games/{id}/moves"),
                    players[seat],
                    json!({"move": mv}),
                )
                .await
                .json()
                .await
                .expect("json");
        }
        let offerer = offer.expect("a decision was awaited") as u64;
        assert_eq!(game["reason"], reason, "{game}");
        let winner = if answer == "pass" {
            offerer
        } else {
            1 - offerer
        };
        assert_eq!(game["result"]["winner"], winner);
        assert_eq!(game["result"]["points"], 1);
    }
}
