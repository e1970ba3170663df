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
//! bot's measure of progress prefers any checker move to an offer, a move that wins a
//! game of a match too (points won count above pips travelled).

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
    375 - game.pips_travelled(side)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backgammon::{Cube, Level, Move, Offer, Options, Position};
    use crate::{Game, Seat};

    /// A match game with White on roll in `pos` (a race: White's checkers all past
    /// Black's), choosing roll or double.
    fn on_roll(pos: Position) -> Backgammon {
        let mut g = Backgammon::new(
            &Options {
                match_length: 7,
                ..Options::default()
            },
            2,
        )
        .unwrap();
        g.position = pos;
        g.on_roll(Side::White);
        g
    }

    /// White's and Black's checkers (point, count), the rest borne off.
    fn race_with(white_on: &[(u8, u8)], black_on: &[(u8, u8)]) -> Position {
        crate::backgammon::tests::setup(white_on, black_on, (0, 0))
    }

    fn hinted(g: &Backgammon) -> Move {
        g.legal_moves()[hint(g).expect("a hint")]
    }

    /// White: 10 checkers 1 pip from home, 5 checkers 6 pips: 40 pips, in a race.
    const WHITE: [(u8, u8); 2] = [(24, 10), (19, 5)];

    #[test]
    fn doubles_in_a_race_with_a_lead_of_at_least_8_percent_and_rolls_otherwise() {
        let mut g = on_roll(race_with(&WHITE, &[(3, 4), (6, 5), (2, 1)]));
        assert!(race(&g));
        assert_eq!((pips(&g, Side::White), pips(&g, Side::Black)), (40, 44));
        assert_eq!(hinted(&g), Move::Decision(Decision::Double), "10 % ahead");
        g.position = race_with(&WHITE, &[(3, 3), (6, 5), (2, 1), (1, 1)]);
        assert_eq!(pips(&g, Side::Black), 42);
        assert_eq!(hinted(&g), Move::Decision(Decision::Roll), "5 % ahead");
        // With contact the lead must be 15 %: 10 % is not enough.
        g.position = race_with(
            &[(24, 9), (19, 5), (7, 1)],
            &[(13, 1), (8, 1), (6, 5), (3, 4)],
        );
        assert!(!race(&g));
        assert_eq!((pips(&g, Side::White), pips(&g, Side::Black)), (57, 63));
        assert_eq!(hinted(&g), Move::Decision(Decision::Roll));
    }

    #[test]
    fn takes_a_double_while_the_doubler_leads_by_less_than_12_percent_in_a_race() {
        let mut g = on_roll(race_with(&WHITE, &[(3, 4), (6, 5), (2, 1)])); // 44: 10 %
        g.offer = Some(Offer {
            kind: OfferKind::Double,
            by: Side::White,
        });
        assert_eq!(hinted(&g), Move::Decision(Decision::Take));
        g.position = race_with(&WHITE, &[(4, 4), (6, 5), (2, 1)]); // 48: 20 %
        assert_eq!(hinted(&g), Move::Decision(Decision::Pass));
    }

    #[test]
    fn accepts_a_resignation_of_at_least_what_the_position_still_wins() {
        let mut g = on_roll(Position::START);
        g.cube = Cube::CENTRED;
        // Black has checkers in White's home board: a backgammon is still possible.
        g.offer = Some(Offer {
            kind: OfferKind::Resign(Level::Gammon),
            by: Side::Black,
        });
        assert_eq!(hinted(&g), Move::Decision(Decision::Decline));
        g.offer = Some(Offer {
            kind: OfferKind::Resign(Level::Backgammon),
            by: Side::Black,
        });
        assert_eq!(hinted(&g), Move::Decision(Decision::Accept));
    }

    #[test]
    fn gives_no_hint_with_a_checker_move_pending() {
        let mut g = on_roll(Position::START);
        g.apply_move(&Move::Decision(Decision::Roll)).unwrap();
        g.apply_dice(&[3, 1]).unwrap();
        assert_eq!(hint(&g), None);
    }

    #[test]
    fn winning_a_game_of_a_match_is_progress_above_an_offer_to_resign() {
        // White's last checker on his 24 point, 1-2 to play, in a 7-point match: bearing
        // it off wins a gammon (2 points, not the match), and the next game starts from
        // the opening position.
        let mut g = on_roll(race_with(&[(24, 1)], &[(6, 15)]));
        g.apply_move(&Move::Decision(Decision::Roll)).unwrap();
        g.apply_dice(&[1, 2]).unwrap();
        let moves = g.legal_moves();
        let greedy = |g: &Backgammon| g.progress(Seat(0)) * 4 - g.progress(Seat(1)) * 3;
        let after = |mv: &Move| {
            let mut after = g.clone();
            after.apply_move(mv).unwrap();
            greedy(&after)
        };
        let bear_off = moves.iter().find(|m| !m.steps().is_empty()).unwrap();
        let offer = Move::Decision(Decision::Resign(Level::Single));
        assert!(moves.contains(&offer));
        let mut won = g.clone();
        won.apply_move(bear_off).unwrap();
        assert_eq!(won.play.score.get(Side::White), 2);
        assert!(
            after(bear_off) > after(&offer),
            "{} against {}",
            after(bear_off),
            after(&offer)
        );
    }
}
