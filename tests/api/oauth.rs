//! OAuth 2.0 for third-party front-ends, spoken to as a client would: the authorization
//! code flow with PKCE (RFC 6749, RFC 7636), refresh-token rotation and reuse detection
//! (RFC 9700), revocation (RFC 7009) and the server's metadata (RFC 8414), with every
//! bad request refused and nothing issued, on both backends.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use reqwest::header::{COOKIE, LOCATION};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::accounts::{name_of, sign_in, with_password, Browser};
use crate::helpers::{
    fresh_database, spawn_app, spawn_app_from, spawn_app_with, test_settings, Backend, ManualClock,
    TestApp, TestPlayer, BACKENDS,
};

const CLIENT: &str = "Example front-end";
const REDIRECT: &str = "http://127.0.0.1:9/callback";

/// A PKCE pair: a verifier and its S256 challenge.
fn pkce() -> (String, String) {
    let verifier = hex::encode(rand::random::<[u8; 32]>());
    let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    (verifier, challenge)
}

fn params(challenge: &str, scope: &str) -> Value {
    json!({
        "response_type": "code",
        "client_id": CLIENT,
        "redirect_uri": REDIRECT,
        "scope": scope,
        "state": "st4te with spaces & more",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
    })
}

/// The query pairs of a URL.
fn query(url: &str) -> Vec<(String, String)> {
    reqwest::Url::parse(url)
        .expect("url")
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

fn pair<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// The consent screen's answer `body` (the request's parameters and `approve`), posted
/// from the player's browser.
async fn consent_answer(app: &TestApp, browser: &Browser, body: &Value) -> reqwest::Response {
    app.client
        .post(app.url("/v1/oauth/authorize"))
        .header(COOKIE, &browser.cookie)
        .header("x-csrf-token", &browser.csrf)
        .json(body)
        .send()
        .await
        .expect("request")
}

/// The player consents (or not) in their browser: where the browser goes next.
async fn consent(app: &TestApp, browser: &Browser, params: &Value, approve: bool) -> String {
    let mut body = params.clone();
    body["approve"] = json!(approve);
    let resp = consent_answer(app, browser, &body).await;
    let status = resp.status();
    let body: Value = resp.json().await.expect("json");
    assert_eq!(status, 200, "{body}");
    body["redirect_uri"].as_str().expect("redirect").to_owned()
}

/// `POST /oauth/token` with `form`: the status and the answer.
async fn token_request(app: &TestApp, form: &[(&str, &str)]) -> (u16, Value) {
    let resp = app
        .client
        .post(app.url("/oauth/token"))
        .form(form)
        .send()
        .await
        .expect("request");
    let status = resp.status().as_u16();
    if status == 200 {
        assert_eq!(
            resp.headers()
                .get("cache-control")
                .and_then(|v| v.to_str().ok()),
            Some("no-store")
        );
    }
    (status, resp.json().await.expect("json"))
}

/// A player with a password, signed in in a browser.
async fn signed_in(app: &TestApp, name: &str) -> (TestPlayer, Browser) {
    let p = app.player(name).await;
    with_password(app, &p).await;
    let name = name_of(app, &p).await;
    let browser = sign_in(app, &name).await;
    (p, browser)
}

/// A code for `scope`, with its verifier.
async fn code_for(app: &TestApp, browser: &Browser, scope: &str) -> (String, String) {
    let (verifier, challenge) = pkce();
    let redirect = consent(app, browser, &params(&challenge, scope), true).await;
    let q = query(&redirect);
    assert_eq!(pair(&q, "state"), Some("st4te with spaces & more"));
    (pair(&q, "code").expect("code").to_owned(), verifier)
}

/// Exchanges a code: the access and refresh tokens.
async fn exchange(app: &TestApp, code: &str, verifier: &str) -> (String, String) {
    let (status, body) = token_request(
        app,
        &[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", REDIRECT),
            ("client_id", CLIENT),
            ("code_verifier", verifier),
        ],
    )
    .await;
    assert_eq!(status, 200, "{body}");
    (
        body["access_token"].as_str().expect("access").to_owned(),
        body["refresh_token"].as_str().expect("refresh").to_owned(),
    )
}

/// The status of `GET path` with `token`.
pub async fn status_with(app: &TestApp, token: &str, path: &str) -> u16 {
    app.client
        .get(app.url(path))
        .bearer_auth(token)
        .send()
        .await
        .expect("request")
        .status()
        .as_u16()
}

async fn refresh(app: &TestApp, refresh_token: &str) -> (u16, Value) {
    token_request(
        app,
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh_token),
            ("client_id", CLIENT),
        ],
    )
    .await
}

#[tokio::test]
async fn a_front_end_gets_a_scoped_token_by_the_code_flow_with_pkce() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (alice, browser) = signed_in(&app, "alice").await;

        let meta = app
            .get_json("/.well-known/oauth-authorization-server")
            .await;
        assert_eq!(meta["code_challenge_methods_supported"], json!(["S256"]));
        // On the configured public URL (`WORP_PUBLIC_URL`), not the address asked.
        let public = test_settings(String::new()).public_url;
        assert_eq!(meta["issuer"], public.as_str());
        assert_eq!(meta["token_endpoint"], format!("{public}/oauth/token"));

        let (verifier, challenge) = pkce();
        let p = params(&challenge, "game:read game:play");
        let q: Vec<(String, String)> = p
            .as_object()
            .expect("object")
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().expect("text").to_owned()))
            .collect();
        let view = app
            .client
            .get(app.url("/v1/oauth/authorize"))
            .query(&q)
            .send()
            .await
            .expect("request");
        let view: Value = view.json().await.expect("json");
        assert_eq!(view["client_id"], CLIENT);
        assert_eq!(view["redirect_origin"], "http://127.0.0.1:9");
        assert_eq!(view["scopes"][1]["scope"], "game:play");

        // Only a web session consents: a token cannot, even a full one.
        let by_token = app
            .post("/v1/oauth/authorize", &alice, {
                let mut b = p.clone();
                b["approve"] = json!(true);
                b
            })
            .await;
        assert_eq!(by_token.status(), 401);

        let redirect = consent(&app, &browser, &p, true).await;
        assert!(redirect.starts_with(REDIRECT), "{redirect}");
        let rq = query(&redirect);
        let code = pair(&rq, "code").expect("code").to_owned();
        assert_eq!(pair(&rq, "state"), Some("st4te with spaces & more"));

        // Every wrong exchange is refused, and leaves the code usable.
        let good = [
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", REDIRECT),
            ("client_id", CLIENT),
            ("code_verifier", verifier.as_str()),
        ];
        let other_verifier = pkce().0;
        for (name, value, error) in [
            ("code_verifier", other_verifier.as_str(), "invalid_grant"),
            ("code_verifier", "short", "invalid_request"),
            (
                "redirect_uri",
                "http://127.0.0.1:9/callback/",
                "invalid_grant",
            ),
            (
                "redirect_uri",
                "https://evil.example/callback",
                "invalid_grant",
            ),
            ("client_id", "Another front-end", "invalid_grant"),
            ("code", "worp_oac_00", "invalid_grant"),
            ("grant_type", "password", "unsupported_grant_type"),
        ] {
            let form: Vec<(&str, &str)> = good
                .iter()
                .map(|&(k, v)| if k == name { (k, value) } else { (k, v) })
                .collect();
            let (status, body) = token_request(&app, &form).await;
            assert_eq!(
                (status, body["error"].as_str()),
                (400, Some(error)),
                "{name}={value}: {body}"
            );
        }
        let without_verifier: Vec<(&str, &str)> = good
            .iter()
            .copied()
            .filter(|(k, _)| *k != "code_verifier")
            .collect();
        let (status, body) = token_request(&app, &without_verifier).await;
        assert_eq!(
            (status, body["error"].as_str()),
            (400, Some("invalid_request"))
        );
        let twice = app
            .client
            .post(app.url("/oauth/token"))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(format!("{}&client_id=x", serde_urlencoded(&good)))
            .send()
            .await
            .expect("request");
        assert_eq!(twice.status(), 400);
        let as_json = app
            .client
            .post(app.url("/oauth/token"))
            .json(&json!({ "grant_type": "authorization_code", "code": code }))
            .send()
            .await
            .expect("request");
        assert_eq!(as_json.status(), 400);

        let (access, refresh_token) = exchange(&app, &code, &verifier).await;
        assert!(access.starts_with("worp_oat_") && refresh_token.starts_with("worp_ort_"));
        assert_eq!(
            status_with(&app, &access, "/v1/players/me/games").await,
            200,
            "{backend:?}"
        );
        // Not granted: creating games, reading the account.
        assert_eq!(status_with(&app, &access, "/v1/players/me").await, 403);
        // A refresh token is no access token.
        assert_eq!(
            status_with(&app, &refresh_token, "/v1/players/me/games").await,
            401
        );
        // It plays: takes a seat in another player's game.
        let bob = app.player("bob").await;
        let game = app
            .post(
                "/v1/games",
                &bob,
                json!({ "variant": "backgammon", "seats": [bob.id, null] }),
            )
            .await;
        let game: Value = game.json().await.expect("json");
        let seat = app
            .client
            .post(app.url(&format!(
                "/v1/games/{}/seats/1",
                game["id"].as_str().expect("id")
            )))
            .bearer_auth(&access)
            .send()
            .await
            .expect("request");
        assert_eq!(seat.status(), 200);

        let apps = app.get_json_as("/v1/players/me/apps", &alice).await;
        assert_eq!(apps[0]["client_id"], CLIENT);
        assert_eq!(apps[0]["redirect_origin"], "http://127.0.0.1:9");
        assert_eq!(apps[0]["scopes"], json!(["game:read", "game:play"]));

        // The code again: refused, and what it bought is revoked.
        let (status, body) = token_request(&app, &good).await;
        assert_eq!(
            (status, body["error"].as_str()),
            (400, Some("invalid_grant"))
        );
        assert_eq!(
            status_with(&app, &access, "/v1/players/me/games").await,
            401
        );
        assert_eq!(refresh(&app, &refresh_token).await.0, 400);
        assert_eq!(
            app.get_json_as("/v1/players/me/apps", &alice).await,
            json!([])
        );
    }
}

/// `pairs` form-encoded.
fn serde_urlencoded(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={}", v.replace(' ', "+").replace('&', "%26")))
        .collect::<Vec<_>>()
        .join("&")
}

#[tokio::test]
async fn refresh_tokens_rotate_and_a_reused_one_revokes_its_grant() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (alice, browser) = signed_in(&app, "alice").await;
        let (code, verifier) = code_for(&app, &browser, "game:read game:play").await;
        let (a1, r1) = exchange(&app, &code, &verifier).await;

        let (status, body) = refresh(&app, &r1).await;
        assert_eq!(status, 200, "{backend:?}: {body}");
        let a2 = body["access_token"].as_str().expect("access").to_owned();
        let r2 = body["refresh_token"].as_str().expect("refresh").to_owned();
        assert_ne!(r1, r2);
        assert_eq!(status_with(&app, &a2, "/v1/players/me/games").await, 200);
        // Another client's id does not refresh it.
        let (status, body) = token_request(
            &app,
            &[
                ("grant_type", "refresh_token"),
                ("refresh_token", &r2),
                ("client_id", "someone else"),
            ],
        )
        .await;
        assert_eq!(
            (status, body["error"].as_str()),
            (400, Some("invalid_grant"))
        );
        // Narrower scopes may be asked; wider ones not.
        let (status, body) = token_request(
            &app,
            &[
                ("grant_type", "refresh_token"),
                ("refresh_token", &r2),
                ("client_id", CLIENT),
                ("scope", "chat:write"),
            ],
        )
        .await;
        assert_eq!(
            (status, body["error"].as_str()),
            (400, Some("invalid_scope"))
        );

        // r1 again: the whole grant is revoked, the newest tokens with it.
        let (status, body) = refresh(&app, &r1).await;
        assert_eq!(
            (status, body["error"].as_str()),
            (400, Some("invalid_grant"))
        );
        for token in [&a1, &a2] {
            assert_eq!(status_with(&app, token, "/v1/players/me/games").await, 401);
        }
        assert_eq!(refresh(&app, &r2).await.0, 400);

        // Revocation (RFC 7009): the access token takes its grant with it; an unknown
        // token is no error.
        let (code, verifier) = code_for(&app, &browser, "game:read").await;
        let (a3, r3) = exchange(&app, &code, &verifier).await;
        for token in [a3.as_str(), "worp_oat_unknown"] {
            let resp = app
                .client
                .post(app.url("/oauth/revoke"))
                .form(&[("token", token), ("client_id", CLIENT)])
                .send()
                .await
                .expect("request");
            assert_eq!(resp.status(), 200);
        }
        assert_eq!(status_with(&app, &a3, "/v1/players/me/games").await, 401);
        assert_eq!(refresh(&app, &r3).await.0, 400);

        // The player revokes an app from their account.
        let (code, verifier) = code_for(&app, &browser, "game:read").await;
        let (a4, _) = exchange(&app, &code, &verifier).await;
        let apps = app.get_json_as("/v1/players/me/apps", &alice).await;
        let id = apps[0]["id"].as_str().expect("id");
        let gone = app
            .client
            .delete(app.url(&format!("/v1/players/me/apps/{id}")))
            .bearer_auth(&alice.token)
            .send()
            .await
            .expect("request");
        assert_eq!(gone.status(), 204);
        assert_eq!(status_with(&app, &a4, "/v1/players/me/games").await, 401);
    }
}

#[tokio::test]
async fn bad_authorisation_requests_are_refused_and_never_sent_astray() {
    for backend in BACKENDS {
        let clock = ManualClock::new();
        let app = spawn_app_with(backend, clock.clone()).await;
        let (_, browser) = signed_in(&app, "alice").await;
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client");
        let (_, challenge) = pkce();
        let page = |changes: Value| {
            let mut p = params(&challenge, "game:read");
            for (k, v) in changes.as_object().expect("object") {
                match v {
                    Value::Null => {
                        p.as_object_mut().expect("object").remove(k);
                    }
                    v => p[k] = v.clone(),
                }
            }
            let q: Vec<(String, String)> = p
                .as_object()
                .expect("object")
                .iter()
                .map(|(k, v)| (k.clone(), v.as_str().expect("text").to_owned()))
                .collect();
            client.get(app.url("/oauth/authorize")).query(&q).send()
        };
        let ok = page(json!({})).await.expect("request");
        assert_eq!(ok.status(), 200, "{backend:?}");
        assert_eq!(
            ok.headers()
                .get("x-frame-options")
                .and_then(|v| v.to_str().ok()),
            Some("DENY")
        );
        assert!(ok
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/html")));
        // A client or redirect that cannot be trusted is told to the player, never followed.
        for changes in [
            json!({ "redirect_uri": "http://example.org/cb" }),
            json!({ "redirect_uri": "https://example.org/cb#x" }),
            json!({ "redirect_uri": null }),
            json!({ "client_id": null }),
        ] {
            let resp = page(changes.clone()).await.expect("request");
            assert_eq!(resp.status(), 400, "{changes}");
            assert!(resp.headers().get(LOCATION).is_none());
        }
        // Any other fault is told to the player too: no redirect URI is registered, so
        // none is trusted with an error before the player has seen where it goes.
        for (changes, error) in [
            (
                json!({ "code_challenge_method": "plain" }),
                "invalid_request",
            ),
            (json!({ "code_challenge_method": null }), "invalid_request"),
            (json!({ "code_challenge": "abc" }), "invalid_request"),
            (json!({ "scope": "game:read root" }), "invalid_scope"),
            (
                json!({ "response_type": "token" }),
                "unsupported_response_type",
            ),
        ] {
            let resp = page(changes.clone()).await.expect("request");
            assert_eq!(resp.status(), 400, "{changes}");
            assert!(resp.headers().get(LOCATION).is_none(), "{changes}");
            let text = resp.text().await.expect("text");
            assert!(text.contains(error), "{changes}: {text}");
        }

        // Denied: the client hears access_denied.
        let denied = consent(&app, &browser, &params(&challenge, "game:read"), false).await;
        let q = query(&denied);
        assert_eq!(pair(&q, "error"), Some("access_denied"));
        assert!(pair(&q, "code").is_none());

        // A code waits two minutes at most.
        let (code, verifier) = code_for(&app, &browser, "game:read").await;
        clock.advance(chrono::Duration::minutes(3));
        let (status, body) = token_request(
            &app,
            &[
                ("grant_type", "authorization_code"),
                ("code", &code),
                ("redirect_uri", REDIRECT),
                ("client_id", CLIENT),
                ("code_verifier", &verifier),
            ],
        )
        .await;
        assert_eq!(
            (status, body["error"].as_str()),
            (400, Some("invalid_grant"))
        );
        // The consent needs the session's CSRF token.
        let mut body = params(&challenge, "game:read");
        body["approve"] = json!(true);
        let forged = app
            .client
            .post(app.url("/v1/oauth/authorize"))
            .header(COOKIE, &browser.cookie)
            .json(&body)
            .send()
            .await
            .expect("request");
        assert_eq!(forged.status(), 403);
    }
}

/// `GET /oauth/authorize` with `pairs`, not following any redirect.
async fn authorize_request(app: &TestApp, pairs: &[(&str, &str)]) -> reqwest::Response {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client")
        .get(app.url("/oauth/authorize"))
        .query(pairs)
        .send()
        .await
        .expect("request")
}

#[tokio::test]
async fn a_faulty_request_never_bounces_the_browser_to_the_redirect_it_names() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let (_, browser) = signed_in(&app, "alice").await;
        // Anyone may write such a link: no client is registered, so any client_id and any
        // https redirect are accepted, and an error sent there at once would make Worp's
        // address a way to send a browser anywhere (RFC 9700 §4.11.2).
        let attacker = "https://a.example/cb";
        let (_, good_challenge) = pkce();
        for faulty in [
            vec![("code_challenge", "abc"), ("code_challenge_method", "S256")],
            vec![
                ("response_type", "code"),
                ("scope", "game:read"),
                ("code_challenge", "abc"),
                ("code_challenge_method", "S256"),
            ],
            vec![
                ("response_type", "token"),
                ("scope", "game:read"),
                ("code_challenge", good_challenge.as_str()),
                ("code_challenge_method", "S256"),
            ],
            vec![
                ("response_type", "code"),
                ("scope", "no-such-scope"),
                ("code_challenge", good_challenge.as_str()),
                ("code_challenge_method", "S256"),
            ],
        ] {
            let mut pairs = vec![
                ("client_id", "anything"),
                ("redirect_uri", attacker),
                ("state", "phish"),
            ];
            pairs.extend(faulty.iter().copied());
            let resp = authorize_request(&app, &pairs).await;
            assert_eq!(resp.status(), 400, "{backend:?} {pairs:?}");
            assert!(resp.headers().get(LOCATION).is_none(), "{pairs:?}");
            let text = resp.text().await.expect("text");
            assert!(text.contains("cannot be answered"), "{text}");

            // Nor through the consent screen's answer, even by a signed-in player.
            let mut body: serde_json::Map<String, Value> = pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), json!(v)))
                .collect();
            body.insert("approve".into(), json!(false));
            let answer = consent_answer(&app, &browser, &Value::Object(body)).await;
            assert_eq!(answer.status(), 400, "{pairs:?}");
            let answer: Value = answer.json().await.expect("json");
            assert!(answer.get("redirect_uri").is_none(), "{answer}");
        }

        // A good request from the same link shows the consent screen, not a redirect; only
        // the player's answer there, which showed the origin, sends the browser back.
        let good = [
            ("response_type", "code"),
            ("client_id", "anything"),
            ("redirect_uri", attacker),
            ("scope", "game:read"),
            ("state", "phish"),
            ("code_challenge", good_challenge.as_str()),
            ("code_challenge_method", "S256"),
        ];
        let resp = authorize_request(&app, &good).await;
        assert_eq!(resp.status(), 200);
        assert!(resp.headers().get(LOCATION).is_none());
        let mut body = json!({});
        for (k, v) in good {
            body[k] = json!(v);
        }
        let denied = consent(&app, &browser, &body, false).await;
        assert!(denied.starts_with(attacker), "{denied}");
        assert_eq!(pair(&query(&denied), "error"), Some("access_denied"));
    }
}

#[tokio::test]
async fn forged_host_headers_do_not_change_the_metadata() {
    let (url, dir) = fresh_database(Backend::Sqlite).await;
    let mut settings = test_settings(url);
    settings.public_url = "https://worp.example.org/".into();
    let app = spawn_app_from(settings, std::sync::Arc::new(worp::clock::SystemClock), dir).await;
    let get = |headers: &[(&str, &str)]| {
        let mut req = app
            .client
            .get(app.url("/.well-known/oauth-authorization-server"));
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        req.send()
    };
    let plain: Value = get(&[]).await.expect("request").json().await.expect("json");
    // The configured public URL, without its trailing slash (RFC 8414 §2).
    assert_eq!(plain["issuer"], "https://worp.example.org");
    for (name, path) in [
        ("authorization_endpoint", "/oauth/authorize"),
        ("token_endpoint", "/oauth/token"),
        ("revocation_endpoint", "/oauth/revoke"),
        ("service_documentation", "/docs/"),
    ] {
        assert_eq!(plain[name], format!("https://worp.example.org{path}"));
    }
    for forged in [
        vec![("host", "evil.example")],
        vec![
            ("x-forwarded-host", "evil.example"),
            ("x-forwarded-proto", "https"),
        ],
        vec![("forwarded", "for=192.0.2.1;host=evil.example;proto=http")],
        vec![
            ("host", "evil.example:8443"),
            ("forwarded", "host=evil.example;proto=https"),
            ("x-forwarded-host", "evil.example"),
            ("x-forwarded-proto", "http"),
            ("x-forwarded-for", "192.0.2.1"),
        ],
    ] {
        let resp = get(&forged).await.expect("request");
        assert_eq!(resp.status(), 200, "{forged:?}");
        let meta: Value = resp.json().await.expect("json");
        assert_eq!(meta, plain, "{forged:?}");
        assert!(!meta.to_string().contains("evil"), "{forged:?}: {meta}");
    }
}
