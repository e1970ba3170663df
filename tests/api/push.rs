//! Web Push, checked by an independent implementation: a loopback push service in Python
//! (`tests/notifications/push_endpoint.py`, `cryptography` and `http_ece`) verifies each
//! message's VAPID signature (ES256, `aud`, `exp`, `sub`, `k` = `GET /v1/push/key`) and
//! decrypts its RFC 8291 body with the subscription's own keys. And: a 404 or 410 removes
//! the subscription, the VAPID key is one for every process and restart, subscriptions
//! are checked (422) and scoped, and leave with their player.

use std::io::BufRead;
use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};
use worp::clock::SystemClock;
use worp::service::push::{PushFailure, PushMessage};

use crate::accounts::token_with;
use crate::helpers::{
    spawn_app, spawn_app_from, test_settings, Backend, TestApp, TestPlayer, BACKENDS,
};
use crate::settings::app_with;
use crate::smtp::python;

/// The loopback push service, killed when dropped.
struct PushService {
    child: Child,
    /// The first subscription it made, as `PushSubscription.toJSON()` gives one.
    subscription: Value,
    control: String,
    client: reqwest::Client,
}

impl Drop for PushService {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl PushService {
    /// Starts the service, which accepts only signatures by `vapid_key`.
    async fn start(vapid_key: &str) -> PushService {
        let key = vapid_key.to_owned();
        tokio::task::spawn_blocking(move || {
            let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
            let mut child = Command::new(python())
                .arg(format!("{root}/tests/notifications/push_endpoint.py"))
                .arg("--vapid-key")
                .arg(&key)
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit())
                .spawn()
                .expect("the push service starts");
            let mut line = String::new();
            std::io::BufReader::new(child.stdout.take().expect("stdout"))
                .read_line(&mut line)
                .expect("its first line");
            let first: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("the push service said {line:?}: {e}"));
            PushService {
                child,
                subscription: first["subscription"].clone(),
                control: first["control"].as_str().expect("control").to_owned(),
                client: reqwest::Client::new(),
            }
        })
        .await
        .expect("started")
    }

    /// Every message it received, oldest first.
    async fn messages(&self) -> Vec<Value> {
        let got: Value = self
            .client
            .get(format!("{}/messages", self.control))
            .send()
            .await
            .expect("messages")
            .json()
            .await
            .expect("json");
        got.as_array().expect("a list").clone()
    }

    /// Answers the next message with `status`.
    async fn answer_next(&self, status: u16) {
        let resp = self
            .client
            .post(format!("{}/answer", self.control))
            .json(&json!({ "status": status }))
            .send()
            .await
            .expect("answer");
        assert_eq!(resp.status(), 204);
    }

    /// A new subscription, as of another device.
    async fn another(&self) -> Value {
        self.client
            .post(format!("{}/subscriptions", self.control))
            .send()
            .await
            .expect("subscription")
            .json()
            .await
            .expect("json")
    }
}

async fn public_key(app: &TestApp) -> String {
    let key = app.get_json("/v1/push/key").await;
    key["public_key"].as_str().expect("public_key").to_owned()
}

/// `body` posted as `who`'s push subscription, from a browser on Linux.
async fn subscribe(app: &TestApp, token: &str, body: &Value) -> (u16, Value) {
    let resp = app
        .client
        .post(app.url("/v1/players/me/push-subscriptions"))
        .bearer_auth(token)
        .header(
            "user-agent",
            "Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0 Safari/537.36",
        )
        .json(body)
        .send()
        .await
        .expect("request");
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap_or(Value::Null))
}

async fn devices(app: &TestApp, who: &TestPlayer) -> Vec<Value> {
    let list = app
        .get_json_as("/v1/players/me/push-subscriptions", who)
        .await;
    list.as_array().expect("a list").clone()
}

fn your_turn() -> PushMessage {
    PushMessage {
        title: "Your turn against Bob (Backgammon)".into(),
        body: "Bob played 8/5 6/5.".into(),
        url: "/#/game/0190f6d4-7c1e-7000-8000-000000000001".into(),
        tag: "game:0190f6d4-7c1e-7000-8000-000000000001".into(),
        kind: "your_turn".into(),
    }
}

#[tokio::test]
async fn a_push_is_signed_and_encrypted_as_an_independent_receiver_checks() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let ann = app.player("ann").await;
        let key = public_key(&app).await;
        assert_eq!(public_key(&app).await, key, "{backend:?}: one key");
        let service = PushService::start(&key).await;

        let (status, made) = subscribe(&app, &ann.token, &service.subscription).await;
        assert_eq!(status, 201, "{backend:?}: {made}");
        assert_eq!(made["device"], "Chrome on Linux");
        assert_eq!(
            made["endpoint_origin"],
            service.subscription["endpoint"]
                .as_str()
                .expect("endpoint")
                .split("/push/")
                .next()
                .expect("origin")
        );
        // The same endpoint again, as a browser's `toJSON()` with a device: updated.
        let mut again = service.subscription.clone();
        again["expirationTime"] = Value::Null;
        again["device"] = json!("Ann's laptop");
        let (status, updated) = subscribe(&app, &ann.token, &again).await;
        assert_eq!(status, 200, "{updated}");
        assert_eq!(updated["id"], made["id"]);
        assert_eq!(updated["device"], "Ann's laptop");
        assert_eq!(devices(&app, &ann).await.len(), 1);

        let outcomes = app
            .worp
            .push_to_devices_of(ann.id, &your_turn())
            .await
            .expect("sent");
        assert_eq!(outcomes, vec![Ok(())], "{backend:?}");
        let got = service.messages().await;
        assert_eq!(got.len(), 1);
        let m = &got[0];
        assert_eq!(m["ok"], true, "{backend:?}: the receiver refused it: {m}");
        assert_eq!(
            m["payload"],
            json!({
                "title": "Your turn against Bob (Backgammon)",
                "body": "Bob played 8/5 6/5.",
                "url": "/#/game/0190f6d4-7c1e-7000-8000-000000000001",
                "tag": "game:0190f6d4-7c1e-7000-8000-000000000001",
                "kind": "your_turn",
            })
        );
        assert_eq!(m["headers"]["ttl"], "86400");
        assert_eq!(m["headers"]["urgency"], "normal");
        let topic = m["headers"]["topic"].as_str().expect("topic");
        assert!(
            topic.len() <= 32
                && topic
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'),
            "{topic}"
        );
        assert_eq!(m["claims"]["sub"], "mailto:noreply@localhost");
        let listed = devices(&app, &ann).await;
        assert!(listed[0]["last_used_at"].is_string(), "{listed:?}");

        // The push service is failing: try later; it refuses this message: never.
        service.answer_next(503).await;
        let outcome = app.worp.push_to_devices_of(ann.id, &your_turn()).await;
        assert!(
            matches!(outcome.as_deref(), Ok([Err(PushFailure::Transient(_))])),
            "{outcome:?}"
        );
        service.answer_next(429).await;
        let outcome = app.worp.push_to_devices_of(ann.id, &your_turn()).await;
        assert!(
            matches!(outcome.as_deref(), Ok([Err(PushFailure::Transient(_))])),
            "{outcome:?}"
        );
        service.answer_next(413).await;
        let outcome = app.worp.push_to_devices_of(ann.id, &your_turn()).await;
        assert!(
            matches!(outcome.as_deref(), Ok([Err(PushFailure::Permanent(_))])),
            "{outcome:?}"
        );
        assert_eq!(devices(&app, &ann).await.len(), 1, "kept after those");

        // A second device; then the first is gone (410), then the second (404).
        let second = service.another().await;
        assert_eq!(subscribe(&app, &ann.token, &second).await.0, 201);
        service.answer_next(410).await;
        let outcome = app
            .worp
            .push_to_devices_of(ann.id, &your_turn())
            .await
            .expect("sent");
        assert_eq!(outcome, vec![Err(PushFailure::Gone), Ok(())]);
        let left = devices(&app, &ann).await;
        assert_eq!(left.len(), 1, "{left:?}");
        assert_ne!(left[0]["id"], made["id"]);
        service.answer_next(404).await;
        let outcome = app.worp.push_to_devices_of(ann.id, &your_turn()).await;
        assert_eq!(outcome, Ok(vec![Err(PushFailure::Gone)]));
        assert!(devices(&app, &ann).await.is_empty());
        // Every message was signed and encrypted as the receiver checks.
        let got = service.messages().await;
        assert_eq!(got.len(), 7);
        assert!(got.iter().all(|m| m["ok"] == true), "{got:?}");
    }
}

#[tokio::test]
async fn every_process_and_restart_signs_with_one_key_or_the_configured_one() {
    for backend in BACKENDS {
        let first = spawn_app(backend).await;
        let key = public_key(&first).await;
        let bytes = base64_url(&key);
        assert_eq!(
            (bytes.len(), bytes[0]),
            (65, 4),
            "an uncompressed P-256 point"
        );
        // Another process on the same database, started after the key was made.
        let second = spawn_app_from(
            test_settings(first.database.clone()),
            std::sync::Arc::new(SystemClock),
            None,
        )
        .await;
        assert_eq!(public_key(&second).await, key, "{backend:?}");
    }
    // Two processes of a fresh database asking at once agree on the first key kept.
    let first = spawn_app(Backend::Postgres).await;
    let second = spawn_app_from(
        test_settings(first.database.clone()),
        std::sync::Arc::new(SystemClock),
        None,
    )
    .await;
    let (a, b) = tokio::join!(public_key(&first), public_key(&second));
    assert_eq!(a, b);

    // WORP_VAPID_PRIVATE_KEY: that key, whatever the database holds.
    let configured = "IQ9Ur0ykXoHS9gzfYX0aBjy9lvdrjx_PFUXmie9YRcY";
    let app = app_with(Backend::Sqlite, |s| {
        s.push.vapid_private_key = Some(configured.into());
        s.push.subject = Some("https://worp.example/contact".into());
    })
    .await;
    let key = public_key(&app).await;
    assert_ne!(key, public_key(&first).await);
    let service = PushService::start(&key).await;
    let ann = app.player("ann").await;
    assert_eq!(
        subscribe(&app, &ann.token, &service.subscription).await.0,
        201
    );
    let outcome = app.worp.push_to_devices_of(ann.id, &your_turn()).await;
    assert_eq!(outcome, Ok(vec![Ok(())]));
    let got = service.messages().await;
    assert_eq!(got[0]["ok"], true, "{got:?}");
    assert_eq!(got[0]["claims"]["sub"], "https://worp.example/contact");

    // A key or subject that cannot be used stops the server from starting.
    for (key, subject) in [
        (Some("not a key"), None),
        (None, Some("http://plain.example")),
    ] {
        let (url, dir) = crate::helpers::fresh_database(Backend::Sqlite).await;
        let mut settings = test_settings(url);
        settings.push.vapid_private_key = key.map(str::to_owned);
        settings.push.subject = subject.map(str::to_owned);
        let built =
            worp::startup::Application::build(settings, std::sync::Arc::new(SystemClock)).await;
        assert!(built.is_err(), "{key:?} {subject:?}");
        drop(dir);
    }
}

fn base64_url(text: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(text)
        .expect("base64url")
}

/// RFC 8291's example subscription keys (section 5): a valid point and secret.
const P256DH: &str =
    "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4";
const AUTH: &str = "BTBZMqHH6r4Tts7J_aSIgg";

fn subscription(endpoint: &str, p256dh: &str, auth: &str) -> Value {
    json!({ "endpoint": endpoint, "expirationTime": null, "keys": { "p256dh": p256dh, "auth": auth } })
}

#[tokio::test]
async fn subscriptions_that_cannot_be_used_are_refused_422() {
    let app = spawn_app(Backend::Sqlite).await;
    let ann = app.player("ann").await;
    let off_curve = {
        use base64::Engine;
        let mut p = vec![4u8];
        p.extend([0u8; 64]);
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(p)
    };
    let compressed = "AiVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcx";
    let ok = "https://push.example/send/abc";
    for (body, why) in [
        (subscription("http://push.example/x", P256DH, AUTH), "http"),
        (subscription("ftp://push.example/x", P256DH, AUTH), "https"),
        (subscription("https://10.1.2.3/x", P256DH, AUTH), "public"),
        (subscription("https://[fd00::1]/x", P256DH, AUTH), "public"),
        (
            subscription("https://169.254.169.254/x", P256DH, AUTH),
            "public",
        ),
        (
            subscription("https://user:pw@push.example/x", P256DH, AUTH),
            "user",
        ),
        (subscription("not a url", P256DH, AUTH), "URL"),
        (subscription(ok, &off_curve, AUTH), "p256dh"),
        (subscription(ok, compressed, AUTH), "p256dh"),
        (subscription(ok, "***", AUTH), "p256dh"),
        (subscription(ok, P256DH, "BTBZMqHH6r4Tts7J_aSI"), "auth"),
        (subscription(ok, P256DH, "BTBZMqHH6r4Tts7J_aSIggAA"), "auth"),
        (
            json!({ "endpoint": ok, "keys": { "p256dh": P256DH, "auth": AUTH }, "device": "x".repeat(101) }),
            "device",
        ),
    ] {
        let (status, problem) = subscribe(&app, &ann.token, &body).await;
        assert_eq!(status, 422, "{body}: {problem}");
        assert_eq!(problem["type"], "/problems/invalid-push-subscription");
        let detail = problem["detail"].as_str().expect("detail");
        assert!(detail.contains(why), "{why}: {detail}");
    }
    // A body that is not a subscription at all: 400.
    let (status, _) = subscribe(&app, &ann.token, &json!({ "endpoint": ok })).await;
    assert_eq!(status, 400);
    assert!(devices(&app, &ann).await.is_empty());

    // At most ten devices; the same endpoint again is not one more.
    for i in 0..10 {
        let body = subscription(&format!("https://push.example/send/{i}"), P256DH, AUTH);
        assert_eq!(subscribe(&app, &ann.token, &body).await.0, 201);
    }
    let eleventh = subscription("https://push.example/send/10", P256DH, AUTH);
    let (status, problem) = subscribe(&app, &ann.token, &eleventh).await;
    assert_eq!(status, 422, "{problem}");
    let again = subscription("https://push.example/send/3", P256DH, AUTH);
    assert_eq!(subscribe(&app, &ann.token, &again).await.0, 200);
    assert_eq!(devices(&app, &ann).await.len(), 10);

    // Plain http only to the allowed ranges: with none, loopback is refused too.
    let strict = app_with(Backend::Sqlite, |s| s.webhooks.allow.clear()).await;
    let bob = strict.player("bob").await;
    for endpoint in [
        "http://127.0.0.1:9/push/x",
        "https://127.0.0.1/push/x",
        "https://localhost/x",
    ] {
        let (status, problem) =
            subscribe(&strict, &bob.token, &subscription(endpoint, P256DH, AUTH)).await;
        assert_eq!(status, 422, "{endpoint}: {problem}");
    }
}

#[tokio::test]
async fn subscriptions_are_the_players_own_and_leave_with_them() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let ann = app.player("ann").await;
        let bob = app.player("bob").await;
        let reader = token_with(&app, &ann, &["account:read"]).await;
        let writer = token_with(&app, &ann, &["account:write"]).await;
        let body = subscription("https://push.example/send/ann", P256DH, AUTH);
        let (status, _) = subscribe(&app, &reader, &body).await;
        assert_eq!(status, 403, "account:read cannot subscribe");
        let (status, made) = subscribe(&app, &writer, &body).await;
        assert_eq!(status, 201, "{made}");
        let id = made["id"].as_str().expect("id");
        let list = app
            .client
            .get(app.url("/v1/players/me/push-subscriptions"))
            .bearer_auth(&reader)
            .send()
            .await
            .expect("list");
        assert_eq!(list.status(), 200);
        let delete = |who: String| {
            let url = app.url(&format!("/v1/players/me/push-subscriptions/{id}"));
            let client = app.client.clone();
            async move {
                client
                    .delete(url)
                    .bearer_auth(who)
                    .send()
                    .await
                    .expect("delete")
                    .status()
                    .as_u16()
            }
        };
        assert_eq!(delete(bob.token.clone()).await, 404, "not Bob's");
        assert_eq!(delete(reader.clone()).await, 403);
        assert_eq!(devices(&app, &ann).await.len(), 1);

        // The export names the device, never the endpoint or keys.
        let export = app.get_json_as("/v1/players/me/export", &ann).await;
        let listed = &export["push_subscriptions"];
        assert_eq!(listed[0]["device"], "Chrome on Linux", "{listed}");
        assert_eq!(listed[0]["endpoint_origin"], "https://push.example");
        let text = export.to_string();
        assert!(!text.contains("send/ann") && !text.contains(AUTH) && !text.contains(P256DH));

        assert_eq!(delete(writer.clone()).await, 204);
        assert_eq!(delete(writer).await, 404);
        assert!(devices(&app, &ann).await.is_empty());

        // Bob takes over the endpoint Ann's browser had (he signed in on it), then leaves.
        assert_eq!(subscribe(&app, &ann.token, &body).await.0, 201);
        assert_eq!(subscribe(&app, &bob.token, &body).await.0, 200);
        assert!(devices(&app, &ann).await.is_empty());
        assert_eq!(devices(&app, &bob).await.len(), 1);
        let name = app.get_json_as("/v1/players/me", &bob).await["name"].clone();
        let gone = app
            .client
            .delete(app.url("/v1/players/me"))
            .bearer_auth(&bob.token)
            .json(&json!({ "confirm_name": name }))
            .send()
            .await
            .expect("delete");
        assert_eq!(gone.status(), 204);
        let left = app.worp.push_to_devices_of(bob.id, &your_turn()).await;
        assert_eq!(left, Ok(vec![]), "{backend:?}: nothing left to send to");
    }
}

#[tokio::test]
async fn a_push_reaches_no_address_the_screening_refuses_even_when_stored() {
    // A server whose allowed ranges no longer cover loopback: subscriptions stored while
    // they did are refused at sending, whether the address is written or resolved.
    let app = app_with(Backend::Sqlite, |s| s.webhooks.allow.clear()).await;
    let ann = app.player("ann").await;
    let service = PushService::start(&public_key(&app).await).await;
    let endpoint = service.subscription["endpoint"].as_str().expect("endpoint");
    for (n, endpoint) in [
        endpoint.to_owned(),
        endpoint.replace("127.0.0.1", "localhost"),
    ]
    .into_iter()
    .enumerate()
    {
        app.store
            .save_push_subscription(&worp::store::push::StoredPushSubscription {
                id: uuid::Uuid::new_v4(),
                player_id: ann.id,
                endpoint,
                p256dh: service.subscription["keys"]["p256dh"]
                    .as_str()
                    .expect("p256dh")
                    .into(),
                auth: service.subscription["keys"]["auth"]
                    .as_str()
                    .expect("auth")
                    .into(),
                device: format!("device {n}"),
                created_at: chrono::Utc::now(),
                last_used_at: None,
            })
            .await
            .expect("stored");
    }
    let outcomes = app
        .worp
        .push_to_devices_of(ann.id, &your_turn())
        .await
        .expect("tried");
    assert_eq!(outcomes.len(), 2);
    for outcome in &outcomes {
        assert!(
            matches!(outcome, Err(PushFailure::Permanent(m)) if m.contains("refused")),
            "{outcomes:?}"
        );
    }
    assert!(service.messages().await.is_empty());
    assert_eq!(
        devices(&app, &ann).await.len(),
        2,
        "kept: a refusal is not a 410"
    );
}

/// The outbox pushes a player's notices to their device, by the default preferences:
/// an invitation, then their turn, in words and with the game's page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_players_notices_reach_their_device_through_the_outbox() {
    let app = spawn_app(Backend::Sqlite).await;
    let ann = app.player("ann").await;
    let bob = app.player("bob").await;
    let service = PushService::start(&public_key(&app).await).await;
    let (status, _) = subscribe(&app, &ann.token, &service.subscription).await;
    assert_eq!(status, 201);
    let resp = app
        .post(
            "/v1/games",
            &bob,
            json!({ "variant": "backgammon", "seats": [bob.id, ann.id] }),
        )
        .await;
    assert_eq!(resp.status(), 201);
    let id = resp.json::<Value>().await.expect("json")["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let bob_name = app.get_json(&format!("/v1/players/{}", bob.id)).await["name"]
        .as_str()
        .expect("name")
        .to_owned();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let got = loop {
        let got = service.messages().await;
        if !got.is_empty() {
            break got;
        }
        assert!(std::time::Instant::now() < deadline, "no push arrived");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    let payload = &got[0]["payload"];
    assert_eq!(
        payload["title"],
        format!("{bob_name} invites you to a game of Backgammon"),
        "{got:?}"
    );
    assert_eq!(payload["url"], format!("/#/game/{id}"));
    assert_eq!(payload["tag"], format!("game:{id}"));
    assert_eq!(payload["kind"], "invited");
    assert!(
        !payload.to_string().contains("worp_"),
        "no credential: {payload}"
    );
}
