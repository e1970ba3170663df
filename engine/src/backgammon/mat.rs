//! Jellyfish `.mat` match files, the text format GNU Backgammon, eXtremeGammon and
//! BGBlitz import (`import mat` in GNU Backgammon).
//!
//! One game is written as a money session (`0 point match`), a match as `N point match`
//! with every game and its cube actions. White (seat 0) is player 1
//! (the left column), Black player 2. Each player's points are numbered from his own side
//! as the format wants: 24 is the point farthest from home, 25 the bar, 0 off. A hit is
//! marked `*`; a roll that could not be played has no moves, and so has a roll left
//! unplayed by an accepted resignation (as GNU Backgammon writes it).

use serde::Deserialize as _;

use super::{Backgammon, Decision, Destination, Move, Options, Origin, Phase, Score, Side};
use crate::step::Step;
use crate::{Awaiting, EngineError, Game, MatchHeader};

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

/// One cell of the two columns: a roll and what was played, or a cube action.
struct Cell {
    side: Side,
    text: String,
}

impl Cell {
    fn roll(side: Side, dice: [u8; 2], played: &str) -> Cell {
        let mut text = format!("{}{}:", dice[0], dice[1]);
        if !played.is_empty() {
            text.push(' ');
            text.push_str(played);
        }
        Cell { side, text }
    }
}

/// One game of the match: its number, the score before it, its cells and its end.
struct GameText {
    number: u16,
    score: Score,
    cells: Vec<Cell>,
    /// The winner, the points won, and whether that won the match.
    end: Option<(Side, u16, bool)>,
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
    let options = match &header.options {
        serde_json::Value::Null => Options::default(),
        v => Options::deserialize(v).map_err(|e| EngineError::options(e.to_string()))?,
    };
    match_file_with(&options, steps, &MatHeader::from(header))
}

/// Writes the game (or match) played by `steps` (as in a replay record) as a `.mat`
/// file. The options are those the game was created with (`null`: the defaults).
pub fn match_file(steps: &[Step], header: &MatHeader) -> Result<String, EngineError> {
    match_file_with(&Options::default(), steps, header)
}

/// [`match_file`] of a game created with `options`: every game of a match, with the
/// cube actions (`Doubles => 2`, `Takes`, `Drops`) and each game's `Wins N points`.
pub fn match_file_with(
    options: &Options,
    steps: &[Step],
    header: &MatHeader,
) -> Result<String, EngineError> {
    let mut game = Backgammon::new(options, 2)?;
    let mut games: Vec<GameText> = Vec::new();
    let mut current = GameText {
        number: 1,
        score: Score::default(),
        cells: Vec::new(),
        end: None,
    };
    for step in steps {
        let played = game.match_play().games.len();
        match step {
            Step::Dice(values) => {
                let side = game.to_move();
                game.apply_dice(values)?;
                if let [a, b] = values[..] {
                    if !matches!(Game::awaiting(&game), Awaiting::Move { .. })
                        || game.phase() != Phase::Move
                    {
                        // No legal move: the roll is written without moves.
                        current.cells.push(Cell::roll(side, [a, b], ""));
                    }
                }
            }
            Step::Move(json) => {
                let mv: Move = Move::deserialize(json).map_err(|e| EngineError::MalformedMove {
                    reason: e.to_string(),
                })?;
                let side = game.to_move();
                let cube = game.cube().value;
                let answerer = side.opponent();
                match mv {
                    Move::Checkers(_) => {
                        let dice = game.dice().unwrap_or([0, 0]);
                        let text = move_text(&game, side, &mv);
                        current.cells.push(Cell::roll(side, dice, &text));
                    }
                    Move::Decision(Decision::Double) => current.cells.push(Cell {
                        side,
                        text: format!(" Doubles => {}", u16::from(cube) * 2),
                    }),
                    Move::Decision(Decision::Take) => current.cells.push(Cell {
                        side: answerer,
                        text: " Takes".into(),
                    }),
                    Move::Decision(Decision::Pass) => current.cells.push(Cell {
                        side: answerer,
                        text: " Drops".into(),
                    }),
                    // A roll the resigner leaves unplayed is written without moves, as
                    // GNU Backgammon's own export does: left out right after a take,
                    // GNU Backgammon reads a second double there.
                    Move::Decision(Decision::Accept) => {
                        if let Some(dice) = game.unplayed_roll() {
                            current.cells.push(Cell::roll(side, dice, ""));
                        }
                    }
                    // Rolling, resignation offers and declines are not written; an
                    // accepted resignation ends the game with its points.
                    Move::Decision(_) => {}
                }
                game.apply_move(&mv)?;
            }
            Step::Retire(seat) => game.retire(*seat)?,
        }
        if game.match_play().games.len() > played {
            if let Some(last) = game.match_play().games.last() {
                current.end = Some((last.winner, last.points, game.result().is_some()));
            }
            let next = GameText {
                number: game.match_play().game,
                score: game.match_play().score,
                cells: Vec::new(),
                end: None,
            };
            games.push(std::mem::replace(&mut current, next));
        }
    }
    if let (None, Some(result), false) = (current.end, game.result(), options.section_2b()) {
        // A game without the rules of §2b: its result.
        if let Some(winner) = result.winner.and_then(Side::of_seat) {
            current.end = Some((winner, u16::from(result.points), false));
        }
    }
    if games.is_empty() || !current.cells.is_empty() {
        games.push(current);
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
    out.push_str(&format!("\n {} point match\n", options.match_length));
    for g in &games {
        write_game(&mut out, g, &white, &black, options.is_match());
    }
    Ok(out)
}

/// One game: its header, its cells in two columns (White left), and who won what.
fn write_game(out: &mut String, g: &GameText, white: &str, black: &str, is_match: bool) {
    out.push_str(&format!("\n Game {}\n", g.number));
    out.push_str(&format!(
        " {:<33}{} : {}\n",
        format!("{white} : {}", g.score.white),
        black,
        g.score.black
    ));
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
    for c in &g.cells {
        match c.side {
            Side::White => {
                if left.is_some() {
                    flush(out, &mut row, &mut left, None);
                }
                left = Some(c.text.clone());
            }
            Side::Black => {
                let right = Some(c.text.clone());
                flush(out, &mut row, &mut left, right);
            }
        }
    }
    let wins = g.end.map(|(winner, points, match_won)| {
        let text = format!(
            "Wins {points} point{}{}",
            if points == 1 { "" } else { "s" },
            if match_won && is_match {
                " and the match"
            } else {
                ""
            }
        );
        (winner, text)
    });
    match (left.is_some(), wins) {
        // White's last word (a drop) and Black's win share a row, as GNU Backgammon
        // writes them; on a row of their own GNU reads the game on past the drop.
        (true, Some((Side::Black, text))) => flush(out, &mut row, &mut left, Some(text)),
        (open_row, wins) => {
            if open_row {
                flush(out, &mut row, &mut left, None);
            }
            match wins {
                Some((Side::White, text)) => out.push_str(&format!("      {text}\n")),
                Some((Side::Black, text)) => out.push_str(&format!("{:34}{text}\n", "")),
                None => {}
            }
        }
    }
}

#[cfg(test)]
#[path = "tests_mat.rs"]
mod tests;
