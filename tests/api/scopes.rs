//! Every operation of the API against every scope, read from the OpenAPI document the
//! server serves: an operation that declares a scope answers 401 without a credential
//! (or serves the public view, where the credential is optional), 403
//! `insufficient_scope` to a token with every scope but that one, and does its work for
//! a token with that scope alone; an operation without one never asks for a scope. And
//! every answer is one the document declares for that operation.

use std::collections::BTreeMap;

use reqwest::header::WWW_AUTHENTICATE;
use reqwest::Method;
use serde_json::{json, Value};
use uuid::Uuid;

use crate::accounts::token_with;
use crate::helpers::{spawn_app, Backend, TestApp, TestPlayer};

const SCOPES: [&str; 7] = [
    "game:read",
    "game:play",
    "chat:write",
    "challenge:write",
    "webhook:write",
    "account:read",
    "account:write",
];

/// What an operation asks of a credential, by its `security`.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Asks {
    Nothing,
    Optional(String),
    Required(String),
}

fn asks(op: &Value) -> Asks {
    let Some(reqs) = op.get("security").and_then(Value::as_array) else {
        return Asks::Nothing;
    };
    let anonymous = reqs.iter().any(|r| r == &json!({}));
    let scope = reqs.iter().find_map(|r| {
        r.get("bearer")?
            .as_array()?
            .first()?
            .as_str()
            .map(str::to_owned)
    });
    match (scope, anonymous) {
        (None, _) => Asks::Nothing,
        (Some(s), true) => Asks::Optional(s),
        (Some(s), false) => Asks::Required(s),
    }
}

/// A body each operation accepts, so that only the credential decides.
fn body_of(op_id: &str, me: &TestPlayer, scope_token_scopes: &[&str]) -> Option<Value> {
    Some(match op_id {
        "create_game" => json!({ "variant": "backgammon", "seats": [me.id, null] }),
        "post_message" => json!({ "text": "hello" }),
        "play_move" => json!({ "move": [] }),
        "update_me" => json!({}),
        "start_vacation" => json!({ "days": 1 }),
        "create_webhook" => json!({ "url": "https://hooks.example/worp" }),
        "set_password" => json!({ "password": "an uncommon phrase of some length" }),
        "create_token" => json!({ "name": "matrix", "scopes": scope_token_scopes }),
        "create_player" => json!({ "name": format!("matrix {}", Uuid::new_v4().simple()) }),
        "sign_in" => json!({ "name": "nobody", "password": "no password here" }),
        "answer_consent" => json!({ "approve": false }),
        // RFC 8291's example keys, at a push service on a public name.
        "subscribe_push" => json!({
            "endpoint": format!("https://push.example/send/{}", Uuid::new_v4().simple()),
            "keys": {
                "p256dh": "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
                "auth": "BTBZMqHH6r4Tts7J_aSIgg",
            },
        }),
        // Not the player's name: the account stays (400).
        "delete_account" => json!({ "confirm_name": "not the player's name" }),
        _ => return None,
    })
}

/// The statuses `op` declares, its own and the shared ones.
fn declared(op: &Value) -> Vec<u16> {
    op["responses"]
        .as_object()
        .map(|r| r.keys().filter_map(|k| k.parse().ok()).collect())
        .unwrap_or_default()
}

fn is_insufficient(status: u16, headers: &reqwest::header::HeaderMap, scope: &str) -> bool {
    status == 403
        && headers
            .get(WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| {
                v.contains("error=\"insufficient_scope\"")
                    && v.contains(&format!("scope=\"{scope}\""))
            })
}

struct Call<'a> {
    app: &'a TestApp,
    method: Method,
    url: String,
    body: Option<Value>,
}

impl Call<'_> {
    async fn with(&self, token: Option<&str>) -> (u16, reqwest::header::HeaderMap) {
        let mut req = self.app.client.request(self.method.clone(), &self.url);
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        if let Some(b) = &self.body {
            req = req.json(b);
        }
        let resp = req.send().await.expect("request");
        (resp.status().as_u16(), resp.headers().clone())
    }
}

#[tokio::test]
async fn every_operation_answers_every_scope_as_its_document_declares() {
    let app = spawn_app(Backend::Sqlite).await;
    let me = app.player("matrix").await;
    let other = app.player("other").await;
    let doc = app.get_json("/openapi.json").await;
    // One token per scope alone, and one per scope with every other scope but it.
    let mut only = BTreeMap::new();
    let mut all_but = BTreeMap::new();
    for s in SCOPES {
        only.insert(s, token_with(&app, &me, &[s]).await);
        let rest: Vec<&str> = SCOPES.into_iter().filter(|x| *x != s).collect();
        all_but.insert(s, token_with(&app, &me, &rest).await);
    }

    let mut checked = 0;
    let mut undeclared = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("item") {
            let op_id = op["operationId"].as_str().expect("operationId");
            // A game of someone else's with an open seat for each operation, so that
            // one operation's work (a resignation, a seat taken) does not decide another's.
            let game = app
                .create(
                    &other,
                    "backgammon",
                    Value::Null,
                    vec![Some(other.id), None],
                )
                .await;
            let url = app.url(
                &path
                    .replace("/v1/players/{id}", &format!("/v1/players/{}", other.id))
                    .replace("{id}", game["id"].as_str().expect("id"))
                    .replace("{seat}", "1"),
            );
            // Ids of a player's own things (tokens, sessions, apps, webhooks) that do
            // not exist: a 404 when the scope is right.
            let url = if path.starts_with("/v1/players/me/") && path.contains("{id}") {
                app.url(&path.replace("{id}", &Uuid::new_v4().to_string()))
            } else {
                url
            };
            let method: Method = method.to_uppercase().parse().expect("method");
            let asked = asks(op);
            let scope_for_body = match &asked {
                Asks::Nothing => vec!["game:read"],
                Asks::Optional(s) | Asks::Required(s) => vec![s.as_str()],
            };
            let call = Call {
                app: &app,
                method: method.clone(),
                url,
                body: body_of(op_id, &me, &scope_for_body),
            };
            let allowed = declared(op);
            let mut check = |who: &str, status: u16| {
                if !allowed.contains(&status) {
                    undeclared.push(format!("{method} {path} ({who}): {status}"));
                }
            };
            match asked {
                Asks::Nothing => {
                    let (status, headers) = call.with(Some(&only["chat:write"])).await;
                    assert!(
                        !is_insufficient(status, &headers, "") && status != 403,
                        "{method} {path} asks for a scope it does not declare"
                    );
                    check("any token", status);
                }
                Asks::Optional(scope) | Asks::Required(scope) => {
                    let optional = matches!(op.get("security"), Some(s) if s.as_array().is_some_and(|a| a.contains(&json!({}))));
                    let (status, _) = call.with(None).await;
                    if optional {
                        assert_ne!(status, 401, "{method} {path} without a credential");
                    } else {
                        assert_eq!(status, 401, "{method} {path} without a credential");
                    }
                    check("no credential", status);
                    let (status, headers) = call.with(Some(&all_but[scope.as_str()])).await;
                    assert!(
                        is_insufficient(status, &headers, &scope),
                        "{method} {path} with every scope but {scope}: {status}"
                    );
                    check("without the scope", status);
                    let (status, headers) = call.with(Some(&only[scope.as_str()])).await;
                    assert!(
                        status != 401 && !is_insufficient(status, &headers, &scope),
                        "{method} {path} with {scope} alone: {status}"
                    );
                    check("with the scope", status);
                }
            }
            checked += 1;
        }
    }
    assert!(
        undeclared.is_empty(),
        "answers the document does not declare:\n{}",
        undeclared.join("\n")
    );
    assert!(checked >= 45, "{checked} operations");
    println!(
        "{checked} operations checked against {} scopes",
        SCOPES.len()
    );
}
