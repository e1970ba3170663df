//! Accounts that last: personal access tokens with scopes, web sessions with CSRF
//! protection, passwords and recovery codes with growing delays after failures, on both
//! backends, against the real server.

use reqwest::header::{COOKIE, SET_COOKIE, WWW_AUTHENTICATE};
use serde_json::{json, Value};

use crate::helpers::{spawn_app, spawn_app_with, ManualClock, TestApp, TestPlayer, BACKENDS};

pub const PASSWORD: &str = "gloomy otter paints the quay";

/// A personal access token of `who` granting `scopes`, made with their first token.
pub async fn token_with(app: &TestApp, who: &TestPlayer, scopes: &[&str]) -> String {
    let resp = app
        .post(
            "/v1/players/me/tokens",
            who,
            json!({ "name": format!("test {}", scopes.join(" ")), "scopes": scopes }),
        )
        .await;
    let status = resp.status();
    let body: Value = resp.json().await.expect("json");
    assert_eq!(status, 201, "{body}");
    body["token"].as_str().expect("token").to_owned()
}

/// `who`'s name, as the server has it.
pub async fn name_of(app: &TestApp, who: &TestPlayer) -> String {
    let me = app.get_json_as("/v1/players/me", who).await;
    me["name"].as_str().expect("name").to_owned()
}

/// Sets `who`'s password to [`PASSWORD`].
pub async fn with_password(app: &TestApp, who: &TestPlayer) {
    let resp = app
        .post(
            "/v1/players/me/password",
            who,
            json!({ "password": PASSWORD }),
        )
        .await;
    assert_eq!(resp.status(), 204, "{:?}", resp.text().await);
}

/// A signed-in web session: its cookie (`name=value`) and CSRF token.
#[derive(Debug, Clone)]
pub struct Browser {
    pub cookie: String,
    pub csrf: String,
}

/// `POST /v1/sessions` with `body`: the status, the answer, and the session's cookie.
pub async fn sign_in_with(app: &TestApp, body: Value) -> (u16, Value, Option<String>) {
    let resp = app
        .client
        .post(app.url("/v1/sessions"))
        .header(
            "user-agent",
            "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0",
        )
        .json(&body)
        .send()
        .await
        .expect("request");
    let status = resp.status().as_u16();
    let cookie = resp
        .headers()
        .get_all(SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("__Host-worp_session="))
        .map(str::to_owned);
    (status, resp.json().await.unwrap_or(Value::Null), cookie)
}

/// Signs in as `name` with [`PASSWORD`].
pub async fn sign_in(app: &TestApp, name: &str) -> Browser {
    let (status, body, cookie) =
        sign_in_with(app, json!({ "name": name, "password": PASSWORD })).await;
    assert_eq!(status, 201, "{body}");
    let cookie = cookie.expect("a session cookie");
    Browser {
        cookie: cookie.split(';').next().expect("pair").to_owned(),
        csrf: body["csrf_token"].as_str().expect("csrf").to_owned(),
    }
}

/// The status of `GET path` with the session cookie `cookie`.
pub async fn status_by_cookie(app: &TestApp, cookie: &str, path: &str) -> u16 {
    app.client
        .get(app.url(path))
        .header(COOKIE, cookie)
        .send()
        .await
        .expect("request")
        .status()
        .as_u16()
}

fn insufficient(resp: &reqwest::Response, scope: &str) -> bool {
    resp.status() == 403
        && resp
            .headers()
            .get(WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| {
                v.contains("error=\"insufficient_scope\"")
                    && v.contains(&format!("scope=\"{scope}\""))
            })
}

#[tokio::test]
async fn a_personal_token_grants_its_scopes_and_nothing_more() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let alice = app.player("alice").await;
        let reader = TestPlayer {
            id: alice.id,
            token: token_with(&app, &alice, &["game:read"]).await,
        };
        assert!(reader.token.starts_with("worp_pat_"));

        let games = app
            .client
            .get(app.url("/v1/players/me/games"))
            .bearer_auth(&reader.token)
            .send()
            .await
            .expect("request");
        assert_eq!(games.status(), 200, "{backend:?}");
        let create = app
            .post(
                "/v1/games",
                &reader,
                json!({ "variant": "backgammon", "seats": [alice.id, null] }),
            )
            .await;
        assert!(
            insufficient(&create, "challenge:write"),
            "{backend:?}: {:?}",
            create.headers()
        );
        let problem: Value = create.json().await.expect("json");
        assert_eq!(problem["type"], "/problems/insufficient-scope");
        let me = app
            .client
            .get(app.url("/v1/players/me"))
            .bearer_auth(&reader.token)
            .send()
            .await
            .expect("request");
        assert!(insufficient(&me, "account:read"));

        // A token makes tokens of no more than it grants.
        let keeper = TestPlayer {
            id: alice.id,
            token: token_with(&app, &alice, &["account:read", "account:write"]).await,
        };
        let wider = app
            .post(
                "/v1/players/me/tokens",
                &keeper,
                json!({ "name": "wider", "scopes": ["game:play"] }),
            )
            .await;
        assert_eq!(wider.status(), 403);
        for bad in [
            json!({ "name": "x", "scopes": [] }),
            json!({ "name": "x", "scopes": ["admin"] }),
            json!({ "name": "x", "scopes": ["account:read", "account:read"] }),
            json!({ "name": "", "scopes": ["account:read"] }),
            json!({ "name": "x", "scopes": ["account:read"], "expires_in_days": 0 }),
            json!({ "name": "x", "scopes": ["account:read"], "expires_in_days": 367 }),
        ] {
            let resp = app
                .post("/v1/players/me/tokens", &keeper, bad.clone())
                .await;
            assert_eq!(resp.status(), 400, "{bad}");
        }

        // Listed without secrets, the caller's own marked; revoked at once.
        let list = app.get_json_as("/v1/players/me/tokens", &keeper).await;
        let list = list.as_array().expect("list");
        assert_eq!(list.len(), 2);
        assert!(list
            .iter()
            .all(|t| t.get("token").is_none() && t["kind"] == "personal"));
        let reader_entry = list
            .iter()
            .find(|t| t["scopes"] == json!(["game:read"]))
            .expect("the reader");
        assert_eq!(reader_entry["current"], false);
        assert!(list.iter().any(|t| t["current"] == true));
        let id = reader_entry["id"].as_str().expect("id");
        let revoked = app
            .client
            .delete(app.url(&format!("/v1/players/me/tokens/{id}")))
            .bearer_auth(&keeper.token)
            .send()
            .await
            .expect("request");
        assert_eq!(revoked.status(), 204);
        let after = app
            .client
            .get(app.url("/v1/players/me/games"))
            .bearer_auth(&reader.token)
            .send()
            .await
            .expect("request");
        assert_eq!(after.status(), 401);
        let again = app
            .client
            .delete(app.url(&format!("/v1/players/me/tokens/{id}")))
            .bearer_auth(&keeper.token)
            .send()
            .await
            .expect("request");
        assert_eq!(again.status(), 404);
    }
}

#[tokio::test]
async fn a_token_stops_working_when_it_expires() {
    for backend in BACKENDS {
        let clock = ManualClock::new();
        let app = spawn_app_with(backend, clock.clone()).await;
        let bob = app.player("bob").await;
        let resp = app
            .post(
                "/v1/players/me/tokens",
                &bob,
                json!({ "name": "a day", "scopes": ["game:read"], "expires_in_days": 1 }),
            )
            .await;
        let made: Value = resp.json().await.expect("json");
        let token = made["token"].as_str().expect("token");
        let read = || {
            app.client
                .get(app.url("/v1/players/me/games"))
                .bearer_auth(token)
                .send()
        };
        assert_eq!(read().await.expect("request").status(), 200);
        clock.advance(chrono::Duration::hours(25));
        assert_eq!(read().await.expect("request").status(), 401, "{backend:?}");
        // Expired tokens are no longer listed.
        let list = app.get_json_as("/v1/players/me/tokens", &bob).await;
        assert_eq!(list, json!([]));
    }
}

#[tokio::test]
async fn a_session_cookie_needs_its_csrf_token_to_change_anything() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let carol = app.player("carol").await;
        with_password(&app, &carol).await;
        let name = name_of(&app, &carol).await;
        let (status, body, cookie) =
            sign_in_with(&app, json!({ "name": name, "password": PASSWORD })).await;
        assert_eq!(status, 201, "{body}");
        let set_cookie = cookie.expect("cookie");
        // The browser keeps it 400 days: the server's sliding 30 days end the session.
        for attr in [
            "HttpOnly",
            "Secure",
            "SameSite=Lax",
            "Path=/",
            "Max-Age=34560000",
        ] {
            assert!(set_cookie.contains(attr), "{set_cookie}");
        }
        assert_eq!(body["session"]["name"], "Firefox on Linux");
        let browser = sign_in(&app, &name).await;

        // Reads need no CSRF token.
        let me = app
            .client
            .get(app.url("/v1/players/me"))
            .header(COOKIE, &browser.cookie)
            .send()
            .await
            .expect("request");
        assert_eq!(me.status(), 200);
        let me: Value = me.json().await.expect("json");
        assert_eq!(me["credential"], "session");
        assert_eq!(me["has_password"], true);

        let game = json!({ "variant": "backgammon", "seats": [carol.id, null] });
        let post = |csrf: Option<&str>, site: Option<&str>| {
            let mut req = app
                .client
                .post(app.url("/v1/games"))
                .header(COOKIE, &browser.cookie)
                .json(&game);
            if let Some(c) = csrf {
                req = req.header("x-csrf-token", c);
            }
            if let Some(s) = site {
                req = req.header("sec-fetch-site", s);
            }
            req.send()
        };
        let none = post(None, None).await.expect("request");
        assert_eq!(none.status(), 403, "{backend:?}");
        let problem: Value = none.json().await.expect("json");
        assert_eq!(problem["type"], "/problems/cross-site-request");
        let wrong = post(Some(&"0".repeat(64)), None).await.expect("request");
        assert_eq!(wrong.status(), 403);
        let cross = post(Some(&browser.csrf), Some("cross-site"))
            .await
            .expect("request");
        assert_eq!(cross.status(), 403);
        let made = post(Some(&browser.csrf), Some("same-origin"))
            .await
            .expect("request");
        assert_eq!(made.status(), 201);
        let games = app.get_json_as("/v1/players/me/games", &carol).await;
        assert_eq!(
            games["games"].as_array().map(Vec::len),
            Some(1),
            "nothing else changed"
        );

        // A tampered cookie is no session.
        let mut tampered = browser.cookie.clone();
        let last = tampered.pop().expect("a character");
        tampered.push(if last == 'a' { 'b' } else { 'a' });
        assert_eq!(
            status_by_cookie(&app, &tampered, "/v1/players/me").await,
            401
        );
        // A public page is still served to it.
        assert_eq!(status_by_cookie(&app, &tampered, "/v1/lobby").await, 200);

        // The sessions are listed, this one marked; signing out ends it.
        let current = app
            .client
            .get(app.url("/v1/session"))
            .header(COOKIE, &browser.cookie)
            .send()
            .await
            .expect("request");
        let current: Value = current.json().await.expect("json");
        assert_eq!(current["csrf_token"], browser.csrf.as_str());
        let sessions = app.get_json_as("/v1/players/me/sessions", &carol).await;
        assert_eq!(sessions.as_array().map(Vec::len), Some(2));
        let out_without_csrf = app
            .client
            .delete(app.url("/v1/session"))
            .header(COOKIE, &browser.cookie)
            .send()
            .await
            .expect("request");
        assert_eq!(out_without_csrf.status(), 403);
        let out = app
            .client
            .delete(app.url("/v1/session"))
            .header(COOKIE, &browser.cookie)
            .header("x-csrf-token", &browser.csrf)
            .send()
            .await
            .expect("request");
        assert_eq!(out.status(), 204);
        assert!(out
            .headers()
            .get(SET_COOKIE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("__Host-worp_session=;")));
        assert_eq!(
            status_by_cookie(&app, &browser.cookie, "/v1/players/me").await,
            401
        );

        // Signing out everywhere ends the other session too.
        let everywhere = app
            .client
            .delete(app.url("/v1/players/me/sessions"))
            .bearer_auth(&carol.token)
            .send()
            .await
            .expect("request");
        let n: Value = everywhere.json().await.expect("json");
        assert_eq!(n["signed_out"], 1);
        assert_eq!(
            app.get_json_as("/v1/players/me/sessions", &carol).await,
            json!([])
        );
    }
}

#[tokio::test]
async fn sign_in_answers_alike_for_a_stranger_and_slows_down_after_failures() {
    for backend in BACKENDS {
        let clock = ManualClock::new();
        let app = spawn_app_with(backend, clock.clone()).await;
        let dave = app.player("dave").await;
        with_password(&app, &dave).await;
        let name = name_of(&app, &dave).await;

        let (unknown, unknown_body, _) =
            sign_in_with(&app, json!({ "name": "nobody here", "password": PASSWORD })).await;
        let (wrong, wrong_body, cookie) = sign_in_with(
            &app,
            json!({ "name": name, "password": "not the password at all" }),
        )
        .await;
        assert_eq!((unknown, wrong), (401, 401), "{backend:?}");
        assert_eq!(unknown_body["detail"], wrong_body["detail"]);
        assert!(cookie.is_none());
        // A player with no password cannot be signed in as either.
        let erin = app.player("erin").await;
        let erin_name = name_of(&app, &erin).await;
        let (none, none_body, _) =
            sign_in_with(&app, json!({ "name": erin_name, "password": PASSWORD })).await;
        assert_eq!(none, 401);
        assert_eq!(none_body["detail"], wrong_body["detail"]);

        // Five failures are free (one is counted above); then each try waits.
        for _ in 0..4 {
            let (s, _, _) = sign_in_with(
                &app,
                json!({ "name": name, "password": "still not it, sorry" }),
            )
            .await;
            assert_eq!(s, 401);
        }
        let resp = app
            .client
            .post(app.url("/v1/sessions"))
            .json(&json!({ "name": name, "password": PASSWORD }))
            .send()
            .await
            .expect("request");
        assert_eq!(
            resp.status(),
            429,
            "{backend:?}: the right password is not even checked"
        );
        let retry: u64 = resp
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse().ok())
            .expect("Retry-After");
        assert_eq!(retry, 1);
        clock.advance(chrono::Duration::seconds(2));
        let (s, _, _) = sign_in_with(&app, json!({ "name": name, "password": PASSWORD })).await;
        assert_eq!(s, 201, "after the wait");
        // A success forgets the account's failures.
        let (s, _, _) = sign_in_with(
            &app,
            json!({ "name": name, "password": "one more wrong one" }),
        )
        .await;
        assert_eq!(s, 401);
        let (s, _, _) = sign_in_with(&app, json!({ "name": name, "password": PASSWORD })).await;
        assert_eq!(s, 201);

        let cross = app
            .client
            .post(app.url("/v1/sessions"))
            .header("sec-fetch-site", "cross-site")
            .json(&json!({ "name": name, "password": PASSWORD }))
            .send()
            .await
            .expect("request");
        assert_eq!(cross.status(), 403, "signing in from another site's page");
        for bad in [
            json!({ "name": name }),
            json!({ "name": name, "password": PASSWORD, "recovery_code": "x" }),
            json!({ "name": name, "password": PASSWORD, "extra": 1 }),
        ] {
            let (s, _, _) = sign_in_with(&app, bad.clone()).await;
            assert_eq!(s, 400, "{bad}");
        }
    }
}

#[tokio::test]
async fn passwords_are_checked_and_a_set_one_is_needed_to_change_it() {
    let app = spawn_app(BACKENDS[1]).await;
    let fay = app.player("fay").await;
    for weak in ["short", "password", "password123", "qwertyuiop"] {
        let resp = app
            .post("/v1/players/me/password", &fay, json!({ "password": weak }))
            .await;
        assert_eq!(resp.status(), 400, "{weak}");
    }
    with_password(&app, &fay).await;
    let change = |body: Value| app.post("/v1/players/me/password", &fay, body);
    assert_eq!(
        change(json!({ "password": "another fine long phrase" }))
            .await
            .status(),
        400
    );
    assert_eq!(
        change(
            json!({ "password": "another fine long phrase", "current_password": "wrong one here" })
        )
        .await
        .status(),
        403
    );
    assert_eq!(
        change(json!({ "password": "another fine long phrase", "current_password": PASSWORD }))
            .await
            .status(),
        204
    );
    let name = name_of(&app, &fay).await;
    let (s, _, _) = sign_in_with(&app, json!({ "name": name, "password": PASSWORD })).await;
    assert_eq!(s, 401);
    let (s, _, _) = sign_in_with(
        &app,
        json!({ "name": name, "password": "another fine long phrase" }),
    )
    .await;
    assert_eq!(s, 201);
}

#[tokio::test]
async fn a_recovery_code_signs_in_once() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let gus = app.player("gus").await;
        let name = name_of(&app, &gus).await;
        let resp = app
            .post("/v1/players/me/recovery-codes", &gus, Value::Null)
            .await;
        assert_eq!(resp.status(), 201);
        let codes: Value = resp.json().await.expect("json");
        let codes: Vec<String> = codes["codes"]
            .as_array()
            .expect("codes")
            .iter()
            .map(|c| c.as_str().expect("code").to_owned())
            .collect();
        assert_eq!(codes.len(), 10);
        let me = app.get_json_as("/v1/players/me", &gus).await;
        assert_eq!(me["recovery_codes_left"], 10);

        let typed = codes[3].to_uppercase().replace('-', " ");
        let (s, body, _) =
            sign_in_with(&app, json!({ "name": name, "recovery_code": typed })).await;
        assert_eq!(s, 201, "{backend:?}: {body}");
        let (s, _, _) =
            sign_in_with(&app, json!({ "name": name, "recovery_code": codes[3] })).await;
        assert_eq!(s, 401, "used up");
        let me = app.get_json_as("/v1/players/me", &gus).await;
        assert_eq!(me["recovery_codes_left"], 9);

        // New codes replace the old.
        app.post("/v1/players/me/recovery-codes", &gus, Value::Null)
            .await;
        let (s, _, _) =
            sign_in_with(&app, json!({ "name": name, "recovery_code": codes[4] })).await;
        assert_eq!(s, 401);
    }
}

#[tokio::test]
async fn a_token_or_an_app_cannot_make_itself_a_way_in() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let hal = app.player("hal").await;
        let writer = TestPlayer {
            id: hal.id,
            token: token_with(&app, &hal, &["account:read", "account:write"]).await,
        };
        // A password, recovery codes or a passkey would sign in with every scope.
        for path in [
            "/v1/players/me/recovery-codes",
            "/v1/players/me/passkeys/options",
        ] {
            let resp = app.post(path, &writer, Value::Null).await;
            assert_eq!(resp.status(), 403, "{backend:?}: {path}");
        }
        let resp = app
            .post(
                "/v1/players/me/password",
                &writer,
                json!({ "password": PASSWORD }),
            )
            .await;
        assert_eq!(resp.status(), 403);
        let me = app.get_json_as("/v1/players/me", &writer).await;
        assert_eq!(me["has_password"], false, "nothing changed");
        assert_eq!(me["recovery_codes_left"], 0);
        let revoke = app
            .client
            .delete(app.url("/v1/players/me/token"))
            .bearer_auth(&writer.token)
            .send()
            .await
            .expect("request");
        assert_eq!(revoke.status(), 403);
    }
}

#[tokio::test]
async fn the_first_token_is_revoked_once_there_is_another_way_in() {
    for backend in BACKENDS {
        let app = spawn_app(backend).await;
        let ida = app.player("ida").await;
        let revoke = || {
            app.client
                .delete(app.url("/v1/players/me/token"))
                .bearer_auth(&ida.token)
                .send()
        };
        assert_eq!(
            revoke().await.expect("request").status(),
            409,
            "{backend:?}"
        );
        with_password(&app, &ida).await;
        let name = name_of(&app, &ida).await;
        let other = sign_in(&app, &name).await;
        assert_eq!(revoke().await.expect("request").status(), 204);
        let me = app
            .client
            .get(app.url("/v1/players/me"))
            .bearer_auth(&ida.token)
            .send()
            .await
            .expect("request");
        assert_eq!(me.status(), 401, "the first token is gone");
        assert_eq!(
            status_by_cookie(&app, &other.cookie, "/v1/players/me").await,
            200,
            "the session stays"
        );

        // Changing the password signs out every other session, not this one.
        let here = sign_in(&app, &name).await;
        let changed = app
            .client
            .post(app.url("/v1/players/me/password"))
            .header(COOKIE, &here.cookie)
            .header("x-csrf-token", &here.csrf)
            .json(&json!({ "password": "another fine long phrase", "current_password": PASSWORD }))
            .send()
            .await
            .expect("request");
        assert_eq!(changed.status(), 204);
        for (browser, want) in [(&other, 401), (&here, 200)] {
            let resp = app
                .client
                .get(app.url("/v1/players/me"))
                .header(COOKIE, &browser.cookie)
                .send()
                .await
                .expect("request");
            assert_eq!(resp.status(), want);
        }
    }
}
