//! Events in the document: `StoredEvent` as a union keyed by `type` whose members carry
//! their own payload schema (`MovePlayedEvent.payload` is a `MovePlayedPayload`), made from
//! the `Event` enum the log is written with.

use serde_json::{json, Map, Value};

use super::variants::{pascal, schema_ref, set_property, union_of, with_constant};

/// Replaces `Event` (a union of objects tagged by `type`) with one payload schema per
/// event type, and `StoredEvent` with the union of one stored event per type.
pub fn add(doc: &mut Value) {
    let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    let (Some(event), Some(stored)) = (schemas.remove("Event"), schemas.remove("StoredEvent"))
    else {
        return;
    };
    let kinds = event
        .get("oneOf")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let members = kinds
        .into_iter()
        .filter_map(|mut payload| {
            let kind = payload
                .pointer("/properties/type/enum/0")
                .and_then(Value::as_str)?
                .to_owned();
            let m = payload.as_object_mut()?;
            if let Some(props) = m.get_mut("properties").and_then(Value::as_object_mut) {
                props.remove("type");
            }
            if let Some(req) = m.get_mut("required").and_then(Value::as_array_mut) {
                req.retain(|r| r != "type");
            }
            let name = pascal(&kind);
            schemas.insert(format!("{name}Payload"), payload);
            let mut s = with_constant(&stored, "type", &kind, format!("A stored `{kind}` event."));
            set_property(
                &mut s,
                "payload",
                json!({ "$ref": schema_ref(&format!("{name}Payload")) }),
            );
            Some((kind, format!("{name}Event"), s))
        })
        .collect();
    // The log keeps results as they were recorded: those from before `winners` existed
    // name only `winner`.
    if let Some(mut recorded) = schemas.get("GameResult").cloned() {
        if let Some(req) = recorded.get_mut("required").and_then(Value::as_array_mut) {
            req.retain(|r| r != "winners");
        }
        recorded["description"] = json!("A result as recorded in the log: results recorded before `winners` existed have only `winner`, then the one winning seat.");
        schemas.insert("RecordedResult".into(), recorded);
        if let Some(payload) = schemas.get_mut("GameFinishedPayload") {
            set_property(
                payload,
                "result",
                json!({ "$ref": schema_ref("RecordedResult") }),
            );
        }
        // An export is a file that outlives the server that wrote it (`worp audit` reads
        // old ones): its result may be of either form too.
        if let Some(export) = schemas.get_mut("Export") {
            set_property(
                export,
                "result",
                json!({ "oneOf": [{ "type": "null" }, { "$ref": schema_ref("RecordedResult") }] }),
            );
        }
    }
    let any_move = schemas
        .get("MoveRequest")
        .and_then(|r| r.pointer("/properties/move"))
        .cloned();
    if let (Some(any_move), Some(payload)) = (any_move, schemas.get_mut("MovePlayedPayload")) {
        set_property(payload, "move", any_move);
    }
    union_of(
        schemas,
        "StoredEvent",
        "type",
        "An event as stored in the log: one schema per event type, told apart by `type`.",
        members,
    );
}

/// The event names of a Server-Sent Events operation and the schema of each one's `data`,
/// as the vendor extension `x-sse-events` beside a description of the framing.
pub fn describe_stream(operation: &mut Value, events: &[(&str, &str)]) {
    let Some(stream) = operation
        .pointer_mut("/responses/200/content/text~1event-stream")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    let by_name: Map<String, Value> = events
        .iter()
        .map(|(name, schema)| ((*name).to_owned(), json!({ "$ref": schema_ref(schema) })))
        .collect();
    stream.insert(
        "schema".into(),
        json!({
            "type": "string",
            "description": "Server-Sent Events: `event:` names the event, `data:` is one line of JSON of the schema `x-sse-events` gives for that name; lines starting with `:` are keep-alive comments.",
        }),
    );
    stream.insert("x-sse-events".into(), Value::Object(by_name));
}
