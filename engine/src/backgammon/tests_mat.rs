//! Tests of `mat.rs`: the `.mat` export of games and matches.

use super::*;
use crate::playout::{play_out, Input, SplitMix64};

/// A random complete game as replay steps.
pub(crate) fn random_game(seed: u64) -> Vec<Step> {
    let mut game = Backgammon::new(&Default::default(), 2).expect("game");
    let mut rng = SplitMix64(seed);
    let mut log = Vec::new();
    let mut pick = SplitMix64(seed ^ 0xABCD);
    play_out(
        &mut game,
        |d| rng.roll(d),
        |_, m| pick.below(m.len()),
        10_000,
        Some(&mut log),
    )
    .expect("play");
    log.into_iter()
        .map(|i| match i {
            Input::Dice(v) => Step::Dice(v),
            Input::Move(m) => Step::Move(serde_json::to_value(m).expect("json")),
        })
        .collect()
}

#[test]
fn a_match_file_lists_every_roll_in_two_columns_and_the_winner() {
    let steps = random_game(3);
    let text = match_file(
        &steps,
        &MatHeader {
            white: "ann".into(),
            black: "bob smith".into(),
            date: None,
        },
    )
    .expect("mat");
    assert!(text.contains(" 0 point match\n\n Game 1\n ann : 0"));
    assert!(text.contains("bob_smith : 0"));
    assert!(text.lines().any(|l| l.trim_start().starts_with("1) ")));
    assert!(text.contains("Wins "));
    if let Ok(dir) = std::env::var("WORP_MAT_OUT") {
        std::fs::write(format!("{dir}/game.mat"), &text).expect("write");
    }
}

/// A random complete match to `length` points as replay steps; decisions follow the
/// engine's heuristic, checker moves are random.
pub(crate) fn random_match(length: u8, seed: u64) -> (Options, Vec<Step>) {
    let options = Options {
        match_length: length,
        ..Options::default()
    };
    let mut game = Backgammon::new(&options, 2).expect("game");
    let mut rng = SplitMix64(seed);
    let mut steps = Vec::new();
    while !matches!(Game::awaiting(&game), Awaiting::Finished { .. }) {
        match Game::awaiting(&game) {
            Awaiting::Dice { die, count, .. } => {
                let v: Vec<u8> = (0..count).map(|_| rng.roll(&die)).collect();
                game.apply_dice(&v).expect("dice");
                steps.push(Step::Dice(v));
            }
            _ => {
                let moves = game.legal_moves();
                let i = game.decision_hint().unwrap_or_else(|| {
                    // Checker moves only (no resignation offers).
                    let n = moves.iter().filter(|m| m.decision().is_none()).count();
                    rng.below(n.max(1))
                });
                steps.push(Step::Move(serde_json::to_value(moves[i]).expect("json")));
                game.apply_move(&moves[i]).expect("move");
            }
        }
    }
    (options, steps)
}

#[test]
fn a_match_file_writes_every_game_with_its_score_and_cube_actions() {
    let (options, steps) = random_match(7, 5);
    let text = match_file_with(&options, &steps, &MatHeader::default()).expect("mat");
    assert!(
        text.contains("\n 7 point match\n\n Game 1\n White : 0"),
        "{text}"
    );
    assert!(text.contains(" Game 2\n"), "{text}");
    assert!(text.contains("Doubles => 2"), "{text}");
    assert!(text.contains("Takes") || text.contains("Drops"), "{text}");
    assert!(text.contains("and the match"), "{text}");
    if let Ok(dir) = std::env::var("WORP_MAT_OUT") {
        std::fs::write(format!("{dir}/match.mat"), &text).expect("write");
        // The record tests/contract/backgammon.match.record.json was written so.
        let record = crate::replay::Record {
            variant: "backgammon".into(),
            options: serde_json::to_value(&options).expect("json"),
            seats: 2,
            steps: steps.clone(),
        };
        std::fs::write(
            format!("{dir}/backgammon.match.record.json"),
            serde_json::to_string(&record).expect("json"),
        )
        .expect("write");
    }
}

#[test]
fn a_drop_by_white_shares_its_row_with_blacks_win() {
    let mut seen = 0;
    for seed in 0..200 {
        let (options, steps) = random_match(7, seed);
        let text = match_file_with(&options, &steps, &MatHeader::default()).expect("mat");
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            // A left-column drop: ")  Drops" right after the row number.
            let Some(rest) = line.split_once(") ").map(|(_, r)| r) else {
                continue;
            };
            if rest.trim_start().starts_with("Drops") {
                seen += 1;
                assert!(line.contains("Wins "), "{line}\n{text}");
                assert!(
                    lines.get(i + 1).is_none_or(|n| !n.contains("Wins ")),
                    "{text}"
                );
            }
        }
    }
    assert!(seen > 0, "no random match had White drop a double");
}

/// A match to `length` points played by `plays` from the start, as replay steps, and
/// the game after them: each play is dice, a decision, or (`None`) the first legal
/// checker move.
fn played(length: u8, plays: &[Play]) -> (Options, Vec<Step>, Backgammon) {
    let options = Options {
        match_length: length,
        ..Options::default()
    };
    let mut game = Backgammon::new(&options, 2).expect("game");
    let mut steps = Vec::new();
    for play in plays {
        match play {
            Play::Dice(v) => {
                game.apply_dice(v).expect("dice");
                steps.push(Step::Dice(v.to_vec()));
            }
            Play::Decide(d) => {
                let mv = Move::Decision(*d);
                game.apply_move(&mv).expect("decision");
                steps.push(Step::Move(serde_json::to_value(mv).expect("json")));
            }
            Play::Checkers => {
                let mv = game.legal_moves()[0];
                game.apply_move(&mv).expect("move");
                steps.push(Step::Move(serde_json::to_value(mv).expect("json")));
            }
        }
    }
    (options, steps, game)
}

enum Play {
    Dice(&'static [u8]),
    Decide(Decision),
    Checkers,
}

#[test]
fn a_roll_pending_at_an_accepted_resignation_is_written_without_moves() {
    use super::super::Level;
    use Decision::{Accept, Double, Resign, Take};
    use Play::{Checkers, Decide, Dice};
    // White opens with 3-1; Black doubles, White takes, Black rolls 4-4 and resigns.
    // Without the roll GNU Backgammon read a second double after the take.
    let (options, steps, game) = played(
        2,
        &[
            Dice(&[3]),
            Dice(&[1]),
            Checkers,
            Decide(Double),
            Decide(Take),
            Dice(&[4, 4]),
            Decide(Resign(Level::Single)),
            Decide(Accept),
        ],
    );
    let text = match_file_with(&options, &steps, &MatHeader::default()).expect("mat");
    assert!(
        text.ends_with(&format!(
            "  2) {:<28} 44:\n      Wins 2 points and the match\n",
            " Takes"
        )),
        "{text}"
    );
    // What GNU Backgammon 1.07 shows after importing it.
    assert_eq!(game.match_id(), "QStSACAAAAAE");
    // The other way round: White doubles, Black takes, White resigns with 4-4.
    let (options, steps, game) = played(
        2,
        &[
            Dice(&[1]),
            Dice(&[3]),
            Checkers,
            Decide(Double),
            Decide(Take),
            Dice(&[4, 4]),
            Decide(Resign(Level::Single)),
            Decide(Accept),
        ],
    );
    let text = match_file_with(&options, &steps, &MatHeader::default()).expect("mat");
    assert!(
        text.ends_with(&format!("  3) {:<28} Wins 2 points and the match\n", "44:")),
        "{text}"
    );
    assert_eq!(game.match_id(), "ESNSAAAAEAAE");
}

#[test]
fn points_are_counted_from_the_movers_side_with_bar_25_and_off_0() {
    assert_eq!(mat_point(Side::White, 1), 24);
    assert_eq!(mat_point(Side::White, 24), 1);
    assert_eq!(mat_point(Side::Black, 6), 6);
}
