//! The events' tests: canonical bytes, hash chains, and reading events back.

use super::*;
use chrono::TimeZone;
use serde_json::Map;

#[test]
fn canonical_bytes_sort_keys_at_every_depth() {
    let v = serde_json::json!({"b": 1, "a": {"d": [2, {"z": 0, "y": 1}], "c": "x"}});
    let mut out = Vec::new();
    write_canonical(&v, &mut out);
    assert_eq!(out, br#"{"a":{"c":"x","d":[2,{"y":1,"z":0}]},"b":1}"#);
}

/// The canonical bytes by their definition: a JSON object built with every
/// field, then written with keys sorted. The streaming writer must match it byte for
/// byte, or stored chains and exported games would stop verifying.
fn reference_canonical_bytes(e: &StoredEvent) -> Vec<u8> {
    fn write(v: &Value, out: &mut String) {
        match v {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                out.push('{');
                for (i, k) in keys.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::String((*k).clone()).to_string());
                    out.push(':');
                    write(&map[k.as_str()], out);
                }
                out.push('}');
            }
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(item, out);
                }
                out.push(']');
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let v = serde_json::json!({
        "game_id": e.game_id.to_string(),
        "seq": e.seq,
        "type": e.kind,
        "payload": e.payload,
        "rules_version": e.rules_version,
        "recorded_at": format_time(&e.recorded_at),
    });
    let mut out = String::new();
    write(&v, &mut out);
    out.into_bytes()
}

#[test]
fn canonical_bytes_match_the_reference_definition() {
    let t = Utc.with_ymd_and_hms(2026, 11, 22, 5, 0, 0).unwrap()
        + chrono::Duration::microseconds(123_456);
    let id = Uuid::from_u128(0x0123_4567_89ab_cdef_0123_4567_89ab_cdef);
    let payloads = [
        serde_json::json!({}),
        serde_json::json!({"seat": 0, "move": {"steps": [{"from": 24, "to": 18}]}}),
        serde_json::json!({"z": -1, "a": 1.5, "m": [true, false, null, "é\"\\\n\u{1}"]}),
        serde_json::json!({"name": "Ünïcødé 🎲", "deep": {"b": {"d": 1, "c": [{"y": 2, "x": 3}]}}}),
        serde_json::json!({"big": u64::MAX, "neg": i64::MIN, "tiny": 1e-300}),
    ];
    for (n, payload) in payloads.into_iter().enumerate() {
        let mut e = EventRow::new(
            id,
            n as i64 + 1,
            &Event::MovePlayed {
                seat: 0,
                mv: Value::Null,
            },
            t,
            "",
        )
        .expect("an event serialises")
        .event;
        e.payload = payload;
        e.kind = format!("kind_{n}_\"quoted\"");
        assert_eq!(
            String::from_utf8_lossy(&e.canonical_bytes()),
            String::from_utf8_lossy(&reference_canonical_bytes(&e)),
        );
    }
}

#[test]
fn the_first_hash_of_a_chain_is_pinned() {
    // Computed independently (Python: sha256(32 zero bytes + json.dumps(sort_keys=True,
    // separators=(",", ":")))); guards the format for good.
    let t = Utc.with_ymd_and_hms(2026, 11, 22, 5, 0, 0).unwrap();
    let e = EventRow::new(
        Uuid::nil(),
        1,
        &Event::SeatTaken {
            seat: 1,
            player_id: Uuid::nil(),
            client_seed: None,
        },
        t,
        "",
    )
    .expect("an event serialises")
    .event;
    assert_eq!(e.hash, PINNED_FIRST_HASH);
}

const PINNED_FIRST_HASH: &str = "b2ef4682bf8ce8c984d57e632813877a219d39ec46b4dfb3d849672d8c242ecc";

#[test]
fn hash_chains_to_previous_event() {
    let t = Utc.with_ymd_and_hms(2026, 11, 22, 5, 0, 0).unwrap();
    let id = Uuid::nil();
    let e1 = EventRow::new(
        id,
        1,
        &Event::SeatTaken {
            seat: 1,
            player_id: id,
            client_seed: None,
        },
        t,
        "",
    )
    .expect("an event serialises")
    .event;
    let e2 = EventRow::new(
        id,
        2,
        &Event::MovePlayed {
            seat: 0,
            mv: serde_json::json!({"x": 1}),
        },
        t,
        &e1.hash,
    )
    .expect("an event serialises")
    .event;
    assert_eq!(e2.chain_hash(&e1.hash), e2.hash);
    assert_ne!(e2.chain_hash(""), e2.hash);
    let mut tampered = e2.clone();
    tampered.payload = serde_json::json!({"seat": 0, "move": {"x": 2}});
    assert_ne!(tampered.chain_hash(&e1.hash), e2.hash);
}

#[test]
fn events_round_trip_through_kind_and_payload() {
    let e = Event::DiceRolled {
        seat: 1,
        die: "d6".into(),
        values: vec![3, 5],
        index: 7,
    };
    assert_eq!(e.kind(), "dice_rolled");
    assert_eq!(
        Event::from_parts(e.kind(), &e.payload().expect("an event serialises")).unwrap(),
        e
    );
}

/// What `from_parts` means: the payload's fields, copied into one object with the
/// kind as `type`, read as an [`Event`].
fn from_a_copy(kind: &str, payload: &Value) -> Result<Event, serde_json::Error> {
    let mut map = match payload {
        Value::Object(m) => m.clone(),
        _ => Map::new(),
    };
    map.insert("type".into(), Value::String(kind.to_owned()));
    serde_json::from_value(Value::Object(map))
}

#[test]
fn a_payload_text_with_a_field_twice_reads_as_its_tree_does() {
    let player = Uuid::from_u128(9);
    for text in [
        format!(r#"{{"seat":0,"seat":1,"player_id":"{player}"}}"#),
        format!(r#"{{"seat":1,"player_id":"{player}","type":"dice_rolled"}}"#),
        format!(r#"{{ "seat" : 1 , "player_id" : "{player}" }}"#),
    ] {
        let tree: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            Event::from_text("seat_taken", &text).unwrap(),
            from_a_copy("seat_taken", &tree).unwrap(),
            "{text}"
        );
    }
    assert!(Event::from_text("seat_taken", "{").is_err());
    assert!(Event::from_text("seat_taken", "").is_err());
}

#[test]
fn an_event_read_in_place_is_what_reading_a_copy_gives() {
    let game = Uuid::from_u128(7);
    let created = Event::GameCreated {
        variant: "backgammon".into(),
        options: serde_json::json!({"match_to": 5, "nested": {"type": "x"}}),
        seats: vec![Some(game), None],
        invited: vec![None, Some(game)],
        client_seeds: vec![Some("seed".into()), None],
        bots: vec![None, None],
        days_per_move: Some(3),
        dice_commitment: "ab".repeat(32),
        created_by: game,
        rated: true,
        public_chat: false,
        tournament: None,
    };
    let mut cases: Vec<(String, Value)> = vec![(
        created.kind().into(),
        created.payload().expect("an event serialises"),
    )];
    for e in [
        Event::SeatTaken {
            seat: 1,
            player_id: game,
            client_seed: None,
        },
        Event::MovePlayed {
            seat: 0,
            mv: serde_json::json!([{"from": 24, "to": 18}, {"from": "bar", "to": 22}]),
        },
        Event::InvitationDeclined {
            seat: 1,
            player_id: game,
        },
    ] {
        cases.push((e.kind().into(), e.payload().expect("an event serialises")));
    }
    cases.extend([
        // A stray `type` in the payload: the kind wins.
        (
            "dice_rolled".into(),
            serde_json::json!({"type": "move_played", "seat": 0, "die": "d6", "values": [6, 6], "index": 0}),
        ),
        // Refused both ways: a field missing, a field of the wrong type, no fields,
        // an unknown kind.
        ("dice_rolled".into(), serde_json::json!({"seat": 0, "die": "d6"})),
        ("seat_taken".into(), serde_json::json!({"seat": "one", "player_id": game})),
        ("move_played".into(), serde_json::json!([1, 2])),
        ("move_played".into(), Value::Null),
        ("no_such_kind".into(), serde_json::json!({"seat": 0})),
    ]);
    cases.extend([
        ("seat_taken".into(), serde_json::json!({})),
        ("dice_rolled".into(), serde_json::json!("text")),
    ]);
    for (kind, payload) in &cases {
        let (in_place, copied) = (Event::from_parts(kind, payload), from_a_copy(kind, payload));
        let text = payload.to_string();
        let spaced = format!("  {}", serde_json::to_string_pretty(payload).unwrap());
        for as_text in [
            Event::from_text(kind, &text),
            Event::from_text(kind, &spaced),
        ] {
            match (&as_text, &copied) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{kind} {text}"),
                (Err(_), Err(_)) => {}
                _ => panic!("{kind} {text}: {as_text:?} from text, {copied:?} copied"),
            }
        }
        match (&in_place, &copied) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{kind} {payload}"),
            (Err(_), Err(_)) => {}
            _ => panic!("{kind} {payload}: {in_place:?} in place, {copied:?} copied"),
        }
    }
    assert_eq!(
        Event::from_parts(
            created.kind(),
            &created.payload().expect("an event serialises")
        )
        .unwrap(),
        created
    );
}

#[test]
fn a_hash_is_written_in_hex_as_the_hex_crate_writes_it() {
    let mut bytes = Vec::new();
    for len in [0usize, 1, 2, 31, 32, 33, 64] {
        bytes.clear();
        bytes.extend((0..len).map(|i| (i * 37 + 11) as u8));
        assert_eq!(hex_lower(&bytes), hex::encode(&bytes), "{len} bytes");
    }
    let every_byte: Vec<u8> = (0..=255).collect();
    assert_eq!(hex_lower(&every_byte), hex::encode(&every_byte));
}

/// A new event's one payload text is its payload's canonical JSON, and the hash made from
/// it is the hash an audit recomputes from the payload (with a message's text and salt
/// outside the chain).
#[test]
fn a_new_events_one_text_is_canonical_and_hashed_as_an_audit_hashes_it() {
    let game = Uuid::from_u128(5);
    let at = Utc.with_ymd_and_hms(2026, 12, 6, 7, 0, 0).unwrap();
    let events = [
        Event::MovePlayed {
            seat: 1,
            mv: serde_json::json!({"z": [3, {"b": 1, "a": "é\n"}], "a": 0.5}),
        },
        Event::DiceRolled {
            seat: 0,
            die: "d6".into(),
            values: vec![6, 1],
            index: 9,
        },
        Event::MessagePosted {
            seat: 0,
            text: Some("gg \"well\" played".into()),
            salt: Some("00ff".repeat(8)),
            text_sha256: "ab".repeat(32),
        },
        Event::SeatRetired {
            seat: 1,
            reason: RetireReason::Resigned,
        },
    ];
    let mut prev = String::new();
    for (i, e) in events.iter().enumerate() {
        let row = EventRow::new(game, i as i64 + 1, e, at, &prev).expect("an event serialises");
        let mut canonical = Vec::new();
        write_canonical(&row.event.payload, &mut canonical);
        assert_eq!(row.payload.as_bytes(), canonical, "{}", e.kind());
        assert_eq!(row.event.hash, row.event.chain_hash(&prev), "{}", e.kind());
        let copied = EventRow::from(row.event.clone());
        assert_eq!(copied.payload, row.payload);
        prev = row.event.hash;
    }
}

/// A move moved into its row is the row the event would make: the same payload, text
/// and hash.
#[test]
fn a_move_moved_into_its_row_makes_the_row_of_its_event() {
    let at = Utc.with_ymd_and_hms(2026, 12, 6, 7, 30, 0).unwrap();
    for mv in [
        serde_json::json!({"steps": [{"from": 13, "to": 7}, {"from": 8, "to": 7}]}),
        serde_json::json!([{"pawn": 2}, "bar", 0.25, null, {"z": {"b": [], "a": {}}}]),
        Value::Null,
    ] {
        let event = Event::MovePlayed {
            seat: 3,
            mv: mv.clone(),
        };
        let made = EventRow::new(Uuid::from_u128(9), 12, &event, at, &"ab".repeat(32))
            .expect("an event serialises");
        let moved =
            EventRow::move_played(Uuid::from_u128(9), 12, 3, mv.clone(), at, &"ab".repeat(32));
        assert_eq!(moved.event, made.event, "{mv}");
        assert_eq!(moved.payload, made.payload, "{mv}");
        assert_eq!(moved.played_move(), &mv);
    }
}
