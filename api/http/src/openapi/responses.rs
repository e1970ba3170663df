//! The answers every operation can meet whatever it does (a request too slow to arrive,
//! too large, too frequent, or a database that does not answer), the headers of game
//! answers, and who may call what: declared once here and added to each operation they
//! apply to, so no operation forgets one.

use serde_json::{json, Map, Value};

use super::variants::schema_ref;
use worp_domain::access::Scope;

/// A problem+json answer with `description`, and `Retry-After` when `retry`.
fn problem(description: &str, retry: bool) -> Value {
    let mut r = json!({
        "description": description,
        "content": {
            "application/problem+json": { "schema": { "$ref": schema_ref("Problem") } }
        }
    });
    if retry {
        r["headers"] = json!({ "Retry-After": { "$ref": "#/components/headers/RetryAfter" } });
    }
    r
}

/// The shared answers and headers, in `components`.
fn components(doc: &mut Value) {
    let Some(components) = doc.get_mut("components").and_then(Value::as_object_mut) else {
        return;
    };
    components.insert(
        "responses".into(),
        json!({
            "RequestTimeout": problem("The request's headers or body did not arrive in time (`WORP_HEADER_TIMEOUT_SECS`, `WORP_BODY_TIMEOUT_SECS`); the connection is closed", false),
            "PayloadTooLarge": problem("The body is larger than `WORP_BODY_LIMIT`", false),
            "TooManyRequests": problem("Rate limit: too many requests from this token or address (`WORP_RATE_PER_MINUTE`, `WORP_RATE_PER_MINUTE_PER_ADDRESS`)", true),
            "ServiceUnavailable": problem("Overloaded (the write queue is full) or the database is unavailable: retry after `Retry-After` seconds", true),
        }),
    );
    components.insert(
        "headers".into(),
        json!({
            "RetryAfter": {
                "description": "Whole seconds to wait before trying again",
                "schema": { "type": "integer", "minimum": 0 }
            },
            "ETag": {
                "description": "The game's version (the sequence number of its newest event), quoted: send it back as `If-Match` with a move, or as `If-None-Match` to be answered 304 while nothing changed",
                "schema": { "type": "string", "pattern": "^\"[0-9]+\"$" }
            },
        }),
    );
}

/// Adds `status` → a reference to the shared answer `name`, unless the operation
/// declares that status itself.
fn add_response(op: &mut Map<String, Value>, status: &str, name: &str) {
    if let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) {
        responses
            .entry(status)
            .or_insert_with(|| json!({ "$ref": format!("#/components/responses/{name}") }));
    }
}

/// Whether a response is a game (its body the `Game` union).
fn is_game(response: &Value) -> bool {
    response.pointer("/content/application~1json/schema/$ref")
        == Some(&Value::String(schema_ref("GameView")))
}

/// A token or none.
fn optional_token() -> Value {
    json!([{}, { "bearer": [] }])
}

/// The OAuth 2.0 scheme (authorization code with PKCE at `/oauth/authorize` and
/// `/oauth/token`), with every scope and what it allows.
fn oauth2_scheme(doc: &mut Value) {
    let scopes: Map<String, Value> = Scope::ALL
        .iter()
        .map(|s| (s.as_str().to_owned(), json!(s.description())))
        .collect();
    if let Some(schemes) = doc
        .pointer_mut("/components/securitySchemes")
        .and_then(Value::as_object_mut)
    {
        schemes.insert(
            "oauth2".into(),
            json!({
                "type": "oauth2",
                "description": "For third-party front-ends: the authorization code flow with PKCE (S256 only), for public clients that need not register. Metadata at /.well-known/oauth-authorization-server.",
                "flows": { "authorizationCode": {
                    "authorizationUrl": "/oauth/authorize",
                    "tokenUrl": "/oauth/token",
                    "refreshUrl": "/oauth/token",
                    "scopes": scopes,
                }}
            }),
        );
    }
}

/// An operation's security, as its route declares it with `bearer` and its scopes,
/// also met by an OAuth token of the same scopes; and the 403 of a credential without
/// them.
fn scoped_security(op: &mut Map<String, Value>) {
    let Some(requirements) = op.get("security").and_then(Value::as_array).cloned() else {
        return;
    };
    let mut with_oauth = Vec::new();
    let mut needed = None;
    for r in requirements {
        let scopes = r.get("bearer").and_then(Value::as_array).cloned();
        with_oauth.push(r);
        if let Some(scopes) = scopes.filter(|s| !s.is_empty()) {
            needed = scopes.first().and_then(Value::as_str).map(str::to_owned);
            with_oauth.push(json!({ "oauth2": scopes }));
        }
    }
    op.insert("security".into(), Value::Array(with_oauth));
    let Some(scope) = needed else {
        return;
    };
    let why = format!(
        "The credential does not grant the scope `{scope}` (`WWW-Authenticate: Bearer error=\"insufficient_scope\"`)"
    );
    if let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) {
        match responses.get_mut("403") {
            Some(r) => {
                if let Some(d) = r.get("description").and_then(Value::as_str) {
                    r["description"] = json!(format!("{d}; or: {why}"));
                }
            }
            None => {
                responses.insert("403".into(), problem(&why, false));
            }
        }
    }
}

/// Adds the shared answers, the game headers and each operation's security.
pub fn add(doc: &mut Value) {
    components(doc);
    oauth2_scheme(doc);
    doc["security"] = optional_token();
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for (path, item) in paths.iter_mut() {
        let Some(item) = item.as_object_mut() else {
            continue;
        };
        for (_, op) in item.iter_mut() {
            let Some(op) = op.as_object_mut() else {
                continue;
            };
            add_response(op, "408", "RequestTimeout");
            if op.contains_key("requestBody") {
                add_response(op, "413", "PayloadTooLarge");
            }
            // The probes are never rate-limited; the variants are served without a database.
            if !crate::ratelimit::UNLIMITED.contains(&path.as_str()) {
                add_response(op, "429", "TooManyRequests");
            }
            if path != "/v1/variants" {
                add_response(op, "503", "ServiceUnavailable");
            }
            if let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) {
                for (status, r) in responses.iter_mut() {
                    if status.starts_with('2') && is_game(r) {
                        r["headers"]["ETag"] = json!({ "$ref": "#/components/headers/ETag" });
                    }
                }
            }
            // Who may call: the document's default is "a token or none" (`[{}, bearer]`);
            // an operation that takes an optional token (to show the caller more) keeps
            // that default, one anyone may call says so with `[]`, and one that needs a
            // token says `[bearer]`. Generated clients read a non-empty list as "needs a
            // token" (openapi-python-client).
            match op.get("security") {
                None => {
                    op.insert("security".into(), json!([]));
                }
                Some(s) if *s == optional_token() => {
                    op.remove("security");
                }
                Some(_) => scoped_security(op),
            }
        }
    }
}
