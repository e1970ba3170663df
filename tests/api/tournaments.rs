//! Tournaments over HTTP: refusals that change nothing, and whole tournaments played by
//! bots to the end, exported, audited and rebuilt with the same standings, on both
//! backends (issue 81).

use std::collections::HashMap;

use rand::{rngs::StdRng, Rng, SeedableRng};
use serde_json::{json, Value};
use uuid::Uuid;
use worp::service::tournaments::audit::audit_tournament;
use worp::service::tournaments::views::TournamentExport;

use crate::helpers::{spawn_app, Backend, TestApp, TestPlayer, BACKENDS};

/// A request as `who`, with its status and JSON body (`null` when there is none).
pub(crate) async fn send(
    app: &TestApp,
    method: reqwest::Method,
    path: &str,
    who: &TestPlayer,
    body: Option<Value>,
) -> (u16, Value) {
    let mut req = app
        .client
        .request(method, app.url(path))
        .bearer_auth(&who.token);
    if let Some(b) = body {
        req = req.json(&b);
    }
    let resp = req.send().await.expect("request");
    let status = resp.status().as_u16();
    let text = resp.text().await.expect("body");
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

async fn create(app: &TestApp, who: &TestPlayer, body: Value) -> (u16, Value) {
    send(
        app,
        reqwest::Method::POST,
        "/v1/tournaments",
        who,
        Some(body),
    )
    .await
}

async fn register(app: &TestApp, id: &str, who: &TestPlayer) -> (u16, Value) {
    let path = format!("/v1/tournaments/{id}/players");
    send(app, reqwest::Method::POST, &path, who, None).await
}

async fn start(app: &TestApp, id: &str, who: &TestPlayer) -> (u16, Value) {
    let path = format!("/v1/tournaments/{id}/start");
    send(app, reqwest::Method::POST, &path, who, None).await
}

fn swiss(rounds: u32, max: u32) -> Value {
    json!({
        "name": "Winter Swiss",
        "variant": "backgammon",
        "format": {"kind": "swiss", "rounds": rounds},
        "max_players": max,
        "days_per_move": 3,
    })
}

#[tokio::test]
async fn bad_requests_and_abuse_are_refused_and_change_nothing() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let creator = app.player("creator").await;
        for (body, why) in [
            (
                json!({"name": "x", "variant": "chess", "format": {"kind": "swiss", "rounds": 3}, "max_players": 8, "days_per_move": 3}),
                "unknown variant",
            ),
            (
                json!({"name": "", "variant": "backgammon", "format": {"kind": "swiss", "rounds": 3}, "max_players": 8, "days_per_move": 3}),
                "empty name",
            ),
            (
                json!({"name": "x", "variant": "backgammon", "format": {"kind": "swiss", "rounds": 0}, "max_players": 8, "days_per_move": 3}),
                "no rounds",
            ),
            (
                json!({"name": "x", "variant": "backgammon", "format": {"kind": "swiss", "rounds": 3}, "max_players": 1, "days_per_move": 3}),
                "one player",
            ),
            (
                json!({"name": "x", "variant": "backgammon", "format": {"kind": "swiss", "rounds": 3}, "max_players": 8, "days_per_move": 4}),
                "clock",
            ),
            (
                json!({"name": "x", "variant": "ludo", "format": {"kind": "knockout", "match_points": 3}, "max_players": 8, "days_per_move": 3}),
                "match points outside backgammon",
            ),
            (
                json!({"name": "x", "variant": "backgammon", "format": {"kind": "round_robin", "cycles": 3}, "max_players": 8, "days_per_move": 3}),
                "three cycles",
            ),
            (
                json!({"name": "x", "variant": "backgammon", "format": {"kind": "swiss", "rounds": 3}, "max_players": 8, "days_per_move": 3, "table_size": 4}),
                "four at backgammon",
            ),
            (
                json!({"name": "x", "variant": "backgammon", "format": {"kind": "swiss", "rounds": 3}, "max_players": 8, "days_per_move": 3, "invited": [Uuid::new_v4()]}),
                "an unknown invitee",
            ),
            (
                json!({"name": "x", "variant": "backgammon", "format": {"kind": "swiss"}, "max_players": 8, "days_per_move": 3}),
                "malformed",
            ),
        ] {
            let (status, problem) = create(&app, &creator, body).await;
            assert_eq!(status, 400, "{backend:?} {why}: {problem}");
        }
        let listed = app.get_json("/v1/tournaments").await;
        assert_eq!(listed["tournaments"], json!([]), "{backend:?}");

        let (status, t) = create(&app, &creator, swiss(3, 3)).await;
        assert_eq!(status, 201, "{t}");
        let id = t["id"].as_str().expect("id").to_owned();
        let path = format!("/v1/tournaments/{id}");
        let (a, b, c, d) = (
            app.player("a").await,
            app.player("b").await,
            app.player("c").await,
            app.player("d").await,
        );
        assert_eq!(register(&app, &id, &a).await.0, 200);
        let before = app.get_json(&path).await;
        assert_eq!(before["registered"], 1, "{before}");
        assert_eq!(before["players"][0]["player_id"], json!(a.id), "{before}");
        // Joining twice.
        assert_eq!(register(&app, &id, &a).await.0, 409);
        // Starting with too few, or as another than the creator.
        assert_eq!(start(&app, &id, &creator).await.0, 409);
        assert_eq!(start(&app, &id, &a).await.0, 403);
        // Rules changed by another than the creator.
        let rules =
            json!({"format": {"kind": "swiss", "rounds": 2}, "min_players": 2, "max_players": 3});
        let rules_path = format!("/v1/tournaments/{id}/rules");
        assert_eq!(
            send(
                &app,
                reqwest::Method::PUT,
                &rules_path,
                &a,
                Some(rules.clone())
            )
            .await
            .0,
            403
        );
        // Withdrawing without being registered.
        let me = format!("/v1/tournaments/{id}/players/me");
        assert_eq!(
            send(&app, reqwest::Method::DELETE, &me, &b, None).await.0,
            409
        );
        assert_eq!(
            app.get_json(&path).await,
            before,
            "{backend:?}: refusals changed nothing"
        );

        assert_eq!(register(&app, &id, &b).await.0, 200);
        assert_eq!(register(&app, &id, &c).await.0, 200);
        // Full.
        assert_eq!(register(&app, &id, &d).await.0, 409);
        // Match points are fixed at creation: every game is made with them.
        let knockout = json!({"format": {"kind": "knockout", "match_points": 5}, "min_players": 2, "max_players": 3});
        assert_eq!(
            send(
                &app,
                reqwest::Method::PUT,
                &rules_path,
                &creator,
                Some(knockout)
            )
            .await
            .0,
            400
        );
        // The creator's own change before the start is taken.
        let (status, changed) = send(
            &app,
            reqwest::Method::PUT,
            &rules_path,
            &creator,
            Some(rules.clone()),
        )
        .await;
        assert_eq!(status, 200, "{changed}");
        assert_eq!(changed["format"]["rounds"], 2);
        let (status, started) = start(&app, &id, &creator).await;
        assert_eq!(status, 200, "{started}");
        let running = app.get_json(&path).await;
        assert_eq!(running["status"], "running");
        assert_eq!(
            running["rounds"][0]["tables"].as_array().map(Vec::len),
            Some(1)
        );
        assert_eq!(
            running["rounds"][0]["byes"].as_array().map(Vec::len),
            Some(1)
        );
        // After the start: registering, changing the rules, starting again.
        let (e, _) = (app.player("e").await, ());
        assert_eq!(register(&app, &id, &e).await.0, 409);
        assert_eq!(
            send(
                &app,
                reqwest::Method::PUT,
                &rules_path,
                &creator,
                Some(rules)
            )
            .await
            .0,
            409
        );
        assert_eq!(start(&app, &id, &creator).await.0, 409);
        assert_eq!(
            app.get_json(&path).await,
            running,
            "{backend:?}: refusals changed nothing"
        );
        // An unknown tournament.
        let missing = format!("/v1/tournaments/{}", Uuid::new_v4());
        assert_eq!(app.get(&missing).await.status(), 404);

        // By invitation: only the invited register.
        let body = json!({"name": "Club night", "variant": "hoofden", "format": {"kind": "round_robin", "cycles": 1}, "max_players": 4, "days_per_move": 1, "invited": [a.id]});
        let (status, closed) = create(&app, &creator, body).await;
        assert_eq!(status, 201, "{closed}");
        let closed = closed["id"].as_str().expect("id").to_owned();
        assert_eq!(register(&app, &closed, &b).await.0, 403);
        assert_eq!(register(&app, &closed, &a).await.0, 200);
        let lobby = app.get_json("/v1/tournaments?status=registering").await;
        let ids: Vec<&str> = lobby["tournaments"]
            .as_array()
            .expect("list")
            .iter()
            .filter_map(|t| t["id"].as_str())
            .collect();
        assert_eq!(
            ids,
            vec![closed.as_str()],
            "{backend:?}: the lobby lists the open one"
        );
        assert_eq!(app.get("/v1/tournaments?status=over").await.status(), 400);

        // One player does not fill the lobby: ten unfinished tournaments at most.
        let spammer = app.player("spammer").await;
        for _ in 0..10 {
            assert_eq!(create(&app, &spammer, swiss(3, 8)).await.0, 201);
        }
        let (status, problem) = create(&app, &spammer, swiss(3, 8)).await;
        assert_eq!(status, 429, "{backend:?}: {problem}");
    }
}

/// Plays every tournament game with a move to make, one move each, for the players in
/// `players` (moves chosen at random from the legal ones); returns how many it played.
async fn play_round_of_moves(
    app: &TestApp,
    view: &Value,
    players: &HashMap<Uuid, TestPlayer>,
    rng: &mut StdRng,
) -> usize {
    let mut played = 0;
    for round in view["rounds"].as_array().expect("rounds") {
        for table in round["tables"].as_array().expect("tables") {
            if !table["result"].is_null() {
                continue;
            }
            let id = table["game_id"].as_str().expect("game");
            let resp = app.get(&format!("/v1/games/{id}")).await;
            if resp.status() != 200 {
                continue; // Not made yet.
            }
            let game: Value = resp.json().await.expect("json");
            if game["status"] != "active" {
                continue;
            }
            let Some(seat) = game["to_move"].as_u64() else {
                continue;
            };
            let player: Uuid = table["seats"][seat as usize]
                .as_str()
                .expect("seat")
                .parse()
                .expect("uuid");
            let moves = game["legal_moves"].as_array().expect("moves");
            if moves.is_empty() {
                continue;
            }
            let mv = moves[rng.random_range(0..moves.len())].clone();
            let resp = app
                .play_if_match(
                    id,
                    &players[&player],
                    mv,
                    game["version"].as_i64().expect("v"),
                )
                .await;
            assert!(
                [200, 409, 412].contains(&resp.status().as_u16()),
                "{}",
                resp.text().await.unwrap_or_default()
            );
            played += 1;
        }
    }
    played
}

/// A tournament created by a fresh creator for `n` players, played by bots to the end;
/// returns its final page and its export.
async fn play_tournament(app: &TestApp, body: Value, n: usize, seed: u64) -> (Value, Value) {
    let creator = app.player("director").await;
    let (status, t) = create(app, &creator, body).await;
    assert_eq!(status, 201, "{t}");
    let id = t["id"].as_str().expect("id").to_owned();
    let mut players = HashMap::new();
    for i in 0..n {
        let p = app.player(&format!("bot{i}")).await;
        assert_eq!(register(app, &id, &p).await.0, 200);
        players.insert(p.id, p);
    }
    let (status, started) = start(app, &id, &creator).await;
    assert_eq!(status, 200, "{started}");
    let mut rng = StdRng::seed_from_u64(seed);
    let until = tokio::time::Instant::now() + std::time::Duration::from_secs(600);
    let view = loop {
        let view = app.get_json(&format!("/v1/tournaments/{id}")).await;
        if view["status"] == "finished" {
            break view;
        }
        let played = play_round_of_moves(app, &view, &players, &mut rng).await;
        assert!(
            tokio::time::Instant::now() < until,
            "the tournament ends: {view}"
        );
        if played == 0 {
            // The driver is recording results or pairing the next round.
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    };
    let export = app.get_json(&format!("/v1/tournaments/{id}/export")).await;
    (view, export)
}

/// Audits `export`, checks that a changed result breaks the audit, then rebuilds the
/// tournaments' rows and checks the page is the same.
async fn audit_and_rebuild(app: &TestApp, view: &Value, export: &Value) {
    let x: TournamentExport = serde_json::from_value(export.clone()).expect("an export");
    let report = audit_tournament(&x).expect("the audit passes");
    assert!(report.finished);
    let points: Vec<f64> = view["standings"]
        .as_array()
        .expect("standings")
        .iter()
        .map(|s| s["points"].as_f64().expect("points"))
        .collect();
    assert_eq!(
        report.standings.iter().map(|s| s.2).collect::<Vec<_>>(),
        points,
        "the audit's standings are the page's"
    );
    // A result that is not its game's is caught.
    let mut forged = x.clone();
    let at = forged
        .events
        .iter()
        .position(|e| e.kind == "result_recorded")
        .expect("a result");
    let mut payload: Value = serde_json::from_str(&forged.events[at].payload).expect("json");
    let other = x.games[0].seats[0].expect("a player");
    payload["outcome"] = json!({"kind": "winner", "player": other});
    payload["game_id"] = json!(x.games.last().expect("a game").game_id);
    forged.events[at].payload = payload.to_string();
    assert!(
        audit_tournament(&forged).is_err(),
        "a forged result is caught"
    );
    // The same by `worp audit FILE`.
    let dir = std::env::temp_dir().join(format!("worp-tournament-{}", Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).expect("dir");
    for (name, x, code, says) in [
        ("export.json", &x, 0, "OK"),
        ("forged.json", &forged, 1, "BROKEN"),
    ] {
        let file = dir.join(name);
        std::fs::write(&file, serde_json::to_string(x).expect("json")).expect("write");
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_worp"))
            .arg("audit")
            .arg(&file)
            .output()
            .expect("worp audit runs");
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(code), "{text}");
        assert!(text.contains(says), "{text}");
    }
    let _ = std::fs::remove_dir_all(&dir);

    let before = app.get_json("/v1/tournaments?status=finished").await;
    assert_eq!(
        app.worp.rebuild_tournaments().await.expect("rebuild"),
        before["tournaments"].as_array().map_or(0, Vec::len)
    );
    let id = view["id"].as_str().expect("id");
    let rebuilt = app.get_json(&format!("/v1/tournaments/{id}")).await;
    assert_eq!(
        rebuilt["standings"], view["standings"],
        "the same standings"
    );
    assert_eq!(
        app.get_json("/v1/tournaments?status=finished").await,
        before
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_swiss_of_16_players_and_5_rounds_is_played_audited_and_rebuilt() {
    for (i, backend) in [Backend::Postgres, Backend::Sqlite].into_iter().enumerate() {
        let app = spawn_app(backend).await;
        let (view, export) = play_tournament(&app, swiss(5, 16), 16, 81 + i as u64).await;
        assert_eq!(
            view["rounds"].as_array().map(Vec::len),
            Some(5),
            "{backend:?}"
        );
        for round in view["rounds"].as_array().expect("rounds") {
            assert_eq!(round["tables"].as_array().map(Vec::len), Some(8));
        }
        let standings = view["standings"].as_array().expect("standings");
        assert_eq!(standings.len(), 16);
        let total: f64 = standings
            .iter()
            .map(|s| s["points"].as_f64().expect("p"))
            .sum();
        assert_eq!(total, 40.0, "{backend:?}: a point for each of the 40 games");
        audit_and_rebuild(&app, &view, &export).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_8_player_backgammon_knockout_of_3_point_matches_is_played_audited_and_rebuilt() {
    for (i, backend) in [Backend::Postgres, Backend::Sqlite].into_iter().enumerate() {
        let app = spawn_app(backend).await;
        let body = json!({
            "name": "Cup",
            "variant": "backgammon",
            "format": {"kind": "knockout", "match_points": 3},
            "max_players": 8,
            "days_per_move": 2,
        });
        let (view, export) = play_tournament(&app, body, 8, 810 + i as u64).await;
        let tables: Vec<usize> = view["rounds"]
            .as_array()
            .expect("rounds")
            .iter()
            .map(|r| r["tables"].as_array().map_or(0, Vec::len))
            .collect();
        assert_eq!(tables, vec![4, 2, 1], "{backend:?}");
        assert_eq!(view["options"]["match_length"], 3);
        let x: TournamentExport = serde_json::from_value(export.clone()).expect("export");
        assert!(x.games.iter().all(|g| g.options["match_length"] == 3));
        let champion = &view["rounds"][2]["tables"][0]["result"]["winner"];
        assert_eq!(&view["standings"][0]["player_id"], champion, "{backend:?}");
        audit_and_rebuild(&app, &view, &export).await;
    }
}
