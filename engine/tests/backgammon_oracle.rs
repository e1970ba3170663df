//! Differential test against the oracle corpus (`shared/oracle/`): for EVERY case, the
//! engine must give exactly the corpus's set of outcome positions; and the GNU Backgammon
//! Position IDs of the 40 listed positions must match.
//!
//! The corpus is found at `../../shared/oracle/` from the crate, or in `$WORP_ORACLE_DIR`.

use std::path::PathBuf;

use serde::Deserialize;
use worp_engine::backgammon::analyze::analyze_line;
use worp_engine::backgammon::position_id::position_id;
use worp_engine::backgammon::{Position, Side};

fn oracle_file(name: &str) -> String {
    let dir = std::env::var("WORP_ORACLE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/oracle"))
        });
    let path = dir.join(name);
    match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => panic!(
            "the oracle file {} is missing ({e}); set WORP_ORACLE_DIR to the folder holding it",
            path.display()
        ),
    }
}

#[derive(Deserialize)]
struct Case {
    id: u32,
    #[serde(flatten)]
    position: Position,
    to_move: Side,
    dice: [u8; 2],
    outcomes: Vec<Position>,
}

#[test]
fn every_oracle_case_has_exactly_the_corpus_outcomes() {
    let text = oracle_file("backgammon.jsonl");
    let mut cases = 0;
    let mut outcomes = 0;
    let mut failures = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: Case = serde_json::from_str(line).expect("a corpus line");
        let got = case.position.outcomes(case.to_move, case.dice);
        if got != case.outcomes {
            failures.push(format!(
                "case {}: {} outcomes expected, {} found",
                case.id,
                case.outcomes.len(),
                got.len()
            ));
        }
        cases += 1;
        outcomes += case.outcomes.len();
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(cases, 2997, "the corpus holds 2,997 cases");
    assert_eq!(
        outcomes, 39_373,
        "the corpus holds 39,373 outcome positions"
    );
}

#[test]
fn analyze_line_gives_the_corpus_outcomes() {
    let text = oracle_file("backgammon.jsonl");
    for line in text.lines().take(300) {
        let want: serde_json::Value = serde_json::from_str(line).expect("a corpus line");
        let got = analyze_line(line);
        assert_eq!(got["outcomes"], want["outcomes"], "case {}", want["id"]);
    }
}

#[derive(Deserialize)]
struct IdCase {
    id: u32,
    #[serde(flatten)]
    position: Position,
    to_move: Side,
    position_id: String,
}

#[test]
fn position_ids_match_gnu_backgammon() {
    assert_eq!(position_id(&Position::START, Side::White), "4HPwATDgc/ABMA");
    assert_eq!(position_id(&Position::START, Side::Black), "4HPwATDgc/ABMA");
    let text = oracle_file("backgammon-position-ids.jsonl");
    let mut n = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: IdCase = serde_json::from_str(line).expect("a position-id line");
        assert_eq!(
            position_id(&case.position, case.to_move),
            case.position_id,
            "position {}",
            case.id
        );
        n += 1;
    }
    assert_eq!(n, 40);
}

/// Every Match ID of `backgammon-match-ids.jsonl` (computed by GNU Backgammon 1.07).
#[test]
fn every_oracle_match_id_is_gnubgs() {
    use worp_engine::backgammon::match_id::{match_id, MatchKey};
    let text = oracle_file("backgammon-match-ids.jsonl");
    let mut n = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: serde_json::Value = serde_json::from_str(line).expect("json line");
        let int = |k: &str| case[k].as_i64().expect(k);
        let pair = |k: &str| [case[k][0].as_u64().expect(k), case[k][1].as_u64().expect(k)];
        let key = MatchKey {
            cube: int("cube") as u8,
            owner: u8::try_from(int("owner")).ok(),
            on_roll: int("on_roll") as u8,
            turn: int("turn") as u8,
            crawford: int("crawford") == 1,
            game_state: int("gamestate") as u8,
            doubled: int("doubled") == 1,
            resigned: int("resigned") as u8,
            dice: pair("dice").map(|d| d as u8),
            match_length: int("match_length") as u16,
            score: pair("score").map(|s| s as u16),
            // The corpus's single games are played with the cube and the Jacoby rule.
            jacoby: int("match_length") == 0,
        };
        assert_eq!(match_id(&key), case["match_id"], "case {}", case["id"]);
        n += 1;
    }
    assert_eq!(n, 40);
}
