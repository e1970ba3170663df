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
