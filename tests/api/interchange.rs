//! Exchanging games with other tools: `.mat` files GNU Backgammon imports, and golden
//! exports of every game that the current rules must still replay exactly.

use serde_json::{json, Value};
use worp_engine::playout::SplitMix64;

use crate::gnubg_walk::{gnubg_path, run_gnubg};
use crate::helpers::{spawn_app, Backend};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backgammon_game_exports_as_a_mat_file_gnu_backgammon_imports() {
    let app = spawn_app(Backend::Sqlite).await;
    let (a, b) = (app.player("ann").await, app.player("bob").await);
    let mut game = app
        .create(&a, "backgammon", Value::Null, vec![Some(a.id), Some(b.id)])
        .await;
    let id = game["id"].as_str().expect("id").to_owned();
    let mut rng = SplitMix64(21);
    let mut versions = Vec::new();
    while game["status"] == "active" {
        assert!(game["state"]["position_id"]
            .as_str()
            .is_some_and(|p| p.len() == 14));
        versions.push(game["version"].as_i64().expect("version"));
        let who = if game["to_move"] == 0 { &a } else { &b };
        let moves = game["legal_moves"].as_array().expect("moves");
        let mv = moves[rng.below(moves.len())].clone();
        game = app
            .post(&format!("/v1/games/{id}/moves"), who, json!({"move": mv}))
            .await
            .json()
            .await
            .expect("json");
    }
    // Every position of the game, also in the past, carries its Position ID.
    for v in versions.iter().step_by(7) {
        let past = app.get_json(&format!("/v1/games/{id}/state?at={v}")).await;
        assert!(past["state"]["position_id"].is_string());
    }
    // The replay record replays offline to the served state.
    let record: worp_engine::replay::Record = serde_json::from_value(
        app.get_json(&format!("/v1/games/{id}/export?format=record"))
            .await,
    )
    .expect("record");
    let replayed = worp_engine::replay::replay(&record, |_| {}).expect("replay");
    assert_eq!(replayed.state().expect("state"), game["state"]);
    let other = app
        .create(&a, "ali_baba", Value::Null, vec![Some(a.id), Some(b.id)])
        .await;
    let not_bg = app
        .get(&format!(
            "/v1/games/{}/export?format=mat",
            other["id"].as_str().expect("id")
        ))
        .await;
    assert_eq!(not_bg.status(), 400);

    let resp = app.get(&format!("/v1/games/{id}/export?format=mat")).await;
    assert_eq!(resp.status(), 200);
    assert!(resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|c| c.starts_with("text/plain")));
    let mat = resp.text().await.expect("text");
    assert!(mat.contains(" 0 point match") && mat.contains(" Game 1") && mat.contains("Wins "));
    let winner = if game["result"]["winner"] == 0 {
        "ann"
    } else {
        "bob"
    };
    let points = game["result"]["points"].as_u64().expect("points");

    let Some(gnubg) = gnubg_path() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("worp-mat-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("game.mat");
    std::fs::write(&file, &mat).expect("write");
    // Money sessions score gammons only after a double (the Jacoby rule) unless it is
    // switched off; our games have no cube.
    let script = format!(
        "set jacoby off\nimport mat {}\nshow score\n",
        file.display()
    );
    let text = run_gnubg(gnubg, &dir, script);
    let _ = std::fs::remove_dir_all(&dir);
    let expected = if winner == "ann" {
        format!("ann {points}, bob 0")
    } else {
        format!("ann 0, bob {points}")
    };
    assert!(
        text.contains(&format!("The score (after 1 game) is: {expected}")),
        "GNU Backgammon did not import the whole game:\n{text}\n{mat}"
    );
    assert!(!text.to_lowercase().contains("illegal"), "{text}");
}

fn golden_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden")
}

/// Stored exports of one finished game per variant, made by the current rules version.
/// A change to the rules that would replay a past game differently fails here. Refresh
/// (only for a deliberate rules change, with a new RULES_VERSION) with
/// `WORP_WRITE_GOLDEN=1 cargo test --test api golden`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn golden_exports_of_every_game_still_replay_exactly() {
    if std::env::var_os("WORP_WRITE_GOLDEN").is_some() {
        write_golden().await;
    }
    for v in worp_engine::variants() {
        let path = golden_dir().join(format!("{}.json", v.name));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!("{}: {e} (every game needs a golden export)", path.display())
        });
        let x: worp::export::Export = serde_json::from_str(&text).expect("export");
        let report = worp::export::audit_export(&x).unwrap_or_else(|e| panic!("{}: {e}", v.name));
        assert!(
            report.seed_revealed && report.result.is_some(),
            "{}",
            v.name
        );
        let table = worp::table::Table::from_events(&x.events).expect("replay");
        let state: Value = serde_json::from_str(
            &std::fs::read_to_string(golden_dir().join(format!("{}.state.json", v.name)))
                .expect("state"),
        )
        .expect("json");
        assert_eq!(
            table.game.state().expect("state"),
            state,
            "{}: the final state changed",
            v.name
        );
    }
}

async fn write_golden() {
    let app = spawn_app(Backend::Sqlite).await;
    std::fs::create_dir_all(golden_dir()).expect("dir");
    for (k, v) in worp_engine::variants().iter().enumerate() {
        let mut players = Vec::new();
        for i in 0..v.min_seats {
            players.push(app.player(&format!("p{i}")).await);
        }
        let mut game = app
            .create(
                &players[0],
                v.name,
                Value::Null,
                players.iter().map(|p| Some(p.id)).collect(),
            )
            .await;
        let id = game["id"].as_str().expect("id").to_owned();
        let mut rng = SplitMix64(1000 + k as u64);
        while game["status"] == "active" {
            let seat = game["to_move"].as_u64().expect("seat") as usize;
            let moves = game["legal_moves"].as_array().expect("moves");
            let mv = moves[rng.below(moves.len())].clone();
            game = app
                .post(
                    &format!("/v1/games/{id}/moves"),
                    &players[seat],
                    json!({"move": mv}),
                )
                .await
                .json()
                .await
                .expect("json");
        }
        let export = app.get_json(&format!("/v1/games/{id}/export")).await;
        std::fs::write(
            golden_dir().join(format!("{}.json", v.name)),
            serde_json::to_string(&export).expect("json"),
        )
        .expect("write");
        std::fs::write(
            golden_dir().join(format!("{}.state.json", v.name)),
            serde_json::to_string_pretty(&game["state"]).expect("json"),
        )
        .expect("write");
    }
}

/// `worp analyze <variant>` answers for the games with position analysis, and refuses the
/// others and unknown names with exit code 2.
#[test]
fn worp_analyze_serves_the_games_that_declare_it() {
    use std::io::Write;
    let run = |variant: &str, input: &str| {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_worp"))
            .args(["analyze", variant])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("run worp analyze");
        let written = child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input.as_bytes());
        // A refused variant exits before it reads its input: its pipe may be closed.
        if let Err(e) = written {
            assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "write: {e}");
        }
        child.wait_with_output().expect("output")
    };
    let out = run("backgammon", "{\"board\": []}\n");
    assert!(out.status.success());
    let answer: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("one JSON answer per line");
    assert!(answer["error"].is_string(), "{answer}");
    for other in ["ludo", "no_such_game"] {
        let out = run(other, "{}\n");
        assert_eq!(out.status.code(), Some(2), "{other}");
        assert!(out.stdout.is_empty());
    }
}
