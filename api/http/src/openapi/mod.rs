//! The OpenAPI document (served at `/openapi.json`, committed as `openapi/openapi.json`).
//!
//! utoipa derives the document from the routes and their types (`ApiDoc`); then
//! `variants` types the game-specific parts by the registered variants, `events` the event
//! payloads and streams, and `responses` adds the answers every operation can meet.

mod events;
mod responses;
mod variants;

use serde_json::{json, Value};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};
use worp_engine::Variant;

use crate::routes;

pub use variants::pascal;
use variants::schema_ref;

/// Version 1 of the Worp API.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Worp",
        description = "Correspondence play of dice board games over HTTP. Every roll and move is an immutable, hash-chained event; the server rolls the dice from a committed seed that is revealed when the game ends. Errors are RFC 9457 problem+json.",
        license(name = "MIT OR Apache-2.0"),
    ),
    paths(
        routes::health::healthz,
        routes::health::readyz,
        routes::health::metrics,
        routes::players::create_player,
        routes::players::get_player,
        routes::lobby::lobby,
        routes::lobby::leaderboard,
        routes::messages::post_message,
        routes::messages::list_messages,
        routes::variants::list_variants,
        routes::games::create_game,
        routes::games::list_games,
        routes::games::get_game,
        routes::games::take_seat,
        routes::games::decline_seat,
        routes::games::play_move,
        routes::games::resign,
        routes::history::list_events,
        routes::history::state_at,
        routes::me::me,
        routes::me::update_me,
        routes::me::inbox,
        routes::me::create_webhook,
        routes::me::list_webhooks,
        routes::me::delete_webhook,
        routes::me::deliveries,
        routes::vacation::get_vacation,
        routes::vacation::start_vacation,
        routes::vacation::end_vacation,
        routes::leaving::export_account,
        routes::leaving::delete_account,
        routes::accounts::set_password,
        routes::accounts::revoke_first_token,
        routes::accounts::new_recovery_codes,
        routes::accounts::create_token,
        routes::accounts::list_tokens,
        routes::accounts::revoke_token,
        routes::sessions::list_sessions,
        routes::sessions::end_session,
        routes::sessions::end_all_sessions,
        routes::accounts::list_apps,
        routes::accounts::revoke_app,
        routes::passkeys::passkey_options,
        routes::passkeys::register_passkey,
        routes::passkeys::list_passkeys,
        routes::passkeys::remove_passkey,
        routes::passkeys::sign_in_options,
        routes::passkeys::sign_in_with_passkey,
        routes::notifications::get_email,
        routes::notifications::set_email,
        routes::notifications::delete_email,
        routes::notifications::confirm_page,
        routes::notifications::confirm_email,
        routes::notifications::unsubscribe_page,
        routes::notifications::unsubscribe,
        routes::notifications::get_preferences,
        routes::notifications::set_preferences,
        routes::notifications::muted_games,
        routes::notifications::mute_game,
        routes::notifications::unmute_game,
        routes::notifications::forgot_password,
        routes::notifications::reset_page,
        routes::notifications::reset_password,
        routes::push::push_key,
        routes::push::subscribe_push,
        routes::push::list_push_subscriptions,
        routes::push::unsubscribe_push,
        routes::sessions::sign_in,
        routes::sessions::current_session,
        routes::sessions::sign_out,
        routes::oauth::consent,
        routes::oauth::answer_consent,
        routes::streams::game_stream,
        routes::streams::player_stream,
        routes::audit::export_game,
        routes::audit::audit_game,
        routes::bots::list_bots,
        routes::bots::game_analysis,
        routes::tournaments::create_tournament,
        routes::tournaments::list_tournaments,
        routes::tournaments::get_tournament,
        routes::tournaments::register,
        routes::tournaments::withdraw,
        routes::tournaments::start,
        routes::tournaments::change_rules,
        routes::tournaments::export,
    ),
    components(schemas(
        crate::problem::Problem,
        worp_domain::events::Event,
        worp_service::NoticePayload,
        worp_domain::records::NoticeKind,
        routes::streams::Resync,
        worp_engine::Awaiting,
        worp_engine::GameResult,
        worp_engine::Ending,
        worp_engine::Die,
        routes::games::StatusFilter,
        routes::audit::ExportFormat,
        routes::tournaments::TournamentStatus,
    )),
    modifiers(&BearerAuth),
    tags(
        (name = "players", description = "Players, their settings and webhooks"),
        (name = "accounts", description = "Credentials: passwords, recovery codes, scoped tokens, web sessions, authorised apps"),
        (name = "notifications", description = "E-mail and push for players who are away: addresses, preferences, muted games"),
        (name = "oauth", description = "OAuth 2.0 for third-party front-ends (authorization code with PKCE S256; token endpoint at /oauth/token)"),
        (name = "variants", description = "The games this server plays"),
        (name = "games", description = "Creating, joining, playing and auditing games"),
        (name = "tournaments", description = "Round robins, Swiss and knockouts by correspondence, audited like the games"),
        (name = "live", description = "Server-Sent Events of games and of a player's turns"),
        (name = "audit", description = "Exports and audits that need no trust in the server"),
        (name = "health", description = "Liveness, readiness and metrics, for operators"),
    )
)]
pub struct ApiDoc;

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        if let Some(components) = openapi.components.as_mut() {
            components.add_security_scheme(
                "bearer",
                SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
            );
        }
    }
}

/// Renames the schema `from` to `to`, and every reference to it.
fn rename_schema(doc: &mut Value, from: &str, to: &str) {
    fn rewrite(v: &mut Value, from: &str, to: &str) {
        match v {
            Value::Object(m) => {
                for (k, x) in m.iter_mut() {
                    match (k.as_str(), x) {
                        ("$ref", Value::String(r)) if *r == schema_ref(from) => {
                            *r = schema_ref(to);
                        }
                        (_, x) => rewrite(x, from, to),
                    }
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|x| rewrite(x, from, to)),
            _ => {}
        }
    }
    let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    if let Some(s) = schemas.remove(from) {
        schemas.insert(to.to_owned(), s);
    }
    rewrite(doc, from, to);
}

/// The document for a server that plays `variants`; an error if a part of it does not
/// serialise.
pub fn document_for(variants: &[Variant]) -> Result<Value, serde_json::Error> {
    let mut doc = serde_json::to_value(ApiDoc::openapi())?;
    doc["servers"] = json!([{ "url": "/", "description": "This server" }]);
    doc["info"]["license"]["identifier"] = json!("MIT OR Apache-2.0");
    optional_bodies(&mut doc);
    variants::add(&mut doc, variants)?;
    events::add(&mut doc);
    responses::add(&mut doc);
    let streams: [(&str, Vec<(String, String)>); 2] = [
        (
            "/paths/~1v1~1games~1{id}~1stream/get",
            game_event_names(&doc),
        ),
        (
            "/paths/~1v1~1players~1me~1stream/get",
            [
                "your_turn",
                "game_finished",
                "invited",
                "invitation_declined",
                "round_started",
                "message",
            ]
            .iter()
            .map(|k| ((*k).to_owned(), "Notice".to_owned()))
            .chain([("resync".to_owned(), "Resync".to_owned())])
            .collect(),
        ),
    ];
    for (pointer, names) in streams {
        let names: Vec<(&str, &str)> = names
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        if let Some(op) = doc.pointer_mut(pointer) {
            events::describe_stream(op, &names);
        }
    }
    rename_schema(&mut doc, "GameView", "Game");
    single_alternatives(&mut doc);
    title_union_members(&mut doc);
    Ok(doc)
}

/// What tells a member of a union apart, as a name: its one enum value (`"roll"`), the
/// one value of a tag property (`{"type": "dice"}`), its one required property
/// (`{"bot": …}`), or what kind of value it is.
fn member_tag(member: &serde_json::Map<String, Value>) -> Option<String> {
    let single = |v: &Value| {
        v.get("enum")
            .and_then(Value::as_array)
            .filter(|e| e.len() == 1)
            .and_then(|e| e[0].as_str())
            .map(pascal)
    };
    if let Some(tag) = single(&Value::Object(member.clone())) {
        return Some(tag);
    }
    if let Some(props) = member.get("properties").and_then(Value::as_object) {
        if let Some(tag) = props.values().find_map(single) {
            return Some(tag);
        }
    }
    if let Some([only]) = member
        .get("required")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
    {
        return only.as_str().map(pascal);
    }
    match (member.get("format"), member.get("type")) {
        (Some(f), _) if f == "uuid" => Some("Id".into()),
        (_, Some(t)) if t == "string" => Some("Text".into()),
        (_, Some(t)) if t == "integer" => Some("Number".into()),
        _ => None,
    }
}

/// Gives each inline member of a named union a title made of the union's name and what
/// tells the member apart (`AwaitingDice`, `SeatRequestBot`), so generated clients name
/// its class or type after it instead of `AwaitingType0`.
fn title_union_members(doc: &mut Value) {
    let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    for (name, schema) in schemas.iter_mut() {
        for key in ["oneOf", "anyOf"] {
            let Some(members) = schema.get_mut(key).and_then(Value::as_array_mut) else {
                continue;
            };
            let mut taken = std::collections::BTreeSet::new();
            for (i, member) in members.iter_mut().enumerate() {
                let Some(m) = member.as_object_mut() else {
                    continue;
                };
                if m.contains_key("$ref")
                    || m.contains_key("title")
                    || m.get("type") == Some(&json!("null"))
                {
                    continue;
                }
                let tag = member_tag(m).unwrap_or_else(|| format!("Variant{i}"));
                let mut title = format!("{name}{tag}");
                if !taken.insert(title.clone()) {
                    title = format!("{title}{i}");
                    taken.insert(title.clone());
                }
                m.insert("title".into(), Value::String(title));
            }
        }
    }
}

/// `{"oneOf": [{"$ref": X}], "default": d}` (utoipa's form of a defaulted field) becomes
/// `{"$ref": X, "default": d}`: a union of one is no union.
fn single_alternatives(v: &mut Value) {
    match v {
        Value::Object(m) => {
            let single = m
                .get("oneOf")
                .and_then(Value::as_array)
                .filter(|alts| alts.len() == 1)
                .and_then(|alts| alts[0].as_object())
                .filter(|alt| alt.contains_key("$ref"))
                .cloned();
            if let Some(alt) = single {
                m.remove("oneOf");
                for (k, x) in alt {
                    m.entry(k).or_insert(x);
                }
            }
            m.values_mut().for_each(single_alternatives);
        }
        Value::Array(a) => a.iter_mut().for_each(single_alternatives),
        _ => {}
    }
}

/// A request body that may be left out is declared as not required, its schema the
/// object itself (not a union with `null`, which generated clients cannot send).
fn optional_bodies(doc: &mut Value) {
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for op in paths
        .values_mut()
        .filter_map(Value::as_object_mut)
        .flat_map(|i| i.values_mut())
    {
        let Some(body) = op.get_mut("requestBody") else {
            continue;
        };
        let Some(schema) = body.pointer_mut("/content/application~1json/schema") else {
            continue;
        };
        let object = schema
            .get("oneOf")
            .and_then(Value::as_array)
            .filter(|alts| alts.len() == 2 && alts[0] == json!({ "type": "null" }))
            .map(|alts| alts[1].clone());
        if let Some(object) = object {
            *schema = object;
            body["required"] = json!(false);
        }
    }
}

/// Each event type and the schema of its stored event, from the `StoredEvent` union.
fn game_event_names(doc: &Value) -> Vec<(String, String)> {
    doc.pointer("/components/schemas/StoredEvent/discriminator/mapping")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, r)| {
                    let name = r.as_str()?.strip_prefix("#/components/schemas/")?;
                    Some((k.clone(), name.to_owned()))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Pretty JSON with a trailing newline (the committed form). A JSON value's alternate
/// `Display` is `to_string_pretty`'s text, and cannot fail: its keys are strings.
fn pretty(doc: &Value) -> String {
    format!("{doc:#}\n")
}

/// The document this process serves: every registered variant.
pub fn openapi_json() -> Result<String, serde_json::Error> {
    Ok(pretty(&document_for(worp_engine::variants())?))
}

/// The committed document: the variants this crate's engine plays out of the box.
pub fn committed_openapi_json() -> Result<String, serde_json::Error> {
    Ok(pretty(&document_for(worp_engine::builtin_variants())?))
}
