//! A simple, stated heuristic for the decisions of RULES.md §2b, which the greedy bot
//! plays ([`Game::decision_hint`](crate::Game::decision_hint)). By pip count (the pips
//! each side still has to travel, a checker on the bar counting 25):
//! - **double** when the player leads in the race by at least 8% of his own pip count
//!   (the opponent needs at least 8% more pips) when no more contact is possible, or by
//!   at least 15% with contact; otherwise roll;
//! - **take** when the doubler leads by less than 12% of his pip count in a race (less
//!   than 25% with contact); otherwise pass;
//! - **accept** a resignation that gives at least the most the position could still win
//!   (a backgammon, a gammon or a single, as for a resignation through the API);
//!   otherwise decline.
//!
//! It never offers a resignation: with a move pending it gives no hint, and the greedy
//! bot's measure of progress prefers any checker move to an offer.

use super::{Backgammon, Decision, OfferKind, Phase, Side};

/// The index among the legal moves of the decision the heuristic picks, when a decision
/// (and not a checker move) is awaited.
pub(super) fn hint(game: &Backgammon) -> Option<usize> {
    let decisions = game.decisions();
    let wanted = match game.offer.map(|o| (o.kind, o.by)) {
        Some((OfferKind::Double, doubler)) => {
            if ahead_by(game, doubler, if race(game) { 12 } else { 25 }) {
                Decision::Pass
            } else {
                Decision::Take
            }
        }
        Some((OfferKind::Resign(level), by)) => {
            if level >= game.level_lost_by(by) {
                Decision::Accept
            } else {
                Decision::Decline
            }
        }
        None if game.phase == Phase::RollOrDouble => {
            let side = game.to_move;
            if ahead_by(game, side, if race(game) { 8 } else { 15 }) {
                Decision::Double
            } else {
                Decision::Roll
            }
        }
        None => return None,
    };
    decisions.iter().position(|d| *d == wanted)
}

/// The pips `side` still has to travel.
pub(super) fn pips(game: &Backgammon, side: Side) -> i32 {
    375 - crate::Game::progress(game, side.seat())
}

/// Whether `side` leads by at least `percent`% of his own pip count:
/// `own × (100 + percent) ≤ opponent's × 100`.
fn ahead_by(game: &Backgammon, side: Side, percent: i32) -> bool {
    pips(game, side) * (100 + percent) <= pips(game, side.opponent()) * 100
}

/// Whether the checkers can no longer meet: every White checker is past every Black one.
fn race(game: &Backgammon) -> bool {
    let p = game.position();
    if p.bar.white > 0 || p.bar.black > 0 {
        return false;
    }
    let lowest_white = p.board.iter().position(|&n| n > 0);
    let highest_black = p.board.iter().rposition(|&n| n < 0);
    match (lowest_white, highest_black) {
        (Some(w), Some(b)) => w > b,
        _ => true,
    }
}
