use std::collections::BTreeMap;

use proptest::prelude::*;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::{to_vec, RawJson};
use crate::playout::SplitMix64;
use crate::{variants, AnyGame, Awaiting};

/// What serde_json writes for `value` and what [`to_vec`] writes, side by side.
fn both<T: ?Sized + Serialize>(value: &T) -> (Result<String, String>, Result<String, String>) {
    let theirs = serde_json::to_vec(value)
        .map(|b| String::from_utf8(b).unwrap_or_default())
        .map_err(|e| e.to_string());
    let ours = to_vec(value)
        .map(|b| String::from_utf8(b).unwrap_or_default())
        .map_err(|e| e.to_string());
    (theirs, ours)
}

fn same<T: ?Sized + Serialize>(value: &T) {
    let (theirs, ours) = both(value);
    assert!(theirs.is_ok(), "serde_json refused it: {theirs:?}");
    assert_eq!(ours, theirs);
}

#[derive(Serialize)]
struct Unit;

#[derive(Serialize, PartialEq, Eq, PartialOrd, Ord)]
struct Newtype(u8);

#[derive(Serialize)]
struct Pair(i32, &'static str);

#[derive(Serialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
enum External {
    Plain,
    Wrapped(u16),
    Tuple(u8, u8),
    Fields { from: u8, to: Option<u8> },
}

#[derive(Serialize)]
#[serde(tag = "at", rename_all = "snake_case")]
enum Internal {
    Waiting,
    Track { step: u8, field: u8 },
    Inner(Fields),
}

#[derive(Serialize)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    A,
    B(i8),
    C { x: bool },
}

#[derive(Serialize)]
#[serde(untagged)]
enum Untagged {
    Number(f64),
    Text(String),
}

#[derive(Serialize)]
struct Fields {
    #[serde(rename = "odd \"name\"\n")]
    odd: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<u8>,
    #[serde(flatten)]
    rest: BTreeMap<String, Value>,
    unit: Unit,
    newtype: Newtype,
    pair: Pair,
    empty: Vec<u8>,
    empty_map: BTreeMap<u8, u8>,
    big: (i128, u128),
    floats: Vec<f64>,
    small: f32,
    character: char,
    quote: char,
    #[serde(with = "serde_bytes_as_slice")]
    bytes: Vec<u8>,
}

/// `serialize_bytes`, which derive never calls on its own.
mod serde_bytes_as_slice {
    pub fn serialize<S: serde::Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(v)
    }
}

fn fields() -> Fields {
    Fields {
        odd: 1,
        skipped: None,
        rest: [("z".to_owned(), Value::from("flattened"))]
            .into_iter()
            .collect(),
        unit: Unit,
        newtype: Newtype(7),
        pair: Pair(-3, "three"),
        empty: vec![],
        empty_map: BTreeMap::new(),
        big: (i128::MIN, u128::MAX),
        floats: vec![
            0.0,
            -0.0,
            0.1,
            1e300,
            -2.5e-300,
            f64::NAN,
            f64::INFINITY,
            3.0,
        ],
        small: 0.3,
        character: 'é',
        quote: '"',
        bytes: vec![0, 255, 34],
    }
}

#[test]
fn every_shape_of_serde_data_is_written_as_serde_json_writes_it() {
    same(&fields());
    same(&vec![
        External::Plain,
        External::Wrapped(9),
        External::Tuple(1, 2),
        External::Fields { from: 3, to: None },
        External::Fields {
            from: 3,
            to: Some(4),
        },
    ]);
    same(&vec![
        Internal::Waiting,
        Internal::Track { step: 5, field: 45 },
        Internal::Inner(fields()),
    ]);
    same(&(Adjacent::A, Adjacent::B(-1), Adjacent::C { x: true }));
    same(&[Untagged::Number(1.5), Untagged::Text("t".into())]);
    same(&Some(()));
    same(&Option::<u8>::None);
    same(&((), true, false, 'x', "", u64::MAX, i64::MIN));
}

#[test]
fn map_keys_are_written_as_serde_json_writes_them() {
    same(
        &[(1u8, "a"), (200u8, "b")]
            .into_iter()
            .collect::<BTreeMap<_, _>>(),
    );
    same(&[(-1i64, 1)].into_iter().collect::<BTreeMap<_, _>>());
    same(
        &[(true, 1), (false, 2)]
            .into_iter()
            .collect::<BTreeMap<_, _>>(),
    );
    same(&[('c', 1), ('"', 2)].into_iter().collect::<BTreeMap<_, _>>());
    same(
        &[(External::Plain, 1)]
            .into_iter()
            .collect::<BTreeMap<_, _>>(),
    );
    same(&[(Newtype(3), 1)].into_iter().collect::<BTreeMap<_, _>>());
    same(&[(i128::MAX, 1)].into_iter().collect::<BTreeMap<_, _>>());
    same(&[("a\u{1}b\\", 1)].into_iter().collect::<BTreeMap<_, _>>());
    let mut floats = serde_json::Map::new();
    floats.insert("x".into(), Value::from(1));
    same(&floats);
}

#[test]
fn a_key_serde_json_refuses_is_refused() {
    let (theirs, ours) = both(&[(vec![1u8], 1)].into_iter().collect::<BTreeMap<_, _>>());
    assert!(theirs.is_err() && ours.is_err(), "{theirs:?} {ours:?}");
    let (theirs, ours) = both(
        &[(Option::<u8>::None, 1)]
            .into_iter()
            .collect::<BTreeMap<_, _>>(),
    );
    assert!(theirs.is_err() && ours.is_err(), "{theirs:?} {ours:?}");
    let (theirs, ours) = both(
        &[(External::Wrapped(1), 1)]
            .into_iter()
            .collect::<BTreeMap<_, _>>(),
    );
    assert!(theirs.is_err() && ours.is_err(), "{theirs:?} {ours:?}");
}

#[test]
fn every_character_json_escapes_is_escaped_wherever_it_stands() {
    let specials: Vec<char> = (0u8..0x20)
        .map(char::from)
        .chain(['"', '\\', '\u{7f}', '/', ' ', 'é', '€', '😀'])
        .collect();
    for c in specials {
        for len in 1..=40 {
            for at in 0..len {
                let text: String = (0..len).map(|i| if i == at { c } else { 'a' }).collect();
                same(&text);
                same(&[(text, 1)].into_iter().collect::<BTreeMap<_, _>>());
            }
        }
    }
}

#[test]
fn raw_json_is_embedded_by_serde_json() {
    let raw = RawJson::of(&[1, 2]).expect("an array of numbers is JSON");
    assert_eq!(raw.get(), "[1,2]");
    assert_eq!(
        serde_json::to_string(&vec![raw.clone()]).ok(),
        Some("[[1,2]]".to_owned())
    );
    assert_eq!(to_vec(&vec![raw]).ok(), Some(b"[[1,2]]".to_vec()));
}

#[test]
fn raw_values_of_serde_json_are_embedded_as_they_are() {
    let raw = RawValue::from_string("{\"a\": [1, 2]}".to_owned()).ok();
    same(&(raw, RawJson::of("x").ok(), RawJson::of(&()).ok()));
}

/// A value whose `Serialize` always fails.
struct Unwritable;

impl Serialize for Unwritable {
    fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom("no JSON for this"))
    }
}

#[test]
fn raw_json_of_a_value_that_cannot_be_written_is_its_error_not_null() {
    let failed = RawJson::of(&vec![Unwritable]).err().map(|e| e.to_string());
    assert_eq!(failed.as_deref(), Some("no JSON for this"));
    let not_a_string_key: BTreeMap<Vec<u8>, u8> = [(vec![1], 2)].into_iter().collect();
    let ours = RawJson::of(&not_a_string_key).err().map(|e| e.to_string());
    let theirs = serde_json::to_vec(&not_a_string_key)
        .err()
        .map(|e| e.to_string());
    assert!(ours.is_some());
    assert_eq!(ours, theirs);
}

/// Any JSON value.
fn any_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        any::<String>().prop_map(Value::from),
        "[ -~]{0,24}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::from),
            prop::collection::btree_map(any::<String>(), inner, 0..8)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn any_json_value_is_written_as_serde_json_writes_it(value in any_value()) {
        let (theirs, ours) = both(&value);
        prop_assert_eq!(ours, theirs);
    }

    #[test]
    fn any_string_is_written_as_serde_json_writes_it(text in any::<String>()) {
        let (theirs, ours) = both(&text);
        prop_assert_eq!(ours, theirs);
    }
}

/// `r`'s value; a panic naming `variant` and the error if it is one.
fn written<T>(variant: &str, r: Result<T, crate::EngineError>) -> T {
    r.unwrap_or_else(|e| panic!("{variant}: {e}"))
}

/// Plays a game of `variant` for `seats` seats with random dice and moves, checking at
/// every state that its state and legal moves are written as JSON (no
/// `EngineError::Unserialisable`) and read as serde_json's `Value`s of them, and that
/// its options and default options are written.
fn check_playout(variant: &str, options: Value, seats: u8, seed: u64) {
    let Ok(entry) = crate::variant(variant) else {
        panic!("no variant {variant}");
    };
    let mut game: Box<dyn AnyGame> = match entry.create(&options, seats) {
        Ok(game) => game,
        Err(e) => panic!("{variant}, {seats} seats: {e}"),
    };
    written(variant, game.options());
    written(variant, entry.default_options());
    let mut rng = SplitMix64(seed);
    for _ in 0..3_000 {
        assert_eq!(
            serde_json::from_str::<Value>(written(variant, game.state_json()).get()).ok(),
            Some(written(variant, game.state())),
            "{variant}"
        );
        assert_eq!(
            serde_json::from_str::<Value>(written(variant, game.legal_moves_json()).get()).ok(),
            Some(Value::from(written(variant, game.legal_moves()))),
            "{variant}"
        );
        match game.awaiting() {
            Awaiting::Finished { .. } => return,
            Awaiting::Dice { die, count, .. } => {
                let values: Vec<u8> = (0..count).map(|_| rng.roll(&die)).collect();
                assert!(game.apply_dice(&values).is_ok(), "{variant}");
            }
            Awaiting::Move { .. } => {
                let moves = written(variant, game.legal_moves());
                let i = rng.below(moves.len());
                assert!(game.apply_move(&moves[i]).is_ok(), "{variant}");
            }
        }
    }
}

#[test]
fn every_variant_writes_its_state_and_moves_as_serde_json_does() {
    for (i, v) in variants().iter().enumerate() {
        // The most seats the default options take (the four-colour board, for one).
        let most = (v.min_seats..=v.max_seats)
            .rev()
            .find(|&n| v.create(&Value::Null, n).is_ok())
            .unwrap_or(v.min_seats);
        for seats in [v.min_seats, most] {
            check_playout(v.name, Value::Null, seats, i as u64 * 10 + u64::from(seats));
        }
    }
    check_playout("mens_erger_je_niet", serde_json::json!({"board": 6}), 6, 3);
}

/// Plays a game of type `G` with random dice and moves, checking at every state that
/// its state and legal moves are written byte for byte as serde_json writes them.
fn check_bytes<G: crate::Game>(options: &G::Options, seats: u8, seed: u64) {
    let mut game = match G::new(options, seats) {
        Ok(game) => game,
        Err(e) => panic!("{}: {e}", G::VARIANT),
    };
    let mut rng = SplitMix64(seed);
    for _ in 0..3_000 {
        same(&game);
        same(&game.legal_moves());
        match game.awaiting() {
            Awaiting::Finished { .. } => return,
            Awaiting::Dice { die, count, .. } => {
                let values: Vec<u8> = (0..count).map(|_| rng.roll(&die)).collect();
                assert!(game.apply_dice(&values).is_ok(), "{}", G::VARIANT);
            }
            Awaiting::Move { .. } => {
                let moves = game.legal_moves();
                let i = rng.below(moves.len());
                assert!(game.apply_move(&moves[i]).is_ok(), "{}", G::VARIANT);
            }
        }
    }
}

#[test]
fn every_game_is_written_byte_for_byte_as_serde_json_writes_it() {
    use crate::{ali_baba, backgammon, hoofden, ludo, mens_erger_je_niet};
    check_bytes::<ali_baba::AliBaba>(&Default::default(), 2, 11);
    check_bytes::<backgammon::Backgammon>(&Default::default(), 2, 12);
    check_bytes::<hoofden::Hoofden>(&Default::default(), 2, 13);
    check_bytes::<ludo::Ludo>(&Default::default(), 4, 14);
    check_bytes::<mens_erger_je_niet::MensErgerJeNiet>(&Default::default(), 4, 15);
    let six = mens_erger_je_niet::Options {
        board: 6,
        ..Default::default()
    };
    check_bytes::<mens_erger_je_niet::MensErgerJeNiet>(&six, 6, 16);
}
