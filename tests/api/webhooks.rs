//! Webhooks against a hostile player: private addresses refused at registration and
//! again after DNS resolution, redirects not followed, receivers' bodies never shown,
//! one attempt per claim, slow receivers kept apart, deliveries gone with their webhook.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use uuid::Uuid;

use crate::helpers::{fresh_database, Backend, TestApp, TestPlayer, BACKENDS};
use crate::play::two_seat_variant;
use crate::settings::app_with;

/// How a test receiver answers every POST, after `delay`.
#[derive(Clone)]
pub enum Answer {
    Ok,
    Status(u16, &'static str),
    Redirect(String),
}

/// A local HTTP receiver; returns its URL and the `Worp-Delivery` ids it was sent.
pub async fn receiver(answer: Answer, delay: Duration) -> (String, Arc<Mutex<Vec<String>>>) {
    use actix_web::{http::StatusCode, web, App, HttpRequest, HttpResponse, HttpServer};
    let got: Arc<Mutex<Vec<String>>> = Arc::default();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let g = got.clone();
    let server = HttpServer::new(move || {
        let (g, answer) = (g.clone(), answer.clone());
        App::new().default_service(web::to(move |req: HttpRequest| {
            let (g, answer) = (g.clone(), answer.clone());
            async move {
                let id = req
                    .headers()
                    .get("worp-delivery")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("-")
                    .to_owned();
                g.lock().expect("got").push(id);
                tokio::time::sleep(delay).await;
                match answer {
                    Answer::Ok => HttpResponse::Ok().finish(),
                    Answer::Status(code, body) => {
                        HttpResponse::build(StatusCode::from_u16(code).expect("status")).body(body)
                    }
                    Answer::Redirect(to) => HttpResponse::Found()
                        .insert_header(("location", to))
                        .body("see elsewhere"),
                }
            }
        }))
    })
    .workers(1)
    .listen(listener)
    .expect("listen")
    .run();
    tokio::spawn(server);
    (format!("http://127.0.0.1:{port}/hook"), got)
}

/// `who` plays `games` games against `other`, each resigned by `other`: every one ends
/// with a notice to `who`.
async fn finished_games(app: &TestApp, who: &TestPlayer, other: &TestPlayer, games: usize) {
    for _ in 0..games {
        let game = app
            .create(
                other,
                two_seat_variant(),
                Value::Null,
                vec![Some(other.id), Some(who.id)],
            )
            .await;
        let id = game["id"].as_str().expect("id");
        let resign = app
            .post(&format!("/v1/games/{id}/resign"), other, Value::Null)
            .await;
        assert_eq!(resign.status(), 200);
    }
}

/// A webhook row for `player` written straight to the store, as registration under other
/// settings (or a name that resolved elsewhere then) would have left it.
async fn stored_webhook(store: &worp::store::Store, player: Uuid, url: String) -> Uuid {
    let hook = worp::store::Webhook {
        id: Uuid::new_v4(),
        player_id: player,
        url,
        secret: "whsec_test".into(),
        created_at: chrono::Utc::now(),
    };
    store.create_webhook(&hook).await.expect("insert");
    hook.id
}

/// A store on `database` with a webhook at `url` and the deliveries of `games` finished
/// games to it, written by a service with no background work (nothing is sent).
async fn outbox(database: &str, url: String, games: usize) -> (worp::store::Store, Uuid) {
    let store = worp::store::Store::connect(database, 2)
        .await
        .expect("connect");
    let service = worp::service::Worp::new(store.clone(), 10, Arc::new(worp::clock::SystemClock));
    let (a, _) = service.create_player("a").await.expect("a");
    let (b, _) = service.create_player("b").await.expect("b");
    let hook = stored_webhook(&store, b.id, url).await;
    // Only the games' ends reach the webhook, not the invitations to them.
    store
        .set_invitation_notices(b.id, false)
        .await
        .expect("notices off");
    for _ in 0..games {
        let game = service
            .create_game(
                &a,
                serde_json::from_value(
                    json!({"variant": two_seat_variant(), "seats": [a.id, b.id]}),
                )
                .expect("request"),
            )
            .await
            .expect("create");
        service
            .take_seat(&b, game.id, 1, None)
            .await
            .expect("accept");
        service.resign(&a, game.id, None).await.expect("resign");
    }
    (store, hook)
}

/// Registers `url` for `who`; returns the webhook's id.
pub(crate) async fn register(app: &TestApp, who: &TestPlayer, url: &str) -> String {
    let resp = app
        .post("/v1/players/me/webhooks", who, json!({"url": url}))
        .await;
    assert_eq!(resp.status(), 201, "{url}");
    let hook: Value = resp.json().await.expect("json");
    hook["id"].as_str().expect("id").to_owned()
}

/// The delivery log of `hook` once every entry is no longer pending.
async fn settled_log(app: &TestApp, who: &TestPlayer, hook: &str) -> Vec<Value> {
    let until = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let log: Value = app
            .get_json_as(&format!("/v1/players/me/webhooks/{hook}/deliveries"), who)
            .await;
        let log = log.as_array().cloned().unwrap_or_default();
        if !log.is_empty() && log.iter().all(|d| d["status"] != "pending") {
            return log;
        }
        assert!(
            tokio::time::Instant::now() < until,
            "still pending: {log:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn webhook_urls_to_addresses_that_are_not_public_are_refused_at_registration() {
    // No allow-list: what a server runs with unless its operator says otherwise.
    let app = app_with(Backend::Sqlite, |s| s.webhooks.allow.clear()).await;
    let b = app.player("b").await;
    let refused = [
        "http://127.0.0.1/hook",
        "http://127.0.0.1:8080/hook",
        "http://localhost/hook",
        "http://LOCALHOST:9000/hook",
        "http://localhost./hook",
        "http://api.localhost/hook",
        "http://0.0.0.0/hook",
        "http://0/hook",
        "http://2130706433/hook",
        "http://0x7f000001/hook",
        "http://0177.0.0.1/hook",
        "http://127.1/hook",
        "http://[::1]/hook",
        "http://[::]/hook",
        "http://[::ffff:127.0.0.1]/hook",
        "http://[::ffff:7f00:1]/hook",
        "http://[::127.0.0.1]/hook",
        "http://[64:ff9b::127.0.0.1]/hook",
        "http://[2002:7f00:1::1]/hook",
        "http://[2002:a9fe:a9fe::]/hook",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fe80::1]/hook",
        "http://10.0.0.1/hook",
        "http://172.16.5.4/hook",
        "http://192.168.1.1/hook",
        "http://100.64.0.1/hook",
        "http://100.127.255.254/hook",
        "http://[fc00::1]/hook",
        "http://[fd12:3456:789a::1]/hook",
        "http://224.0.0.1/hook",
        "http://255.255.255.255/hook",
        "http://192.0.2.1/hook",
        "http://198.51.100.7/hook",
        "http://203.0.113.9/hook",
        "http://198.18.0.1/hook",
        "http://198.19.255.1/hook",
        "http://240.0.0.1/hook",
        "http://[2001:db8::1]/hook",
        "http://[ff02::1]/hook",
        "https://[::ffff:a9fe:a9fe]/hook",
    ];
    for url in refused {
        let resp = app
            .post("/v1/players/me/webhooks", &b, json!({"url": url}))
            .await;
        assert_eq!(resp.status(), 400, "{url} was accepted");
        assert_eq!(
            resp.headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok()),
            Some("application/problem+json"),
            "{url}"
        );
        let problem: Value = resp.json().await.expect("json");
        let detail = problem["detail"].as_str().unwrap_or_default();
        assert!(detail.contains("not a public address"), "{url}: {problem}");
    }
    let listed: Value = app.get_json_as("/v1/players/me/webhooks", &b).await;
    assert_eq!(listed, json!([]), "nothing refused was stored");
    // Public addresses and names are accepted (nothing is sent until there is a notice).
    for url in [
        "https://hooks.example.com/worp",
        "http://93.184.215.14:8080/hook",
        "http://[2606:4700::6810:84e5]/hook",
        "http://100.128.0.1/hook",
    ] {
        register(&app, &b, url).await;
    }
}

#[tokio::test]
async fn an_operator_allows_named_ranges() {
    let app = app_with(Backend::Sqlite, |s| {
        s.webhooks.allow = vec!["10.1.0.0/16".parse().expect("cidr")];
    })
    .await;
    let b = app.player("b").await;
    register(&app, &b, "http://10.1.2.3/hook").await;
    let resp = app
        .post(
            "/v1/players/me/webhooks",
            &b,
            json!({"url": "http://10.2.0.1/hook"}),
        )
        .await;
    assert_eq!(resp.status(), 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_that_is_not_public_is_refused_at_delivery_after_resolving_it() {
    for backend in BACKENDS {
        // Loopback is not allowed here; the receiver listens on it.
        let app = app_with(backend, |s| s.webhooks.allow.clear()).await;
        let (a, b) = (app.player("a").await, app.player("b").await);
        let (url, got) = receiver(Answer::Ok, Duration::ZERO).await;
        let port = url
            .trim_end_matches("/hook")
            .rsplit(':')
            .next()
            .expect("port")
            .to_owned();
        // Rows as a name that resolved publicly when registered (and rebinds to loopback
        // since) or an address allowed then (and no longer) would leave them.
        let mut hooks = Vec::new();
        for (url, shown) in [
            // Resolved by the delivery client, which names the name only: what it
            // resolved to is not the player's to learn.
            (
                format!("http://localhost:{port}/hook"),
                "refused: localhost is",
            ),
            (format!("http://127.0.0.1:{port}/hook"), "127.0.0.1"),
            (
                format!("http://[::ffff:127.0.0.1]:{port}/hook"),
                "127.0.0.1",
            ),
        ] {
            let hook = stored_webhook(&app.store, b.id, url).await;
            hooks.push((hook.to_string(), shown));
        }
        finished_games(&app, &b, &a, 1).await;
        for (hook, shown) in &hooks {
            let log = settled_log(&app, &b, hook).await;
            for d in &log {
                assert_eq!(d["status"], "failed", "{d}");
                assert_eq!(d["attempts"], 1, "refused once, not retried: {d}");
                let error = d["last_error"].as_str().unwrap_or_default();
                assert!(
                    error.starts_with("refused: ")
                        && error.contains(shown)
                        && error.contains("is not a public address"),
                    "{d}"
                );
                if shown.contains("localhost") {
                    assert!(!error.contains("127.0.0.1"), "a resolved address: {d}");
                }
            }
        }
        assert!(got.lock().expect("got").is_empty(), "nothing was sent");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redirects_are_not_followed_and_the_log_never_shows_a_receivers_body() {
    let app = app_with(Backend::Sqlite, |_| {}).await;
    let (a, b) = (app.player("a").await, app.player("b").await);
    let (target, followed) = receiver(Answer::Ok, Duration::ZERO).await;
    let (redirect, _) = receiver(Answer::Redirect(target), Duration::ZERO).await;
    let (erring, _) = receiver(
        Answer::Status(500, "stack trace: db password hunter2"),
        Duration::ZERO,
    )
    .await;
    let (ok_with_body, _) = receiver(
        Answer::Status(200, "hunter2 secret ok body"),
        Duration::ZERO,
    )
    .await;
    let hooks = [
        register(&app, &b, &redirect).await,
        register(&app, &b, &erring).await,
        register(&app, &b, &ok_with_body).await,
    ];
    finished_games(&app, &b, &a, 1).await;
    // The redirect and the error are retried: wait for a second attempt of each.
    let until = tokio::time::Instant::now() + Duration::from_secs(20);
    let logs = loop {
        let mut logs = Vec::new();
        for hook in &hooks {
            let log: Value = app
                .get_json_as(&format!("/v1/players/me/webhooks/{hook}/deliveries"), &b)
                .await;
            logs.push(log);
        }
        let retried = logs[..2].iter().all(|l| {
            l.as_array().is_some_and(|l| {
                !l.is_empty() && l.iter().all(|d| d["attempts"].as_i64() >= Some(2))
            })
        });
        let delivered = logs[2]
            .as_array()
            .is_some_and(|l| !l.is_empty() && l.iter().all(|d| d["status"] == "delivered"));
        if retried && delivered {
            break logs;
        }
        assert!(tokio::time::Instant::now() < until, "{logs:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(
        followed.lock().expect("got").is_empty(),
        "a redirect was followed"
    );
    for d in logs[0].as_array().expect("log") {
        assert_eq!(d["last_status"], 302, "{d}");
        assert_ne!(d["status"], "delivered", "{d}");
    }
    for d in logs[1].as_array().expect("log") {
        assert_eq!(d["last_status"], 500, "{d}");
    }
    let shown = Value::Array(logs).to_string();
    for secret in ["hunter2", "see elsewhere", "stack trace"] {
        assert!(
            !shown.contains(secret),
            "a receiver's body is shown: {shown}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_receiver_does_not_hold_up_the_others() {
    for backend in BACKENDS {
        let app = app_with(backend, |_| {}).await;
        let (a, b) = (app.player("a").await, app.player("b").await);
        let (slow, _) = receiver(Answer::Ok, Duration::from_secs(2)).await;
        let (fast, fast_got) = receiver(Answer::Ok, Duration::ZERO).await;
        register(&app, &b, &slow).await;
        let fast_hook = register(&app, &b, &fast).await;
        finished_games(&app, &b, &a, 4).await;
        let written = tokio::time::Instant::now();
        let wanted = app
            .store
            .deliveries(fast_hook.parse().expect("id"), 100, 0)
            .await
            .expect("log")
            .len();
        assert!(wanted >= 4);
        loop {
            if fast_got.lock().expect("got").len() >= wanted {
                break;
            }
            assert!(
                written.elapsed() < Duration::from_millis(1500),
                "{backend:?}: the fast receiver waited behind the slow one"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_send_each_delivery_once() {
    for backend in BACKENDS {
        let (database, _dir) = fresh_database(backend).await;
        // Each answer takes most of the timeout; a claim lasts three timeouts.
        let (url, got) = receiver(Answer::Ok, Duration::from_millis(600)).await;
        let (store, hook) = outbox(&database, url, 8).await;
        let clock: Arc<dyn worp::clock::Clock> = Arc::new(worp::clock::SystemClock);
        let wanted = store.deliveries(hook, 100, 0).await.expect("log").len();
        let settings = worp::webhooks::WebhookSettings {
            timeout: Duration::from_secs(1),
            allow: vec!["127.0.0.0/8".parse().expect("cidr")],
            ..Default::default()
        };
        let process = || {
            let (database, clock, settings) = (database.clone(), clock.clone(), settings.clone());
            async move {
                let store = worp::store::Store::connect(&database, 2)
                    .await
                    .expect("connect");
                let until = tokio::time::Instant::now() + Duration::from_secs(30);
                loop {
                    worp::webhooks::deliver_due(&store, clock.as_ref(), &settings).await;
                    let log = store.deliveries(hook, 100, 0).await.expect("log");
                    if log.iter().all(|d| d.status == "delivered") {
                        break;
                    }
                    assert!(tokio::time::Instant::now() < until, "{log:?}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        };
        let (one, two) = tokio::join!(tokio::spawn(process()), tokio::spawn(process()));
        one.expect("one");
        two.expect("two");
        let mut sent: HashMap<String, usize> = HashMap::new();
        for id in got.lock().expect("got").iter() {
            *sent.entry(id.clone()).or_default() += 1;
        }
        assert_eq!(sent.len(), wanted, "{backend:?}: {sent:?}");
        assert!(
            sent.values().all(|&n| n == 1),
            "{backend:?}: sent more than once: {sent:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deliveries_go_with_their_webhook() {
    for backend in BACKENDS {
        let app = app_with(backend, |_| {}).await;
        let (a, b) = (app.player("a").await, app.player("b").await);
        let (url, _) = receiver(Answer::Status(503, ""), Duration::ZERO).await;
        let hook = register(&app, &b, &url).await;
        finished_games(&app, &b, &a, 2).await;
        // The log pages: one at a time, newest first, a `Link` to the next while full.
        let id: Uuid = hook.parse().expect("id");
        let all: Vec<Uuid> = app
            .store
            .deliveries(id, 100, 0)
            .await
            .expect("log")
            .iter()
            .map(|d| d.id)
            .collect();
        assert!(all.len() >= 2, "{backend:?}: {all:?}");
        let path = format!("/v1/players/me/webhooks/{hook}/deliveries");
        let mut seen = Vec::new();
        let mut next = Some(format!("{path}?limit=1"));
        while let Some(page) = next.take() {
            let resp = app
                .client
                .get(app.url(&page))
                .bearer_auth(&b.token)
                .send()
                .await
                .expect("page");
            assert_eq!(resp.status(), 200, "{page}");
            next = resp
                .headers()
                .get("link")
                .and_then(|l| l.to_str().ok())
                .and_then(|l| l.strip_prefix('<')?.split('>').next().map(str::to_owned));
            let items: Vec<Value> = resp.json().await.expect("json");
            assert!(items.len() <= 1);
            seen.extend(
                items
                    .iter()
                    .filter_map(|d| d["id"].as_str()?.parse::<Uuid>().ok()),
            );
            assert!(seen.len() <= all.len(), "{backend:?}: the pages never end");
        }
        assert_eq!(seen, all, "{backend:?}");
        let bad = app
            .client
            .get(app.url(&format!("{path}?limit=0")))
            .bearer_auth(&b.token)
            .send()
            .await
            .expect("bad");
        assert_eq!(bad.status(), 400);
        assert!(!app
            .store
            .deliveries(id, 100, 0)
            .await
            .expect("log")
            .is_empty());
        let resp = app
            .client
            .delete(app.url(&format!("/v1/players/me/webhooks/{hook}")))
            .bearer_auth(&b.token)
            .send()
            .await
            .expect("delete");
        assert_eq!(resp.status(), 204);
        let left = app.store.deliveries(id, 100, 0).await.expect("log");
        assert!(left.is_empty(), "{backend:?}: {left:?}");
    }
}

#[tokio::test]
async fn an_attempt_is_recorded_only_under_its_claim() {
    for backend in BACKENDS {
        let (database, _dir) = fresh_database(backend).await;
        let (store, hook) = outbox(&database, "https://hooks.example.com/worp".into(), 1).await;

        let now = chrono::Utc::now();
        let due = store.due_deliveries(now, 10).await.expect("due");
        let seen = due.first().expect("a due delivery").0.clone();
        let first = now + chrono::Duration::seconds(30);
        assert!(store.lease_delivery(&seen, first).await.expect("lease"));
        assert!(
            !store.lease_delivery(&seen, first).await.expect("lease"),
            "claimed twice"
        );
        let due = store.due_deliveries(now, 10).await.expect("due");
        assert!(due.iter().all(|(d, ..)| d.id != seen.id), "still due");
        // The first claim runs out; another process claims the delivery.
        let later = first + chrono::Duration::seconds(1);
        let again = store.due_deliveries(later, 10).await.expect("due");
        let again = again
            .into_iter()
            .map(|(d, ..)| d)
            .find(|d| d.id == seen.id)
            .expect("due again");
        let second = later + chrono::Duration::seconds(30);
        assert!(store.lease_delivery(&again, second).await.expect("lease"));
        let outcome = |lease, status| worp::store::Attempt {
            id: seen.id,
            status,
            attempts: 1,
            next_attempt_at: second,
            last_status: None,
            last_error: Some("the request failed: timed out"),
            delivered_at: None,
            lease,
        };
        // The first process's late outcome is not recorded; the second's is.
        assert!(!store
            .record_attempt(&outcome(first, "pending"))
            .await
            .expect("record"));
        assert!(store
            .record_attempt(&outcome(second, "delivered"))
            .await
            .expect("record"));
        let log = store.deliveries(hook, 10, 0).await.expect("log");
        let recorded = log.iter().find(|d| d.id == seen.id).expect("in the log");
        assert_eq!(recorded.status, "delivered", "{backend:?}");
    }
}
