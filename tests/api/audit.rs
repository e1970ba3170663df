//! Exports audit clean, and every kind of tampering is caught (offline and by `worp audit`).

use serde_json::json;
use worp::export::{audit_export, Export};
use worp_engine::playout::SplitMix64;

use crate::helpers::{spawn_app, Backend, TestApp};
use crate::play::two_seat_variant;

async fn finished_export(app: &TestApp) -> Export {
    let (a, b, game) = app.two_player_game(two_seat_variant()).await;
    let id = game["id"].as_str().expect("id").to_owned();
    let mut rng = SplitMix64(5);
    let mut game = game;
    while game["status"] == "active" {
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
    let x: Export = serde_json::from_value(app.get_json(&format!("/v1/games/{id}/export")).await)
        .expect("export");
    assert_eq!(
        x.events.len() as i64,
        game["version"].as_i64().expect("version")
    );
    let served = app.get_json(&format!("/v1/games/{id}/audit")).await;
    assert_eq!(served["events"].as_u64(), Some(x.events.len() as u64));
    x
}

/// Re-chains the hashes from event `from` on, as a forger who rewrites history would.
fn rehash(x: &mut Export, from: usize) {
    for i in from..x.events.len() {
        let prev = if i == 0 {
            String::new()
        } else {
            x.events[i - 1].hash.clone()
        };
        x.events[i].hash = x.events[i].chain_hash(&prev);
    }
    x.head_hash = x.events.last().map(|e| e.hash.clone()).unwrap_or_default();
}

fn index_of(x: &Export, kind: &str, nth: usize) -> usize {
    x.events
        .iter()
        .enumerate()
        .filter(|(_, e)| e.kind == kind)
        .nth(nth)
        .map(|(i, _)| i)
        .expect("such an event")
}

fn caught(x: &Export, what: &str) -> String {
    let err = audit_export(x).expect_err(what).to_string();
    assert!(err.starts_with("event "), "{what}: {err}");
    err
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_kind_of_tampering_is_caught() {
    let app = spawn_app(Backend::Sqlite).await;
    let x = finished_export(&app).await;
    let report = audit_export(&x).expect("the untouched export audits clean");
    assert!(report.seed_revealed && report.rolls_verified > 0 && report.moves_replayed > 0);

    // A changed die, without and with a re-forged chain.
    let d = index_of(&x, "dice_rolled", 3);
    let mut t = x.clone();
    let v = t.events[d].payload["values"][0].as_u64().expect("value");
    t.events[d].payload["values"][0] = json!(if v == 1 { 2 } else { 1 });
    let e = caught(&t, "changed die");
    assert!(e.contains("hash"), "{e}");
    rehash(&mut t, d);
    let e = caught(&t, "changed die, chain re-forged");
    assert!(e.contains(&format!("event {}", d + 1)), "{e}");

    // A move swapped for one that is not legal there, chain re-forged.
    let m = index_of(&x, "move_played", 1);
    let mut t = x.clone();
    t.events[m].payload["move"] = json!({"not": "a move"});
    rehash(&mut t, m);
    let e = caught(&t, "swapped move");
    assert!(
        e.contains(&format!("event {}", m + 1)) && e.contains("move"),
        "{e}"
    );

    // A removed event, and two events in swapped order.
    let mut t = x.clone();
    t.events.remove(m);
    caught(&t, "removed event");
    let mut t = x.clone();
    t.events.swap(m, m + 1);
    caught(&t, "reordered events");
    let mut t = x.clone();
    t.events.swap(m, m + 1);
    let (s1, s2) = (t.events[m].seq, t.events[m + 1].seq);
    t.events[m].seq = s2;
    t.events[m + 1].seq = s1;
    rehash(&mut t, m);
    caught(&t, "reordered events, renumbered and re-forged");

    // A changed seed: in the final event (re-forged), or only in the header.
    let last = x.events.len() - 1;
    let mut t = x.clone();
    t.events[last].payload["server_seed"] = json!("00".repeat(32));
    t.server_seed = Some("00".repeat(32));
    rehash(&mut t, last);
    let e = caught(&t, "changed seed");
    assert!(e.contains("commitment"), "{e}");
    let mut t = x.clone();
    t.server_seed = Some("11".repeat(32));
    caught(&t, "changed header seed");

    // A changed hash, a changed result, a changed time.
    let mut t = x.clone();
    t.events[2].hash = "ab".repeat(32);
    caught(&t, "changed hash");
    let mut t = x.clone();
    if let Some(r) = t.result.as_mut() {
        r.points += 1;
    }
    caught(&t, "changed result");
    let mut t = x.clone();
    t.events[4].recorded_at += chrono::Duration::seconds(1);
    caught(&t, "changed time");

    // The command line: exit 0 for the real export, non-zero naming the event otherwise.
    let dir = std::env::temp_dir().join(format!("worp-audit-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).expect("dir");
    let good = dir.join("good.json");
    std::fs::write(&good, serde_json::to_vec(&x).expect("json")).expect("write");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_worp"))
        .arg("audit")
        .arg(&good)
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let mut t = x.clone();
    t.events[d].payload["values"][0] = json!(7);
    let bad = dir.join("bad.json");
    std::fs::write(&bad, serde_json::to_vec(&t).expect("json")).expect("write");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_worp"))
        .arg("audit")
        .arg(&bad)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("BROKEN") && text.contains(&format!("event {}", d + 1)),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ongoing_game_exports_everything_but_the_seed() {
    let app = spawn_app(Backend::Sqlite).await;
    let (_, _, game) = app.two_player_game(two_seat_variant()).await;
    let id = game["id"].as_str().expect("id");
    let x: Export = serde_json::from_value(app.get_json(&format!("/v1/games/{id}/export")).await)
        .expect("export");
    assert_eq!(x.server_seed, None);
    assert_eq!(x.status, "active");
    let text = serde_json::to_string(&x).expect("json");
    let secret = app
        .store
        .secret(x.game_id)
        .await
        .expect("secret")
        .expect("seed");
    assert!(
        !text.contains(&hex::encode(secret)),
        "the seed must not leak"
    );
    let r = audit_export(&x).expect("audits");
    assert!(!r.seed_revealed && r.rolls_verified == 0);
}
