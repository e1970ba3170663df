//! Passkeys over HTTP, up to what only an authenticator can answer (the browser end to
//! end, with Chromium's virtual authenticator, is `tests/e2e/`): the options of both
//! ceremonies, and every ceremony or credential that is not right refused with nothing
//! stored, on both backends.

use serde_json::{json, Value};

use crate::helpers::{spawn_app_with, ManualClock, TestApp, TestPlayer, BACKENDS};

async fn post(app: &TestApp, who: Option<&TestPlayer>, path: &str, body: Value) -> (u16, Value) {
    let mut req = app.client.post(app.url(path)).json(&body);
    if let Some(w) = who {
        req = req.bearer_auth(&w.token);
    }
    let resp = req.send().await.expect("request");
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn passkey_ceremonies_are_offered_and_refused_when_not_right() {
    for backend in BACKENDS {
        let clock = ManualClock::new();
        let app = spawn_app_with(backend, clock.clone()).await;
        let (ann, bob) = (app.player("ann").await, app.player("bob").await);

        let (status, reg) = post(
            &app,
            Some(&ann),
            "/v1/players/me/passkeys/options",
            Value::Null,
        )
        .await;
        assert_eq!(status, 200, "{backend:?}: {reg}");
        let key = &reg["options"]["publicKey"];
        assert_eq!(key["rp"]["id"], "localhost");
        assert_eq!(key["rp"]["name"], "Worp");
        assert_eq!(key["authenticatorSelection"]["residentKey"], "preferred");
        assert_eq!(
            key["authenticatorSelection"]["userVerification"],
            "required"
        );
        assert!(key["challenge"].as_str().is_some_and(|c| c.len() >= 43));
        let ceremony = reg["ceremony"].as_str().expect("ceremony").to_owned();

        // Another player cannot answer it; a forged credential does not verify; either
        // way the ceremony is used up and nothing is stored.
        let forged = json!({
            "id": "AAAA", "rawId": "AAAA", "type": "public-key",
            "response": { "attestationObject": "AAAA", "clientDataJSON": "AAAA" },
            "extensions": {}
        });
        let (status, _) = post(
            &app,
            Some(&bob),
            "/v1/players/me/passkeys",
            json!({ "ceremony": ceremony, "credential": forged }),
        )
        .await;
        assert_eq!(status, 400);
        let (status, body) = post(
            &app,
            Some(&ann),
            "/v1/players/me/passkeys",
            json!({ "ceremony": ceremony, "credential": forged }),
        )
        .await;
        assert_eq!(status, 400, "{body}");
        let (status, body) = post(
            &app,
            Some(&ann),
            "/v1/players/me/passkeys",
            json!({ "ceremony": ceremony, "credential": forged }),
        )
        .await;
        assert_eq!(status, 400);
        assert!(
            body["detail"].as_str().is_some_and(|d| d.contains("used")),
            "{body}"
        );
        let (_, reg) = post(
            &app,
            Some(&ann),
            "/v1/players/me/passkeys/options",
            Value::Null,
        )
        .await;
        let (status, _) = post(
            &app,
            Some(&ann),
            "/v1/players/me/passkeys",
            json!({ "ceremony": reg["ceremony"], "credential": {"not": "a credential"} }),
        )
        .await;
        assert_eq!(status, 400);
        assert_eq!(
            app.get_json_as("/v1/players/me/passkeys", &ann).await,
            json!([])
        );

        // Signing in: anyone may ask; a ceremony lasts five minutes and is used once.
        let (status, opts) = post(&app, None, "/v1/sessions/passkey/options", Value::Null).await;
        assert_eq!(status, 200);
        assert_eq!(opts["options"]["publicKey"]["rpId"], "localhost");
        assert_eq!(opts["options"]["publicKey"]["userVerification"], "required");
        let assertion = json!({
            "id": "AAAA", "rawId": "AAAA", "type": "public-key",
            "response": { "authenticatorData": "AAAA", "clientDataJSON": "AAAA",
                          "signature": "AAAA", "userHandle": "AAAA" },
            "extensions": {}
        });
        let (status, body) = post(
            &app,
            None,
            "/v1/sessions/passkey",
            json!({ "ceremony": opts["ceremony"], "credential": assertion }),
        )
        .await;
        assert_eq!(status, 401, "{backend:?}: {body}");
        let (status, _) = post(
            &app,
            None,
            "/v1/sessions/passkey",
            json!({ "ceremony": opts["ceremony"], "credential": assertion }),
        )
        .await;
        assert_eq!(status, 400, "used up");
        let (_, opts) = post(&app, None, "/v1/sessions/passkey/options", Value::Null).await;
        clock.advance(chrono::Duration::minutes(6));
        let (status, _) = post(
            &app,
            None,
            "/v1/sessions/passkey",
            json!({ "ceremony": opts["ceremony"], "credential": assertion }),
        )
        .await;
        assert_eq!(status, 400, "expired");

        let gone = app
            .client
            .delete(app.url("/v1/players/me/passkeys/AAAA"))
            .bearer_auth(&ann.token)
            .send()
            .await
            .expect("request");
        assert_eq!(gone.status(), 404);
    }
}

#[tokio::test]
async fn the_last_way_in_is_not_removed() {
    for backend in BACKENDS {
        let clock = ManualClock::new();
        let app = spawn_app_with(backend, clock).await;
        let kim = app.player("kim").await;
        let stored = worp::store::passkeys::StoredPasskey {
            credential_id: vec![1, 2, 3],
            player_id: kim.id,
            name: "phone".into(),
            passkey: "{}".into(),
            created_at: chrono::Utc::now(),
            last_used_at: None,
        };
        app.store.create_passkey(&stored).await.expect("stored");
        let remove = || {
            app.client
                .delete(app.url("/v1/players/me/passkeys/AQID"))
                .bearer_auth(&kim.token)
                .send()
        };
        // No password, no recovery codes: the passkey is the only way in but the token.
        assert_eq!(
            remove().await.expect("request").status(),
            409,
            "{backend:?}"
        );
        let export = app.get_json_as("/v1/players/me/export", &kim).await;
        assert_eq!(export["passkeys"][0]["name"], "phone");
        crate::accounts::with_password(&app, &kim).await;
        assert_eq!(remove().await.expect("request").status(), 204);
        assert_eq!(
            app.get_json_as("/v1/players/me/passkeys", &kim).await,
            json!([])
        );
    }
}
