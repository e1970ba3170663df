//! Tests of the Hoofden search: its model of a position follows the engine, and its
//! evaluation and search make the plain choices.

use super::hoofden::{choice, decide, Decision};
use super::hoofden_eval::{evaluate, fight_gain, Params};
use super::hoofden_model::{fight_ends, FightEnd, Pos, Status, FIGHT_TOTAL, HEADS};
use crate::hoofden::{Head, Hoofden, Move, Options, Square, BLUE, RED};
use crate::{Game, Seat};

const B: Seat = BLUE;
const R: Seat = RED;

fn sq(name: &str) -> Square {
    Square::parse(name).unwrap_or_else(|e| panic!("{e}"))
}

fn mv(from: &str, to: &str) -> Move {
    Move {
        from: sq(from),
        to: sq(to),
    }
}

fn chosen(game: &Hoofden, budget: u64) -> (Move, Decision) {
    let d = decide(game, budget, &Params::DEFAULT).expect("a move");
    (game.legal_moves()[d.index], d)
}

#[test]
fn the_fight_table_sums_to_certainty_and_favours_the_higher_head() {
    for a in HEADS {
        for d in HEADS {
            let total: u32 = fight_ends(a, d).iter().map(|(_, w)| w).sum();
            assert_eq!(total, FIGHT_TOTAL, "{a} against {d}");
        }
    }
    // Yellow (4-9) against blue (1-6): the attacker wins outright on 30 of 36 pairs,
    // and on the 3 ties it drops to red against a removed blue.
    let ends = fight_ends(Head::Yellow, Head::Blue);
    let weight = |end| ends.iter().find(|(e, _)| *e == end).map_or(0, |(_, w)| *w);
    assert_eq!(
        weight(FightEnd::Attacker(Head::Yellow)),
        FIGHT_TOTAL / 36 * 30
    );
    assert_eq!(weight(FightEnd::Attacker(Head::Red)), FIGHT_TOTAL / 36 * 3);
    assert_eq!(
        weight(FightEnd::Defender(Head::Green)),
        FIGHT_TOTAL / 36 * 3
    );
    let p = Params::DEFAULT;
    assert!(fight_gain(Head::Red, Head::Blue, &p) > 0);
    assert!(fight_gain(Head::Blue, Head::Red, &p) < 0);
    assert_eq!(fight_gain(Head::Green, Head::Green, &p), 0);
}

#[test]
fn it_takes_a_free_capture() {
    // Blue's red head on c3 can attack Red's blue on d4 (83 % to win); nothing can
    // strike back.
    let game = Hoofden::at_position(
        Options::default(),
        &[
            ("c3", B, Head::Red),
            ("a1", B, Head::Blue),
            ("i1", B, Head::Blue),
            ("d4", R, Head::Blue),
            ("j10", R, Head::Blue),
            ("b10", R, Head::Blue),
        ],
        B,
    );
    let (m, d) = chosen(&game, 20_000);
    assert_eq!(m, mv("c3", "d4"), "{d:?}");
}

/// `pos` turned by 180° with the colours swapped: the same position for the other seat.
fn mirrored(pos: &Pos) -> Pos {
    let mut board = crate::hoofden::Board::empty();
    for seat in [B, R] {
        for square in pos.board.squares_of(seat) {
            if let Some(pawn) = pos.board.get(square) {
                let owner = if seat == B { R } else { B };
                board.put(square.rotated(), crate::hoofden::Pawn { owner, ..pawn });
            }
        }
    }
    Pos {
        board,
        turn: if pos.turn == B { R } else { B },
        ..pos.clone()
    }
}

#[test]
fn the_evaluation_is_the_same_for_either_seat() {
    let mut game = Hoofden::new(&Options::default(), 2).expect("a game");
    let mut rng = crate::playout::SplitMix64(11);
    let p = Params::DEFAULT;
    for _ in 0..400 {
        match game.awaiting() {
            crate::Awaiting::Finished { .. } => break,
            crate::Awaiting::Dice { die, .. } => {
                game.apply_dice(&[rng.roll(&die)]).expect("dice");
            }
            crate::Awaiting::Move { .. } => {
                let pos = Pos::of(&game);
                let other = mirrored(&pos);
                for draw in [-100, 0, 250] {
                    assert_eq!(
                        evaluate(&pos, &p, draw),
                        evaluate(&other, &p, draw),
                        "{pos:?}"
                    );
                }
                let moves = game.legal_moves();
                let mv = moves[rng.below(moves.len())];
                game.apply_move(&mv).expect("a legal move");
            }
        }
    }
}

/// A game at `pawns` with `quiet` plies already played without a fight.
fn at(pawns: &[(&str, Seat, Head)], turn: Seat, quiet: u16) -> Hoofden {
    let game = Hoofden::at_position(Options::default(), pawns, turn);
    let mut state = serde_json::to_value(&game).expect("a state");
    state["plies_without_fight"] = quiet.into();
    Hoofden::from_state(&state.to_string()).expect("a game")
}

#[test]
fn it_does_not_walk_into_an_obvious_loss() {
    // Blue's blue head on e5 can step to d6 or f6; f6 stands next to Red's yellow on g7,
    // which would attack (and win 11 times in 12), d6 next to nothing.
    let game = at(
        &[
            ("e5", B, Head::Blue),
            ("a1", B, Head::Yellow),
            ("g7", R, Head::Yellow),
            ("j10", R, Head::Blue),
        ],
        B,
        0,
    );
    let (m, d) = chosen(&game, 2_000);
    assert_ne!(m, mv("e5", "f6"), "{d:?}");
    // Nor does it attack a yellow head with a blue one.
    let game = at(
        &[
            ("c3", B, Head::Blue),
            ("a1", B, Head::Yellow),
            ("d4", R, Head::Yellow),
            ("h8", R, Head::Blue),
        ],
        B,
        0,
    );
    let (m, d) = chosen(&game, 2_000);
    assert_ne!(m, mv("c3", "d4"), "{d:?}");
}

#[test]
fn ahead_it_fights_rather_than_let_the_game_be_drawn() {
    // Three yellow heads against one, 99 plies without a fight: every quiet move draws,
    // the even fight on e5 wins or leaves two against one.
    let pawns = [
        ("d4", B, Head::Yellow),
        ("a1", B, Head::Yellow),
        ("c1", B, Head::Yellow),
        ("e5", R, Head::Yellow),
    ];
    let (m, d) = chosen(&at(&pawns, B, 99), 2_000);
    assert_eq!(m, mv("d4", "e5"), "{d:?}");
    // With no hurry, the same fight is still its choice: it is ahead, and even fights
    // bring the side ahead nearer the win.
    let (m, d) = chosen(&at(&pawns, B, 0), 2_000);
    assert_eq!(m, mv("d4", "e5"), "{d:?}");
}

#[test]
fn it_closes_in_on_the_last_opposing_pawn() {
    // Far ahead, with the last red pawn out of reach: the yellow head steps towards it.
    let game = at(
        &[
            ("e5", B, Head::Yellow),
            ("a1", B, Head::Blue),
            ("c1", B, Head::Blue),
            ("j10", R, Head::Yellow),
        ],
        B,
        0,
    );
    let (m, d) = chosen(&game, 2_000);
    assert_eq!(m.from, sq("e5"), "{d:?}");
    assert!(m.to == sq("f6") || m.to == sq("d6"), "{m:?} {d:?}");
}

#[test]
fn the_search_keeps_to_its_budget_and_decides_the_same_twice() {
    let game = Hoofden::new(&Options::default(), 2).expect("a game");
    let first = decide(&game, 2_000, &Params::DEFAULT).expect("a move");
    let again = decide(&game, 2_000, &Params::DEFAULT).expect("a move");
    assert_eq!(first, again);
    assert!(first.depth >= 2, "{first:?}");
    // The first ply is searched whole; past it, the budget is kept to within one
    // position.
    assert!(first.nodes <= 2_001, "{first:?}");
    assert_eq!(choice(&game, 2_000), Some(first.index));
}

#[test]
fn the_expectimax_bot_plays_hoofden_through_this_search() {
    let v = crate::variant("hoofden").expect("hoofden");
    let mut any = v.create(&serde_json::json!({}), 2).expect("a game");
    let mut game = Hoofden::new(&Options::default(), 2).expect("a game");
    for _ in 0..6 {
        let i = super::expectimax_choice(any.as_ref(), game.awaiting().seat().unwrap_or(B), 2, 500)
            .expect("a choice");
        assert_eq!(i, choice(&game, 500));
        let i = i.expect("a move");
        any.apply_move(&any.legal_moves().expect("moves")[i])
            .expect("a legal move");
        game.apply_move(&game.legal_moves()[i])
            .expect("a legal move");
    }
}

/// Plays random games through the engine, and checks after every move and every fight
/// that the search's model reached the same position, and before every move that it
/// ends the game where the engine does.
fn model_follows_engine(options: Options, seed: u64) {
    let mut rng = crate::playout::SplitMix64(seed);
    for _ in 0..20 {
        let mut game = Hoofden::new(&options, 2).expect("a game");
        let mut pos = Pos::of(&game);
        let mut pending: Option<(Move, Head, Head)> = None;
        let mut buffer = Vec::new();
        for _ in 0..2_000 {
            match game.awaiting() {
                crate::Awaiting::Finished { result } => {
                    pos.moves(&mut buffer);
                    let status = pos.status(&buffer);
                    match result.winner {
                        None => assert_eq!(status, Status::Draw),
                        Some(w) if w == pos.turn => assert_eq!(status, Status::Won),
                        Some(_) => assert_eq!(status, Status::Lost),
                    }
                    break;
                }
                crate::Awaiting::Dice { die, .. } => {
                    game.apply_dice(&[rng.roll(&die)]).expect("dice");
                    if game.fight().is_none() {
                        let (m, a, d) = pending.take().expect("a fight was on");
                        // One of the fight's ends leads to the engine's board.
                        let ends = fight_ends(a, d);
                        let end = ends
                            .iter()
                            .map(|(e, _)| *e)
                            .find(|e| pos.after_fight(&m, *e).board == *game.board());
                        let end = end.unwrap_or_else(|| panic!("{a} against {d}: {ends:?}"));
                        pos = pos.after_fight(&m, end);
                        assert_eq!(&pos.board, game.board());
                    }
                }
                crate::Awaiting::Move { seat } => {
                    assert_eq!(pos.turn, seat);
                    assert_eq!(pos.quiet, game.plies_without_fight());
                    let moves = game.legal_moves();
                    pos.moves(&mut buffer);
                    assert_eq!(buffer, moves);
                    assert_eq!(pos.status(&buffer), Status::Playing);
                    let m = moves[rng.below(moves.len())];
                    if pos.is_attack(&m) {
                        let heads = (pos.board.get(m.from), pos.board.get(m.to));
                        if let (Some(a), Some(d)) = heads {
                            pending = Some((m, a.head, d.head));
                        }
                    } else {
                        pos = pos.after_quiet(&m);
                    }
                    game.apply_move(&m).expect("a legal move");
                    if pending.is_none() {
                        assert_eq!(&pos.board, game.board());
                    }
                }
            }
        }
    }
}

#[test]
fn the_model_follows_the_engine_in_random_games() {
    model_follows_engine(Options::default(), 3);
    let forced = Options {
        forced_attack: true,
        ..Options::default()
    };
    model_follows_engine(forced, 4);
    let by_head = Options {
        movement: crate::hoofden::Movement::ByHead,
        forced_attack: false,
    };
    model_follows_engine(by_head, 5);
}
