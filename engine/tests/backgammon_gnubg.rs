//! GNU Backgammon itself reads Worp's `.mat` files of matches with the cube: the final
//! score it shows is Worp's, and the Position and Match IDs it shows at every step of the
//! match are IDs of Worp's states. Needs `gnubg` (`apt-get install gnubg`, which
//! `tests/run.sh` does); without it the test fails unless `WORP_SKIP_GNUBG` is set.

use std::collections::HashSet;
use std::io::Write;
use std::process::{Command, Stdio};

use worp_engine::backgammon::mat::{match_file_with, MatHeader};
use worp_engine::backgammon::{Backgammon, Options};
use worp_engine::playout::SplitMix64;
use worp_engine::replay::Step;
use worp_engine::{Awaiting, Game};

fn gnubg() -> Option<&'static str> {
    ["/usr/games/gnubg", "/usr/bin/gnubg"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
}

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

/// Runs gnubg on `mat`: imports it, shows the score, then walks every game step by
/// step. Returns its output.
fn run_gnubg(gnubg: &str, mat: &str) -> String {
    let dir = std::env::temp_dir().join(format!("worp-gnubg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("match.mat");
    std::fs::write(&file, mat).expect("write");
    let mut script = format!("import mat {}\nshow score\nfirst game\n", file.display());
    for records in records_per_game(mat) {
        script.push_str(&"next\nshow board\n".repeat(records));
        script.push_str("next game\n");
    }
    let mut child = Command::new(gnubg)
        .args(["-t", "-q"])
        .env("HOME", &dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run gnubg");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(script.as_bytes())
        .expect("script");
    let out = child.wait_with_output().expect("gnubg output");
    let _ = std::fs::remove_dir_all(&dir);
    String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr)
}

/// How many records (cells: rolls, doubles, takes, drops) each game of `mat` has: how
/// often gnubg can step forward in it.
fn records_per_game(mat: &str) -> Vec<usize> {
    let mut out = Vec::new();
    for line in mat.lines() {
        if line.starts_with(" Game ") {
            out.push(0);
        } else if let (Some(n), Some((_, cells))) = (out.last_mut(), line.split_once(") ")) {
            let left = cells.get(..28).unwrap_or(cells).trim();
            let right = cells.get(28..).unwrap_or("").trim();
            *n += usize::from(!left.is_empty()) + usize::from(!right.is_empty());
        }
    }
    out
}

/// The (Position ID, Match ID) pairs gnubg showed, in order.
fn shown_ids(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut position = None;
    for line in text.lines() {
        if let Some(p) = line.split("Position ID:").nth(1) {
            position = Some(p.trim().to_owned());
        } else if let (Some(m), Some(p)) = (line.split("Match ID   :").nth(1), position.take()) {
            out.push((p, m.trim().to_owned()));
        }
    }
    out
}

/// The game state (bits 8..=10) of a Match ID.
fn game_state_of(match_id: &str) -> u8 {
    const BASE64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let six = |i: usize| {
        match_id
            .as_bytes()
            .get(i)
            .and_then(|c| BASE64.find(char::from(*c)))
            .unwrap_or(0) as u32
    };
    // The first three bytes are the first four characters.
    let bytes = six(0) << 18 | six(1) << 12 | six(2) << 6 | six(3);
    let second_byte = (bytes >> 8) & 0xFF;
    (second_byte & 0b111) as u8
}

#[test]
fn gnubg_imports_worp_matches_with_the_same_score_and_match_ids() {
    let Some(gnubg) = gnubg() else {
        assert!(
            std::env::var_os("WORP_SKIP_GNUBG").is_some(),
            "GNU Backgammon is needed for this test (apt-get install gnubg), or set WORP_SKIP_GNUBG=1"
        );
        return;
    };
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
        let text = run_gnubg(gnubg, &mat);
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
        let playing = |id: &str| game_state_of(id) == 1;
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
