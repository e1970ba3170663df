//! Property tests of Ludo: random games from seeded dice and choices.

use proptest::prelude::*;
use worp_engine::ludo::{Colour, DieKind, Field, Ludo, Move, Options, PawnId, Place, TRACK_FIELDS};
use worp_engine::playout::{play_out, Input, SplitMix64, Stop};
use worp_engine::{Awaiting, EngineError, Game, Seat};

/// A generous bound on the inputs of one game (dice and moves together).
const MAX_INPUTS: usize = 200_000;

fn options(pawns: u8, plain: bool) -> Options {
    Options {
        die: if plain {
            DieKind::Plain
        } else {
            DieKind::Special
        },
        pawns,
        colours: None,
    }
}

/// Every seat has exactly `pawns` pawns, each on a place its die allows; no track field
/// holds pawns of two players; a retired seat has no pawn on the board.
fn check_pawns(game: &Ludo, pawns: u8, plain: bool) {
    for player in game.players() {
        assert_eq!(player.pawns.places().len(), usize::from(pawns));
        for place in player.pawns.places() {
            match *place {
                Place::Yard | Place::Home => {}
                Place::Track { field, track_field } => {
                    assert!(field.0 <= 50);
                    assert_eq!(track_field, field.track_field(player.colour));
                    assert!(!player.retired);
                }
                Place::HomeColumn { field } => {
                    assert!(plain, "a home column pawn with the special die");
                    assert!((51..=55).contains(&field.0));
                    assert!(!player.retired);
                }
            }
        }
        if player.retired {
            assert!(player.pawns.places().iter().all(|p| *p == Place::Yard));
        }
    }
    for field in 0..TRACK_FIELDS {
        let owners = game
            .players()
            .iter()
            .filter(|p| {
                p.pawns
                    .places()
                    .iter()
                    .any(|q| q.track_field().map(|t| t.0) == Some(field))
            })
            .count();
        assert!(owners <= 1, "two players on track field {field}");
    }
}

/// Every move a seat could name, legal or not.
fn every_move(pawns: u8) -> Vec<Move> {
    let mut all = Vec::new();
    for p in 0..=pawns {
        let pawn = PawnId(p);
        all.push(Move::Enter { pawn });
        all.push(Move::Home { pawn });
        for to in 0..=56 {
            all.push(Move::Move {
                pawn,
                to: Field(to),
            });
        }
    }
    all
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn pawns_are_conserved_through_random_games_with_retirements(
        seed in any::<u64>(), seats in 2u8..=4, pawns in 1u8..=4, plain in any::<bool>()
    ) {
        let mut game = Ludo::new(&options(pawns, plain), seats).unwrap();
        let mut rng = SplitMix64(seed);
        for _ in 0..MAX_INPUTS {
            check_pawns(&game, pawns, plain);
            if rng.below(500) == 0 {
                let seat = Seat(rng.below(usize::from(seats)) as u8);
                let before = serde_json::to_value(&game).unwrap();
                match game.retire(seat) {
                    Ok(()) => {}
                    Err(EngineError::NoSuchSeat { .. }) | Err(EngineError::Finished) => {
                        prop_assert_eq!(serde_json::to_value(&game).unwrap(), before);
                    }
                    Err(e) => panic!("unexpected {e:?}"),
                }
                continue;
            }
            match game.awaiting() {
                Awaiting::Finished { .. } => break,
                Awaiting::Dice { die, .. } => game.apply_dice(&[rng.roll(&die)]).unwrap(),
                Awaiting::Move { .. } => {
                    let moves = game.legal_moves();
                    prop_assert!(!moves.is_empty());
                    game.apply_move(&moves[rng.below(moves.len())]).unwrap();
                }
            }
        }
        check_pawns(&game, pawns, plain);
        let finished = matches!(game.awaiting(), Awaiting::Finished { .. });
        prop_assert!(finished);
    }

    #[test]
    fn random_games_end_and_replay_to_the_same_state(
        seed in any::<u64>(), seats in 2u8..=4, pawns in 1u8..=4, plain in any::<bool>()
    ) {
        let opts = options(pawns, plain);
        let mut game = Ludo::new(&opts, seats).unwrap();
        let mut dice = SplitMix64(seed);
        let mut choices = SplitMix64(seed ^ 0x5EED);
        let mut log = Vec::new();
        let stop = play_out(
            &mut game,
            |die| dice.roll(die),
            |_, moves| choices.below(moves.len()),
            MAX_INPUTS,
            Some(&mut log),
        ).unwrap();
        prop_assert_eq!(stop, Stop::Finished);
        let Awaiting::Finished { result } = game.awaiting() else { unreachable!() };
        let winner = result.winner.unwrap();
        prop_assert!(game.players()[winner.index()].pawns.all_home());

        let mut replay = Ludo::new(&opts, seats).unwrap();
        for input in &log {
            input.apply(&mut replay).unwrap();
        }
        prop_assert_eq!(serde_json::to_value(&replay).unwrap(), serde_json::to_value(&game).unwrap());
        prop_assert_eq!(replay.legal_moves(), game.legal_moves());
        prop_assert!(log.iter().any(|i| matches!(i, Input::Move(_))));
    }

    #[test]
    fn legal_moves_apply_and_every_other_move_is_refused(
        seed in any::<u64>(), seats in 2u8..=4, pawns in 1u8..=4, plain in any::<bool>(),
        colours_shift in 0u8..4
    ) {
        let mut opts = options(pawns, plain);
        opts.colours = Some((0..seats).map(|s| Colour((s + colours_shift) % 4)).collect());
        let mut game = Ludo::new(&opts, seats).unwrap();
        let mut rng = SplitMix64(seed);
        let candidates = every_move(pawns);
        let mut checked = 0;
        for _ in 0..MAX_INPUTS {
            match game.awaiting() {
                Awaiting::Finished { .. } => break,
                Awaiting::Dice { die, .. } => {
                    // A value the die cannot show is refused and changes nothing.
                    let before = serde_json::to_value(&game).unwrap();
                    prop_assert!(game.apply_dice(&[7]).is_err());
                    prop_assert!(game.apply_move(&candidates[0]).is_err());
                    prop_assert_eq!(serde_json::to_value(&game).unwrap(), before);
                    game.apply_dice(&[rng.roll(&die)]).unwrap();
                }
                Awaiting::Move { .. } => {
                    let moves = game.legal_moves();
                    prop_assert!(!moves.is_empty() && moves.len() <= usize::from(pawns));
                    if checked < 40 {
                        checked += 1;
                        let before = serde_json::to_value(&game).unwrap();
                        for mv in &candidates {
                            let mut copy = game.clone();
                            let r = copy.apply_move(mv);
                            if moves.contains(mv) {
                                prop_assert!(r.is_ok(), "{:?} refused: {:?}", mv, r);
                            } else {
                                prop_assert!(
                                    matches!(r, Err(EngineError::IllegalMove { .. })),
                                    "{:?} accepted", mv
                                );
                                prop_assert_eq!(serde_json::to_value(&copy).unwrap(), before.clone());
                            }
                        }
                        // One entry per distinct result.
                        let results: Vec<_> = moves.iter().map(|mv| {
                            let mut copy = game.clone();
                            copy.apply_move(mv).unwrap();
                            serde_json::to_value(copy.players()).unwrap()
                        }).collect();
                        for (i, r) in results.iter().enumerate() {
                            prop_assert!(!results[..i].contains(r), "two moves, one result");
                        }
                    }
                    game.apply_move(&moves[rng.below(moves.len())]).unwrap();
                }
            }
        }
    }
}
