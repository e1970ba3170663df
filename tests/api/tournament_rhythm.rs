//! A tournament's rhythm by correspondence: a round's deadline and a game's clock end
//! games as losses, withdrawals and late registrations follow the rules, and every player
//! hears that their game of a round started (issue 81).

use std::time::Duration;

use serde_json::{json, Value};
use uuid::Uuid;

use crate::helpers::{
    spawn_app, spawn_app_with, Backend, ManualClock, TestApp, TestPlayer, BACKENDS,
};
use crate::webhooks::register as register_webhook;

async fn send(app: &TestApp, method: reqwest::Method, path: &str, who: &TestPlayer) -> u16 {
    crate::tournaments::send(app, method, path, who, None)
        .await
        .0
}

/// A tournament of `body` with `players` registered, started by its creator.
async fn started(app: &TestApp, body: Value, players: &[&TestPlayer]) -> String {
    let creator = app.player("director").await;
    let resp = app.post("/v1/tournaments", &creator, body).await;
    assert_eq!(resp.status(), 201);
    let t: Value = resp.json().await.expect("json");
    let id = t["id"].as_str().expect("id").to_owned();
    for p in players {
        let path = format!("/v1/tournaments/{id}/players");
        assert_eq!(send(app, reqwest::Method::POST, &path, p).await, 200);
    }
    let path = format!("/v1/tournaments/{id}/start");
    assert_eq!(send(app, reqwest::Method::POST, &path, &creator).await, 200);
    id
}

/// The tournament's page once `done` holds of it (within 30 s).
async fn once(app: &TestApp, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let until = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let t = app.get_json(&format!("/v1/tournaments/{id}")).await;
        if done(&t) {
            return t;
        }
        assert!(tokio::time::Instant::now() < until, "never came: {t}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn round_robin(days_per_move: u32, round_days: Option<u32>) -> Value {
    json!({
        "name": "Duel",
        "variant": "backgammon",
        "format": {"kind": "round_robin", "cycles": 1},
        "max_players": 2,
        "days_per_move": days_per_move,
        "round_days": round_days,
    })
}

/// The player to move in the round's only game, and the other.
async fn to_move(app: &TestApp, t: &Value) -> (Uuid, Uuid, String) {
    let table = &t["rounds"][0]["tables"][0];
    let game_id = table["game_id"].as_str().expect("game").to_owned();
    let game = app.get_json(&format!("/v1/games/{game_id}")).await;
    let seat = game["to_move"].as_u64().expect("a seat to move") as usize;
    let id = |i: usize| {
        table["seats"][i]
            .as_str()
            .expect("seat")
            .parse()
            .expect("uuid")
    };
    (id(seat), id(1 - seat), game_id)
}

#[tokio::test]
async fn at_a_rounds_deadline_the_seat_to_move_times_out_and_loses() {
    for backend in BACKENDS {
        let clock = ManualClock::new();
        let app = spawn_app_with(backend, clock.clone()).await;
        let (a, b) = (app.player("a").await, app.player("b").await);
        let id = started(&app, round_robin(3, Some(1)), &[&a, &b]).await;
        let t = app.get_json(&format!("/v1/tournaments/{id}")).await;
        assert!(t["rounds"][0]["deadline"].is_string(), "{t}");
        let (late, other, game) = to_move(&app, &t).await;
        // Before the deadline nothing happens.
        clock.advance(chrono::Duration::hours(23));
        app.worp
            .advance_tournament(id.parse().expect("uuid"))
            .await
            .expect("advance");
        assert_eq!(
            app.get_json(&format!("/v1/games/{game}")).await["status"],
            "active"
        );
        clock.advance(chrono::Duration::hours(2));
        app.worp
            .advance_tournament(id.parse().expect("uuid"))
            .await
            .expect("advance");
        let t = app.get_json(&format!("/v1/tournaments/{id}")).await;
        assert_eq!(t["status"], "finished", "{backend:?}: {t}");
        assert_eq!(
            t["rounds"][0]["tables"][0]["result"],
            json!({"winner": other})
        );
        assert_eq!(t["standings"][0]["player_id"], json!(other));
        let g = app.get_json(&format!("/v1/games/{game}")).await;
        assert_eq!(
            g["reason"], "timed_out",
            "{backend:?}: {late} ran out of the round's time"
        );
    }
}

#[tokio::test]
async fn a_game_whose_clock_runs_out_is_a_loss_recorded_at_once() {
    for backend in BACKENDS {
        let clock = ManualClock::new();
        let app = spawn_app_with(backend, clock.clone()).await;
        let (a, b) = (app.player("a").await, app.player("b").await);
        let id = started(&app, round_robin(1, None), &[&a, &b]).await;
        let t = app.get_json(&format!("/v1/tournaments/{id}")).await;
        let (_, other, _) = to_move(&app, &t).await;
        clock.advance(chrono::Duration::hours(25));
        assert_eq!(app.worp.sweep_deadlines().await.expect("sweep"), 1);
        // The time-out's change wakes the driver: no sweep of tournaments is needed.
        let t = once(&app, &id, |t| t["status"] == "finished").await;
        assert_eq!(
            t["rounds"][0]["tables"][0]["result"],
            json!({"winner": other}),
            "{backend:?}"
        );
    }
}

#[tokio::test]
async fn a_withdrawal_resigns_the_running_game_and_a_late_entrant_plays_the_next_round() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let mut players = Vec::new();
        for name in ["a", "b", "c", "d"] {
            players.push(app.player(name).await);
        }
        let hook = register_webhook(&app, &players[1], "http://127.0.0.1:9/hook").await;
        let body = json!({
            "name": "Open Swiss",
            "variant": "backgammon",
            "format": {"kind": "swiss", "rounds": 2},
            "max_players": 8,
            "days_per_move": 3,
            "late_registration_rounds": 2,
        });
        let id = started(&app, body, &players.iter().collect::<Vec<_>>()).await;
        // b heard that its game of round 1 started.
        let log = app
            .get_json_as(
                &format!("/v1/players/me/webhooks/{hook}/deliveries"),
                &players[1],
            )
            .await;
        assert!(
            log.as_array()
                .expect("log")
                .iter()
                .any(|d| d["kind"] == "round_started"),
            "{backend:?}: {log}"
        );
        // A late entrant, while round 1 runs.
        let e = app.player("e").await;
        let path = format!("/v1/tournaments/{id}/players");
        assert_eq!(send(&app, reqwest::Method::POST, &path, &e).await, 200);
        // a withdraws: its game is resigned, a loss.
        let me = format!("/v1/tournaments/{id}/players/me");
        assert_eq!(
            send(&app, reqwest::Method::DELETE, &me, &players[0]).await,
            200
        );
        assert_eq!(
            send(&app, reqwest::Method::DELETE, &me, &players[0]).await,
            409
        );
        let t = app.get_json(&format!("/v1/tournaments/{id}")).await;
        let a_id = json!(players[0].id);
        let tables = t["rounds"][0]["tables"].as_array().expect("tables").clone();
        let a_table = tables
            .iter()
            .find(|x| x["seats"].as_array().is_some_and(|s| s.contains(&a_id)))
            .expect("a's table");
        assert!(
            a_table["result"]["winner"].is_string() && a_table["result"]["winner"] != a_id,
            "{backend:?}: {a_table}"
        );
        // The other game of round 1 ends by a resignation.
        for x in &tables {
            if x["result"].is_null() {
                let loser: Uuid = x["seats"][1].as_str().expect("seat").parse().expect("uuid");
                let who = players.iter().find(|p| p.id == loser).expect("player");
                let game = x["game_id"].as_str().expect("game");
                let resp = app
                    .post(&format!("/v1/games/{game}/resign"), who, json!({}))
                    .await;
                assert_eq!(resp.status(), 200);
            }
        }
        let t = once(&app, &id, |t| {
            t["rounds"].as_array().is_some_and(|r| r.len() == 2)
        })
        .await;
        let round2: Vec<Value> = t["rounds"][1]["tables"]
            .as_array()
            .expect("tables")
            .iter()
            .flat_map(|x| x["seats"].as_array().cloned().unwrap_or_default())
            .chain(
                t["rounds"][1]["byes"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default(),
            )
            .collect();
        assert!(!round2.contains(&a_id), "{backend:?}: a withdrew: {t}");
        assert!(
            round2.contains(&json!(e.id)),
            "{backend:?}: e joined late: {t}"
        );
        assert_eq!(round2.len(), 4, "{backend:?}: b, c, d and e: {t}");
    }
}

#[tokio::test]
async fn a_ludo_tournament_seats_four_at_a_table_and_scores_by_place() {
    let app = spawn_app(Backend::Sqlite).await;
    let mut players = Vec::new();
    for i in 0..8 {
        players.push(app.player(&format!("p{i}")).await);
    }
    let body = json!({
        "name": "Ludo night",
        "variant": "ludo",
        "format": {"kind": "swiss", "rounds": 1},
        "table_size": 4,
        "max_players": 8,
        "days_per_move": 3,
    });
    let id = started(&app, body, &players.iter().collect::<Vec<_>>()).await;
    let t = app.get_json(&format!("/v1/tournaments/{id}")).await;
    let tables = t["rounds"][0]["tables"].as_array().expect("tables").clone();
    assert_eq!(tables.len(), 2);
    // Each table ends as its seats resign one by one, the first seat left to win.
    for x in &tables {
        let seats: Vec<Uuid> = x["seats"]
            .as_array()
            .expect("seats")
            .iter()
            .map(|s| s.as_str().expect("seat").parse().expect("uuid"))
            .collect();
        assert_eq!(seats.len(), 4);
        let game = x["game_id"].as_str().expect("game");
        for loser in seats[1..].iter().rev() {
            let who = players.iter().find(|p| p.id == *loser).expect("player");
            let resp = app
                .post(&format!("/v1/games/{game}/resign"), who, json!({}))
                .await;
            assert_eq!(resp.status(), 200);
        }
    }
    let t = once(&app, &id, |t| t["status"] == "finished").await;
    // The game ends at its first winner: the others share the places left.
    for x in t["rounds"][0]["tables"].as_array().expect("tables") {
        assert_eq!(x["result"], json!({"places": [x["seats"][0]]}), "{t}");
    }
    let points: Vec<(f64, u64)> = t["standings"]
        .as_array()
        .expect("standings")
        .iter()
        .map(|s| {
            (
                s["points"].as_f64().expect("points"),
                s["first_places"].as_u64().expect("firsts"),
            )
        })
        .collect();
    assert_eq!(
        points,
        [[(3.0, 1); 2].as_slice(), &[(1.0, 0); 6]].concat(),
        "{t}"
    );
}

/// Two processes on one PostgreSQL database drive the same tournament at once: each round
/// is paired once, each result recorded once, and the log still audits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_driving_one_tournament_append_each_step_once() {
    use crate::helpers::{fresh_database, spawn_app_from, test_settings};
    use std::sync::Arc;
    let (url, _) = fresh_database(Backend::Postgres).await;
    let a_process = spawn_app_from(
        test_settings(url.clone()),
        Arc::new(worp::clock::SystemClock),
        None,
    )
    .await;
    let b_process =
        spawn_app_from(test_settings(url), Arc::new(worp::clock::SystemClock), None).await;
    let app = &a_process;
    let mut players = Vec::new();
    for i in 0..6 {
        players.push(app.player(&format!("r{i}")).await);
    }
    let body = json!({
        "name": "Race",
        "variant": "backgammon",
        "format": {"kind": "swiss", "rounds": 3},
        "max_players": 6,
        "days_per_move": 3,
    });
    let id = started(app, body, &players.iter().collect::<Vec<_>>()).await;
    let uuid: Uuid = id.parse().expect("uuid");
    for round in 0..3 {
        let t = once(app, &id, |t| {
            t["rounds"].as_array().is_some_and(|r| r.len() > round)
        })
        .await;
        // Every game of the round ends at once through both processes, while both drive.
        let mut resignations = Vec::new();
        for x in t["rounds"][round]["tables"].as_array().expect("tables") {
            let loser: Uuid = x["seats"][1].as_str().expect("seat").parse().expect("uuid");
            let who = players
                .iter()
                .find(|p| p.id == loser)
                .expect("player")
                .clone();
            let game = x["game_id"].as_str().expect("game");
            resignations.push((who, format!("/v1/games/{game}/resign")));
        }
        let resign = resignations.iter().enumerate().map(|(i, (who, path))| {
            let on = if i % 2 == 0 { &a_process } else { &b_process };
            on.post(path, who, json!({}))
        });
        let drive = [&a_process, &b_process].map(|p| p.worp.advance_tournament(uuid));
        let (answers, driven) = tokio::join!(
            futures_util::future::join_all(resign),
            futures_util::future::join_all(drive)
        );
        assert!(answers.iter().all(|r| r.status() == 200));
        for d in driven {
            d.expect("a driver's step");
        }
        b_process
            .worp
            .advance_tournament(uuid)
            .await
            .expect("drive");
    }
    let t = once(app, &id, |t| t["status"] == "finished").await;
    let x = app.get_json(&format!("/v1/tournaments/{id}/export")).await;
    let kinds: Vec<&str> = x["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter_map(|e| e["kind"].as_str())
        .collect();
    let count = |k: &str| kinds.iter().filter(|x| **x == k).count();
    assert_eq!(count("round_paired"), 3, "{kinds:?}");
    assert_eq!(count("result_recorded"), 9, "{kinds:?}");
    assert_eq!(count("finished"), 1, "{kinds:?}");
    let export: worp::service::tournaments::views::TournamentExport =
        serde_json::from_value(x).expect("export");
    worp::service::tournaments::audit::audit_tournament(&export).expect("it audits");
    assert_eq!(t["standings"].as_array().map(Vec::len), Some(6));
}
