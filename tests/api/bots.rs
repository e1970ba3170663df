//! Bots that think, against the real server: GNU Backgammon's levels offered only
//! where gnubg runs, a match against `gnubg-expert` played to the end (its worker
//! killed midway), the analysis of it against gnubg's own, and expectimax moving off
//! the request path.

use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

use crate::helpers::*;
use worp::service::bots::BotSettings;

/// A server whose bots run as `gnubg` says (on: one worker, analyses at 0-ply).
async fn app(backend: Backend, gnubg: bool) -> TestApp {
    let (url, dir) = fresh_database(backend).await;
    let mut settings = test_settings(url);
    settings.bots = BotSettings {
        gnubg,
        workers: 1,
        analysis_plies: 0,
        ..Default::default()
    };
    spawn_app_from(settings, std::sync::Arc::new(worp::clock::SystemClock), dir).await
}

fn gnubg_here() -> bool {
    let here = worp_gnubg::PoolSettings::find_program(None).is_ok();
    assert!(
        here || std::env::var_os("WORP_SKIP_GNUBG").is_some(),
        "GNU Backgammon is needed for this test (apt-get install gnubg), or set WORP_SKIP_GNUBG=1"
    );
    here
}

/// Waits (up to a minute) until game `id` is finished or awaits seat `seat`.
async fn until_turn(app: &TestApp, id: &str, seat: u64) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let g = app.get_json(&format!("/v1/games/{id}")).await;
        if g["status"] == "finished" || g["to_move"] == seat {
            return g;
        }
        assert!(Instant::now() < deadline, "the bot never moved: {g}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Plays seat 0 of game `id` at random (from `seed`) until the game ends, calling
/// `each` before each of its moves with how many it made.
async fn play_out(
    app: &TestApp,
    who: &TestPlayer,
    id: &str,
    seed: u64,
    mut each: impl FnMut(usize),
) -> Value {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    for n in 0.. {
        let g = until_turn(app, id, 0).await;
        if g["status"] == "finished" {
            return g;
        }
        each(n);
        let moves = g["legal_moves"].as_array().expect("legal moves").clone();
        // Offers to resign end the match at once: kept rare.
        let playable: Vec<&Value> = moves.iter().filter(|m| m.get("resign").is_none()).collect();
        let mv = if playable.is_empty() || rng.random_ratio(1, 200) {
            moves[rng.random_range(0..moves.len())].clone()
        } else {
            playable[rng.random_range(0..playable.len())].clone()
        };
        let resp = app
            .play_if_match(id, who, mv.clone(), g["version"].as_i64().expect("version"))
            .await;
        assert_eq!(
            resp.status(),
            200,
            "{mv}: {}",
            resp.text().await.unwrap_or_default()
        );
    }
    unreachable!()
}

#[tokio::test]
async fn gnubg_levels_are_offered_only_where_gnubg_runs() {
    let without = app(Backend::Sqlite, false).await;
    let bots = without.get_json("/v1/bots").await;
    let names: Vec<&str> = bots
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|b| b["name"].as_str())
        .collect();
    assert_eq!(names, ["random", "greedy", "expectimax"]);
    let me = without.player("alone").await;
    let resp = without
        .post(
            "/v1/games",
            &me,
            json!({"variant": "backgammon", "seats": [me.id, {"bot": "gnubg-expert"}]}),
        )
        .await;
    assert_eq!(resp.status(), 400);
    let problem: Value = resp.json().await.expect("json");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("GNU Backgammon is not installed"),
        "{problem}"
    );
    if !gnubg_here() {
        return;
    }
    let with = app(Backend::Sqlite, true).await;
    let bots = with.get_json("/v1/bots").await;
    let expert = bots
        .as_array()
        .expect("list")
        .iter()
        .find(|b| b["name"] == "gnubg-expert")
        .expect("offered");
    assert_eq!(expert["variants"], json!(["backgammon"]));
    assert_eq!(expert["thinks"], true);
    let me = with.player("ludo player").await;
    let resp = with
        .post(
            "/v1/games",
            &me,
            json!({"variant": "ludo", "seats": [me.id, {"bot": "gnubg-expert"}]}),
        )
        .await;
    assert_eq!(resp.status(), 400, "gnubg plays only backgammon");
}

/// gnubg's own `show statistics match` of a match file, analysed at 0-ply: per player
/// (X, O), the checker play error, the cube error, unforced moves, close cube decisions,
/// the moves marked doubtful, bad and very bad, and the overall error rate (mEMG).
fn gnubg_statistics(mat: &str) -> [[f64; 8]; 2] {
    let gnubg = worp_gnubg::PoolSettings::find_program(None).expect("gnubg");
    let dir = TempDir(std::env::temp_dir().join(format!("worp-stats-{}", uuid::Uuid::new_v4())));
    std::fs::create_dir_all(&dir.0).expect("dir");
    let file = dir.0.join("m.mat");
    std::fs::write(&file, mat).expect("write");
    let script = format!(
        "set display off\nimport mat {}\nset analysis chequerplay evaluation plies 0\n\
         set analysis cubedecision evaluation plies 0\nanalyse match\nshow statistics match\n",
        file.display()
    );
    let text = crate::gnubg_walk::run_gnubg(gnubg.to_str().expect("path"), &dir.0, script);
    let two = |label: &str, nth: usize| -> [f64; 2] {
        let line = text
            .lines()
            .filter(|l| l.starts_with(label))
            .nth(nth)
            .unwrap_or_else(|| panic!("no {label:?} in {text}"));
        // The figures without what gnubg adds in brackets (MWC, or points per game).
        let mut bare = String::new();
        let mut depth = 0;
        for c in line[label.len()..].chars() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                c if depth == 0 => bare.push(c),
                _ => {}
            }
        }
        let numbers: Vec<f64> = bare
            .split_whitespace()
            .filter_map(|w| w.parse().ok())
            .collect();
        [numbers[0], numbers[1]]
    };
    let unit = if text.contains("EMG (MWC)") {
        "(MWC)"
    } else {
        "(Points)"
    };
    let error = |nth| two(&format!("Error total EMG {unit}"), nth);
    let rows = [
        error(0),
        error(1),
        two("Unforced moves", 0),
        two("Close or actual cube decisions", 0),
        two("Moves marked doubtful", 0),
        two("Moves marked bad", 0),
        two("Moves marked very bad", 0),
        two(&format!("Error rate mEMG {unit}"), 2),
    ];
    [0, 1].map(|p| rows.map(|r| r[p].abs()))
}

#[tokio::test]
async fn a_match_against_gnubg_expert_survives_a_killed_worker_and_is_analysed_as_gnubg_analyses_it(
) {
    if !gnubg_here() {
        return;
    }
    let app = app(Backend::Sqlite, true).await;
    let me = app.player("challenger").await;
    let game = app
        .create_from(&me, json!({"variant": "backgammon", "options": {"match_length": 3}, "seats": [me.id, {"bot": "gnubg-expert"}]}))
        .await;
    let id = game["id"].as_str().expect("id").to_owned();
    let workers = format!("worp-gnubg-{}/worker.py", std::process::id());
    let finished = play_out(&app, &me, &id, 7, |n| {
        if n == 6 {
            // Every worker of this server killed in the middle of the match.
            let killed = std::process::Command::new("pkill")
                .args(["-9", "-f", &workers])
                .status()
                .expect("pkill");
            assert!(killed.success(), "no gnubg worker to kill");
        }
    })
    .await;
    assert_eq!(finished["status"], "finished");
    assert!(
        app.worp.gnubg_restarts().unwrap_or(0) >= 1,
        "the killed worker was replaced"
    );
    let audit = app.get(&format!("/v1/games/{id}/audit")).await;
    assert_eq!(
        audit.status(),
        200,
        "every bot move passed the engine's rules"
    );

    analysed_as_gnubg_analyses(&app, &id, &me).await;
}

/// Asks for game `id`'s analysis, waits until it is ready, and compares it with gnubg's
/// own analysis of the game's exported match file: per player the equity lost in checker
/// play and in cube decisions, the unforced moves and close cube decisions, the marks
/// and the error rate; and every decision's event is a move of its seat.
async fn analysed_as_gnubg_analyses(app: &TestApp, id: &str, asker: &TestPlayer) {
    let path = format!("/v1/games/{id}/analysis");
    let anonymous = app.get(&path).await;
    assert_eq!(anonymous.status(), 401, "asking takes a player");
    let first = app
        .client
        .get(app.url(&path))
        .bearer_auth(&asker.token)
        .send()
        .await
        .expect("request");
    assert!(
        first.status() == 202 || first.status() == 200,
        "{}",
        first.status()
    );
    let deadline = Instant::now() + Duration::from_secs(120);
    let view = loop {
        let resp = app.get(&path).await;
        if resp.status() == 200 {
            break resp.json::<Value>().await.expect("json");
        }
        assert!(Instant::now() < deadline, "never analysed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(view["state"], "ready", "{view}");
    let analysis = &view["analysis"];
    let mat = app
        .get(&format!("/v1/games/{id}/export?format=mat"))
        .await
        .text()
        .await
        .expect("mat");
    let gnubg = gnubg_statistics(&mat);
    let events = app.events(id).await;
    for seat in 0..2u64 {
        let p = &analysis["players"][seat as usize];
        let decisions: Vec<&Value> = analysis["games"]
            .as_array()
            .expect("games")
            .iter()
            .flat_map(|g| g["decisions"].as_array().expect("decisions"))
            .filter(|d| d["seat"] == seat)
            .collect();
        let lost = |kinds: &[&str]| -> f64 {
            decisions
                .iter()
                .filter(|d| kinds.contains(&d["kind"].as_str().unwrap_or_default()))
                .map(|d| d["equity_lost"].as_f64().expect("lost"))
                .sum()
        };
        let marked = |m: &str| {
            decisions
                .iter()
                .filter(|d| d["kind"] == "checkers" && d["mark"] == m)
                .count() as f64
        };
        let ours = [
            lost(&["checkers"]),
            lost(&["cube", "answer"]),
            p["unforced_moves"].as_f64().expect("n"),
            p["close_cube_decisions"].as_f64().expect("n"),
            marked("doubtful"),
            marked("error"),
            marked("blunder"),
            p["error_rate_memg"].as_f64().expect("rate"),
        ];
        let theirs = gnubg[seat as usize];
        for (i, (a, b)) in ours.iter().zip(theirs).enumerate() {
            // gnubg prints three decimals of errors, one of rates.
            let close = if i == 7 { 0.06 } else { 6e-4 };
            assert!(
                (a - b).abs() < close,
                "seat {seat}, figure {i}: Worp {a}, gnubg {b}\n{analysis}"
            );
        }
        // Every decision names the event that recorded it, a move of its seat.
        for d in &decisions {
            let v = d["version"]
                .as_i64()
                .unwrap_or_else(|| panic!("no version: {d}"));
            let e = &events[(v - 1) as usize];
            assert_eq!(
                (e["type"].as_str(), e["payload"]["seat"].as_u64()),
                (Some("move_played"), Some(seat)),
                "{d}"
            );
        }
    }
}

#[tokio::test]
async fn a_money_game_against_gnubg_intermediate_is_analysed_as_gnubg_analyses_it() {
    if !gnubg_here() {
        return;
    }
    let app = app(Backend::Sqlite, true).await;
    let me = app.player("money player").await;
    let game = app
        .create_from(
            &me,
            json!({"variant": "backgammon", "options": {"cube": true}, "seats": [me.id, {"bot": "gnubg-intermediate"}]}),
        )
        .await;
    let id = game["id"].as_str().expect("id").to_owned();
    let finished = play_out(&app, &me, &id, 11, |_| {}).await;
    assert_eq!(finished["status"], "finished");
    analysed_as_gnubg_analyses(&app, &id, &me).await;
}

#[tokio::test]
async fn expectimax_moves_after_the_answer_that_gave_it_the_turn() {
    let app = app(Backend::Sqlite, false).await;
    let me = app.player("racer").await;
    let game = app
        .create_from(
            &me,
            json!({"variant": "ludo", "seats": [me.id, {"bot": "expectimax"}]}),
        )
        .await;
    let id = game["id"].as_str().expect("id").to_owned();
    play_out(&app, &me, &id, 3, |_| {}).await;
    let events = app.events(&id).await;
    let by_bot = events
        .iter()
        .filter(|e| e["type"] == "move_played" && e["payload"]["seat"] == 1)
        .count();
    assert!(by_bot > 10, "the bot played its seat: {by_bot} moves");
    let audit = app.get(&format!("/v1/games/{id}/audit")).await;
    assert_eq!(audit.status(), 200);
}
