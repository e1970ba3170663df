//! gnubg's match record (`analyse.py`'s output) read into Worp's types.

use serde_json::Value;
use worp_engine::backgammon::{Destination, Origin, Point, Side};

use super::{
    BestStep, DecisionAnalysis, DecisionKind, GameAnalysis, MatchAnalysis, PlayerFigures, RATINGS,
    THRESHOLDS,
};
use crate::GnubgError;

fn num(v: &Value, key: &str) -> Option<f64> {
    v.get(key).and_then(Value::as_f64)
}

fn seat_of(player: &Value) -> Option<u8> {
    match player.as_str()? {
        "X" => Some(0),
        "O" => Some(1),
        _ => None,
    }
}

/// gnubg's notation of a checker play: `24/22 13/8` (`bar` 25, `off` 0).
fn notation(pairs: &Value) -> String {
    let point = |n: u64| match n {
        25 => "bar".to_owned(),
        0 => "off".to_owned(),
        n => n.to_string(),
    };
    let steps: Vec<String> = pairs
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| {
            Some(format!(
                "{}/{}",
                point(p.get(0)?.as_u64()?),
                point(p.get(1)?.as_u64()?)
            ))
        })
        .collect();
    if steps.is_empty() {
        "no move".into()
    } else {
        steps.join(" ")
    }
}

/// The steps of a gnubg move from `seat`'s side, on Worp's points (gnubg counts each
/// side's points from its own ace point: 25 is the bar, 0 off).
fn worp_steps(pairs: &Value, seat: u8) -> Vec<BestStep> {
    let side = if seat == 0 { Side::White } else { Side::Black };
    let point = |n: u64| {
        u8::try_from(n)
            .ok()
            .and_then(|n| Point::at_distance(side, n))
    };
    pairs
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| {
            let (from, to) = (p.get(0)?.as_u64()?, p.get(1)?.as_u64()?);
            Some(BestStep {
                from: if from == 25 {
                    Origin::Bar
                } else {
                    Origin::Point(point(from)?)
                },
                to: if to == 0 {
                    Destination::Off
                } else {
                    Destination::Point(point(to)?)
                },
            })
        })
        .collect()
}

fn decision(
    seat: u8,
    kind: DecisionKind,
    played: (String, f64),
    best: (String, f64),
    best_steps: Vec<BestStep>,
    forced: bool,
) -> DecisionAnalysis {
    let lost = (best.1 - played.1).max(0.0);
    DecisionAnalysis {
        seat,
        kind,
        version: None,
        dice: None,
        played: played.0,
        best: best.0,
        best_steps,
        played_equity: played.1,
        best_equity: best.1,
        equity_lost: lost,
        forced,
        mark: if forced { None } else { THRESHOLDS.mark(lost) },
    }
}

/// The cube decision before a roll: no double played (or `doubled`), with gnubg's
/// cubeful equities of no double and double/take; a pass is worth 1 (normalised).
fn cube_decision(seat: u8, analysis: &Value, doubled: bool) -> Option<DecisionAnalysis> {
    let (nd, dt) = (num(analysis, "nd-emg")?, num(analysis, "dt-emg")?);
    let double = dt.min(1.0);
    let best = if double > nd {
        ("double".to_owned(), double)
    } else {
        ("no double".to_owned(), nd)
    };
    let played = if doubled {
        ("double".to_owned(), double)
    } else {
        ("no double".to_owned(), nd)
    };
    Some(decision(
        seat,
        DecisionKind::Cube,
        played,
        best,
        Vec::new(),
        false,
    ))
}

/// Reads gnubg's match record (`analyse.py`'s output) into Worp's types.
pub fn read_analysis(record: &Value, plies: u8) -> Result<MatchAnalysis, GnubgError> {
    let m = record
        .get("match")
        .ok_or_else(|| GnubgError::Garbled("no match in the analysis".into()))?;
    let mut games = Vec::new();
    for (i, game) in m
        .get("games")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let mut decisions = Vec::new();
        let mut last_double: Option<Value> = None;
        for rec in game
            .get("game")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let Some(seat) = rec.get("player").and_then(seat_of) else {
                continue;
            };
            let analysis = rec.get("analysis").cloned().unwrap_or(Value::Null);
            match rec.get("action").and_then(Value::as_str) {
                Some("move") => {
                    // The cube before the roll, where the mover could have doubled.
                    if let Some(cube) = cube_decision(seat, &analysis, false) {
                        if cube.equity_lost > 0.0 {
                            decisions.push(cube);
                        }
                    }
                    let moves = analysis.get("moves").and_then(Value::as_array);
                    let imove = analysis.get("imove").and_then(Value::as_u64);
                    let (Some(moves), Some(imove)) = (moves, imove) else {
                        continue;
                    };
                    let (Some(played), Some(best)) = (moves.get(imove as usize), moves.first())
                    else {
                        continue;
                    };
                    let (Some(p), Some(b)) = (num(played, "score"), num(best, "score")) else {
                        continue;
                    };
                    let empty = Value::Null;
                    let mut d = decision(
                        seat,
                        DecisionKind::Checkers,
                        (notation(rec.get("move").unwrap_or(&empty)), p),
                        (notation(best.get("move").unwrap_or(&empty)), b),
                        worp_steps(best.get("move").unwrap_or(&empty), seat),
                        moves.len() < 2,
                    );
                    d.dice = rec
                        .get("dice")
                        .and_then(|d| Some([d.get(0)?.as_u64()? as u8, d.get(1)?.as_u64()? as u8]));
                    decisions.push(d);
                }
                Some("double") => {
                    if let Some(cube) = cube_decision(seat, &analysis, true) {
                        decisions.push(cube);
                    }
                    last_double = Some(analysis);
                }
                Some(answer @ ("take" | "drop")) => {
                    let Some(dt) = last_double.as_ref().and_then(|a| num(a, "dt-emg")) else {
                        continue;
                    };
                    // From the taker's side: a take is worth −dt, a pass −1.
                    let (take, pass) = (-dt, -1.0);
                    let best = if take >= pass {
                        ("take", take)
                    } else {
                        ("pass", pass)
                    };
                    let played = if answer == "take" {
                        ("take", take)
                    } else {
                        ("pass", pass)
                    };
                    decisions.push(decision(
                        seat,
                        DecisionKind::Answer,
                        (played.0.to_owned(), played.1),
                        (best.0.to_owned(), best.1),
                        Vec::new(),
                        false,
                    ));
                }
                _ => {}
            }
        }
        games.push(GameAnalysis {
            number: i as u32 + 1,
            decisions,
        });
    }
    let ladder: Vec<u64> = record
        .get("ratings")
        .and_then(Value::as_array)
        .map(|l| l.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default();
    let mut players = Vec::new();
    for (seat, key) in [(0u8, "X"), (1, "O")] {
        let s = m
            .get("stats")
            .and_then(|s| s.get(key))
            .unwrap_or(&Value::Null);
        let count = |v: &Value, k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0) as u32;
        let moves = s.get("moves").unwrap_or(&Value::Null);
        let marked = moves.get("marked").unwrap_or(&Value::Null);
        let unforced = count(moves, "unforced-moves");
        let close = count(s.get("cube").unwrap_or(&Value::Null), "close-cube");
        // The errors summed from the decisions: what gnubg's statistics print.
        let mine = || {
            games
                .iter()
                .flat_map(|g| &g.decisions)
                .filter(|d| d.seat == seat)
        };
        let checker_error: f64 = mine()
            .filter(|d| d.kind == DecisionKind::Checkers)
            .map(|d| d.equity_lost)
            .sum();
        let cube_error: f64 = mine()
            .filter(|d| d.kind != DecisionKind::Checkers)
            .map(|d| d.equity_lost)
            .sum();
        let decisions = f64::from(unforced + close);
        let rate = if decisions > 0.0 {
            (checker_error + cube_error) / decisions
        } else {
            0.0
        };
        let step = ((rate * 10_000.0).round() as usize).min(ladder.len().saturating_sub(1));
        let rating = ladder
            .get(step)
            .and_then(|r| RATINGS.get(*r as usize))
            .unwrap_or(&"unrated");
        players.push(PlayerFigures {
            seat,
            unforced_moves: unforced,
            close_cube_decisions: close,
            checker_error,
            cube_error,
            error_rate_memg: rate * 1000.0,
            pr: rate * 500.0,
            rating: (*rating).to_owned(),
            doubtful: count(marked, "doubtful"),
            errors: count(marked, "bad"),
            blunders: count(marked, "very bad"),
        });
    }
    Ok(MatchAnalysis {
        plies,
        thresholds: THRESHOLDS,
        players,
        games,
    })
}
