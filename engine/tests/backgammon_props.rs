//! Property tests of backgammon over random games (dice and choices from SplitMix64
//! seeded by proptest).

use proptest::prelude::*;
use worp_engine::backgammon::{Backgammon, Destination, Move, Options, Origin, Point, Side, Step};
use worp_engine::playout::{play_out, Input, SplitMix64, Stop};
use worp_engine::{Awaiting, EngineError, Game, Seat};

/// Far more inputs than any backgammon game takes.
const MAX_INPUTS: usize = 20_000;

fn new_game() -> Backgammon {
    Backgammon::new(&Options::default(), 2).unwrap()
}

fn random_game(seed: u64) -> (Backgammon, Vec<Input<Move>>, Stop) {
    let mut g = new_game();
    let mut rng = SplitMix64(seed);
    let mut pick = SplitMix64(seed ^ 0xA5A5);
    let mut log = Vec::new();
    let stop = play_out(
        &mut g,
        |die| rng.roll(die),
        |_, moves| pick.below(moves.len()),
        MAX_INPUTS,
        Some(&mut log),
    )
    .unwrap();
    (g, log, stop)
}

/// Variations of a legal move that may be illegal.
fn mutations(mv: &Move) -> Vec<Move> {
    let steps = mv.steps();
    let mut out = Vec::new();
    if steps.len() > 1 {
        out.push(Move::new(&steps[..steps.len() - 1]).unwrap());
        let mut rev = steps.to_vec();
        rev.reverse();
        out.push(Move::new(&rev).unwrap());
    }
    out.push(Move::new(&[]).unwrap());
    for i in 0..steps.len() {
        for delta in [-1i8, 1] {
            let mut s = steps.to_vec();
            let shift = |p: Point| Point::new((p.number() as i8 + delta) as u8);
            if let Destination::Point(p) = s[i].to {
                if let Some(q) = shift(p) {
                    s[i].to = Destination::Point(q);
                    out.push(Move::new(&s).unwrap());
                }
            }
            let mut s = steps.to_vec();
            if let Origin::Point(p) = s[i].from {
                if let Some(q) = shift(p) {
                    s[i].from = Origin::Point(q);
                    out.push(Move::new(&s).unwrap());
                }
            }
        }
    }
    if steps.len() < 4 {
        let mut s = steps.to_vec();
        s.push(Step {
            from: Origin::Bar,
            to: Destination::Point(Point::new(1).unwrap()),
        });
        out.push(Move::new(&s).unwrap());
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn fifteen_checkers_per_colour_are_conserved(seed in any::<u64>()) {
        let mut g = new_game();
        let mut rng = SplitMix64(seed);
        for _ in 0..MAX_INPUTS {
            match g.awaiting() {
                Awaiting::Finished { .. } => break,
                Awaiting::Dice { die, count, .. } => {
                    let v: Vec<u8> = (0..count).map(|_| rng.roll(&die)).collect();
                    g.apply_dice(&v).unwrap();
                }
                Awaiting::Move { .. } => {
                    let moves = g.legal_moves();
                    prop_assert!(!moves.is_empty());
                    g.apply_move(&moves[rng.below(moves.len())]).unwrap();
                }
            }
            for side in Side::BOTH {
                prop_assert_eq!(g.position().total(side), 15);
            }
        }
    }

    #[test]
    fn random_games_end(seed in any::<u64>()) {
        let (g, log, stop) = random_game(seed);
        prop_assert_eq!(stop, Stop::Finished);
        prop_assert!(log.len() < MAX_INPUTS);
        let result = g.result().unwrap();
        prop_assert!((1..=3).contains(&result.points));
        let winner = Side::of_seat(result.winner.unwrap()).unwrap();
        prop_assert_eq!(g.position().off.get(winner), 15);
    }

    #[test]
    fn replaying_the_inputs_gives_the_same_state(seed in any::<u64>()) {
        let (g, log, _) = random_game(seed);
        let mut again = new_game();
        for input in &log {
            input.apply(&mut again).unwrap();
        }
        prop_assert_eq!(serde_json::to_value(&g).unwrap(), serde_json::to_value(&again).unwrap());
    }

    #[test]
    fn every_legal_move_applies_and_every_other_is_refused(seed in any::<u64>()) {
        let mut g = new_game();
        let mut rng = SplitMix64(seed);
        let mut checked = 0;
        for _ in 0..MAX_INPUTS {
            match g.awaiting() {
                Awaiting::Finished { .. } => break,
                Awaiting::Dice { die, count, .. } => {
                    let v: Vec<u8> = (0..count).map(|_| rng.roll(&die)).collect();
                    g.apply_dice(&v).unwrap();
                }
                Awaiting::Move { .. } => {
                    let moves = g.legal_moves();
                    // Every 8th position: try all moves and their mutations.
                    if checked % 8 == 0 {
                        let before = serde_json::to_value(&g).unwrap();
                        let mut results = Vec::new();
                        for mv in &moves {
                            let mut h = g.clone();
                            prop_assert!(h.apply_move(mv).is_ok());
                            results.push(*h.position());
                            for bad in mutations(mv) {
                                if moves.contains(&bad) {
                                    continue;
                                }
                                let refused = matches!(g.apply_move(&bad), Err(EngineError::IllegalMove { .. }));
                                prop_assert!(refused, "{:?}", bad);
                            }
                        }
                        prop_assert_eq!(serde_json::to_value(&g).unwrap(), before);
                        // One move per distinct result, and exactly the generator's outcomes.
                        results.sort();
                        let n = results.len();
                        results.dedup();
                        prop_assert_eq!(results.len(), n);
                        let dice = g.dice().unwrap();
                        prop_assert_eq!(results, g.position().outcomes(g.to_move(), dice));
                    }
                    checked += 1;
                    g.apply_move(&moves[rng.below(moves.len())]).unwrap();
                }
            }
        }
    }

    #[test]
    fn retiring_at_any_time_ends_the_game_for_the_other(seed in any::<u64>(), stop_at in 0usize..200, seat in 0u8..2) {
        let mut g = new_game();
        let mut rng = SplitMix64(seed);
        let _ = play_out(&mut g, |d| rng.roll(d), |_, m| seed as usize % m.len(), stop_at, None).unwrap();
        if g.result().is_none() {
            g.retire(Seat(seat)).unwrap();
            prop_assert_eq!(g.result().unwrap().winner, Some(Seat(1 - seat)));
            let finished = matches!(g.awaiting(), Awaiting::Finished { .. });
            prop_assert!(finished);
        }
    }
}
