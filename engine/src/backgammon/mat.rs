//! Jellyfish `.mat` match files, the text format GNU Backgammon, eXtremeGammon and
//! BGBlitz import (`import mat` in GNU Backgammon).
//!
//! One game is written as a money session (`0 point match`). White (seat 0) is player 1
//! (the left column), Black player 2. Each player's points are numbered from his own side
//! as the format wants: 24 is the point farthest from home, 25 the bar, 0 off. A hit is
//! marked `*`; a roll that could not be played has no moves.

use serde::Deserialize as _;

use super::{Backgammon, Destination, Move, Origin, Side};
use crate::replay::Step;
use crate::{Awaiting, EngineError, Game, GameResult, MatchHeader};

/// The names and date written in the header.
#[derive(Debug, Clone, Default)]
pub struct MatHeader {
    /// Player 1 (White, seat 0).
    pub white: String,
    /// Player 2 (Black, seat 1).
    pub black: String,
    /// `YYYY.MM.DD`, if known.
    pub date: Option<String>,
}

/// A point (or the bar, or off) as `side` counts it in `.mat` notation.
fn mat_point(side: Side, point: u8) -> u8 {
    match side {
        Side::White => 25 - point,
        Side::Black => point,
    }
}

/// One player's turn: the dice and what was played.
struct Turn {
    side: Side,
    dice: [u8; 2],
    text: String,
}

fn move_text(game: &Backgammon, side: Side, mv: &Move) -> String {
    let mut pos = *game.position();
    let mut parts = Vec::with_capacity(4);
    for step in mv.steps() {
        let from = match step.from {
            Origin::Bar => 25,
            Origin::Point(p) => mat_point(side, p.number()),
        };
        let (to, hit) = match step.to {
            Destination::Off => (0, false),
            Destination::Point(p) => {
                let there = pos.board[p.index()];
                (mat_point(side, p.number()), there == -side.sign())
            }
        };
        parts.push(format!("{from}/{to}{}", if hit { "*" } else { "" }));
        if let Some(single) = Move::new(std::slice::from_ref(step)) {
            pos.play(side, &single);
        }
    }
    parts.join(" ")
}

fn player_name(name: &str, fallback: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c.is_whitespace() || c == ':' {
                '_'
            } else {
                c
            }
        })
        .collect();
    if cleaned.is_empty() {
        fallback.to_owned()
    } else {
        cleaned
    }
}

impl From<&MatchHeader> for MatHeader {
    /// Seat 0 plays White, seat 1 Black.
    fn from(header: &MatchHeader) -> Self {
        MatHeader {
            white: header.players.first().cloned().unwrap_or_default(),
            black: header.players.get(1).cloned().unwrap_or_default(),
            date: header.date.clone(),
        }
    }
}

/// [`match_file`] with the game-neutral header: backgammon's
/// [`Capabilities::match_file`](crate::Capabilities::match_file).
pub(super) fn match_file_of_seats(
    steps: &[Step],
    header: &MatchHeader,
) -> Result<String, EngineError> {
    match_file(steps, &MatHeader::from(header))
}

/// Writes the game played by `steps` (as in a replay record) as a `.mat` file.
pub fn match_file(steps: &[Step], header: &MatHeader) -> Result<String, EngineError> {
    let mut game = Backgammon::new(&Default::default(), 2)?;
    let mut turns: Vec<Turn> = Vec::new();
    for step in steps {
        match step {
            Step::Dice(values) => {
                let side = game.to_move();
                game.apply_dice(values)?;
                if let [a, b] = values[..] {
                    if !matches!(Game::awaiting(&game), Awaiting::Move { .. }) {
                        // No legal move: the roll is written without moves.
                        turns.push(Turn {
                            side,
                            dice: [a, b],
                            text: String::new(),
                        });
                    }
                }
            }
            Step::Move(json) => {
                let mv: Move = Move::deserialize(json).map_err(|e| EngineError::MalformedMove {
                    reason: e.to_string(),
                })?;
                let side = game.to_move();
                let dice = game.dice().unwrap_or([0, 0]);
                let text = move_text(&game, side, &mv);
                game.apply_move(&mv)?;
                turns.push(Turn { side, dice, text });
            }
            Step::Retire(seat) => game.retire(*seat)?,
        }
    }
    let white = player_name(&header.white, "White");
    let black = player_name(&header.black, "Black");
    let mut out = String::new();
    out.push_str("; [Site \"Worp\"]\n");
    out.push_str(&format!(
        "; [Player 1 \"{white}\"]\n; [Player 2 \"{black}\"]\n"
    ));
    if let Some(date) = &header.date {
        out.push_str(&format!("; [EventDate \"{date}\"]\n"));
    }
    out.push_str("\n 0 point match\n\n Game 1\n");
    out.push_str(&format!(" {:<33}{} : 0\n", format!("{white} : 0"), black));
    let cell = |t: &Turn| {
        let mut s = format!("{}{}:", t.dice[0], t.dice[1]);
        if !t.text.is_empty() {
            s.push(' ');
            s.push_str(&t.text);
        }
        s
    };
    let mut row = 0;
    let mut left: Option<String> = None;
    let flush =
        |out: &mut String, row: &mut usize, left: &mut Option<String>, right: Option<String>| {
            *row += 1;
            let l = left.take().unwrap_or_default();
            let line = format!("{:>3}) {:<28} {}", row, l, right.unwrap_or_default());
            out.push_str(line.trim_end());
            out.push('\n');
        };
    for t in &turns {
        match t.side {
            Side::White => {
                if left.is_some() {
                    flush(&mut out, &mut row, &mut left, None);
                }
                left = Some(cell(t));
            }
            Side::Black => {
                let right = Some(cell(t));
                flush(&mut out, &mut row, &mut left, right);
            }
        }
    }
    if left.is_some() {
        flush(&mut out, &mut row, &mut left, None);
    }
    if let Some(GameResult {
        winner: Some(w),
        points,
        ..
    }) = game.result()
    {
        let wins = format!("Wins {points} point{}", if *points == 1 { "" } else { "s" });
        if w.0 == 0 {
            out.push_str(&format!("      {wins}\n"));
        } else {
            out.push_str(&format!("{:34}{wins}\n", ""));
        }
    }
    out.push('\n');
    Ok(out)
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn points_are_counted_from_the_movers_side_with_bar_25_and_off_0() {
        assert_eq!(mat_point(Side::White, 1), 24);
        assert_eq!(mat_point(Side::White, 24), 1);
        assert_eq!(mat_point(Side::Black, 6), 6);
    }
}
