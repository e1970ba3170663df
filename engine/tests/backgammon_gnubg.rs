//! GNU Backgammon itself reads Worp's `.mat` files of matches with the cube: the final
//! score it shows is Worp's, and the Position and Match IDs it shows at every step of the
//! match are IDs of Worp's states. Needs `gnubg` (`apt-get install gnubg`, which
//! `tests/run.sh` does); without it the test fails unless `WORP_SKIP_GNUBG` is set.

mod support {
    pub mod gnubg_walk;
}

use std::collections::HashSet;

use support::gnubg_walk::{gnubg_path, gnubg_walk, playing, run_gnubg, shown_ids};

use worp_engine::backgammon::mat::{match_file_with, MatHeader};
use worp_engine::backgammon::{Backgammon, Decision, Level, Move, Options};
use worp_engine::playout::SplitMix64;
use worp_engine::replay::Step;
use worp_engine::{Awaiting, Game};

/// A match played to its end: decisions by the engine's heuristic, checker moves at
/// random. Returns the steps and the (Position ID, Match ID) of every state on the way.
fn play(options: &Options, seed: u64) -> (Vec<Step>, Backgammon, HashSet<(String, String)>) {
    let mut game = Backgammon::new(options, 2).expect("game");
    let mut rng = SplitMix64(seed);
    let mut steps = Vec::new();
    let mut ids = HashSet::new();
    loop {
        let s = game.state();
        ids.insert((s.position_id.clone(), s.match_id.clone().expect("match id")));
        match game.awaiting() {
            Awaiting::Finished { .. } => break,
            Awaiting::Dice { die, count, .. } => {
                let v: Vec<u8> = (0..count).map(|_| rng.roll(&die)).collect();
                game.apply_dice(&v).expect("dice");
                steps.push(Step::Dice(v));
            }
            Awaiting::Move { .. } => {
                let moves = game.legal_moves();
                let i = game.decision_hint().unwrap_or_else(|| {
                    let n = moves.iter().filter(|m| m.decision().is_none()).count();
                    rng.below(n.max(1))
                });
                steps.push(Step::Move(serde_json::to_value(moves[i]).expect("json")));
                game.apply_move(&moves[i]).expect("move");
            }
        }
    }
    (steps, game, ids)
}

#[test]
fn gnubg_imports_worp_matches_with_the_same_score_and_match_ids() {
    for (length, seed) in [(7u8, 5u64), (5, 11), (3, 2)] {
        let options = Options {
            match_length: length,
            ..Options::default()
        };
        let (steps, game, worp_ids) = play(&options, seed);
        let header = MatHeader {
            white: "ann".into(),
            black: "bob".into(),
            date: None,
        };
        let mat = match_file_with(&options, &steps, &header).expect("mat");
        let m = game.match_play();
        let Some(text) = gnubg_walk(&mat) else {
            return;
        };
        let score = format!(
            "The score (after {} game{}) is: ann {}, bob {} (match to {length} point",
            m.games.len(),
            if m.games.len() == 1 { "" } else { "s" },
            m.score.white,
            m.score.black
        );
        assert!(text.contains(&score), "wanted {score:?}:\n{text}\n{mat}");
        assert!(!text.to_lowercase().contains("illegal"), "{text}");
        // gnubg shows the end of the match as imported first: Worp's final state.
        let shown = shown_ids(&text);
        assert!(shown.len() > 20, "gnubg showed too few positions:\n{text}");
        let last = game.state();
        assert_eq!(
            shown[0],
            (last.position_id, last.match_id.expect("match id")),
            "the end of the match"
        );
        // Every position gnubg then steps through while a game is played is a state
        // Worp was in, with the same Match ID. (The end of each game but the last,
        // which gnubg shows before the next game, is never a state of Worp's: its next
        // game starts at once.)
        let mut missing: Vec<_> = shown[1..]
            .iter()
            .filter(|pair| playing(&pair.1) && !worp_ids.contains(*pair))
            .collect();
        missing.dedup();
        assert!(
            missing.is_empty(),
            "gnubg showed {} of {} states Worp was never in: {missing:?}\n{mat}",
            missing.len(),
            shown.len()
        );
    }
}

/// A long match gives gnubg a script and an output each larger than a pipe holds (a
/// 7-point match of 116 KB did): both must flow at once, or gnubg and the test wait for
/// each other for ever.
#[test]
fn gnubg_is_fed_and_read_at_once_however_long_its_script_and_output() {
    let Some(gnubg) = gnubg_path() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("worp-gnubg-pipes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    // 88 KB of commands, each printing a board of some 900 bytes.
    let boards = 8_000;
    let script = "new game\n".to_owned() + &"show board\n".repeat(boards);
    assert!(script.len() > 80 * 1024);
    let text = run_gnubg(gnubg, &dir, script);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        text.matches("Position ID").count() >= boards,
        "gnubg showed {} boards of {boards}",
        text.matches("Position ID").count()
    );
}

/// One play of a scripted match: dice, a decision, or the first legal checker move.
#[derive(Clone, Copy)]
enum Play {
    Dice(&'static [u8]),
    Decide(Decision),
    Checkers,
}

/// The match `plays` make, played by Worp from the start: the steps, the game after them
/// and the (Position ID, Match ID) of every state on the way.
fn scripted(
    options: &Options,
    plays: &[Play],
) -> (Vec<Step>, Backgammon, HashSet<(String, String)>) {
    let mut game = Backgammon::new(options, 2).expect("game");
    let mut steps = Vec::new();
    let mut ids = HashSet::new();
    for play in plays {
        let s = game.state();
        ids.insert((s.position_id, s.match_id.expect("match id")));
        match *play {
            Play::Dice(v) => {
                game.apply_dice(v).expect("dice");
                steps.push(Step::Dice(v.to_vec()));
            }
            Play::Decide(d) => {
                let mv = Move::Decision(d);
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
    (steps, game, ids)
}

/// Has GNU Backgammon import the `.mat` of the finished match `steps` played, and checks
/// that it shows Worp's final Position ID and Match ID, and only Worp's states while a
/// game is played. `what` names the case in failures.
fn gnubg_agrees(
    what: &str,
    options: &Options,
    steps: &[Step],
    game: &Backgammon,
    worp_ids: &HashSet<(String, String)>,
) {
    assert!(game.result().is_some(), "{what}: the match is not over");
    let mat = match_file_with(options, steps, &MatHeader::default()).expect("mat");
    let Some(text) = gnubg_walk(&mat) else {
        return;
    };
    assert!(!text.to_lowercase().contains("illegal"), "{what}:\n{text}");
    let shown = shown_ids(&text);
    let last = game.state();
    assert_eq!(
        shown.first(),
        Some(&(last.position_id, last.match_id.expect("match id"))),
        "{what}: the end of the match\n{mat}"
    );
    let missing: Vec<_> = shown
        .iter()
        .skip(1)
        .filter(|pair| playing(&pair.1) && !worp_ids.contains(*pair))
        .collect();
    assert!(
        missing.is_empty(),
        "{what}: gnubg showed states Worp was never in: {missing:?}\n{mat}"
    );
}

/// Matches ended by an accepted resignation at each level: before rolling, with a roll
/// pending, and by the doubler right after his double was taken (whose roll gnubg, when
/// it was left out of the `.mat`, read as a second double). GNU Backgammon shows the
/// final Match ID Worp gives: the resigner on roll and to decide, the level resigned,
/// the dice of the roll he left.
#[test]
fn gnubg_ends_a_match_won_by_an_accepted_resignation_with_worps_match_id() {
    use Decision::{Accept, Double, Resign, Roll, Take};
    use Play::{Checkers, Decide, Dice};
    for level in Level::ALL {
        let cases: [(&str, u8, Vec<Play>); 5] = [
            (
                "White resigns before rolling",
                1,
                vec![
                    Dice(&[3]),
                    Dice(&[1]),
                    Checkers,
                    Decide(Roll),
                    Dice(&[2, 1]),
                    Checkers,
                ],
            ),
            (
                "White resigns with 6-4 to play",
                1,
                vec![
                    Dice(&[3]),
                    Dice(&[1]),
                    Checkers,
                    Decide(Roll),
                    Dice(&[2, 1]),
                    Checkers,
                    Decide(Roll),
                    Dice(&[6, 4]),
                ],
            ),
            (
                "Black, owning the cube, resigns before rolling",
                2,
                vec![
                    Dice(&[3]),
                    Dice(&[1]),
                    Checkers,
                    Decide(Roll),
                    Dice(&[2, 1]),
                    Checkers,
                    Decide(Double),
                    Decide(Take),
                    Dice(&[5, 2]),
                    Checkers,
                ],
            ),
            (
                "Black doubles, White takes, Black resigns with 4-4",
                2,
                vec![
                    Dice(&[3]),
                    Dice(&[1]),
                    Checkers,
                    Decide(Double),
                    Decide(Take),
                    Dice(&[4, 4]),
                ],
            ),
            (
                "White doubles, Black takes, White resigns with 4-4",
                2,
                vec![
                    Dice(&[1]),
                    Dice(&[3]),
                    Checkers,
                    Decide(Double),
                    Decide(Take),
                    Dice(&[4, 4]),
                ],
            ),
        ];
        for (what, length, mut plays) in cases {
            plays.push(Decide(Resign(level)));
            plays.push(Decide(Accept));
            let options = Options {
                match_length: length,
                ..Options::default()
            };
            let (steps, game, ids) = scripted(&options, &plays);
            gnubg_agrees(
                &format!("{what} ({level:?})"),
                &options,
                &steps,
                &game,
                &ids,
            );
        }
    }
}

/// A match played with random decisions: doubles, takes and drops, resignations offered
/// now and then at a random level, accepted or declined at random; checker moves at
/// random.
fn play_random(options: &Options, seed: u64) -> (Vec<Step>, Backgammon, HashSet<(String, String)>) {
    let mut game = Backgammon::new(options, 2).expect("game");
    let mut rng = SplitMix64(seed);
    let mut steps = Vec::new();
    let mut ids = HashSet::new();
    loop {
        let s = game.state();
        ids.insert((s.position_id, s.match_id.expect("match id")));
        match game.awaiting() {
            Awaiting::Finished { .. } => break,
            Awaiting::Dice { die, count, .. } => {
                let v: Vec<u8> = (0..count).map(|_| rng.roll(&die)).collect();
                game.apply_dice(&v).expect("dice");
                steps.push(Step::Dice(v));
            }
            Awaiting::Move { .. } => {
                let moves = game.legal_moves();
                let has = |d: Decision| moves.contains(&Move::Decision(d));
                let checkers: Vec<Move> = moves
                    .iter()
                    .filter(|m| m.decision().is_none())
                    .copied()
                    .collect();
                let level = Level::ALL[rng.below(3)];
                let mv = if has(Decision::Take) {
                    Move::Decision(if rng.below(3) > 0 {
                        Decision::Take
                    } else {
                        Decision::Pass
                    })
                } else if has(Decision::Accept) {
                    Move::Decision(if rng.below(2) == 0 {
                        Decision::Accept
                    } else {
                        Decision::Decline
                    })
                } else if has(Decision::Resign(level)) && rng.below(12) == 0 {
                    Move::Decision(Decision::Resign(level))
                } else if has(Decision::Double) {
                    Move::Decision(if rng.below(4) == 0 {
                        Decision::Double
                    } else {
                        Decision::Roll
                    })
                } else {
                    checkers[rng.below(checkers.len())]
                };
                game.apply_move(&mv).expect("move");
                steps.push(Step::Move(serde_json::to_value(mv).expect("json")));
            }
        }
    }
    (steps, game, ids)
}

/// Random matches with the cube and resignations, the kind in which Worp's `.mat` and
/// Match ID once disagreed with GNU Backgammon after accepted resignations.
#[test]
fn gnubg_reads_random_matches_with_resignations_as_worp_played_them() {
    let mut resigned = 0;
    for seed in 0..40u64 {
        let options = Options {
            match_length: 3,
            ..Options::default()
        };
        let (steps, game, ids) = play_random(&options, seed);
        resigned += usize::from(
            game.end_reason() == Some(worp_engine::game::EndReason::ResignationAccepted),
        );
        gnubg_agrees(&format!("seed {seed}"), &options, &steps, &game, &ids);
    }
    assert!(
        resigned >= 20,
        "only {resigned} matches ended by a resignation"
    );
}
