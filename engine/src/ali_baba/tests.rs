//! One test per rule of RULES.md §3, each from chosen dice and moves (or a position set
//! up by hand), asserting the exact state after.

use serde_json::{json, Value};

use super::*;
use crate::{variant, Ending};

use Figure::{Lady, Officer, Robber};

fn fig(robber: u8, lady: u8, officer: u8) -> Option<Figures> {
    Some(Figures {
        robber: Position(robber),
        lady: Position(lady),
        officer: Position(officer),
    })
}

fn game(seats: u8, planks: u8) -> AliBaba {
    AliBaba::new(&Options { planks }, seats).unwrap()
}

/// A game of `seats` seats on `planks` planks whose roll-off `starter` won (it rolls a 6,
/// the others a 1).
fn started(seats: u8, planks: u8, starter: u8) -> AliBaba {
    let mut g = game(seats, planks);
    for s in 0..seats {
        g.apply_dice(&[if s == starter { 6 } else { 1 }]).unwrap();
    }
    assert_eq!(g.stage, roll_stage(starter, false));
    g
}

fn roll_stage(seat: u8, extra: bool) -> Stage {
    Stage::Roll {
        seat: Seat(seat),
        extra,
    }
}

fn move_stage(seat: u8, roll: u8, extra: bool) -> Stage {
    Stage::Move {
        seat: Seat(seat),
        roll,
        extra,
    }
}

fn m(figure: Figure, from: u8, to: u8) -> Move {
    Move {
        figure,
        from: Position(from),
        to: Position(to),
    }
}

fn roll(g: &mut AliBaba, value: u8) {
    g.apply_dice(&[value]).unwrap();
}

fn play(g: &mut AliBaba, figure: Figure, from: u8, to: u8) {
    g.apply_move(&m(figure, from, to)).unwrap();
}

/// Asserts the exact state: every seat's figures, the stage and the last roll.
fn check(g: &AliBaba, figures: &[Option<Figures>], stage: Stage, last_roll: Option<u8>) {
    assert_eq!(g.figures, figures);
    assert_eq!(g.stage, stage);
    assert_eq!(g.last_roll, last_roll);
    if !matches!(g.stage, Stage::Move { .. }) {
        assert!(g.legal_moves().is_empty());
    }
}

fn snapshot(g: &AliBaba) -> Value {
    serde_json::to_value(g).unwrap()
}

// --- Setup and options -------------------------------------------------------------

#[test]
fn every_seat_has_a_robber_a_lady_and_an_officer_on_the_near_bank() {
    let g = game(3, 6);
    check(
        &g,
        &[fig(0, 0, 0), fig(0, 0, 0), fig(0, 0, 0)],
        Stage::RollOff {
            roll_off: RollOff::new([Seat(0), Seat(1), Seat(2)]),
        },
        None,
    );
    assert_eq!(g.far_bank, Position(7));
}

#[test]
fn planks_default_is_six() {
    assert_eq!(Options::default(), Options { planks: 6 });
    let v = variant("ali_baba").unwrap();
    assert_eq!(v.default_options(), Ok(json!({"planks": 6})));
    let g = v.create(&Value::Null, 2).unwrap();
    assert_eq!(g.options(), Ok(json!({"planks": 6})));
    assert_eq!(g.state().unwrap()["far_bank"], json!(7));
    let g = v.create(&json!({}), 4).unwrap();
    assert_eq!(g.state().unwrap()["far_bank"], json!(7));
}

#[test]
fn planks_option_sets_the_length_of_the_bridge() {
    // One plank: the far bank is position 2, reached from the near bank with a 2 only.
    let mut g = started(2, 1, 0);
    assert_eq!(g.far_bank, Position(2));
    roll(&mut g, 3);
    check(
        &g,
        &[fig(0, 0, 0), fig(0, 0, 0)],
        roll_stage(1, false),
        Some(3),
    );
    roll(&mut g, 2);
    assert_eq!(
        g.legal_moves(),
        vec![m(Robber, 0, 2), m(Lady, 0, 2), m(Officer, 0, 2)]
    );
    play(&mut g, Lady, 0, 2);
    check(
        &g,
        &[fig(0, 0, 0), fig(0, 2, 0)],
        roll_stage(0, false),
        Some(2),
    );

    // Twenty planks: the far bank is 21.
    let mut g = started(2, 20, 1);
    assert_eq!(g.far_bank, Position(21));
    g.figures[1] = fig(19, 0, 0);
    roll(&mut g, 2);
    assert_eq!(
        g.legal_moves(),
        vec![m(Robber, 19, 21), m(Lady, 0, 2), m(Officer, 0, 2)]
    );
}

#[test]
fn planks_outside_one_to_twenty_are_refused() {
    for planks in [0, 21, 255] {
        let err = AliBaba::new(&Options { planks }, 2).unwrap_err();
        assert_eq!(
            err,
            EngineError::options(format!("planks must be between 1 and 20, not {planks}"))
        );
    }
    let v = variant("ali_baba").unwrap();
    for bad in [
        json!({"planks": 0}),
        json!({"planks": 21}),
        json!({"planks": -1}),
        json!({"planks": 300}),
        json!({"planks": "six"}),
        json!({"planks": 6, "bridge": 6}),
    ] {
        let err = v.create(&bad, 2).unwrap_err();
        assert!(
            matches!(err, EngineError::InvalidOptions { .. }),
            "{bad}: {err:?}"
        );
    }
    for seats in [0, 1, 5] {
        assert!(matches!(
            AliBaba::new(&Options::default(), seats),
            Err(EngineError::SeatCount { min: 2, max: 4, .. })
        ));
        assert!(matches!(
            v.create(&Value::Null, seats),
            Err(EngineError::SeatCount { .. })
        ));
    }
}

#[test]
fn the_die_shows_0_1_1_2_2_3() {
    assert_eq!(ALI_BABA_DIE.name, "ali_baba");
    assert_eq!(ALI_BABA_DIE.faces, &[0, 1, 1, 2, 2, 3]);
    let g = started(2, 6, 0);
    assert_eq!(
        g.awaiting(),
        Awaiting::Dice {
            seat: Seat(0),
            die: ALI_BABA_DIE,
            count: 1
        }
    );
}

// --- Who starts ----------------------------------------------------------------------

#[test]
fn who_starts_is_decided_by_a_roll_off_with_a_plain_d6() {
    let mut g = game(3, 6);
    assert_eq!(
        g.awaiting(),
        Awaiting::Dice {
            seat: Seat(0),
            die: Die::D6,
            count: 1
        }
    );
    roll(&mut g, 4);
    roll(&mut g, 6);
    roll(&mut g, 6);
    // Seats 1 and 2 tied highest: they roll again, in seat order.
    assert_eq!(g.awaiting().seat(), Some(Seat(1)));
    roll(&mut g, 2);
    assert_eq!(g.awaiting().seat(), Some(Seat(2)));
    roll(&mut g, 5);
    check(
        &g,
        &[fig(0, 0, 0), fig(0, 0, 0), fig(0, 0, 0)],
        roll_stage(2, false),
        None,
    );
}

#[test]
fn play_goes_round_in_seat_order_from_the_starter() {
    let mut g = started(3, 6, 1);
    roll(&mut g, 1);
    play(&mut g, Robber, 0, 1);
    assert_eq!(g.stage, roll_stage(2, false));
    roll(&mut g, 0);
    assert_eq!(g.stage, roll_stage(0, false));
    roll(&mut g, 2);
    play(&mut g, Officer, 0, 2);
    check(
        &g,
        &[fig(0, 0, 2), fig(1, 0, 0), fig(0, 0, 0)],
        roll_stage(1, false),
        Some(2),
    );
}

// --- Moving --------------------------------------------------------------------------

#[test]
fn a_figure_moves_exactly_the_roll_forward() {
    let mut g = started(2, 6, 0);
    roll(&mut g, 3);
    assert_eq!(g.awaiting(), Awaiting::Move { seat: Seat(0) });
    check(
        &g,
        &[fig(0, 0, 0), fig(0, 0, 0)],
        move_stage(0, 3, false),
        Some(3),
    );
    assert_eq!(
        g.legal_moves(),
        vec![m(Robber, 0, 3), m(Lady, 0, 3), m(Officer, 0, 3)]
    );
    play(&mut g, Lady, 0, 3);
    check(
        &g,
        &[fig(0, 3, 0), fig(0, 0, 0)],
        roll_stage(1, false),
        Some(3),
    );
}

#[test]
fn the_far_bank_needs_the_exact_number() {
    let mut g = started(2, 6, 0);
    g.figures[0] = fig(5, 0, 6);
    roll(&mut g, 2);
    // The officer on plank 6 would need a 1; the robber on plank 5 reaches the bank.
    assert_eq!(g.legal_moves(), vec![m(Robber, 5, 7), m(Lady, 0, 2)]);
    let before = snapshot(&g);
    assert_eq!(
        g.apply_move(&m(Officer, 6, 8)),
        Err(EngineError::illegal(
            "the officer at 6 cannot move 2: the far bank (7) needs the exact number"
        ))
    );
    assert_eq!(snapshot(&g), before);
    play(&mut g, Robber, 5, 7);
    check(
        &g,
        &[fig(7, 0, 6), fig(0, 0, 0)],
        roll_stage(1, false),
        Some(2),
    );
}

#[test]
fn a_roll_no_figure_can_use_is_lost_and_the_turn_passes() {
    let mut g = started(2, 6, 0);
    g.figures[0] = fig(5, 7, 6);
    roll(&mut g, 3);
    check(
        &g,
        &[fig(5, 7, 6), fig(0, 0, 0)],
        roll_stage(1, false),
        Some(3),
    );
}

#[test]
fn a_zero_is_lost_and_the_turn_passes() {
    let mut g = started(2, 6, 0);
    roll(&mut g, 0);
    check(
        &g,
        &[fig(0, 0, 0), fig(0, 0, 0)],
        roll_stage(1, false),
        Some(0),
    );
}

#[test]
fn figures_on_the_far_bank_move_no_more() {
    let mut g = started(2, 6, 1);
    g.figures[1] = fig(7, 7, 4);
    roll(&mut g, 1);
    assert_eq!(g.legal_moves(), vec![m(Officer, 4, 5)]);
    let before = snapshot(&g);
    assert_eq!(
        g.apply_move(&m(Robber, 7, 8)),
        Err(EngineError::illegal(
            "the robber is already on the far bank"
        ))
    );
    assert_eq!(snapshot(&g), before);
}

#[test]
fn a_single_legal_move_is_still_the_players_to_make() {
    let mut g = started(2, 6, 1);
    g.figures[1] = fig(7, 7, 4);
    roll(&mut g, 3);
    assert_eq!(g.awaiting(), Awaiting::Move { seat: Seat(1) });
    check(
        &g,
        &[fig(0, 0, 0), fig(7, 7, 4)],
        move_stage(1, 3, false),
        Some(3),
    );
    assert_eq!(g.legal_moves(), vec![m(Officer, 4, 7)]);
    play(&mut g, Officer, 4, 7);
    assert_eq!(
        g.stage,
        Stage::Finished {
            result: GameResult::won(Seat(1))
        }
    );
}

#[test]
fn any_number_of_figures_may_stand_on_a_plank() {
    let mut g = started(4, 6, 0);
    g.figures[1] = fig(3, 0, 3);
    g.figures[2] = fig(3, 3, 0);
    g.figures[3] = fig(3, 0, 0);
    g.figures[0] = fig(1, 3, 0);
    // A robber beats no robber and no officer; the lady of seat 2 is beaten.
    roll(&mut g, 2);
    play(&mut g, Robber, 1, 3);
    check(
        &g,
        &[fig(3, 3, 0), fig(3, 0, 3), fig(3, 0, 0), fig(3, 0, 0)],
        roll_stage(0, true),
        Some(2),
    );
    // Now: on plank 3 stand four robbers, seat 0's lady and seat 1's officer.
    roll(&mut g, 0);
    assert_eq!(g.stage, roll_stage(1, false));
}

// --- Beating ---------------------------------------------------------------------------

#[test]
fn the_officer_beats_the_robber() {
    let mut g = started(2, 6, 0);
    g.figures[1] = fig(2, 2, 2);
    roll(&mut g, 2);
    play(&mut g, Officer, 0, 2);
    check(
        &g,
        &[fig(0, 0, 2), fig(0, 2, 2)],
        roll_stage(0, true),
        Some(2),
    );
}

#[test]
fn the_robber_beats_the_lady() {
    let mut g = started(2, 6, 1);
    g.figures[0] = fig(3, 3, 3);
    g.figures[1] = fig(1, 0, 0);
    roll(&mut g, 2);
    play(&mut g, Robber, 1, 3);
    check(
        &g,
        &[fig(3, 0, 3), fig(3, 0, 0)],
        roll_stage(1, true),
        Some(2),
    );
}

#[test]
fn the_lady_beats_the_officer() {
    let mut g = started(2, 6, 0);
    g.figures[1] = fig(1, 1, 1);
    roll(&mut g, 1);
    play(&mut g, Lady, 0, 1);
    check(
        &g,
        &[fig(0, 1, 0), fig(1, 1, 0)],
        roll_stage(0, true),
        Some(1),
    );
}

#[test]
fn a_figure_that_meets_one_it_does_not_beat_beats_nothing() {
    // A lady arrives safely on a plank where a robber stands.
    let mut g = started(2, 6, 0);
    g.figures[1] = fig(2, 0, 0);
    roll(&mut g, 2);
    play(&mut g, Lady, 0, 2);
    check(
        &g,
        &[fig(0, 2, 0), fig(2, 0, 0)],
        roll_stage(1, false),
        Some(2),
    );
    // A robber arrives safely on a plank where an officer stands; the officer standing
    // there does not beat it either: only the moving figure beats.
    g.figures[0] = fig(0, 2, 3);
    roll(&mut g, 1);
    play(&mut g, Robber, 2, 3);
    check(
        &g,
        &[fig(0, 2, 3), fig(3, 0, 0)],
        roll_stage(0, false),
        Some(1),
    );
}

#[test]
fn figures_of_the_same_kind_do_not_beat_each_other() {
    let mut g = started(3, 6, 0);
    g.figures[1] = fig(1, 1, 1);
    g.figures[2] = fig(0, 0, 1);
    roll(&mut g, 1);
    play(&mut g, Officer, 0, 1);
    // Seat 1's robber is beaten; the officers of seats 1 and 2 stay.
    check(
        &g,
        &[fig(0, 0, 1), fig(0, 1, 1), fig(0, 0, 1)],
        roll_stage(0, true),
        Some(1),
    );
    // A robber meeting only robbers beats nothing.
    g.figures[1] = fig(2, 0, 0);
    roll(&mut g, 2);
    play(&mut g, Robber, 0, 2);
    check(
        &g,
        &[fig(2, 0, 1), fig(2, 0, 0), fig(0, 0, 1)],
        roll_stage(1, false),
        Some(2),
    );
}

#[test]
fn figures_of_the_same_colour_do_not_beat_each_other() {
    let mut g = started(2, 6, 0);
    g.figures[0] = fig(2, 1, 0);
    roll(&mut g, 2);
    play(&mut g, Officer, 0, 2);
    check(
        &g,
        &[fig(2, 1, 2), fig(0, 0, 0)],
        roll_stage(1, false),
        Some(2),
    );
    roll(&mut g, 0);
    roll(&mut g, 1);
    // Seat 0's lady joins its own robber and officer on plank 2: nothing happens.
    play(&mut g, Lady, 1, 2);
    check(
        &g,
        &[fig(2, 2, 2), fig(0, 0, 0)],
        roll_stage(1, false),
        Some(1),
    );
}

#[test]
fn one_move_beats_every_figure_of_other_colours_it_beats_on_the_plank() {
    // The rule book's example: a yellow lady comes onto a plank with a red and a blue
    // officer: both officers go back. Here also a green robber (not beaten by a lady)
    // and yellow's own officer (same colour) stand there.
    let mut g = started(4, 6, 0);
    g.figures[0] = fig(0, 1, 3);
    g.figures[1] = fig(0, 0, 3);
    g.figures[2] = fig(5, 0, 3);
    g.figures[3] = fig(3, 4, 0);
    roll(&mut g, 2);
    play(&mut g, Lady, 1, 3);
    check(
        &g,
        &[fig(0, 3, 3), fig(0, 0, 0), fig(5, 0, 0), fig(3, 4, 0)],
        roll_stage(0, true),
        Some(2),
    );
}

#[test]
fn passing_over_a_figure_beats_nothing() {
    let mut g = started(2, 6, 0);
    g.figures[1] = fig(1, 2, 0);
    roll(&mut g, 3);
    play(&mut g, Officer, 0, 3);
    check(
        &g,
        &[fig(0, 0, 3), fig(1, 2, 0)],
        roll_stage(1, false),
        Some(3),
    );
}

#[test]
fn the_banks_are_safe() {
    // The far bank: an officer arriving there beats no robber.
    let mut g = started(2, 6, 0);
    g.figures[0] = fig(0, 0, 5);
    g.figures[1] = fig(7, 0, 0);
    roll(&mut g, 2);
    play(&mut g, Officer, 5, 7);
    check(
        &g,
        &[fig(0, 0, 7), fig(7, 0, 0)],
        roll_stage(1, false),
        Some(2),
    );
    // The near bank: no move ends there, so the figures waiting there are never beaten.
    roll(&mut g, 1);
    assert!(g.legal_moves().iter().all(|mv| mv.to != Position(0)));
}

#[test]
fn a_beating_move_gives_one_extra_roll() {
    let mut g = started(2, 6, 0);
    g.figures[1] = fig(1, 0, 0);
    roll(&mut g, 1);
    play(&mut g, Officer, 0, 1);
    assert_eq!(
        g.awaiting(),
        Awaiting::Dice {
            seat: Seat(0),
            die: ALI_BABA_DIE,
            count: 1
        }
    );
    check(
        &g,
        &[fig(0, 0, 1), fig(0, 0, 0)],
        roll_stage(0, true),
        Some(1),
    );
    roll(&mut g, 2);
    check(
        &g,
        &[fig(0, 0, 1), fig(0, 0, 0)],
        move_stage(0, 2, true),
        Some(2),
    );
    play(&mut g, Robber, 0, 2);
    // That move beat nothing: no further roll.
    check(
        &g,
        &[fig(2, 0, 1), fig(0, 0, 0)],
        roll_stage(1, false),
        Some(2),
    );
}

#[test]
fn extra_rolls_chain_without_limit() {
    let mut g = started(2, 6, 0);
    g.figures[1] = fig(1, 2, 3);
    roll(&mut g, 1);
    play(&mut g, Officer, 0, 1); // beats the robber on 1
    assert_eq!(g.stage, roll_stage(0, true));
    roll(&mut g, 2);
    play(&mut g, Robber, 0, 2); // beats the lady on 2
    assert_eq!(g.stage, roll_stage(0, true));
    roll(&mut g, 3);
    play(&mut g, Lady, 0, 3); // beats the officer on 3
    check(
        &g,
        &[fig(2, 3, 1), fig(0, 0, 0)],
        roll_stage(0, true),
        Some(3),
    );
    g.figures[1] = fig(0, 0, 4);
    roll(&mut g, 1);
    play(&mut g, Lady, 3, 4); // and once more
    check(
        &g,
        &[fig(2, 4, 1), fig(0, 0, 0)],
        roll_stage(0, true),
        Some(1),
    );
    roll(&mut g, 1);
    play(&mut g, Lady, 4, 5);
    check(
        &g,
        &[fig(2, 5, 1), fig(0, 0, 0)],
        roll_stage(1, false),
        Some(1),
    );
}

#[test]
fn a_lost_extra_roll_ends_the_turn() {
    // A 0 as the extra roll.
    let mut g = started(2, 6, 0);
    g.figures[1] = fig(2, 0, 0);
    roll(&mut g, 2);
    play(&mut g, Officer, 0, 2);
    roll(&mut g, 0);
    check(
        &g,
        &[fig(0, 0, 2), fig(0, 0, 0)],
        roll_stage(1, false),
        Some(0),
    );
    // An extra roll no figure can use.
    let mut g = started(2, 6, 0);
    g.figures[0] = fig(7, 5, 6);
    g.figures[1] = fig(0, 0, 6);
    roll(&mut g, 1);
    play(&mut g, Lady, 5, 6);
    check(
        &g,
        &[fig(7, 6, 6), fig(0, 0, 0)],
        roll_stage(0, true),
        Some(1),
    );
    roll(&mut g, 3);
    check(
        &g,
        &[fig(7, 6, 6), fig(0, 0, 0)],
        roll_stage(1, false),
        Some(3),
    );
}

#[test]
fn the_first_seat_with_all_three_figures_on_the_far_bank_wins() {
    let mut g = started(3, 6, 2);
    g.figures[0] = fig(7, 7, 6);
    g.figures[2] = fig(7, 5, 7);
    roll(&mut g, 2);
    play(&mut g, Lady, 5, 7);
    let result = GameResult::won(Seat(2));
    check(
        &g,
        &[fig(7, 7, 6), fig(0, 0, 0), fig(7, 7, 7)],
        Stage::Finished {
            result: result.clone(),
        },
        Some(2),
    );
    assert_eq!(g.awaiting(), Awaiting::Finished { result });
    assert_eq!(g.apply_dice(&[1]), Err(EngineError::Finished));
    assert_eq!(g.apply_move(&m(Officer, 6, 7)), Err(EngineError::Finished));
    assert_eq!(g.retire(Seat(0)), Err(EngineError::Finished));
}

// --- Refused input -----------------------------------------------------------------------

#[test]
fn an_impossible_die_value_is_refused_and_the_game_is_unchanged() {
    let mut g = game(2, 6);
    let before = snapshot(&g);
    assert_eq!(
        g.apply_dice(&[0]),
        Err(EngineError::ImpossibleDieValue {
            die: "d6",
            value: 0
        })
    );
    assert_eq!(snapshot(&g), before);
    let mut g = started(2, 6, 0);
    let before = snapshot(&g);
    for value in [4, 5, 6] {
        assert_eq!(
            g.apply_dice(&[value]),
            Err(EngineError::ImpossibleDieValue {
                die: "ali_baba",
                value
            })
        );
    }
    assert_eq!(
        g.apply_dice(&[1, 2]),
        Err(EngineError::DiceCount {
            expected: 1,
            got: 2
        })
    );
    assert_eq!(
        g.apply_dice(&[]),
        Err(EngineError::DiceCount {
            expected: 1,
            got: 0
        })
    );
    assert_eq!(snapshot(&g), before);
    assert_eq!(g.stage, roll_stage(0, false));
}

#[test]
fn an_illegal_move_is_refused_and_the_game_is_unchanged() {
    let mut g = started(2, 6, 0);
    assert_eq!(
        g.apply_move(&m(Robber, 0, 1)),
        Err(EngineError::NotAwaitingMove)
    );
    g.figures[0] = fig(2, 0, 0);
    roll(&mut g, 2);
    let before = snapshot(&g);
    assert_eq!(g.apply_dice(&[1]), Err(EngineError::NotAwaitingDice));
    assert_eq!(
        g.apply_move(&m(Robber, 2, 3)),
        Err(EngineError::illegal(
            "the roll is 2: the robber at 2 goes to 4, not to 3"
        ))
    );
    assert_eq!(
        g.apply_move(&m(Robber, 0, 2)),
        Err(EngineError::illegal("the robber stands at 2, not at 0"))
    );
    let mut any: Box<dyn crate::AnyGame> = Box::new(g.clone());
    for bad in [
        json!({"figure": "king", "from": 0, "to": 2}),
        json!({"figure": "lady"}),
        json!({"figure": "lady", "from": 0, "to": 2, "capture": true}),
        json!("lady"),
    ] {
        assert!(matches!(
            any.apply_move(&bad),
            Err(EngineError::MalformedMove { .. })
        ));
    }
    assert_eq!(any.state(), Ok(before.clone()));
    assert_eq!(snapshot(&g), before);
    any.apply_move(&json!({"figure": "lady", "from": 0, "to": 2}))
        .unwrap();
    assert_eq!(
        any.state().unwrap()["figures"][0],
        json!({"robber": 2, "lady": 2, "officer": 0})
    );
}

// --- Retiring --------------------------------------------------------------------------

#[test]
fn retiring_in_a_two_seat_game_makes_the_other_seat_win() {
    let mut g = started(2, 6, 0);
    roll(&mut g, 1);
    g.retire(Seat(0)).unwrap();
    check(
        &g,
        &[None, fig(0, 0, 0)],
        Stage::Finished {
            result: GameResult::last_seat_standing(Seat(1)),
        },
        Some(1),
    );
    assert!(matches!(
        g.awaiting(),
        Awaiting::Finished {
            result: GameResult {
                winner: Some(Seat(1)),
                ending: Ending::OpponentsRetired,
                points: 1,
                ..
            }
        }
    ));
    assert!(g.legal_moves().is_empty());
}

#[test]
fn a_retired_seats_figures_leave_the_board_and_its_turns_are_skipped() {
    let mut g = started(3, 6, 0);
    g.figures[1] = fig(2, 0, 0);
    g.retire(Seat(1)).unwrap();
    check(
        &g,
        &[fig(0, 0, 0), None, fig(0, 0, 0)],
        roll_stage(0, false),
        None,
    );
    // The officer lands where seat 1's robber stood: nothing there to beat.
    roll(&mut g, 2);
    play(&mut g, Officer, 0, 2);
    check(
        &g,
        &[fig(0, 0, 2), None, fig(0, 0, 0)],
        roll_stage(2, false),
        Some(2),
    );
    roll(&mut g, 0);
    assert_eq!(g.stage, roll_stage(0, false));
    assert_eq!(g.retire(Seat(1)), Err(EngineError::NoSuchSeat { seat: 1 }));
    assert_eq!(g.retire(Seat(3)), Err(EngineError::NoSuchSeat { seat: 3 }));
    assert_eq!(g.stage, roll_stage(0, false));
}

#[test]
fn retiring_the_seat_to_move_passes_the_turn() {
    let mut g = started(3, 6, 2);
    roll(&mut g, 2);
    assert_eq!(g.stage, move_stage(2, 2, false));
    g.retire(Seat(2)).unwrap();
    check(
        &g,
        &[fig(0, 0, 0), fig(0, 0, 0), None],
        roll_stage(0, false),
        Some(2),
    );
    assert!(g.legal_moves().is_empty());
    // In the middle of an extra-roll chain, too.
    let mut g = started(3, 6, 0);
    g.figures[1] = fig(1, 0, 0);
    roll(&mut g, 1);
    play(&mut g, Officer, 0, 1);
    assert_eq!(g.stage, roll_stage(0, true));
    g.retire(Seat(0)).unwrap();
    check(
        &g,
        &[None, fig(0, 0, 0), fig(0, 0, 0)],
        roll_stage(1, false),
        Some(1),
    );
}

#[test]
fn retiring_during_the_roll_off() {
    // Seat 2 leaves before its roll: seat 0 rolled highest among those left.
    let mut g = game(3, 6);
    roll(&mut g, 6);
    roll(&mut g, 2);
    g.retire(Seat(2)).unwrap();
    check(
        &g,
        &[fig(0, 0, 0), fig(0, 0, 0), None],
        roll_stage(0, false),
        None,
    );
    // Seats 0 and 1 tied: they roll again.
    let mut g = game(3, 6);
    roll(&mut g, 6);
    roll(&mut g, 6);
    g.retire(Seat(2)).unwrap();
    check(
        &g,
        &[fig(0, 0, 0), fig(0, 0, 0), None],
        Stage::RollOff {
            roll_off: RollOff::new([Seat(0), Seat(1)]),
        },
        None,
    );
    roll(&mut g, 3);
    roll(&mut g, 4);
    assert_eq!(g.stage, roll_stage(1, false));
}

// --- The state as JSON -------------------------------------------------------------------

#[test]
fn the_state_reads_in_game_terms() {
    let mut g = started(3, 6, 1);
    g.figures[2] = fig(7, 3, 0);
    roll(&mut g, 2);
    assert_eq!(
        snapshot(&g),
        json!({
            "options": {"planks": 6},
            "far_bank": 7,
            "figures": [
                {"robber": 0, "lady": 0, "officer": 0},
                {"robber": 0, "lady": 0, "officer": 0},
                {"robber": 7, "lady": 3, "officer": 0}
            ],
            "stage": {"kind": "move", "seat": 1, "roll": 2, "extra": false},
            "last_roll": 2
        })
    );
    assert_eq!(
        serde_json::to_value(g.legal_moves()).unwrap(),
        json!([
            {"figure": "robber", "from": 0, "to": 2},
            {"figure": "lady", "from": 0, "to": 2},
            {"figure": "officer", "from": 0, "to": 2}
        ])
    );
    g.retire(Seat(0)).unwrap();
    assert_eq!(snapshot(&g)["figures"][0], Value::Null);
    let g = game(2, 6);
    assert_eq!(
        snapshot(&g)["stage"],
        json!({"kind": "roll_off", "roll_off": {"contenders": [0, 1], "rolls": []}})
    );
    // The schemas build.
    let schemas = variant("ali_baba").unwrap().schemas();
    assert!(!schemas.components.is_empty());
}

// --- Rebuilt from the state ------------------------------------------------------------

fn rebuilt(g: &AliBaba) -> AliBaba {
    let text = serde_json::to_string(g).unwrap();
    AliBaba::from_state(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn a_game_on_a_short_bridge_rebuilt_after_a_beating_keeps_its_bridge_and_extra_roll() {
    // Three planks: the far bank is 4, and only the exact number reaches it.
    let mut g = started(3, 3, 0);
    g.figures[0] = fig(0, 2, 3);
    g.figures[2] = fig(1, 1, 1);
    roll(&mut g, 1);
    play(&mut g, Officer, 3, 4);
    roll(&mut g, 1);
    play(&mut g, Robber, 0, 1); // Seat 1's robber beats seat 2's lady on plank 1.
    assert_eq!(g.stage, roll_stage(1, true));
    let mut r = rebuilt(&g);
    assert_eq!(r.bridge(), Bridge::new(3).unwrap());
    assert_eq!(snapshot(&r), snapshot(&g));
    // The extra roll, a 3, on the rebuilt game as on the original: the robber on plank 1
    // reaches the far bank (4) exactly, the figures on the near bank plank 3.
    for game in [&mut g, &mut r] {
        roll(game, 3);
    }
    assert_eq!(r.stage, move_stage(1, 3, true));
    assert_eq!(r.legal_moves(), g.legal_moves());
    assert_eq!(
        r.legal_moves(),
        vec![m(Robber, 1, 4), m(Lady, 0, 3), m(Officer, 0, 3)]
    );
    // Seat 2 loses a 0; seat 0's lady on plank 2 cannot use a 3: the far bank needs a 2.
    for game in [&mut g, &mut r] {
        play(game, Robber, 1, 4);
        roll(game, 0);
        roll(game, 3);
    }
    let mut r = rebuilt(&g);
    assert_eq!(r.stage, move_stage(0, 3, false));
    assert_eq!(r.legal_moves(), vec![m(Robber, 0, 3)]);
    let refused = r.apply_move(&m(Lady, 2, 5)).unwrap_err();
    assert!(
        refused.to_string().contains("needs the exact number"),
        "{refused}"
    );
    assert_eq!(refused, g.apply_move(&m(Lady, 2, 5)).unwrap_err());
}

#[test]
fn a_state_no_game_could_be_in_is_refused_with_a_reason() {
    let good = snapshot(&started(3, 6, 0));
    let refused = |change: &dyn Fn(&mut Value)| {
        let mut state = good.clone();
        change(&mut state);
        let e = AliBaba::from_state(&state.to_string())
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("unreadable state"), "{e}");
        e
    };
    assert!(refused(&|s| s["far_bank"] = json!(9)).contains("far bank"));
    assert!(refused(&|s| s["options"]["planks"] = json!(0)).contains("planks"));
    assert!(refused(&|s| s["figures"][1]["lady"] = json!(8)).contains("beyond"));
    assert!(refused(&|s| s["figures"] = json!([null, null, null])).contains("two seats"));
    assert!(
        refused(&|s| s["stage"] = json!({"kind": "roll", "seat": 3, "extra": false}))
            .contains("not playing")
    );
    assert!(refused(&|s| {
        s["figures"][2] = Value::Null;
        s["stage"] = json!({"kind": "roll_off", "roll_off": {"contenders": [0, 2], "rolls": [5]}});
    })
    .contains("not playing"));
    assert!(refused(&|s| {
        s["stage"] =
            json!({"kind": "roll_off", "roll_off": {"contenders": [0, 1], "rolls": [5, 4]}});
    })
    .contains("roll-off"));
    assert!(refused(&|s| {
        s["stage"] = json!({"kind": "move", "seat": 0, "roll": 0, "extra": false});
        s["last_roll"] = json!(0);
    })
    .contains("moves no figure"));
    assert!(refused(&|s| s["last_roll"] = json!(4)).contains("last roll"));
    assert!(refused(&|s| s["colour"] = json!(1)).contains("colour"));
}
