//! Notifications by e-mail, checked from what a real SMTP server (aiosmtpd, `smtp.rs`)
//! receives: the confirmation of an address, each kind of notice, coalescing, the
//! one-click unsubscribe, the digest, clock reminders, retries after refusals, a
//! permanent refusal, the limits on confirmation mails, and no duplicate after the
//! server is killed between queueing and sending.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use uuid::Uuid;

use crate::helpers::{
    fresh_database, spawn_app_from, test_settings, Backend, ManualClock, TestApp, TestPlayer,
    BACKENDS,
};
use crate::smtp::{Received, SmtpSink};

async fn app_with_mail(backend: Backend, clock: Arc<ManualClock>, sink: &SmtpSink) -> TestApp {
    let (url, dir) = fresh_database(backend).await;
    let mut settings = test_settings(url);
    settings.notify.smtp_url = Some(sink.url());
    settings.notify.from = "Worp <noreply@worp.example>".into();
    spawn_app_from(settings, clock, dir).await
}

async fn put(app: &TestApp, path: &str, who: &TestPlayer, body: Value) -> reqwest::Response {
    app.client
        .put(app.url(path))
        .bearer_auth(&who.token)
        .json(&body)
        .send()
        .await
        .expect("request")
}

/// A link of a mail, on the test's server (mails name `WORP_PUBLIC_URL`).
fn local(app: &TestApp, link: &str) -> String {
    app.url(
        link.strip_prefix("http://localhost")
            .expect("a link to the server"),
    )
}

/// Gives `who` the address `address` and confirms it through the mail's link; the
/// confirmation mail.
async fn confirm(app: &TestApp, sink: &SmtpSink, who: &TestPlayer, address: &str) -> Received {
    let before = sink.mails().len();
    let resp = put(
        app,
        "/v1/players/me/email",
        who,
        json!({ "address": address }),
    )
    .await;
    assert_eq!(resp.status(), 202);
    let view: Value = resp.json().await.expect("json");
    assert_eq!(view["confirmed"], false);
    let mail = sink.wait_for(before + 1).await.remove(before);
    assert_eq!(mail.subject(), "Confirm your e-mail address for Worp");
    assert_eq!(mail.header("x-envelope-to"), Some(address));
    assert!(mail.header("list-unsubscribe").is_none());
    let link = mail
        .link("http://localhost/v1/email/confirm?token=")
        .expect("a confirmation link");
    // The link opens a page with a button; only the button's POST confirms.
    let page = app
        .client
        .get(local(app, &link))
        .send()
        .await
        .expect("page");
    assert_eq!(page.status(), 200);
    assert!(page.text().await.expect("html").contains("<button"));
    let view = app.get_json_as("/v1/players/me/email", who).await;
    assert_eq!(
        view["confirmed"], false,
        "opening the link confirms nothing"
    );
    let resp = app
        .client
        .post(local(app, &link))
        .send()
        .await
        .expect("confirm");
    assert_eq!(resp.status(), 200);
    let view: Value = resp.json().await.expect("json");
    assert_eq!(view["confirmed"], true);
    // A link works once.
    let again = app
        .client
        .post(local(app, &link))
        .send()
        .await
        .expect("again");
    assert_eq!(again.status(), 404);
    mail
}

/// Every kind of notice by e-mail at once, no push.
async fn mail_everything(app: &TestApp, who: &TestPlayer) {
    let channels = json!({ "email": "now", "push": false });
    let resp = put(
        app,
        "/v1/players/me/notifications",
        who,
        json!({
            "your_turn": channels, "invited": channels, "game_finished": channels,
            "message": channels, "clock_reminder": channels,
            "quiet_hours": null, "time_zone": "UTC", "digest_hour": 8
        }),
    )
    .await;
    assert_eq!(resp.status(), 200);
}

/// Plays the first legal move for whoever is to move until `who` is; the game then.
async fn until_turn_of(
    app: &TestApp,
    id: &str,
    players: &[&TestPlayer],
    who: &TestPlayer,
) -> Value {
    for _ in 0..200 {
        let game = app.get_json(&format!("/v1/games/{id}")).await;
        let to_move = game["to_move"]
            .as_u64()
            .and_then(|s| game["seats"][s as usize]["player_id"].as_str())
            .map(str::to_owned);
        if to_move.as_deref() == Some(&who.id.to_string()) {
            return game;
        }
        let mover = players
            .iter()
            .find(|p| Some(p.id.to_string()) == to_move)
            .unwrap_or_else(|| panic!("nobody of this test is to move: {game}"));
        let mv = game["legal_moves"][0].clone();
        let resp = app
            .post(
                &format!("/v1/games/{id}/moves"),
                mover,
                json!({ "move": mv }),
            )
            .await;
        assert_eq!(
            resp.status(),
            200,
            "{}",
            resp.text().await.unwrap_or_default()
        );
    }
    panic!("{} never got the turn", who.id);
}

/// Waits until `who`'s outbox has a row of `channel` with `status`.
async fn until_outbox(app: &TestApp, who: &TestPlayer, channel: &str, status: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let rows = app.worp.outbox_of(who.id).await.expect("outbox");
        if rows.iter().any(|r| r.0 == channel && r.1 == status) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "no {status} {channel} row: {rows:?}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Moves the clock on by `step` until `n` mails have arrived.
async fn advance_until_mails(
    sink: &SmtpSink,
    clock: &ManualClock,
    step: chrono::Duration,
    n: usize,
) -> Vec<Received> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let mails = sink.mails();
        if mails.len() >= n {
            return mails;
        }
        assert!(Instant::now() < deadline, "{} mails, not {n}", mails.len());
        clock.advance(step);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn post_message(app: &TestApp, id: &str, who: &TestPlayer, text: &str) {
    let resp = app
        .post(
            &format!("/v1/games/{id}/messages"),
            who,
            json!({ "text": text }),
        )
        .await;
    assert_eq!(
        resp.status(),
        201,
        "{}",
        resp.text().await.unwrap_or_default()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_away_hears_of_their_games_by_mail_and_unsubscribes_in_one_click() {
    for backend in BACKENDS {
        let sink = SmtpSink::start();
        let clock = ManualClock::new();
        let app = app_with_mail(backend, clock.clone(), &sink).await;
        let ada = app.player("ada").await;
        let bob = app.player("bob").await;
        confirm(&app, &sink, &ada, "ada@example.org").await;
        mail_everything(&app, &ada).await;

        // Bob invites Ada: a mail of its own, at once.
        let resp = app
            .post(
                "/v1/games",
                &bob,
                json!({ "variant": "backgammon", "seats": [bob.id, ada.id] }),
            )
            .await;
        assert_eq!(resp.status(), 201);
        let game: Value = resp.json().await.expect("json");
        let id = game["id"].as_str().expect("id").to_owned();
        let invited = sink.wait_for(2).await.remove(1);
        let bob_name = app.get_json(&format!("/v1/players/{}", bob.id)).await["name"]
            .as_str()
            .expect("name")
            .to_owned();
        assert_eq!(
            invited.subject(),
            format!("{bob_name} invites you to a game of Backgammon")
        );
        assert!(
            invited
                .body
                .contains(&format!("http://localhost/#/game/{id}")),
            "{}",
            invited.body
        );
        assert!(
            !invited.body.contains("worp_"),
            "no credential in a mail: {}",
            invited.body
        );
        assert!(
            !invited.body.contains(&bob.id.to_string()),
            "{}",
            invited.body
        );
        let unsubscribe = invited
            .header("list-unsubscribe")
            .expect("List-Unsubscribe");
        assert!(
            unsubscribe.starts_with("<http://localhost/v1/email/unsubscribe?key="),
            "{unsubscribe}"
        );
        assert!(unsubscribe.ends_with("&kinds=invited>"), "{unsubscribe}");
        assert_eq!(
            invited.header("list-unsubscribe-post"),
            Some("List-Unsubscribe=One-Click")
        );
        assert!(invited
            .header("message-id")
            .is_some_and(|m| m.ends_with("@localhost>")));

        // Ada takes her seat; her turn and Bob's message within a few minutes of the
        // first mail wait for one mail together.
        let resp = app
            .post(&format!("/v1/games/{id}/seats/1"), &ada, Value::Null)
            .await;
        assert_eq!(resp.status(), 200);
        until_turn_of(&app, &id, &[&ada, &bob], &ada).await;
        post_message(&app, &id, &bob, "good luck").await;
        until_outbox(&app, &ada, "email", "pending").await;
        assert_eq!(sink.mails().len(), 2, "coalesced: nothing yet");
        let mails = advance_until_mails(&sink, &clock, chrono::Duration::seconds(30), 3).await;
        let both = &mails[2];
        assert!(
            both.body
                .contains(&format!("Your turn against {bob_name} (Backgammon)")),
            "{}",
            both.body
        );
        assert!(
            both.body
                .contains(&format!("{bob_name} wrote in your game of Backgammon")),
            "{}",
            both.body
        );
        assert!(
            !both.body.contains("good luck"),
            "a notice does not carry the message"
        );

        // One click: those two kinds stop by mail, the invitations go on.
        let link = both.header("list-unsubscribe").expect("List-Unsubscribe");
        let link = local(&app, link.trim_matches(['<', '>']));
        let resp = app
            .client
            .post(&link)
            .header("content-type", "application/x-www-form-urlencoded")
            .body("List-Unsubscribe=One-Click")
            .send()
            .await
            .expect("unsubscribe");
        assert_eq!(resp.status(), 200);
        let prefs = app.get_json_as("/v1/players/me/notifications", &ada).await;
        assert_eq!(prefs["your_turn"]["email"], "off");
        assert_eq!(prefs["message"]["email"], "off");
        assert_eq!(prefs["invited"]["email"], "now");

        // The digest: her turns in one mail a day, at her digest hour.
        let mut prefs = prefs;
        prefs["your_turn"]["email"] = json!("digest");
        prefs["digest_hour"] = json!(8);
        assert_eq!(
            put(&app, "/v1/players/me/notifications", &ada, prefs)
                .await
                .status(),
            200
        );
        let game = app.get_json(&format!("/v1/games/{id}")).await;
        let resp = app
            .post(
                &format!("/v1/games/{id}/moves"),
                &ada,
                json!({ "move": game["legal_moves"][0] }),
            )
            .await;
        assert_eq!(resp.status(), 200);
        until_turn_of(&app, &id, &[&ada, &bob], &ada).await;
        until_outbox(&app, &ada, "digest", "pending").await;
        let mails = advance_until_mails(&sink, &clock, chrono::Duration::minutes(30), 4).await;
        let digest = &mails[3];
        assert_eq!(digest.subject(), "Your day on Worp: 1 news");
        assert!(digest
            .body
            .contains(&format!("Your turn against {bob_name} (Backgammon)")));
        assert!(digest
            .header("list-unsubscribe")
            .is_some_and(|l| l.contains("kinds=your_turn")));
        assert_eq!(sink.mails().len(), 4, "{backend:?}: nothing twice");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_are_retried_and_a_permanent_one_disables_the_address() {
    let sink = SmtpSink::start();
    let clock = ManualClock::new();
    let app = app_with_mail(Backend::Sqlite, clock.clone(), &sink).await;
    let ada = app.player("ada").await;
    let bob = app.player("bob").await;
    confirm(&app, &sink, &ada, "ada@example.org").await;
    mail_everything(&app, &ada).await;
    let resp = app
        .post(
            "/v1/games",
            &bob,
            json!({ "variant": "backgammon", "seats": [bob.id, ada.id] }),
        )
        .await;
    assert_eq!(resp.status(), 201);
    let id = resp.json::<Value>().await.expect("json")["id"]
        .as_str()
        .expect("id")
        .to_owned();
    // Wait for the invitation's mail, so that what follows is a new mail.
    sink.wait_for(2).await;
    let resp = app
        .post(&format!("/v1/games/{id}/seats/1"), &ada, Value::Null)
        .await;
    assert_eq!(resp.status(), 200);
    let mut prefs = app.get_json_as("/v1/players/me/notifications", &ada).await;
    prefs["your_turn"]["email"] = json!("off");
    assert_eq!(
        put(&app, "/v1/players/me/notifications", &ada, prefs)
            .await
            .status(),
        200
    );

    // Twice "try again later", then accepted: one mail, after three attempts.
    sink.refuse(&["451 4.3.0 Try again later", "451 4.3.0 Try again later"]);
    clock.advance(chrono::Duration::minutes(10));
    post_message(&app, &id, &bob, "hello").await;
    let mails = advance_until_mails(&sink, &clock, chrono::Duration::seconds(1), 3).await;
    assert!(mails[2]
        .subject()
        .contains("wrote in your game of Backgammon"));
    let rows = app.worp.outbox_of(ada.id).await.expect("outbox");
    let sent = rows
        .iter()
        .find(|r| r.0 == "email" && r.1 == "sent")
        .expect("sent");
    assert_eq!(rows[0].3, 3, "three attempts: {rows:?}");
    let _ = sent;

    // "No such mailbox": the address is disabled, the player is told, nothing more goes.
    sink.refuse(&["550 5.1.1 No such mailbox"]);
    clock.advance(chrono::Duration::minutes(10));
    post_message(&app, &id, &bob, "are you there?").await;
    let deadline = Instant::now() + Duration::from_secs(30);
    let view = loop {
        let view = app.get_json_as("/v1/players/me/email", &ada).await;
        if !view["disabled_at"].is_null() {
            break view;
        }
        assert!(Instant::now() < deadline, "not disabled: {view}");
        clock.advance(chrono::Duration::seconds(1));
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(
        view["disabled_reason"]
            .as_str()
            .is_some_and(|r| r.contains("550")),
        "{view}"
    );
    let rows = app.worp.outbox_of(ada.id).await.expect("outbox");
    assert_eq!(rows[0].1, "failed", "{rows:?}");
    assert_eq!(sink.mails().len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_correspondence_clock_reminds_at_24_hours_and_1_hour_left_once_each() {
    let sink = SmtpSink::start();
    let clock = ManualClock::new();
    let app = app_with_mail(Backend::Sqlite, clock.clone(), &sink).await;
    let ada = app.player("ada").await;
    let bob = app.player("bob").await;
    confirm(&app, &sink, &ada, "ada@example.org").await;
    let mut prefs = app.get_json_as("/v1/players/me/notifications", &ada).await;
    for kind in ["your_turn", "invited", "game_finished", "message"] {
        prefs[kind]["email"] = json!("off");
    }
    prefs["clock_reminder"] = json!({ "email": "now", "push": false });
    assert_eq!(
        put(&app, "/v1/players/me/notifications", &ada, prefs)
            .await
            .status(),
        200
    );
    let game = app
        .create_from(
            &bob,
            json!({ "variant": "backgammon", "seats": [bob.id, ada.id], "days_per_move": 3 }),
        )
        .await;
    let id = game["id"].as_str().expect("id").to_owned();
    let game = until_turn_of(&app, &id, &[&ada, &bob], &ada).await;
    let deadline: chrono::DateTime<chrono::Utc> = game["deadline"]
        .as_str()
        .expect("a deadline")
        .parse()
        .expect("a time");
    let now = clock.0.lock().expect("clock").to_owned();
    clock.advance(deadline - now - chrono::Duration::hours(24) + chrono::Duration::minutes(1));
    let first = sink.wait_for(2).await.remove(1);
    let bob_name = game["seats"][0]["name"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert_eq!(
        first.subject(),
        format!("24 hours left for your move against {bob_name} (Backgammon)")
    );
    clock.advance(chrono::Duration::hours(23));
    let second = sink.wait_for(3).await.remove(2);
    assert_eq!(
        second.subject(),
        format!("1 hour left for your move against {bob_name} (Backgammon)")
    );
    // Later sweeps say nothing more: a message mail (turned on now) is the next to come.
    let mut prefs = app.get_json_as("/v1/players/me/notifications", &ada).await;
    prefs["message"]["email"] = json!("now");
    assert_eq!(
        put(&app, "/v1/players/me/notifications", &ada, prefs)
            .await
            .status(),
        200
    );
    clock.advance(chrono::Duration::minutes(30));
    post_message(&app, &id, &bob, "tick tock").await;
    let mails = advance_until_mails(&sink, &clock, chrono::Duration::seconds(20), 4).await;
    assert!(
        mails[3].subject().contains("wrote in your game"),
        "{:?}",
        mails[3].subject()
    );
    assert_eq!(sink.mails().len(), 4);
}

#[tokio::test]
async fn nobody_can_make_the_server_mail_an_address_over_and_over() {
    let sink = SmtpSink::start();
    let app = app_with_mail(Backend::Sqlite, ManualClock::new(), &sink).await;
    let mallory = app.player("mallory").await;
    let bad = put(
        &app,
        "/v1/players/me/email",
        &mallory,
        json!({ "address": "not an address" }),
    )
    .await;
    assert_eq!(bad.status(), 400);
    for _ in 0..3 {
        let resp = put(
            &app,
            "/v1/players/me/email",
            &mallory,
            json!({ "address": "victim@example.org" }),
        )
        .await;
        assert_eq!(resp.status(), 202);
    }
    let resp = put(
        &app,
        "/v1/players/me/email",
        &mallory,
        json!({ "address": "victim@example.org" }),
    )
    .await;
    assert_eq!(resp.status(), 429, "three a day to one target");
    // Another account asking for the same target is refused too.
    let eve = app.player("eve").await;
    let resp = put(
        &app,
        "/v1/players/me/email",
        &eve,
        json!({ "address": "victim@example.org" }),
    )
    .await;
    assert_eq!(resp.status(), 429);
    // Per player: five a day, whatever the targets.
    for n in 0..2 {
        let resp = put(
            &app,
            "/v1/players/me/email",
            &mallory,
            json!({ "address": format!("other{n}@example.org") }),
        )
        .await;
        assert_eq!(resp.status(), 202);
    }
    let resp = put(
        &app,
        "/v1/players/me/email",
        &mallory,
        json!({ "address": "more@example.org" }),
    )
    .await;
    assert_eq!(resp.status(), 429, "five a day per player");
    // Nothing is mailed but confirmations (a link for an address since replaced is
    // dropped), and an unconfirmed address hears nothing else.
    let mails = sink.wait_for(1).await;
    assert!(mails
        .iter()
        .all(|m| m.subject() == "Confirm your e-mail address for Worp"));
    assert!(mails.len() <= 5);
    // Unknown links are refused.
    let resp = app
        .client
        .post(app.url("/v1/email/unsubscribe?key=nope&kinds=all"))
        .send()
        .await
        .expect("unsubscribe");
    assert_eq!(resp.status(), 404);
    let resp = app
        .client
        .post(app.url("/v1/email/confirm?token=worp_eml_nope"))
        .send()
        .await
        .expect("confirm");
    assert_eq!(resp.status(), 404);
    let _ = Uuid::nil();
}

/// The statuses of the outbox's rows in the SQLite file `database`.
fn outbox_statuses(database: &str) -> Vec<(String, String, i64)> {
    let db = rusqlite::Connection::open(database).expect("the database");
    let mut statement = db
        .prepare("SELECT channel, status, attempts FROM notifications ORDER BY created_at")
        .expect("a statement");
    let rows = statement
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .expect("rows");
    rows.map(|r| r.expect("a row")).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mail_queued_when_the_server_is_killed_goes_out_once_after_it_restarts() {
    use crate::faults::{free_port, player, start_server_with};
    let sink = SmtpSink::start();
    let smtp = sink.url();
    let (database, _dir) = fresh_database(Backend::Sqlite).await;
    let port = free_port();
    let env = [
        ("WORP_SMTP_URL", smtp.as_str()),
        ("WORP_PUBLIC_URL", "http://localhost"),
        ("WORP_NOTIFY_POLL_MS", "50"),
        ("WORP_NOTIFY_COALESCE_SECS", "4"),
        ("WORP_CONNECTIONS_PER_ADDRESS", "0"),
        ("WORP_STREAMS_PER_ADDRESS", "0"),
    ];
    let server = start_server_with(&database, port, &env).await;
    let client = reqwest::Client::new();
    let url = server.url.clone();
    let ada = player(&client, &url, "ada").await;
    let bob = player(&client, &url, "bob").await;
    let send = |method: reqwest::Method, path: &str, token: &str, body: Value| {
        client
            .request(method, format!("{url}{path}"))
            .bearer_auth(token)
            .json(&body)
            .send()
    };
    let resp = send(
        reqwest::Method::PUT,
        "/v1/players/me/email",
        &ada.token,
        json!({ "address": "ada@example.org" }),
    )
    .await
    .expect("request");
    assert_eq!(resp.status(), 202);
    let link = sink.wait_for(1).await[0]
        .link("http://localhost/v1/email/confirm?token=")
        .expect("a link");
    let path = link.strip_prefix("http://localhost").expect("local");
    let resp = send(reqwest::Method::POST, path, "", Value::Null)
        .await
        .expect("confirm");
    assert_eq!(resp.status(), 200);
    let channels = json!({ "email": "now", "push": false });
    let resp = send(
        reqwest::Method::PUT,
        "/v1/players/me/notifications",
        &ada.token,
        json!({
            "your_turn": { "email": "off", "push": false }, "invited": channels,
            "game_finished": channels, "message": channels, "clock_reminder": channels,
            "quiet_hours": null, "time_zone": "UTC", "digest_hour": 8
        }),
    )
    .await
    .expect("preferences");
    assert_eq!(resp.status(), 200);
    // Bob invites Ada: mailed at once. Ada sits down and Bob writes: that notice waits
    // for the coalescing window in the outbox, and the server is killed meanwhile.
    let resp = send(
        reqwest::Method::POST,
        "/v1/games",
        &bob.token,
        json!({ "variant": "backgammon", "seats": [bob.id, ada.id] }),
    )
    .await
    .expect("create");
    assert_eq!(resp.status(), 201);
    let game: Value = resp.json().await.expect("json");
    let id = game["id"].as_str().expect("id").to_owned();
    sink.wait_for(2).await;
    let resp = send(
        reqwest::Method::POST,
        &format!("/v1/games/{id}/seats/1"),
        &ada.token,
        Value::Null,
    )
    .await
    .expect("seat");
    assert_eq!(resp.status(), 200);
    let resp = send(
        reqwest::Method::POST,
        &format!("/v1/games/{id}/messages"),
        &bob.token,
        json!({ "text": "hi" }),
    )
    .await
    .expect("message");
    assert_eq!(resp.status(), 201);
    let deadline = Instant::now() + Duration::from_secs(20);
    while !outbox_statuses(&database)
        .iter()
        .any(|r| r.0 == "email" && r.1 == "pending")
    {
        assert!(
            Instant::now() < deadline,
            "{:?}",
            outbox_statuses(&database)
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    drop(server); // SIGKILL
    assert_eq!(sink.mails().len(), 2);

    let _server = start_server_with(&database, port, &env).await;
    let mails = sink.wait_for(3).await;
    assert!(
        mails[2]
            .subject()
            .contains("wrote in your game of Backgammon"),
        "{}",
        mails[2].subject()
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let rows = outbox_statuses(&database);
        if rows.iter().all(|r| r.1 == "sent") {
            break;
        }
        assert!(Instant::now() < deadline, "{rows:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(sink.mails().len(), 3, "nothing twice");
    let ids: std::collections::HashSet<_> = sink
        .mails()
        .iter()
        .filter_map(|m| m.header("message-id").map(str::to_owned))
        .collect();
    assert_eq!(ids.len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forgotten_password_is_reset_through_a_link_mailed_to_the_confirmed_address() {
    let sink = SmtpSink::start();
    let app = app_with_mail(Backend::Sqlite, ManualClock::new(), &sink).await;
    let ada = app.player("ada").await;
    let name = app.get_json(&format!("/v1/players/{}", ada.id)).await["name"]
        .as_str()
        .expect("name")
        .to_owned();
    // Without a confirmed address, and for a name nobody has: the same answer, no mail.
    for who in [name.as_str(), "nobody at all"] {
        let resp = app
            .client
            .post(app.url("/v1/password-reset"))
            .json(&json!({ "name": who }))
            .send()
            .await
            .expect("request");
        assert_eq!(resp.status(), 202);
    }
    confirm(&app, &sink, &ada, "ada@example.org").await;
    assert_eq!(sink.mails().len(), 1, "only the confirmation");
    let resp = app
        .client
        .post(app.url("/v1/password-reset"))
        .json(&json!({ "name": name }))
        .send()
        .await
        .expect("request");
    assert_eq!(resp.status(), 202);
    let mail = sink.wait_for(2).await.remove(1);
    assert_eq!(mail.subject(), "Reset your Worp password");
    let link = mail
        .link("http://localhost/v1/password-reset?token=")
        .expect("a reset link");
    let page = app
        .client
        .get(local(&app, &link))
        .send()
        .await
        .expect("page");
    assert_eq!(page.status(), 200);
    assert!(page
        .text()
        .await
        .expect("html")
        .contains("type=\"password\""));
    let token = link.split("token=").nth(1).expect("token").to_owned();
    let complete = |password: &'static str| {
        app.client
            .post(app.url("/v1/password-reset/complete"))
            .json(&json!({ "token": token, "password": password }))
            .send()
    };
    // A weak password is refused and the link still works.
    assert_eq!(complete("password").await.expect("request").status(), 400);
    assert_eq!(
        complete("a lantern over the quiet harbour")
            .await
            .expect("request")
            .status(),
        204
    );
    assert_eq!(
        complete("another lantern, another harbour")
            .await
            .expect("request")
            .status(),
        404
    );
    let resp = app
        .client
        .post(app.url("/v1/sessions"))
        .json(&json!({ "name": name, "password": "a lantern over the quiet harbour" }))
        .send()
        .await
        .expect("sign in");
    assert_eq!(resp.status(), 201);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_on_vacation_hears_of_no_turn_while_their_clock_is_paused() {
    let sink = SmtpSink::start();
    let clock = ManualClock::new();
    let app = app_with_mail(Backend::Sqlite, clock.clone(), &sink).await;
    let ada = app.player("ada").await;
    let bob = app.player("bob").await;
    confirm(&app, &sink, &ada, "ada@example.org").await;
    mail_everything(&app, &ada).await;
    let resp = app
        .post("/v1/players/me/vacation", &ada, json!({ "days": 7 }))
        .await;
    assert_eq!(
        resp.status(),
        201,
        "{}",
        resp.text().await.unwrap_or_default()
    );
    let game = app
        .create_from(
            &bob,
            json!({ "variant": "backgammon", "seats": [bob.id, ada.id], "days_per_move": 3 }),
        )
        .await;
    let id = game["id"].as_str().expect("id").to_owned();
    until_turn_of(&app, &id, &[&ada, &bob], &ada).await;
    post_message(&app, &id, &bob, "whenever you are back").await;
    let mails = advance_until_mails(&sink, &clock, chrono::Duration::seconds(30), 2).await;
    let last = mails.last().expect("a mail");
    assert!(
        last.body.contains("wrote in your game of Backgammon"),
        "{}",
        last.body
    );
    assert!(
        mails.iter().all(|m| !m.body.contains("Your turn")),
        "no turn is pressed on a player on vacation: {mails:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_game_is_mailed_to_its_players() {
    let sink = SmtpSink::start();
    let clock = ManualClock::new();
    let app = app_with_mail(Backend::Sqlite, clock.clone(), &sink).await;
    let ada = app.player("ada").await;
    let bob = app.player("bob").await;
    confirm(&app, &sink, &ada, "ada@example.org").await;
    mail_everything(&app, &ada).await;
    let game = app
        .create(
            &bob,
            "backgammon",
            Value::Null,
            vec![Some(bob.id), Some(ada.id)],
        )
        .await;
    let id = game["id"].as_str().expect("id").to_owned();
    let resp = app
        .post(&format!("/v1/games/{id}/resign"), &bob, Value::Null)
        .await;
    assert_eq!(
        resp.status(),
        200,
        "{}",
        resp.text().await.unwrap_or_default()
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    let finished = loop {
        if let Some(m) = sink
            .mails()
            .into_iter()
            .find(|m| m.body.contains("has finished"))
        {
            break m;
        }
        assert!(
            Instant::now() < deadline,
            "no mail of the finish: {:#?}",
            sink.mails()
        );
        clock.advance(chrono::Duration::seconds(30));
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(finished
        .body
        .contains(&format!("http://localhost/#/game/{id}")));
    assert!(
        finished
            .header("list-unsubscribe")
            .is_some_and(|l| l.contains("game_finished")),
        "{:?}",
        finished.headers
    );
}
