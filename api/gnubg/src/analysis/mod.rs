//! GNU Backgammon's post-mortem of a finished game or match: Worp writes the match
//! file, gnubg imports and analyses it (`analyse.py`), and its record is read into
//! Worp's types: every checker play and cube decision with the played choice's equity,
//! the best choice's and the equity lost, marked by gnubg's thresholds, and each
//! player's figures as gnubg's statistics give them.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::openapi::{RefOr, Schema};
use utoipa::{PartialSchema, ToSchema};
use worp_engine::backgammon::{Destination, Origin};

use crate::GnubgError;

mod read;

pub use read::read_analysis;

/// The script that analyses.
const SCRIPT: &str = include_str!("../analyse.py");

/// GNU Backgammon 1.07's thresholds of equity lost (normalised, EMG), as
/// `show analysis` prints them: doubtful, bad ("error") and very bad ("blunder").
pub const THRESHOLDS: Thresholds = Thresholds {
    doubtful: 0.030,
    error: 0.060,
    blunder: 0.120,
};

/// The equity lost from which a decision is marked.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Thresholds {
    pub doubtful: f64,
    /// gnubg's "bad".
    pub error: f64,
    /// gnubg's "very bad".
    pub blunder: f64,
}

/// A decision's mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mark {
    Doubtful,
    Error,
    Blunder,
}

impl Thresholds {
    /// The mark of a decision that lost `lost`.
    pub fn mark(&self, lost: f64) -> Option<Mark> {
        // gnubg compares errors rounded to its display's precision; so does this.
        let lost = (lost * 1e6).round() / 1e6;
        if lost >= self.blunder {
            Some(Mark::Blunder)
        } else if lost >= self.error {
            Some(Mark::Error)
        } else if lost >= self.doubtful {
            Some(Mark::Doubtful)
        } else {
            None
        }
    }
}

/// What a decision was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DecisionKind {
    /// Playing a roll.
    Checkers,
    /// Doubling or not, before rolling.
    Cube,
    /// Taking or passing a double.
    Answer,
}

/// One decision of the analysed game, from the side of the seat that made it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct DecisionAnalysis {
    /// The seat that decided (0 White, 1 Black).
    pub seat: u8,
    pub kind: DecisionKind,
    /// The version of the event that recorded the decision in the game's log (a cube
    /// decision not to double: the checker play after it); `null` if not found.
    pub version: Option<i64>,
    /// The roll played (checker plays).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dice: Option<[u8; 2]>,
    /// What was played, in gnubg's notation from the decider's side (`24/22 13/8`,
    /// `double`, `no double`, `take`, `pass`).
    pub played: String,
    /// What gnubg thinks best, in the same notation.
    pub best: String,
    /// The best checker play as steps on Worp's points, to draw beside the played one;
    /// empty for cube decisions.
    pub best_steps: Vec<BestStep>,
    /// Cubeful equity (normalised, EMG) of the played choice and of the best.
    pub played_equity: f64,
    pub best_equity: f64,
    /// `best_equity - played_equity`, never below 0.
    pub equity_lost: f64,
    /// Whether there was only one choice (a forced move: never marked).
    pub forced: bool,
    pub mark: Option<Mark>,
}

/// A checker step of the best play, on Worp's points (as a move's steps are written).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct BestStep {
    /// A point 1..24, or `"bar"`.
    #[schema(schema_with = origin_schema)]
    pub from: Origin,
    /// A point 1..24, or `"off"`.
    #[schema(schema_with = destination_schema)]
    pub to: Destination,
}

fn origin_schema() -> RefOr<Schema> {
    <Origin as PartialSchema>::schema()
}

fn destination_schema() -> RefOr<Schema> {
    <Destination as PartialSchema>::schema()
}

/// One game of the match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct GameAnalysis {
    /// 1, 2, …
    pub number: u32,
    pub decisions: Vec<DecisionAnalysis>,
}

/// A player's figures over the match, from gnubg's statistics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PlayerFigures {
    pub seat: u8,
    /// Checker plays with more than one choice.
    pub unforced_moves: u32,
    /// Cube decisions gnubg counts as close or actual.
    pub close_cube_decisions: u32,
    /// Equity lost (EMG) in checker play and in cube decisions.
    pub checker_error: f64,
    pub cube_error: f64,
    /// gnubg's overall error rate: thousandths of EMG lost per unforced move or close
    /// cube decision.
    pub error_rate_memg: f64,
    /// The same as a performance rating ("PR": 500 × EMG lost per decision).
    pub pr: f64,
    /// gnubg's words for the error rate (`Beginner` … `Supernatural`).
    pub rating: String,
    /// Checker plays gnubg marked.
    pub doubtful: u32,
    pub errors: u32,
    pub blunders: u32,
}

/// GNU Backgammon's analysis of a game (a match of one game) or a match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct MatchAnalysis {
    /// The look-ahead of the analysis (0 = gnubg's 0-ply).
    pub plies: u8,
    pub thresholds: Thresholds,
    pub players: Vec<PlayerFigures>,
    pub games: Vec<GameAnalysis>,
}

/// gnubg's names of its ratings 0..=7.
const RATINGS: [&str; 8] = [
    "Awful!",
    "Beginner",
    "Casual player",
    "Intermediate",
    "Advanced",
    "Expert",
    "World class",
    "Supernatural",
];

/// Analyses the match file `mat` with `program` at `plies`, within `timeout`.
pub fn analyse(
    program: &Path,
    mat: &str,
    plies: u8,
    timeout: Duration,
) -> Result<MatchAnalysis, GnubgError> {
    static RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let number = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    // Its own folder, which is also gnubg's `HOME` for the run.
    let dir = crate::worker::home().join(format!("analysis-{number}"));
    std::fs::create_dir_all(&dir)?;
    let (script, file) = (dir.join("analyse.py"), dir.join("match.mat"));
    std::fs::write(&script, SCRIPT)?;
    std::fs::write(&file, mat)?;
    let out = run_gnubg(program, &dir, &script, &file, plies, timeout);
    let _ = std::fs::remove_dir_all(&dir);
    let record: Value = serde_json::from_str(&out?)
        .map_err(|e| GnubgError::Garbled(format!("the analysis is not JSON: {e}")))?;
    read_analysis(&record, plies)
}

fn run_gnubg(
    program: &Path,
    home: &Path,
    script: &Path,
    file: &Path,
    plies: u8,
    timeout: Duration,
) -> Result<String, GnubgError> {
    let mut child = Command::new(program)
        .args(["-t", "-q", "-p"])
        .arg(script)
        .env("HOME", home)
        .env("WORP_MAT", file)
        .env("WORP_PLIES", plies.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let mut stdout = child
        .stdout
        .take()
        .ok_or_else(|| GnubgError::Garbled("no pipe from gnubg".into()))?;
    let (send, got) = mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = send.send(stdout.read_to_string(&mut text).map(|_| text));
    });
    let text = match got.recv_timeout(timeout) {
        Ok(read) => read?,
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(GnubgError::Timeout(timeout));
        }
    };
    let _ = child.wait();
    text.lines()
        .find_map(|l| l.strip_prefix("@worp "))
        .map(str::to_owned)
        .ok_or(GnubgError::Exited)
}
