//! Property tests of Hoofden: random games under every option.

use std::collections::BTreeSet;

use proptest::prelude::*;
use worp_engine::hoofden::{Head, Hoofden, Move, Movement, Options, Square, BLUE, RED};
use worp_engine::playout::{play_out, Input, SplitMix64, Stop};
use worp_engine::{Awaiting, EngineError, Game, Seat};

/// More inputs than any game can take: at most 28 fights (each removes a pawn), at most
/// 100 plies between two fights, at most 8 rolls per fight.
const MAX_INPUTS: usize = 29 * 101 + 28 * 8;

fn options(by_head: bool, forced_attack: bool) -> Options {
    Options {
        movement: if by_head {
            Movement::ByHead
        } else {
            Movement::Basic
        },
        forced_attack,
    }
}

fn new_game(options: &Options) -> Hoofden {
    match Hoofden::new(options, 2) {
        Ok(game) => game,
        Err(e) => panic!("{e}"),
    }
}

fn state(game: &Hoofden) -> serde_json::Value {
    serde_json::to_value(game).unwrap_or(serde_json::Value::Null)
}

/// Plays one input chosen at random (a roll of the awaited die or a legal move);
/// false once the game is finished.
fn step(game: &mut Hoofden, rng: &mut SplitMix64) -> bool {
    let applied = match game.awaiting() {
        Awaiting::Finished { .. } => return false,
        Awaiting::Dice { die, .. } => game.apply_dice(&[rng.roll(&die)]),
        Awaiting::Move { .. } => {
            let moves = game.legal_moves();
            match moves.get(rng.below(moves.len())) {
                Some(mv) => game.apply_move(mv),
                None => panic!("a move is awaited but none is legal"),
            }
        }
    };
    assert_eq!(applied, Ok(()));
    true
}

/// The legal moves by an independent, slow search over explicit paths.
fn brute_force_moves(game: &Hoofden) -> Vec<Move> {
    let Awaiting::Move { seat } = game.awaiting() else {
        return Vec::new();
    };
    let board = game.board();
    let options = *game.options();
    let pawn_at = |file: i8, rank: i8| -> Result<Option<Seat>, ()> {
        if !(0..10).contains(&file) || !(0..10).contains(&rank) {
            return Err(());
        }
        let square = Square::at(file as u8, rank as u8).ok_or(())?;
        Ok(board.get(square).map(|p| p.owner))
    };
    let ahead: i8 = if seat == BLUE { 1 } else { -1 };
    let mut found = BTreeSet::new();
    for from in Square::all() {
        let Some(pawn) = board.get(from) else {
            continue;
        };
        if pawn.owner != seat {
            continue;
        }
        let start = (from.file() as i8, from.rank() as i8);
        let (steps, directions): (usize, Vec<(i8, i8)>) = match (options.movement, pawn.head) {
            (Movement::Basic, Head::Yellow) => (1, vec![(-1, 1), (1, 1), (-1, -1), (1, -1)]),
            (Movement::Basic, _) | (Movement::ByHead, Head::Blue) => {
                (1, vec![(-1, ahead), (1, ahead)])
            }
            (Movement::ByHead, head) => (
                match head {
                    Head::Green => 2,
                    Head::Red => 3,
                    _ => 4,
                },
                vec![(-1, 1), (1, 1), (-1, -1), (1, -1)],
            ),
        };
        let mut paths: Vec<Vec<(i8, i8)>> = vec![vec![start]];
        for n in 0..steps {
            let mut longer = Vec::new();
            for path in &paths {
                let (f, r) = path[path.len() - 1];
                for (df, dr) in &directions {
                    let next = (f + df, r + dr);
                    if path.contains(&next) {
                        continue;
                    }
                    let Ok(occupant) = pawn_at(next.0, next.1) else {
                        continue;
                    };
                    let last = n + 1 == steps;
                    let ok = match occupant {
                        None => true,
                        Some(owner) => last && owner != seat,
                    };
                    if ok {
                        let mut p = path.clone();
                        p.push(next);
                        longer.push(p);
                    }
                }
            }
            paths = longer;
        }
        for path in paths {
            let (f, r) = path[path.len() - 1];
            if let Some(to) = Square::at(f as u8, r as u8) {
                let attack = board.get(to).is_some();
                found.insert((from, to, attack));
            }
        }
    }
    let any_attack = found.iter().any(|m| m.2);
    found
        .into_iter()
        .filter(|m| !options.forced_attack || !any_attack || m.2)
        .map(|(from, to, _)| Move { from, to })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_games_end_and_pawns_never_increase(
        seed in any::<u64>(), by_head in any::<bool>(), forced in any::<bool>()
    ) {
        let options = options(by_head, forced);
        let mut game = new_game(&options);
        let mut rng = SplitMix64(seed);
        let mut counts = [14, 14];
        for _ in 0..MAX_INPUTS {
            if !step(&mut game, &mut rng) {
                break;
            }
            for (seat, count) in [BLUE, RED].into_iter().zip(counts.iter_mut()) {
                let now = game.board().count(seat);
                prop_assert!(now <= *count, "seat {seat} went from {count} to {now} pawns");
                *count = now;
            }
        }
        let finished = matches!(game.awaiting(), Awaiting::Finished { .. });
        prop_assert!(finished, "not finished after {} inputs", MAX_INPUTS);
    }

    #[test]
    fn replaying_the_logged_inputs_gives_the_identical_state(
        seed in any::<u64>(), by_head in any::<bool>(), forced in any::<bool>()
    ) {
        let options = options(by_head, forced);
        let mut game = new_game(&options);
        let mut rng = SplitMix64(seed);
        let mut choose = SplitMix64(seed.rotate_left(17));
        let mut log = Vec::new();
        let stop = play_out(
            &mut game,
            |die| rng.roll(die),
            |_, moves| choose.below(moves.len()),
            MAX_INPUTS,
            Some(&mut log),
        );
        prop_assert_eq!(stop, Ok(Stop::Finished));
        let mut replay = new_game(&options);
        for input in &log {
            prop_assert_eq!(input.apply(&mut replay), Ok(()));
        }
        prop_assert_eq!(state(&replay), state(&game));
        prop_assert_eq!(replay.awaiting(), game.awaiting());
        // The same through the registry, with every move as JSON.
        let variant = worp_engine::variant("hoofden");
        prop_assert!(variant.is_ok());
        let Ok(variant) = variant else { return Ok(()) };
        let created = variant.create(&serde_json::to_value(options).unwrap_or_default(), 2);
        prop_assert!(created.is_ok());
        let Ok(mut any) = created else { return Ok(()) };
        for input in &log {
            let applied = match input {
                Input::Dice(values) => any.apply_dice(values),
                Input::Move(mv) => any.apply_move(&serde_json::to_value(mv).unwrap_or_default()),
            };
            prop_assert_eq!(applied, Ok(()));
        }
        prop_assert_eq!(any.state(), Ok(state(&game)));
    }

    #[test]
    fn legal_moves_apply_match_a_path_search_and_others_are_rejected(
        seed in any::<u64>(), by_head in any::<bool>(), forced in any::<bool>()
    ) {
        let options = options(by_head, forced);
        let mut game = new_game(&options);
        let mut rng = SplitMix64(seed);
        let mut moves_checked = 0;
        for input in 0..MAX_INPUTS {
            if let Awaiting::Move { .. } = game.awaiting() {
                let legal = game.legal_moves();
                prop_assert!(!legal.is_empty());
                let mut sorted = legal.clone();
                sorted.sort_by_key(|m| (m.from, m.to));
                sorted.dedup();
                prop_assert_eq!(&sorted, &legal, "not one entry per (from, to), in order");
                prop_assert_eq!(&brute_force_moves(&game), &legal);
                for mv in &legal {
                    let mut copy = game.clone();
                    prop_assert_eq!(copy.apply_move(mv), Ok(()));
                }
                // Every other pair of squares is refused, the game unchanged.
                if input % 16 == 0 && moves_checked < 8 {
                    moves_checked += 1;
                    let before = state(&game);
                    for from in Square::all() {
                        for to in Square::all() {
                            let mv = Move { from, to };
                            if legal.contains(&mv) {
                                continue;
                            }
                            let refused = game.apply_move(&mv);
                            prop_assert!(
                                matches!(refused, Err(EngineError::IllegalMove { .. })),
                                "{:?} gave {:?}", mv, refused
                            );
                        }
                    }
                    prop_assert_eq!(state(&game), before);
                }
            }
            if !step(&mut game, &mut rng) {
                break;
            }
        }
    }
}
