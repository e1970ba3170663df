//! Property tests of Ali Baba: figures conserved, random games end, replay is
//! deterministic, legal moves apply and nothing else does.

use proptest::prelude::*;
use serde_json::Value;
use worp_engine::ali_baba::{AliBaba, Figure, Move, Options, Position, Stage};
use worp_engine::playout::{play_out, Input, SplitMix64, Stop};
use worp_engine::{variant, Awaiting, EngineError, Game, Seat};

/// Far more inputs than any random game needs (over 2000 seeded games of 4 seats on 20
/// planks the longest took 652 inputs, the mean 396).
const MAX_INPUTS: usize = 20_000;

fn new_game(seats: u8, planks: u8) -> AliBaba {
    AliBaba::new(&Options { planks }, seats).expect("valid options")
}

fn state(g: &AliBaba) -> Value {
    serde_json::to_value(g).expect("state serializes")
}

/// Every seat still playing has its three figures on the bridge or its banks; a retired
/// seat has none.
fn check_figures(g: &AliBaba, seats: u8, retired: &[bool]) {
    let far = g.bridge().far_bank();
    for s in 0..seats {
        match g.figures(Seat(s)) {
            Some(f) => {
                assert!(!retired[usize::from(s)]);
                let on_board = Figure::ALL.iter().filter(|&&k| f.at(k) <= far).count();
                assert_eq!(on_board, 3, "seat {s}: {f:?}");
            }
            None => assert!(retired[usize::from(s)], "seat {s} lost its figures"),
        }
    }
    assert!(g.figures(Seat(seats)).is_none());
}

fn seats_and_planks() -> impl Strategy<Value = (u8, u8)> {
    (
        2u8..=4,
        prop_oneof![Just(1u8), Just(2), Just(6), 1u8..=20, Just(20)],
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn three_figures_per_seat_are_conserved(
        (seats, planks) in seats_and_planks(),
        seed in any::<u64>(),
        retire_one_in in 50usize..2000,
    ) {
        let mut rng = SplitMix64(seed);
        let mut g = new_game(seats, planks);
        let mut retired = vec![false; usize::from(seats)];
        check_figures(&g, seats, &retired);
        for _ in 0..MAX_INPUTS {
            if rng.below(retire_one_in) == 0 {
                let s = rng.below(usize::from(seats)) as u8;
                let before = state(&g);
                match g.retire(Seat(s)) {
                    Ok(()) => retired[usize::from(s)] = true,
                    Err(EngineError::NoSuchSeat { .. }) | Err(EngineError::Finished) => {
                        prop_assert_eq!(state(&g), before);
                    }
                    Err(e) => panic!("retire: {e}"),
                }
            }
            match g.awaiting() {
                Awaiting::Finished { .. } => break,
                Awaiting::Dice { die, .. } => g.apply_dice(&[rng.roll(&die)]).expect("dice"),
                Awaiting::Move { seat } => {
                    prop_assert!(!retired[seat.index()]);
                    let moves = g.legal_moves();
                    prop_assert!(!moves.is_empty());
                    let mv = moves[rng.below(moves.len())];
                    g.apply_move(&mv).expect("legal move");
                }
            }
            check_figures(&g, seats, &retired);
        }
        let finished = matches!(g.awaiting(), Awaiting::Finished { .. });
        prop_assert!(finished);
    }

    #[test]
    fn random_games_end(
        (seats, planks) in seats_and_planks(),
        seed in any::<u64>(),
    ) {
        let mut rng = SplitMix64(seed);
        let mut choice = SplitMix64(seed ^ 0x5555);
        let mut g = new_game(seats, planks);
        let stop = play_out(
            &mut g,
            |d| rng.roll(d),
            |_, moves| choice.below(moves.len()),
            MAX_INPUTS,
            None,
        )
        .expect("play-out");
        prop_assert_eq!(stop, Stop::Finished);
        let Awaiting::Finished { result } = g.awaiting() else { unreachable!() };
        let winner = result.winner.expect("a winner");
        let far = g.bridge().far_bank();
        let f = g.figures(winner).expect("the winner's figures");
        prop_assert!(Figure::ALL.iter().all(|&k| f.at(k) == far));
        // Nobody else got all three across.
        for s in (0..seats).map(Seat).filter(|&s| s != winner) {
            let f = g.figures(s).expect("figures");
            prop_assert!(!Figure::ALL.iter().all(|&k| f.at(k) == far));
        }
    }

    #[test]
    fn replaying_the_inputs_gives_the_same_game(
        (seats, planks) in seats_and_planks(),
        seed in any::<u64>(),
    ) {
        let mut rng = SplitMix64(seed);
        let mut choice = SplitMix64(!seed);
        let mut g = new_game(seats, planks);
        let mut log: Vec<Input<Move>> = Vec::new();
        play_out(
            &mut g,
            |d| rng.roll(d),
            |_, moves| choice.below(moves.len()),
            MAX_INPUTS,
            Some(&mut log),
        )
        .expect("play-out");
        let mut again = new_game(seats, planks);
        for input in &log {
            input.apply(&mut again).expect("replayed input");
        }
        prop_assert_eq!(state(&again), state(&g));
        // And through the registry, with moves as JSON.
        let mut any = variant("ali_baba")
            .expect("registered")
            .create(&serde_json::json!({"planks": planks}), seats)
            .expect("created");
        for input in &log {
            match input {
                Input::Dice(v) => any.apply_dice(v).expect("dice"),
                Input::Move(mv) => any
                    .apply_move(&serde_json::to_value(mv).expect("json"))
                    .expect("move"),
            }
        }
        prop_assert_eq!(any.state(), Ok(state(&g)));
    }

    #[test]
    fn legal_moves_apply_and_other_moves_are_refused(
        (seats, planks) in seats_and_planks(),
        seed in any::<u64>(),
    ) {
        let mut rng = SplitMix64(seed);
        let mut g = new_game(seats, planks);
        let far = g.bridge().far_bank().0;
        for step in 0..3000 {
            match g.awaiting() {
                Awaiting::Finished { .. } => break,
                Awaiting::Dice { die, .. } => {
                    // Every face applies; every other value is refused, game unchanged.
                    let before = state(&g);
                    for v in 0..=7u8 {
                        let mut c = g.clone();
                        let r = c.apply_dice(&[v]);
                        prop_assert_eq!(r.is_ok(), die.shows(v));
                        if r.is_err() {
                            prop_assert_eq!(state(&c), before.clone());
                        }
                    }
                    let early = Move {
                        figure: Figure::Robber,
                        from: Position(0),
                        to: Position(1),
                    };
                    prop_assert_eq!(g.apply_move(&early), Err(EngineError::NotAwaitingMove));
                    prop_assert_eq!(state(&g), before);
                    g.apply_dice(&[rng.roll(&die)]).expect("dice");
                }
                Awaiting::Move { .. } => {
                    let moves = g.legal_moves();
                    let Stage::Move { roll, .. } = *g.stage() else { unreachable!() };
                    prop_assert!(!moves.is_empty() && moves.len() <= 3);
                    // One entry per distinct result.
                    let results: Vec<Value> = moves.iter().map(|mv| {
                        let mut c = g.clone();
                        c.apply_move(mv).expect("a legal move applies");
                        prop_assert_eq!(mv.to.0, mv.from.0 + roll);
                        prop_assert!(mv.to.0 <= far);
                        Ok(state(&c))
                    }).collect::<Result<_, TestCaseError>>()?;
                    for (i, a) in results.iter().enumerate() {
                        for b in &results[i + 1..] {
                            prop_assert_ne!(a, b);
                        }
                    }
                    if step % 7 == 0 {
                        let before = state(&g);
                        for figure in Figure::ALL {
                            for from in 0..=far {
                                for to in 0..=far + 3 {
                                    let mv = Move {
                                        figure,
                                        from: Position(from),
                                        to: Position(to),
                                    };
                                    if moves.contains(&mv) {
                                        continue;
                                    }
                                    let mut c = g.clone();
                                    let r = c.apply_move(&mv);
                                    let illegal = matches!(r, Err(EngineError::IllegalMove { .. }));
                                    prop_assert!(illegal, "{:?}: {:?}", mv, r);
                                    prop_assert_eq!(state(&c), before.clone());
                                }
                            }
                        }
                        prop_assert_eq!(g.apply_dice(&[1]), Err(EngineError::NotAwaitingDice));
                    }
                    let mv = moves[rng.below(moves.len())];
                    g.apply_move(&mv).expect("legal move");
                }
            }
        }
    }
}
