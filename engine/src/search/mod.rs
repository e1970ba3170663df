//! A search over the dice for the computer's players: expectimax one roll deep. Each
//! legal move is judged by the position after it, averaged over every roll the next seat
//! may get, that seat answering with the move best for it; a position is scored by the
//! games' own measure of progress, as the greedy bot scores one. Pure and deterministic:
//! ties go to the first move. The budget is in positions looked at.
//!
//! Hoofden is searched its own way ([`hoofden`]): there, one roll ahead sees nothing (the
//! dice are only the fights', and the greedy measure never attacks), so it looks several
//! plies deep and scores positions by their fighting strength.

pub mod hoofden;
mod hoofden_eval;
mod hoofden_model;
#[cfg(test)]
mod hoofden_tests;

use crate::game::{Awaiting, Die};
use crate::variant::AnyGame;
use crate::{EngineError, Seat};

/// What a position is worth to `seat` among `seats`: [`progress_score`], and for a
/// finished game most to its winner, least to the others.
pub fn score(game: &dyn AnyGame, seat: Seat, seats: usize) -> i64 {
    if let Awaiting::Finished { result } = game.awaiting() {
        return match result.winner {
            Some(w) if w == seat => 1 << 40,
            Some(_) => -(1 << 40),
            None => 0,
        };
    }
    progress_score(game, seat, seats)
}

/// `seat`'s progress against the best of the others' (the greedy bot's measure).
pub fn progress_score(game: &dyn AnyGame, seat: Seat, seats: usize) -> i64 {
    let mine = i64::from(game.progress(seat));
    let best_other = (0..seats)
        .filter(|s| *s != seat.index())
        .map(|s| i64::from(game.progress(Seat(s as u8))))
        .max()
        .unwrap_or(0);
    mine * 4 - best_other * 3
}

/// Every roll of `count` dice `die` with its weight (equal faces summed).
fn rolls(die: &Die, count: u8) -> Vec<(Vec<u8>, u32)> {
    let mut out: Vec<(Vec<u8>, u32)> = vec![(Vec::new(), 1)];
    for _ in 0..count {
        let mut next = Vec::new();
        for (values, w) in &out {
            for face in die.faces {
                let mut v = values.clone();
                v.push(*face);
                next.push((v, *w));
            }
        }
        out = next;
    }
    // Dice are unordered for the games that roll two: (3, 5) and (5, 3) as one, weight 2.
    let mut merged: Vec<(Vec<u8>, u32)> = Vec::new();
    for (mut v, w) in out {
        v.sort_unstable();
        match merged.iter_mut().find(|(m, _)| *m == v) {
            Some(m) => m.1 += w,
            None => merged.push((v, w)),
        }
    }
    merged
}

/// What the position `game` (after one of `seat`'s moves) is worth to `seat`: its
/// score where no roll comes next for another seat; else the average over that seat's
/// rolls of the position after its best answer.
fn expected(
    game: &dyn AnyGame,
    seat: Seat,
    seats: usize,
    budget: &mut u64,
) -> Result<i64, EngineError> {
    let Awaiting::Dice {
        seat: roller,
        die,
        count,
    } = game.awaiting()
    else {
        return Ok(score(game, seat, seats));
    };
    if roller == seat || count > 2 {
        return Ok(score(game, seat, seats));
    }
    let mut total: i64 = 0;
    let mut weight: i64 = 0;
    for (values, w) in rolls(&die, count) {
        let mut rolled = game.clone_box();
        rolled.apply_dice(&values)?;
        let value = match rolled.awaiting() {
            Awaiting::Move { seat: mover } if mover != seat => {
                // The other seat's answer is best for it: judged by its own measure, and
                // worth to `seat` what that position is worth to `seat`.
                let moves = rolled.legal_moves()?;
                let mut chosen: Option<(i64, i64)> = None;
                for mv in &moves {
                    if *budget == 0 {
                        break;
                    }
                    *budget -= 1;
                    let mut after = rolled.clone_box();
                    after.apply_move(mv)?;
                    let theirs = score(after.as_ref(), mover, seats);
                    if chosen.is_none_or(|(t, _)| theirs > t) {
                        chosen = Some((theirs, score(after.as_ref(), seat, seats)));
                    }
                }
                chosen.map_or_else(|| score(rolled.as_ref(), seat, seats), |(_, mine)| mine)
            }
            _ => score(rolled.as_ref(), seat, seats),
        };
        total += value * i64::from(w);
        weight += i64::from(w);
    }
    Ok(if weight == 0 {
        score(game, seat, seats)
    } else {
        total / weight
    })
}

/// The index of the legal move of `seat` (among `seats`) that expectimax one roll deep
/// finds best, looking at no more than `budget` positions (past it, the moves not yet
/// searched are judged by their own position); `None` when there is no legal move. A
/// game of Hoofden goes to [`hoofden::choice`] with the same budget.
pub fn expectimax_choice(
    game: &dyn AnyGame,
    seat: Seat,
    seats: usize,
    budget: u64,
) -> Result<Option<usize>, EngineError> {
    let moves = game.legal_moves()?;
    if moves.len() <= 1 {
        return Ok(if moves.is_empty() { None } else { Some(0) });
    }
    if let Some(i) = game.decision_hint().filter(|i| *i < moves.len()) {
        return Ok(Some(i));
    }
    if game.variant() == <crate::hoofden::Hoofden as crate::Game>::VARIANT {
        let state = <crate::hoofden::Hoofden as crate::Game>::from_state(game.state_json()?.get())?;
        return Ok(hoofden::choice(&state, budget));
    }
    let mut budget = budget;
    let mut best: Option<(i64, usize)> = None;
    for (i, mv) in moves.iter().enumerate() {
        let mut after = game.clone_box();
        after.apply_move(mv)?;
        let value = if budget > 0 {
            expected(after.as_ref(), seat, seats, &mut budget)?
        } else {
            score(after.as_ref(), seat, seats)
        };
        if best.is_none_or(|(b, _)| value > b) {
            best = Some((value, i));
        }
    }
    Ok(best.map(|(_, i)| i))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Die;
    use crate::variant;
    use serde_json::json;

    #[test]
    fn two_dice_are_weighed_as_unordered_rolls() {
        let d6 = Die {
            name: "d6",
            faces: &[1, 2, 3, 4, 5, 6],
            labels: &[],
        };
        let all = rolls(&d6, 2);
        assert_eq!(all.len(), 21);
        assert_eq!(all.iter().map(|(_, w)| w).sum::<u32>(), 36);
        assert!(all.contains(&(vec![3, 5], 2)));
        assert!(all.contains(&(vec![4, 4], 1)));
        assert_eq!(rolls(&d6, 1).len(), 6);
    }

    #[test]
    fn the_search_is_deterministic_and_keeps_to_the_legal_moves() {
        let v = variant("ludo").expect("ludo");
        let mut game = v.create(&json!({}), 2).expect("a game");
        let mut rng = crate::playout::SplitMix64(5);
        for _ in 0..400 {
            match game.awaiting() {
                Awaiting::Finished { .. } => break,
                Awaiting::Dice { die, count, .. } => {
                    let values: Vec<u8> = (0..count).map(|_| rng.roll(&die)).collect();
                    game.apply_dice(&values).expect("dice");
                }
                Awaiting::Move { seat } => {
                    let n = game.legal_moves().expect("moves").len();
                    let first = expectimax_choice(game.as_ref(), seat, 2, 5_000).expect("a choice");
                    let again = expectimax_choice(game.as_ref(), seat, 2, 5_000).expect("a choice");
                    assert_eq!(first, again);
                    let i = first.expect("a move");
                    assert!(i < n);
                    let mv = game.legal_moves().expect("moves")[i].clone();
                    game.apply_move(&mv).expect("a legal move");
                }
            }
        }
    }
}
