//! Fuzzing of every input the engine parses, for every registered variant: arbitrary
//! JSON as options, moves and game records, arbitrary dice and seats. Nothing panics, and
//! every refused input leaves the game exactly as it was.

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use worp_engine::playout::SplitMix64;
use worp_engine::replay::{replay, Record, Step};
use worp_engine::{variants, AnyGame, Awaiting, EngineError, Seat};

/// Keys the games' options and moves use, so objects sometimes get past the first check.
const KEYS: &[&str] = &[
    "from", "to", "steps", "step", "die", "dice", "piece", "pawn", "figure", "head", "heads",
    "square", "colour", "color", "seat", "planks", "pass", "enter", "path", "target", "kind",
    "type", "move", "options", "variant", "seats", "retire", "bar", "off", "board", "captures",
];

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..40).prop_map(|n| json!(n)),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        prop::sample::select(KEYS).prop_map(|k| json!(k)),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![prop::sample::select(KEYS).prop_map(String::from), ".{0,6}"],
                    inner
                ),
                0..5
            )
            .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<String, Value>>())),
        ]
    })
}

/// A legal move with one of its numbers, strings or fields changed.
fn mutate(v: &Value, rng: &mut SplitMix64, replacement: &Value) -> Value {
    match v {
        Value::Object(m) if !m.is_empty() => {
            let mut m = m.clone();
            let i = rng.below(m.len());
            let key = m.keys().nth(i).cloned().unwrap_or_default();
            match rng.below(3) {
                0 => {
                    m.remove(&key);
                }
                1 => {
                    let old = m.get(&key).cloned().unwrap_or(Value::Null);
                    m.insert(key, mutate(&old, rng, replacement));
                }
                _ => {
                    m.insert(key, replacement.clone());
                }
            }
            Value::Object(m)
        }
        Value::Array(a) if !a.is_empty() => {
            let mut a = a.clone();
            let i = rng.below(a.len());
            match rng.below(3) {
                0 => {
                    a.remove(i);
                }
                1 => a[i] = mutate(&a[i], rng, replacement),
                _ => a.push(a[i].clone()),
            }
            Value::Array(a)
        }
        Value::Number(n) => {
            let delta = [-1i64, 1, 100, -100][rng.below(4)];
            json!(n.as_i64().unwrap_or(0).saturating_add(delta))
        }
        _ => replacement.clone(),
    }
}

/// The state, what is awaited, the legal moves and the options, as [`snapshot`] reads them.
type Snapshot = (
    Result<Value, EngineError>,
    Awaiting,
    Result<Vec<Value>, EngineError>,
    Result<Value, EngineError>,
);

/// Everything observable about a game.
fn snapshot(g: &dyn AnyGame) -> Snapshot {
    (g.state(), g.awaiting(), g.legal_moves(), g.options())
}

/// A game of variant `vi` with `seats` seats, played `inputs` inputs in (random dice and
/// random legal moves).
fn game_in_play(vi: usize, seats_pick: u8, inputs: usize, seed: u64) -> Box<dyn AnyGame> {
    let v = &variants()[vi % variants().len()];
    let span = v.max_seats - v.min_seats + 1;
    // Some seat counts need options (e.g. the 6-colour board): take the largest count
    // up to the pick that the default options allow.
    let pick = v.min_seats + seats_pick % span;
    let mut g = (v.min_seats..=pick)
        .rev()
        .find_map(|n| v.create(&Value::Null, n).ok())
        .expect("the default options allow the fewest seats");
    let mut rng = SplitMix64(seed);
    for _ in 0..inputs {
        match g.awaiting() {
            Awaiting::Dice { die, count, .. } => {
                let values: Vec<u8> = (0..count).map(|_| rng.roll(&die)).collect();
                g.apply_dice(&values).expect("rolled dice apply");
            }
            Awaiting::Move { .. } => {
                let moves = g.legal_moves().expect("legal moves");
                let mv = moves[rng.below(moves.len())].clone();
                g.apply_move(&mv).expect("a legal move applies");
            }
            Awaiting::Finished { .. } => break,
        }
    }
    g
}

fn arb_step() -> impl Strategy<Value = Step> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..4).prop_map(Step::Dice),
        prop::collection::vec(0u8..7, 1..3).prop_map(Step::Dice),
        arb_json().prop_map(Step::Move),
        any::<u8>().prop_map(|s| Step::Retire(Seat(s))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_options_never_panic(vi in 0usize..16, seats in 0u8..10, options in arb_json()) {
        let v = &variants()[vi % variants().len()];
        if let Ok(g) = v.create(&options, seats) {
            // A game that was made is usable.
            let _ = snapshot(g.as_ref());
            prop_assert!((v.min_seats..=v.max_seats).contains(&seats));
        }
    }

    #[test]
    fn arbitrary_moves_never_panic_and_a_refused_move_changes_nothing(
        vi in 0usize..16, seats in 0u8..8, inputs in 0usize..120, seed in any::<u64>(),
        mv in arb_json(),
    ) {
        let mut g = game_in_play(vi, seats, inputs, seed);
        let legal = g.legal_moves().expect("legal moves");
        let mut rng = SplitMix64(seed ^ 0x5eed);
        let mut candidates = vec![mv.clone()];
        if let Some(m) = legal.first() {
            candidates.push(mutate(m, &mut rng, &mv));
            candidates.push(mutate(&legal[rng.below(legal.len())], &mut rng, &mv));
        }
        for candidate in candidates {
            let before = snapshot(g.as_ref());
            match g.apply_move(&candidate) {
                Err(_) => prop_assert_eq!(snapshot(g.as_ref()), before, "refused {}", candidate),
                Ok(()) => {
                    // Only a listed move is accepted (in any form that reads as one).
                    let awaited_move = matches!(before.1, Awaiting::Move { .. });
                    prop_assert!(awaited_move, "a move was accepted while none was awaited");
                    prop_assert!(before.2.is_ok_and(|moves| !moves.is_empty()));
                }
            }
        }
    }

    #[test]
    fn arbitrary_dice_and_seats_never_panic_and_a_refusal_changes_nothing(
        vi in 0usize..16, seats in 0u8..8, inputs in 0usize..120, seed in any::<u64>(),
        dice in prop::collection::vec(any::<u8>(), 0..5), seat in any::<u8>(),
    ) {
        let mut g = game_in_play(vi, seats, inputs, seed);
        let before = snapshot(g.as_ref());
        if g.apply_dice(&dice).is_err() {
            prop_assert_eq!(snapshot(g.as_ref()), before);
        }
        let before = snapshot(g.as_ref());
        if g.retire(Seat(seat)).is_err() {
            prop_assert_eq!(snapshot(g.as_ref()), before);
        }
    }

    #[test]
    fn arbitrary_json_as_a_record_never_panics(record in arb_json()) {
        if let Ok(r) = serde_json::from_value::<Record>(record) {
            let _ = replay(&r, |_| {});
        }
    }

    #[test]
    fn arbitrary_records_of_real_variants_never_panic(
        vi in 0usize..16, seats in 0u8..10, options in prop_oneof![Just(Value::Null), arb_json()],
        steps in prop::collection::vec(arb_step(), 0..12),
    ) {
        let v = &variants()[vi % variants().len()];
        let record = Record { variant: v.name.to_owned(), options, seats, steps };
        let text = serde_json::to_string(&record).expect("serializes");
        let parsed: Record = serde_json::from_str(&text).expect("a record reads back");
        let mut reports = 0usize;
        match replay(&parsed, |_| reports += 1) {
            Ok(_) => prop_assert_eq!(reports, parsed.steps.len()),
            Err(_) => prop_assert!(reports <= parsed.steps.len()),
        }
    }
}

/// A line that is nearly a position: the right fields with values around the valid range.
fn near_position() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(-16i64..17, 22..27),
        (0i64..17, -1i64..17),
        (-1i64..17, 0i64..17),
        prop::sample::select(vec!["white", "black", "red", ""]),
        prop::collection::vec(0i64..8, 0..4),
    )
        .prop_map(|(board, (bw, bb), (ow, ob), side, dice)| {
            json!({
                "board": board,
                "bar": {"white": bw, "black": bb},
                "off": {"white": ow, "black": ob},
                "to_move": side,
                "dice": dice,
            })
            .to_string()
        })
}

/// A valid position: 15 checkers a side on the points (a point holds one side's), the
/// bar or borne off, and a roll.
fn valid_position() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(0usize..26, 15),
        prop::collection::vec(0usize..26, 15),
        any::<bool>(),
        (1u8..7, 1u8..7),
    )
        .prop_map(|(white, black, white_to_move, (d1, d2))| {
            // 0..24: a point; 24: the bar; 25: borne off.
            let mut board = [0i64; 24];
            let (mut bar, mut off) = ([0i64; 2], [0i64; 2]);
            for w in white {
                match w {
                    24 => bar[0] += 1,
                    25 => off[0] += 1,
                    p => board[p] += 1,
                }
            }
            for b in black {
                match b {
                    24 => bar[1] += 1,
                    25 => off[1] += 1,
                    // A point White holds sends the checker to the bar instead.
                    p if board[p] > 0 => bar[1] += 1,
                    p => board[p] -= 1,
                }
            }
            json!({
                "board": board,
                "bar": {"white": bar[0], "black": bar[1]},
                "off": {"white": off[0], "black": off[1]},
                "to_move": if white_to_move { "white" } else { "black" },
                "dice": [d1, d2],
            })
            .to_string()
        })
}

/// The analyzer answers every line with `{"outcomes": [...]}` or `{"error": "..."}`.
fn check_answer(answer: &Value) -> Result<(), TestCaseError> {
    let obj = answer.as_object().expect("an object");
    prop_assert_eq!(obj.len(), 1, "{}", answer);
    match (obj.get("outcomes"), obj.get("error")) {
        (Some(Value::Array(outcomes)), None) => {
            prop_assert!(outcomes.iter().all(Value::is_object), "{}", answer)
        }
        (None, Some(Value::String(_))) => {}
        _ => prop_assert!(false, "neither outcomes nor error: {}", answer),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn the_backgammon_analyzer_answers_any_line(line in prop_oneof![
        ".{0,80}",
        arb_json().prop_map(|v| v.to_string()),
        near_position(),
        valid_position(),
    ]) {
        check_answer(&worp_engine::backgammon::analyze::analyze_line(&line))?;
    }
}
