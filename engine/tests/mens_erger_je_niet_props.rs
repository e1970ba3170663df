//! Property tests of Mens-erger-je-niet: random games on both boards, every seat count,
//! with and without three tries.

use proptest::prelude::*;
use worp_engine::mens_erger_je_niet::{Colour, MensErgerJeNiet, Move, Options, Pawn, Place};
use worp_engine::playout::{play_out, Input, SplitMix64, Stop};
use worp_engine::{Awaiting, Game, Seat};

/// Far more inputs than any random game needs.
const MAX_INPUTS: usize = 200_000;

/// Options for a game: the board, three tries, and (when `pairs` and there are fewer
/// seats than colours) seat 0 playing two colours.
fn options(board: u8, seats: u8, three_tries: bool, pairs: bool) -> Options {
    let colours = (pairs && seats < board).then(|| {
        let mut list: Vec<Vec<Colour>> = (0..seats).map(|s| vec![Colour(s)]).collect();
        list[0].push(Colour(seats));
        list
    });
    Options {
        board,
        colours,
        three_tries,
    }
}

fn game_params() -> impl Strategy<Value = (u8, u8, bool, bool, u64)> {
    (
        prop_oneof![Just(4u8), Just(6u8)],
        any::<bool>(),
        any::<bool>(),
        any::<u64>(),
    )
        .prop_flat_map(|(board, tries, pairs, seed)| {
            (Just(board), 2..=board, Just(tries), Just(pairs), Just(seed))
        })
}

fn new_game(o: &Options, seats: u8) -> MensErgerJeNiet {
    MensErgerJeNiet::new(o, seats).unwrap_or_else(|e| panic!("{o:?}: {e}"))
}

/// What a move can change: every pawn, the stage and the legal moves.
fn snapshot(g: &MensErgerJeNiet) -> (Vec<[Place; 4]>, String, Vec<Move>) {
    let pawns = (0..g.side().colours())
        .filter_map(|c| g.pawns(Colour(c)).copied())
        .collect();
    (pawns, format!("{:?}", g.stage()), g.legal_moves())
}

/// Every colour keeps exactly four pawns, one pawn at most per track field and per home
/// circle, each track pawn on the field its step says.
fn check_pawns(g: &MensErgerJeNiet) -> Result<(), TestCaseError> {
    let side = g.side();
    let mut fields = vec![false; usize::from(side.track_fields())];
    for c in 0..side.colours() {
        let colour = Colour(c);
        let pawns = g
            .pawns(colour)
            .ok_or_else(|| TestCaseError::fail("colour missing"))?;
        prop_assert_eq!(pawns.len(), 4);
        let mut circles = [false; 4];
        for p in pawns {
            match *p {
                Place::Waiting => {}
                Place::Track { step, field } => {
                    prop_assert!(step < side.track_fields());
                    prop_assert_eq!(field, side.field(colour, step));
                    let f = &mut fields[usize::from(field)];
                    prop_assert!(!*f, "two pawns on field {}", field);
                    *f = true;
                }
                Place::Home { circle } => {
                    let taken = &mut circles[usize::from(circle.number())];
                    prop_assert!(!*taken, "two pawns on one home circle");
                    *taken = true;
                }
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_games_end_and_pawns_are_conserved((board, seats, tries, pairs, seed) in game_params()) {
        let o = options(board, seats, tries, pairs);
        let mut g = new_game(&o, seats);
        let mut rng = SplitMix64(seed);
        let mut inputs = 0usize;
        while !matches!(g.awaiting(), Awaiting::Finished { .. }) {
            let mut rng2 = rng.clone();
            let stop = play_out(&mut g, |d| rng.roll(d), |_, m| rng2.below(m.len()), 1, None);
            prop_assert!(stop.is_ok());
            rng.next_u64();
            check_pawns(&g)?;
            inputs += 1;
            prop_assert!(inputs < MAX_INPUTS, "the game did not end");
        }
        let Awaiting::Finished { result } = g.awaiting() else { unreachable!() };
        let winner = result.winner.unwrap_or(Seat(99));
        prop_assert!(winner.0 < seats);
    }

    #[test]
    fn replaying_the_inputs_gives_the_identical_state((board, seats, tries, pairs, seed) in game_params()) {
        let o = options(board, seats, tries, pairs);
        let mut g = new_game(&o, seats);
        let mut dice = SplitMix64(seed);
        let mut choice = SplitMix64(!seed);
        let mut log: Vec<Input<Move>> = Vec::new();
        let stop = play_out(&mut g, |d| dice.roll(d), |_, m| choice.below(m.len()), MAX_INPUTS, Some(&mut log));
        prop_assert_eq!(stop, Ok(Stop::Finished));
        let mut again = new_game(&o, seats);
        for input in &log {
            prop_assert!(input.apply(&mut again).is_ok());
        }
        prop_assert_eq!(serde_json::to_value(&again).ok(), serde_json::to_value(&g).ok());
        prop_assert_eq!(again.awaiting(), g.awaiting());
    }

    #[test]
    fn every_legal_move_applies_and_others_are_refused((board, seats, tries, pairs, seed) in game_params()) {
        let o = options(board, seats, tries, pairs);
        let mut g = new_game(&o, seats);
        let mut rng = SplitMix64(seed);
        let mut inputs = 0usize;
        loop {
            match g.awaiting() {
                Awaiting::Finished { .. } => break,
                Awaiting::Dice { die, .. } => {
                    let v = rng.roll(&die);
                    prop_assert!(g.apply_dice(&[v]).is_ok());
                }
                Awaiting::Move { .. } => {
                    let moves = g.legal_moves();
                    prop_assert!(!moves.is_empty());
                    for m in &moves {
                        let mut copy = g.clone();
                        prop_assert!(copy.apply_move(m).is_ok(), "{:?} refused", m);
                    }
                    // One entry per distinct result.
                    let results: Vec<_> = moves.iter().map(|m| {
                        let mut copy = g.clone();
                        let _ = copy.apply_move(m);
                        snapshot(&copy)
                    }).collect();
                    for (i, a) in results.iter().enumerate() {
                        prop_assert!(!results[..i].contains(a), "two moves give one result");
                    }
                    // Moves not in the list: every other pawn and target of the colour.
                    let before = snapshot(&g);
                    let full = (inputs % 16 == 0).then(|| serde_json::to_value(&g).ok());
                    let colour = moves[0].colour;
                    let others = [colour, Colour(colour.0 + 1)];
                    for c in others {
                        for p in 0..5u8 {
                            for to in [
                                Place::Waiting,
                                Place::Track { step: 3, field: g.side().field(c, 3) },
                                moves[0].to,
                            ] {
                                let m = Move { colour: c, pawn: Pawn(p), to };
                                if moves.contains(&m) {
                                    continue;
                                }
                                prop_assert!(g.apply_move(&m).is_err());
                                prop_assert_eq!(&snapshot(&g), &before);
                            }
                        }
                    }
                    prop_assert!(g.apply_dice(&[1]).is_err());
                    if let Some(full) = full {
                        prop_assert_eq!(serde_json::to_value(&g).ok(), full);
                    }
                    let m = &moves[rng.below(moves.len())];
                    prop_assert!(g.apply_move(m).is_ok());
                }
            }
            inputs += 1;
            prop_assert!(inputs < MAX_INPUTS, "the game did not end");
        }
    }

    #[test]
    fn retiring_seats_keeps_the_game_playable((board, seats, tries, pairs, seed) in game_params()) {
        let o = options(board, seats, tries, pairs);
        let mut g = new_game(&o, seats);
        let mut rng = SplitMix64(seed);
        let mut inputs = 0usize;
        let mut retired = 0u8;
        while !matches!(g.awaiting(), Awaiting::Finished { .. }) {
            if rng.below(300) == 0 {
                let seat = Seat(rng.below(usize::from(seats)) as u8);
                if g.retire(seat).is_ok() {
                    retired += 1;
                    // The retired seat's pawns have left the board.
                    let state = serde_json::to_value(&g).unwrap_or_default();
                    for c in state["seats"][usize::from(seat.0)]["colours"].as_array().into_iter().flatten() {
                        let c = Colour(c.as_u64().unwrap_or(99) as u8);
                        let pawns = g.pawns(c).copied();
                        prop_assert_eq!(pawns, Some([Place::Waiting; 4]));
                    }
                }
            } else {
                let mut rng2 = rng.clone();
                let stop = play_out(&mut g, |d| rng.roll(d), |_, m| rng2.below(m.len()), 1, None);
                prop_assert!(stop.is_ok());
                rng.next_u64();
            }
            check_pawns(&g)?;
            if let Some(seat) = g.awaiting().seat() {
                prop_assert!(g.retire(Seat(seats)).is_err());
                prop_assert!(seat.0 < seats);
            }
            inputs += 1;
            prop_assert!(inputs < MAX_INPUTS, "the game did not end");
        }
        prop_assert!(retired < seats);
    }
}
