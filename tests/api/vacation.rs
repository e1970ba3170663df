//! Vacations: a player's clocks are paused while they are away, on both backends, with
//! the clock moved by hand across a simulated week; starting and ending are events of
//! each game, so the export audits clean and explains the deadline.

use chrono::{DateTime, Duration, Utc};
use serde_json::{json, Value};

use crate::helpers::{spawn_app_with, Backend, ManualClock, TestApp, TestPlayer, BACKENDS};

fn time(v: &Value) -> DateTime<Utc> {
    serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("a time, not {v}: {e}"))
}

async fn send(
    app: &TestApp,
    method: reqwest::Method,
    who: &TestPlayer,
    body: Option<Value>,
) -> (u16, Value) {
    let mut req = app
        .client
        .request(method, app.url("/v1/players/me/vacation"))
        .bearer_auth(&who.token);
    if let Some(body) = body {
        req = req.json(&body);
    }
    let resp = req.send().await.expect("request");
    let status = resp.status().as_u16();
    let body = resp.json().await.unwrap_or(Value::Null);
    (status, body)
}

async fn start(app: &TestApp, who: &TestPlayer, days: u32) -> (u16, Value) {
    send(
        app,
        reqwest::Method::POST,
        who,
        Some(json!({ "days": days })),
    )
    .await
}

async fn end(app: &TestApp, who: &TestPlayer) -> u16 {
    send(app, reqwest::Method::DELETE, who, None).await.0
}

async fn status(app: &TestApp, who: &TestPlayer) -> Value {
    app.get_json_as("/v1/players/me/vacation", who).await
}

/// A backgammon game `creator` made with a clock of `days` against `other`, who accepted.
async fn clocked(app: &TestApp, creator: &TestPlayer, other: &TestPlayer, days: u32) -> Value {
    app.create_from(
        creator,
        json!({"variant": "backgammon", "seats": [creator.id, other.id], "days_per_move": days}),
    )
    .await
}

/// A backgammon game with a 3-day clock between two new players; the player to move and
/// the seat they hold.
async fn clocked_game(app: &TestApp) -> (TestPlayer, TestPlayer, String, usize) {
    let (a, b) = (app.player("a").await, app.player("b").await);
    let game = clocked(app, &a, &b, 3).await;
    let id = game["id"].as_str().expect("id").to_owned();
    let seat = game["to_move"].as_u64().expect("a seat to move") as usize;
    let (mover, other) = if seat == 0 { (a, b) } else { (b, a) };
    (mover, other, id, seat)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vacation_pauses_the_clock_across_a_week_and_the_audit_explains_it() {
    for backend in BACKENDS {
        let clock = ManualClock::new();
        let app = spawn_app_with(backend, clock.clone()).await;
        let (mover, _other, id, seat) = clocked_game(&app).await;
        let game = app.get_json(&format!("/v1/games/{id}")).await;
        let first_deadline = time(&game["deadline"]);

        // A day into the move, its player goes away for a week: two days were left.
        clock.advance(Duration::days(1));
        let (code, body) = start(&app, &mover, 7).await;
        assert_eq!(code, 201, "{body}");
        assert_eq!(body["allowance_days"], 30);
        assert_eq!(body["used_days"], 7);
        assert_eq!(body["remaining_days"], 23);
        let until = time(&body["current"]["until"]);
        assert_eq!(until, first_deadline + Duration::days(5));
        let game = app.get_json(&format!("/v1/games/{id}")).await;
        assert_eq!(time(&game["seats"][seat]["vacation_until"]), until);
        assert!(game["seats"][1 - seat]["vacation_until"].is_null());
        assert_eq!(time(&game["deadline"]), until + Duration::days(2));
        let profile = app.get_json(&format!("/v1/players/{}", mover.id)).await;
        assert_eq!(time(&profile["vacation_until"]), until);

        // The simulated week, past what was the deadline: no time-out, no end yet.
        for _ in 0..6 {
            clock.advance(Duration::days(1));
            assert_eq!(app.worp.sweep_vacations().await.expect("sweep"), 0);
            assert_eq!(app.worp.sweep_deadlines().await.expect("sweep"), 0);
        }
        let game = app.get_json(&format!("/v1/games/{id}")).await;
        assert_eq!(game["status"], "active");

        // At `until` the sweep ends the vacation: the two days run from then.
        clock.advance(Duration::days(1));
        assert_eq!(app.worp.sweep_vacations().await.expect("sweep"), 1);
        assert_eq!(app.worp.sweep_deadlines().await.expect("sweep"), 0);
        let game = app.get_json(&format!("/v1/games/{id}")).await;
        assert!(game["seats"][seat]["vacation_until"].is_null());
        assert_eq!(time(&game["deadline"]), until + Duration::days(2));
        let now = status(&app, &mover).await;
        assert!(now["current"].is_null(), "{now}");
        assert_eq!(now["used_days"], 7);
        let profile = app.get_json(&format!("/v1/players/{}", mover.id)).await;
        assert!(profile["vacation_until"].is_null());

        // Past it, the time-out fires.
        clock.advance(Duration::days(2) - Duration::seconds(1));
        assert_eq!(app.worp.sweep_deadlines().await.expect("sweep"), 0);
        clock.advance(Duration::seconds(2));
        assert_eq!(app.worp.sweep_deadlines().await.expect("sweep"), 1);
        let game = app.get_json(&format!("/v1/games/{id}")).await;
        assert_eq!(game["reason"], "timed_out");

        // The log says why, and audits clean.
        let events = app.events(&id).await;
        let started = events
            .iter()
            .find(|e| e["type"] == "vacation_started")
            .expect("vacation_started");
        assert_eq!(started["payload"]["seat"], seat);
        assert_eq!(time(&started["payload"]["until"]), until);
        let ended = events
            .iter()
            .find(|e| e["type"] == "vacation_ended")
            .expect("vacation_ended");
        assert_eq!(ended["payload"]["seat"], seat);
        assert_eq!(time(&ended["recorded_at"]), until);
        let export: worp::export::Export =
            serde_json::from_value(app.get_json(&format!("/v1/games/{id}/export")).await)
                .expect("an export");
        let report = worp::export::audit_export(&export).expect("the export audits clean");
        assert_eq!(report.vacation_events, 2);
        let served = app.get_json(&format!("/v1/games/{id}/audit")).await;
        assert_eq!(served["vacation_events"], 2);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_allowance_is_counted_in_days_begun() {
    let clock = ManualClock::new();
    let app = spawn_app_with(Backend::Sqlite, clock.clone()).await;
    let (mover, _other, id, _) = clocked_game(&app).await;
    let (code, problem) = start(&app, &mover, 31).await;
    assert_eq!(code, 422);
    assert_eq!(
        problem["detail"],
        "31 days of vacation asked; 1 to 30 may be asked this year"
    );
    let (code, problem) = start(&app, &mover, 0).await;
    assert_eq!(code, 422);
    assert_eq!(problem["type"], "/problems/out-of-allowance");
    assert_eq!(end(&app, &mover).await, 409, "not on vacation");
    let before = app.get_json(&format!("/v1/games/{id}")).await;

    // Ended early after a day and a half: two days begun count.
    assert_eq!(start(&app, &mover, 20).await.0, 201);
    assert_eq!(start(&app, &mover, 1).await.0, 409, "on vacation already");
    clock.advance(Duration::hours(36));
    assert_eq!(end(&app, &mover).await, 204);
    assert_eq!(end(&app, &mover).await, 409);
    let after = status(&app, &mover).await;
    assert_eq!(after["used_days"], 2);
    assert_eq!(after["remaining_days"], 28);
    // The clock was paused for the day and a half.
    let game = app.get_json(&format!("/v1/games/{id}")).await;
    assert_eq!(
        time(&game["deadline"]),
        time(&before["deadline"]) + Duration::hours(36)
    );
    assert_eq!(
        start(&app, &mover, 29).await.0,
        422,
        "the allowance is spent"
    );
    let (code, body) = start(&app, &mover, 28).await;
    assert_eq!(code, 201, "{body}");
    assert_eq!(body["remaining_days"], 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_taken_or_a_game_created_during_a_vacation_starts_paused() {
    for backend in BACKENDS {
        let clock = ManualClock::new();
        let app = spawn_app_with(backend, clock.clone()).await;
        let (a, b) = (app.player("a").await, app.player("b").await);
        let (_, away) = start(&app, &b, 5).await;
        let until = time(&away["current"]["until"]);

        // b accepts an invitation while away: the seat is paused in the same change.
        let game = clocked(&app, &a, &b, 3).await;
        let id = game["id"].as_str().expect("id").to_owned();
        assert_eq!(time(&game["seats"][1]["vacation_until"]), until);
        assert!(game["seats"][0]["vacation_until"].is_null());
        let expected = if game["to_move"] == 1 {
            until + Duration::days(3)
        } else {
            time(&game["created_at"]) + Duration::days(3)
        };
        assert_eq!(time(&game["deadline"]), expected);
        let events = app.events(&id).await;
        let taken = events
            .iter()
            .position(|e| e["type"] == "seat_taken")
            .expect("seat_taken");
        assert_eq!(events[taken + 1]["type"], "vacation_started");
        assert_eq!(
            events[taken + 1]["recorded_at"],
            events[taken]["recorded_at"]
        );

        // b creates a game while away: their own seat starts paused too; one without a
        // clock has no vacation.
        let own = clocked(&app, &b, &a, 1).await;
        assert_eq!(time(&own["seats"][0]["vacation_until"]), until);
        let unclocked = app
            .create_from(&b, json!({"variant": "backgammon", "seats": [b.id, a.id]}))
            .await;
        assert!(unclocked["seats"][0]["vacation_until"].is_null());
    }
}
