//! A gnubg bot's choice among the engine's legal moves: the question put to a worker
//! for the state the game is in, and the legal move its answer names.

use serde_json::{json, Value};
use worp_engine::backgammon::match_id::{match_id, MatchKey};
use worp_engine::backgammon::position_id::position_id;
use worp_engine::backgammon::{
    Backgammon, Decision, Destination, Level as Resign, Move, Origin, Position, Side, Step,
};
use worp_engine::Game;

use crate::{GnubgError, Level, Pool};

/// A chance below this is none (gnubg's evaluations of a lost race say 0, not 1e-9).
const NONE: f64 = 1e-6;

/// The index of the legal move a gnubg bot of `level` plays in `game`; `None` when there
/// is no legal move. A forced move is played without asking.
pub fn choose(pool: &Pool, level: Level, game: &Backgammon) -> Result<Option<usize>, GnubgError> {
    let moves = Game::legal_moves(game);
    match moves.len() {
        0 => return Ok(None),
        1 => return Ok(Some(0)),
        _ => {}
    }
    let decision = |d: Decision| {
        moves
            .iter()
            .position(|m| matches!(m, Move::Decision(x) if *x == d))
    };
    let ask = |what: &str| pool.ask(&question(game, level, what));
    if let (Some(take), Some(pass)) = (decision(Decision::Take), decision(Decision::Pass)) {
        // The doubler is on roll: his equities after a take and after a pass.
        let cube = Equities::of(&ask("cube")?)?;
        return Ok(Some(if cube.take <= cube.pass { take } else { pass }));
    }
    if let (Some(accept), Some(decline)) = (decision(Decision::Accept), decision(Decision::Decline))
    {
        let offered = game
            .offer()
            .and_then(|o| match o.kind {
                worp_engine::backgammon::OfferKind::Resign(level) => Some(level),
                _ => None,
            })
            .ok_or_else(|| GnubgError::Answer("accept or decline without a resignation".into()))?;
        let reply = ask("resignation")?;
        return Ok(Some(
            if accepts(&reply, offered, game.match_play().length > 0)? {
                accept
            } else {
                decline
            },
        ));
    }
    if let Some(roll) = decision(Decision::Roll) {
        let cube = Equities::of(&ask("cube")?)?;
        if let Some(i) = cube
            .resignation()
            .and_then(|l| decision(Decision::Resign(l)))
        {
            return Ok(Some(i));
        }
        return Ok(Some(match decision(Decision::Double) {
            Some(double) if cube.take.min(cube.pass) > cube.no_double => double,
            _ => roll,
        }));
    }
    let reply = ask("move")?;
    let steps = reply
        .get("move")
        .and_then(Value::as_array)
        .ok_or_else(|| GnubgError::Answer(format!("no move in {reply}")))?;
    let steps: Vec<u8> = steps
        .iter()
        .map(|v| v.as_u64().and_then(|n| u8::try_from(n).ok()))
        .collect::<Option<_>>()
        .ok_or_else(|| GnubgError::Answer(format!("a move of numbers expected: {reply}")))?;
    let side = game.to_move();
    let wanted = after_gnubg(game.position(), side, &steps)?;
    moves
        .iter()
        .position(|m| match m {
            Move::Checkers(s) => after_steps(game.position(), side, s.as_slice()) == Some(wanted),
            Move::Decision(_) => false,
        })
        .map(Some)
        .ok_or_else(|| {
            GnubgError::Answer(format!("gnubg's move {steps:?} is none of the legal moves"))
        })
}

/// The question for `what` ("move", "cube", "resignation") in `game`'s state.
pub(crate) fn question(game: &Backgammon, level: Level, what: &str) -> Value {
    let side = game.to_move();
    let dice = game.dice().unwrap_or_default();
    let options = Game::options(game);
    let match_id = if options.section_2b() {
        game.match_id()
    } else {
        match_id(&MatchKey {
            cube: 1,
            on_roll: side.seat().0,
            turn: side.seat().0,
            game_state: 1,
            dice: if what == "move" { dice } else { [0, 0] },
            ..MatchKey::default()
        })
    };
    json!({
        "gnubgid": format!("{}:{}", position_id(game.position(), side), match_id),
        "dice": if what == "move" { dice.to_vec() } else { Vec::new() },
        "ask": what,
        "plies": level.plies(),
        "noise": level.noise(),
        "cubeful": options.cube_in_play(),
    })
}

/// The equities gnubg gives the player on roll (the doubler, or the one resigning).
#[derive(Debug)]
struct Equities {
    no_double: f64,
    take: f64,
    pass: f64,
    /// Cubeless: win, win a gammon, win a backgammon, lose a gammon, lose a backgammon.
    chances: [f64; 5],
}

impl Equities {
    fn of(reply: &Value) -> Result<Equities, GnubgError> {
        let num = |k: &str| reply.get(k).and_then(Value::as_f64);
        let chances: Option<Vec<f64>> = reply
            .get("chances")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_f64).collect());
        match (num("no_double"), num("take"), num("pass"), chances) {
            (Some(no_double), Some(take), Some(pass), Some(c)) if c.len() == 5 => Ok(Equities {
                no_double,
                take,
                pass,
                chances: [c[0], c[1], c[2], c[3], c[4]],
            }),
            _ => Err(GnubgError::Answer(format!("equities expected: {reply}"))),
        }
    }

    /// The resignation to offer: only a loss that is certain, as small as it is sure to
    /// be (a single while no gammon can be lost, …); `None` while anything can be won.
    fn resignation(&self) -> Option<Resign> {
        let [win, _, _, lose_gammon, lose_backgammon] = self.chances;
        if win > NONE {
            return None;
        }
        Some(if lose_gammon <= NONE {
            Resign::Single
        } else if lose_backgammon <= NONE {
            Resign::Gammon
        } else {
            Resign::Backgammon
        })
    }
}

/// Whether the answering bot accepts a resignation of `offered`: when what it gets is
/// at least what playing on is worth to it, in equity (money) or in match winning
/// chances (a match). `reply` is from the side of the player who resigns.
fn accepts(reply: &Value, offered: Resign, is_match: bool) -> Result<bool, GnubgError> {
    if is_match {
        let play_on = reply.get("play_on_mwc").and_then(Value::as_f64);
        let after = reply
            .get("resigned_mwc")
            .and_then(|a| a.get(usize::from(offered.multiplier() - 1)))
            .and_then(Value::as_f64);
        return match (play_on, after) {
            (Some(play_on), Some(after)) => Ok(after <= play_on + 1e-9),
            _ => Err(GnubgError::Answer(format!(
                "match winning chances expected: {reply}"
            ))),
        };
    }
    let e = Equities::of(reply)?;
    // Cubeful equity of the resigner playing on; a resignation gives away `multiplier`.
    let play_on = e.no_double.max(e.take.min(e.pass));
    Ok(-f64::from(offered.multiplier()) <= play_on + 1e-9)
}

/// Checkers of the mover (`[0]`) and of the other side (`[1]`), each counted from its own
/// side as gnubg counts: 1..=24 its points from its ace point, 25 its bar, 0 off.
type Boards = [[u8; 26]; 2];

fn boards(position: &Position, mover: Side) -> Boards {
    let mut b = [[0u8; 26]; 2];
    for (i, side) in [mover, mover.opponent()].into_iter().enumerate() {
        for n in 1..=24u8 {
            if let Some(p) = worp_engine::backgammon::Point::new(n) {
                b[i][usize::from(p.distance(side))] = position.checkers_on(p, side);
            }
        }
        b[i][25] = position.bar.get(side);
        b[i][0] = position.off.get(side);
    }
    b
}

/// Moves one checker of the mover from `from` to `to` (gnubg's numbers), hitting a
/// blot; `None` when there is no checker to move.
fn step(b: &mut Boards, from: u8, to: u8) -> Option<()> {
    let (from, to) = (usize::from(from), usize::from(to));
    if from == 0 || from > 25 || to > 24 {
        return None;
    }
    b[0][from] = b[0][from].checked_sub(1)?;
    b[0][to] += 1;
    if (1..=24).contains(&to) && b[1][25 - to] == 1 {
        b[1][25 - to] = 0;
        b[1][25] += 1;
    }
    Some(())
}

/// The boards after gnubg's move: pairs of (from, to), `(0, 0)` for a die not used.
fn after_gnubg(position: &Position, mover: Side, pairs: &[u8]) -> Result<Boards, GnubgError> {
    let mut b = boards(position, mover);
    for pair in pairs.chunks(2) {
        match *pair {
            [0, 0] => {}
            [from, to] => step(&mut b, from, to).ok_or_else(|| {
                GnubgError::Answer(format!("gnubg moved {from}/{to}, which is not there"))
            })?,
            _ => return Err(GnubgError::Answer(format!("an odd move: {pairs:?}"))),
        }
    }
    Ok(b)
}

/// The boards after a legal move's steps.
fn after_steps(position: &Position, mover: Side, steps: &[Step]) -> Option<Boards> {
    let mut b = boards(position, mover);
    for s in steps {
        let from = match s.from {
            Origin::Bar => 25,
            Origin::Point(p) => p.distance(mover),
        };
        let to = match s.to {
            Destination::Off => 0,
            Destination::Point(p) => p.distance(mover),
        };
        step(&mut b, from, to)?;
    }
    Some(b)
}
