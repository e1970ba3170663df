//! One test per rule of RULES.md §5 (and the shared conventions Ludo uses), each from
//! chosen dice and moves or a set-up position, asserting the exact state after.

use serde_json::json;

use super::*;
use crate::{Ending, Game};

// ---------------------------------------------------------------------------------------
// Helpers

fn options(die: DieKind, pawns: u8) -> Options {
    Options {
        die,
        pawns,
        colours: None,
    }
}

/// A game after a roll-off that `starter` won (it rolls 6, every other seat 1).
fn started(seats: u8, die: DieKind, pawns: u8, starter: u8) -> Ludo {
    let mut g = Ludo::new(&options(die, pawns), seats).expect("valid options");
    for s in 0..seats {
        g.apply_dice(&[if s == starter { 6 } else { 1 }])
            .expect("roll-off roll");
    }
    assert_eq!(g.turn, roll_turn(starter));
    g
}

/// Puts `pawn` of `seat` on `field` counted from its own start (56: home).
fn put(g: &mut Ludo, seat: usize, pawn: u8, field: u8) {
    let colour = g.seats[seat].colour;
    g.seats[seat]
        .pawns
        .set(PawnId(pawn), Place::counted(colour, Field(field)));
}

/// The places of a seat's pawns.
fn places(g: &Ludo, seat: usize) -> Vec<Place> {
    g.seats[seat].pawns.places().to_vec()
}

fn track(g: &Ludo, seat: usize, field: u8) -> Place {
    Place::counted(g.seats[seat].colour, Field(field))
}

fn mv(pawn: u8, to: u8) -> Move {
    Move::Move {
        pawn: PawnId(pawn),
        to: Field(to),
    }
}

fn enter(pawn: u8) -> Move {
    Move::Enter { pawn: PawnId(pawn) }
}

fn home(pawn: u8) -> Move {
    Move::Home { pawn: PawnId(pawn) }
}

fn move_turn(seat: u8, roll: u8, extra_roll: bool) -> Turn {
    Turn::Move {
        seat: Seat(seat),
        roll,
        extra_roll,
    }
}

fn roll_turn(seat: u8) -> Turn {
    Turn::Roll {
        seat: Seat(seat),
        extra_roll: false,
    }
}

fn extra_roll_turn(seat: u8) -> Turn {
    Turn::Roll {
        seat: Seat(seat),
        extra_roll: true,
    }
}

const YARD: Place = Place::Yard;

// ---------------------------------------------------------------------------------------
// Shared conventions: who starts, turn order, compulsory moves, one choice per result

#[test]
fn who_starts_is_rolled_off_with_the_plain_die_even_with_the_special_die() {
    let mut g = Ludo::new(&Options::default(), 3).unwrap();
    for (seat, value) in [(0, 5), (1, 5), (2, 2), (0, 3)] {
        match g.awaiting() {
            Awaiting::Dice {
                seat: s,
                die,
                count,
            } => {
                assert_eq!((s, die, count), (Seat(seat), Die::D6, 1));
            }
            other => panic!("expected the roll-off, got {other:?}"),
        }
        g.apply_dice(&[value]).unwrap();
    }
    // Seats 0 and 1 tied on 5; seat 0 rolled 3, now seat 1 rolls 4 and starts.
    g.apply_dice(&[4]).unwrap();
    assert_eq!(g.turn, roll_turn(1));
    assert_eq!(
        g.awaiting(),
        Awaiting::Dice {
            seat: Seat(1),
            die: SPECIAL_DIE,
            count: 1
        }
    );
    assert_eq!(
        g.last_roll,
        Some(Roll {
            seat: Seat(1),
            value: 4,
            symbol: None,
            roll_off: true
        })
    );
}

#[test]
fn turns_go_round_in_seat_order() {
    let mut g = started(3, DieKind::Special, 4, 1);
    // Nobody can use a 4 with every pawn in the yard: the turn passes 1 → 2 → 0 → 1.
    for next in [2, 0, 1] {
        g.apply_dice(&[4]).unwrap();
        assert_eq!(g.turn, roll_turn(next));
    }
}

#[test]
fn a_roll_no_pawn_can_use_is_lost_and_the_turn_passes() {
    let mut g = started(2, DieKind::Special, 4, 0);
    g.apply_dice(&[STAR]).unwrap();
    assert_eq!(g.turn, roll_turn(1));
    assert_eq!(places(&g, 0), vec![YARD; 4]);
    assert_eq!(
        g.last_roll,
        Some(Roll {
            seat: Seat(0),
            value: STAR,
            symbol: Some(Symbol::Star),
            roll_off: false
        })
    );
    assert!(g.legal_moves().is_empty());
}

#[test]
fn a_player_never_passes_with_a_legal_move_even_exactly_one() {
    let mut g = started(2, DieKind::Special, 1, 0);
    put(&mut g, 0, 0, 10);
    g.apply_dice(&[1]).unwrap();
    assert_eq!(g.turn, move_turn(0, 1, false));
    assert_eq!(g.legal_moves(), vec![mv(0, 11)]);
    assert_eq!(g.apply_dice(&[1]), Err(EngineError::NotAwaitingDice));
}

#[test]
fn pawns_in_the_yard_are_interchangeable_one_entry_per_result() {
    let mut g = started(2, DieKind::Special, 4, 0);
    g.apply_dice(&[GLOBE]).unwrap();
    assert_eq!(g.legal_moves(), vec![enter(0)]);
    // Naming another yard pawn is refused with the reason, and changes nothing.
    let before = serde_json::to_value(&g).unwrap();
    let err = g.apply_move(&enter(2)).unwrap_err();
    assert!(
        matches!(err, EngineError::IllegalMove { ref reason } if reason.contains("name pawn 0"))
    );
    assert_eq!(serde_json::to_value(&g).unwrap(), before);
}

#[test]
fn stacked_pawns_are_interchangeable_one_entry_per_result() {
    let mut g = started(2, DieKind::Special, 4, 0);
    put(&mut g, 0, 1, 5);
    put(&mut g, 0, 3, 5);
    put(&mut g, 0, 2, 9);
    g.apply_dice(&[2]).unwrap();
    assert_eq!(g.legal_moves(), vec![mv(1, 7), mv(2, 11)]);
    g.apply_move(&mv(1, 7)).unwrap();
    assert_eq!(
        places(&g, 0),
        vec![YARD, track(&g, 0, 7), track(&g, 0, 9), track(&g, 0, 5)]
    );
    assert_eq!(g.turn, roll_turn(1));
}

// ---------------------------------------------------------------------------------------
// Board: colours, starts

#[test]
fn default_colours_two_seats_opposite_three_seats_0_1_2_four_seats_all() {
    let colours = |seats| {
        let g = Ludo::new(&Options::default(), seats).unwrap();
        g.seats.iter().map(|p| p.colour.0).collect::<Vec<_>>()
    };
    assert_eq!(colours(2), vec![0, 2]);
    assert_eq!(colours(3), vec![0, 1, 2]);
    assert_eq!(colours(4), vec![0, 1, 2, 3]);
    let g = Ludo::new(&Options::default(), 2).unwrap();
    assert_eq!(g.options.colours, Some(vec![Colour(0), Colour(2)]));
}

#[test]
fn colour_c_starts_on_track_field_13c_and_counts_from_there() {
    let opts = Options {
        colours: Some(vec![Colour(3), Colour(1)]),
        ..Options::default()
    };
    let mut g = Ludo::new(&opts, 2).unwrap();
    g.apply_dice(&[6]).unwrap();
    g.apply_dice(&[1]).unwrap();
    g.apply_dice(&[GLOBE]).unwrap();
    g.apply_move(&enter(0)).unwrap();
    assert_eq!(
        places(&g, 0)[0],
        Place::Track {
            field: Field(0),
            track_field: TrackField(39)
        }
    );
    // Colour 3's field 20 is track field (39 + 20) mod 52 = 7.
    put(&mut g, 0, 0, 20);
    assert_eq!(places(&g, 0)[0].track_field(), Some(TrackField(7)));
    // Colour 1's field 50 is track field 63 mod 52 = 11.
    put(&mut g, 1, 0, 50);
    assert_eq!(places(&g, 1)[0].track_field(), Some(TrackField(11)));
}

#[test]
fn the_colours_option_gives_each_seat_its_colour() {
    let opts = Options {
        colours: Some(vec![Colour(2), Colour(0), Colour(1)]),
        ..Options::default()
    };
    let g = Ludo::new(&opts, 3).unwrap();
    let colours: Vec<u8> = g.seats.iter().map(|p| p.colour.0).collect();
    assert_eq!(colours, vec![2, 0, 1]);
}

#[test]
fn the_pawns_option_sets_the_pawns_per_seat() {
    for pawns in 1..=4 {
        let g = Ludo::new(&options(DieKind::Plain, pawns), 4).unwrap();
        for p in &g.seats {
            assert_eq!(p.pawns.places(), vec![YARD; usize::from(pawns)].as_slice());
        }
    }
}

// ---------------------------------------------------------------------------------------
// The special die

#[test]
fn the_special_die_shows_globe_for_3_and_star_for_5() {
    assert_eq!(SPECIAL_DIE.faces, &[1, 2, 3, 4, 5, 6]);
    assert_eq!(SPECIAL_DIE.labels, &["1", "2", "globe", "4", "star", "6"]);
    assert_eq!(DieKind::Special.die(), SPECIAL_DIE);
    assert_eq!(DieKind::Plain.die(), Die::D6);
}

#[test]
fn a_globe_enters_a_pawn_from_the_yard_on_the_start_globe() {
    let mut g = started(2, DieKind::Special, 2, 0);
    g.apply_dice(&[GLOBE]).unwrap();
    assert_eq!(g.turn, move_turn(0, GLOBE, true));
    g.apply_move(&enter(0)).unwrap();
    assert_eq!(places(&g, 0), vec![track(&g, 0, 0), YARD]);
    assert_eq!(g.turn, extra_roll_turn(0));
}

#[test]
fn only_a_globe_enters_with_the_special_die() {
    for roll in [1, 2, 4, STAR, 6] {
        let mut g = started(2, DieKind::Special, 4, 0);
        g.apply_dice(&[roll]).unwrap();
        assert_eq!(g.turn, roll_turn(1), "roll {roll}");
        assert_eq!(places(&g, 0), vec![YARD; 4]);
    }
}

#[test]
fn a_globe_moves_a_track_pawn_to_the_next_globe_passing_stars() {
    let mut g = started(2, DieKind::Special, 1, 0);
    put(&mut g, 0, 0, 14); // passes the star on 17
    g.apply_dice(&[GLOBE]).unwrap();
    assert_eq!(g.legal_moves(), vec![mv(0, 21)]);
    g.apply_move(&mv(0, 21)).unwrap();
    assert_eq!(places(&g, 0), vec![track(&g, 0, 21)]);
    assert_eq!(g.turn, extra_roll_turn(0));
}

#[test]
fn a_globe_offers_entering_or_moving_to_the_next_globe() {
    let mut g = started(2, DieKind::Special, 2, 0);
    put(&mut g, 0, 0, 0);
    g.apply_dice(&[GLOBE]).unwrap();
    assert_eq!(g.legal_moves(), vec![mv(0, 8), enter(1)]);
    g.apply_move(&enter(1)).unwrap();
    // Own pawns stack on the start globe.
    assert_eq!(places(&g, 0), vec![track(&g, 0, 0), track(&g, 0, 0)]);
}

#[test]
fn a_pawn_on_47_48_or_49_cannot_use_a_globe() {
    for field in [47, 48, 49] {
        let mut g = started(2, DieKind::Special, 1, 0);
        put(&mut g, 0, 0, field);
        g.apply_dice(&[GLOBE]).unwrap();
        // Unusable, but the globe still gives the extra roll.
        assert_eq!(g.turn, extra_roll_turn(0), "field {field}");
        assert_eq!(places(&g, 0), vec![track(&g, 0, field)]);
    }
}

#[test]
fn a_globe_takes_a_pawn_on_50_home() {
    let mut g = started(2, DieKind::Special, 2, 0);
    put(&mut g, 0, 0, 50);
    put(&mut g, 0, 1, 30);
    g.apply_dice(&[GLOBE]).unwrap();
    assert_eq!(g.legal_moves(), vec![home(0), mv(1, 34)]);
    g.apply_move(&home(0)).unwrap();
    assert_eq!(places(&g, 0), vec![Place::Home, track(&g, 0, 30)]);
    assert_eq!(g.turn, extra_roll_turn(0));
}

#[test]
fn every_globe_gives_an_extra_roll_even_one_that_cannot_be_used() {
    let mut g = started(2, DieKind::Special, 1, 0);
    put(&mut g, 0, 0, 48);
    g.apply_dice(&[GLOBE]).unwrap();
    assert_eq!(g.turn, extra_roll_turn(0));
    assert!(g.legal_moves().is_empty());
}

#[test]
fn extra_rolls_are_unlimited() {
    let mut g = started(2, DieKind::Special, 4, 0);
    for i in 0..4u8 {
        g.apply_dice(&[GLOBE]).unwrap();
        assert_eq!(g.turn, move_turn(0, GLOBE, true));
        g.apply_move(&enter(i)).unwrap();
        assert_eq!(g.turn, extra_roll_turn(0));
    }
    // With all four on 0, more globes still roll again.
    for _ in 0..3 {
        g.apply_dice(&[GLOBE]).unwrap();
        g.apply_move(&g.legal_moves()[0]).unwrap();
        assert_eq!(g.turn, extra_roll_turn(0));
    }
}

#[test]
fn a_star_moves_a_pawn_to_the_next_star_ahead() {
    let mut g = started(2, DieKind::Special, 1, 0);
    put(&mut g, 0, 0, 1);
    g.apply_dice(&[STAR]).unwrap();
    assert_eq!(g.turn, move_turn(0, STAR, false));
    g.apply_move(&mv(0, 4)).unwrap();
    assert_eq!(places(&g, 0), vec![track(&g, 0, 4)]);
    assert_eq!(g.turn, roll_turn(1));
}

#[test]
fn a_star_cannot_pass_a_globe() {
    let mut g = started(2, DieKind::Special, 1, 0);
    put(&mut g, 0, 0, 5); // next star 11, globe 8 between
    g.apply_dice(&[STAR]).unwrap();
    assert_eq!(g.turn, roll_turn(1));
    assert_eq!(places(&g, 0), vec![track(&g, 0, 5)]);
}

#[test]
fn leaving_a_globe_with_a_star_is_not_passing_it() {
    let mut g = started(2, DieKind::Special, 1, 0);
    put(&mut g, 0, 0, 13);
    g.apply_dice(&[STAR]).unwrap();
    g.apply_move(&mv(0, 17)).unwrap();
    assert_eq!(places(&g, 0), vec![track(&g, 0, 17)]);
}

#[test]
fn a_star_takes_a_pawn_on_47_48_or_49_to_50_but_not_from_50() {
    let mut g = started(2, DieKind::Special, 2, 0);
    put(&mut g, 0, 0, 48);
    put(&mut g, 0, 1, 50);
    g.apply_dice(&[STAR]).unwrap();
    assert_eq!(g.legal_moves(), vec![mv(0, 50)]);
    g.apply_move(&mv(0, 50)).unwrap();
    assert_eq!(places(&g, 0), vec![track(&g, 0, 50), track(&g, 0, 50)]);
}

#[test]
fn numbers_move_that_many_fields_never_past_50() {
    let mut g = started(2, DieKind::Special, 3, 0);
    put(&mut g, 0, 0, 45);
    put(&mut g, 0, 1, 47);
    put(&mut g, 0, 2, 50);
    g.apply_dice(&[4]).unwrap();
    // 45 + 4 = 49 is fine; 47 + 4 passes 50; a pawn on 50 cannot move by numbers.
    assert_eq!(g.legal_moves(), vec![mv(0, 49)]);
    g.apply_move(&mv(0, 49)).unwrap();
    assert_eq!(
        places(&g, 0),
        vec![track(&g, 0, 49), track(&g, 0, 47), track(&g, 0, 50)]
    );
}

#[test]
fn a_six_gives_no_extra_roll_with_the_special_die() {
    let mut g = started(2, DieKind::Special, 1, 0);
    put(&mut g, 0, 0, 2);
    g.apply_dice(&[6]).unwrap();
    assert_eq!(g.turn, move_turn(0, 6, false));
    g.apply_move(&mv(0, 8)).unwrap();
    assert_eq!(g.turn, roll_turn(1));
    assert_eq!(places(&g, 0), vec![track(&g, 0, 8)]);
}

#[test]
fn home_needs_exactly_50_then_a_globe() {
    let mut g = started(2, DieKind::Special, 1, 0);
    put(&mut g, 0, 0, 48);
    g.apply_dice(&[4]).unwrap(); // 52 would pass 50
    assert_eq!(g.turn, roll_turn(1));
    g.apply_dice(&[1]).unwrap(); // seat 1 has nothing on the board
    g.apply_dice(&[2]).unwrap();
    g.apply_move(&mv(0, 50)).unwrap();
    assert_eq!(g.turn, roll_turn(1));
    g.apply_dice(&[1]).unwrap();
    g.apply_dice(&[GLOBE]).unwrap();
    assert_eq!(g.legal_moves(), vec![home(0)]);
    g.apply_move(&home(0)).unwrap();
    assert_eq!(places(&g, 0), vec![Place::Home]);
    assert_eq!(
        g.turn,
        Turn::Finished {
            result: GameResult::won(Seat(0))
        }
    );
}

/// The globe target of every field 0..=50, written out by hand: `H` is home, `-` none.
#[test]
fn the_globe_table_for_every_field() {
    const N: Option<u8> = None;
    const H: Option<u8> = Some(56);
    #[rustfmt::skip]
    let table: [Option<u8>; 51] = [
        // 0..=7 → 8
        Some(8), Some(8), Some(8), Some(8), Some(8), Some(8), Some(8), Some(8),
        // 8..=12 → 13
        Some(13), Some(13), Some(13), Some(13), Some(13),
        // 13..=20 → 21
        Some(21), Some(21), Some(21), Some(21), Some(21), Some(21), Some(21), Some(21),
        // 21..=25 → 26
        Some(26), Some(26), Some(26), Some(26), Some(26),
        // 26..=33 → 34
        Some(34), Some(34), Some(34), Some(34), Some(34), Some(34), Some(34), Some(34),
        // 34..=38 → 39
        Some(39), Some(39), Some(39), Some(39), Some(39),
        // 39..=46 → 47
        Some(47), Some(47), Some(47), Some(47), Some(47), Some(47), Some(47), Some(47),
        // 47, 48, 49: none; 50: home
        N, N, N, H,
    ];
    for (field, expected) in table.iter().enumerate() {
        let field = field as u8;
        let mut g = started(2, DieKind::Special, 1, 0);
        put(&mut g, 0, 0, field);
        g.apply_dice(&[GLOBE]).unwrap();
        let expected_moves = match *expected {
            None => vec![],
            Some(56) => vec![home(0)],
            Some(to) => vec![mv(0, to)],
        };
        assert_eq!(g.legal_moves(), expected_moves, "globe from field {field}");
        let expected_turn = if expected.is_some() {
            move_turn(0, GLOBE, true)
        } else {
            extra_roll_turn(0)
        };
        assert_eq!(g.turn, expected_turn, "globe from field {field}");
    }
}

/// The star target of every field 0..=50, written out by hand: `-` none.
#[test]
fn the_star_table_for_every_field() {
    const N: Option<u8> = None;
    #[rustfmt::skip]
    let table: [Option<u8>; 51] = [
        // 0..=3 → 4; 4..=7: globe 8 lies before star 11
        Some(4), Some(4), Some(4), Some(4), N, N, N, N,
        // 8..=10 → 11; 11, 12: globe 13 before star 17
        Some(11), Some(11), Some(11), N, N,
        // 13..=16 → 17; 17..=20: globe 21 before star 24
        Some(17), Some(17), Some(17), Some(17), N, N, N, N,
        // 21..=23 → 24; 24, 25: globe 26 before star 30
        Some(24), Some(24), Some(24), N, N,
        // 26..=29 → 30; 30..=33: globe 34 before star 37
        Some(30), Some(30), Some(30), Some(30), N, N, N, N,
        // 34..=36 → 37; 37, 38: globe 39 before star 43
        Some(37), Some(37), Some(37), N, N,
        // 39..=42 → 43; 43..=46: globe 47 before star 50
        Some(43), Some(43), Some(43), Some(43), N, N, N, N,
        // 47..=49 → 50; 50: none
        Some(50), Some(50), Some(50), N,
    ];
    for (field, expected) in table.iter().enumerate() {
        let field = field as u8;
        let mut g = started(2, DieKind::Special, 1, 0);
        put(&mut g, 0, 0, field);
        g.apply_dice(&[STAR]).unwrap();
        let expected_moves = match *expected {
            None => vec![],
            Some(to) => vec![mv(0, to)],
        };
        assert_eq!(g.legal_moves(), expected_moves, "star from field {field}");
        let expected_turn = if expected.is_some() {
            move_turn(0, STAR, false)
        } else {
            roll_turn(1)
        };
        assert_eq!(g.turn, expected_turn, "star from field {field}");
    }
}

// ---------------------------------------------------------------------------------------
// The plain die

#[test]
fn plain_a_six_enters_a_pawn_or_moves_six_and_gives_an_extra_roll() {
    let mut g = started(2, DieKind::Plain, 2, 0);
    put(&mut g, 0, 0, 3);
    g.apply_dice(&[6]).unwrap();
    assert_eq!(g.turn, move_turn(0, 6, true));
    assert_eq!(g.legal_moves(), vec![mv(0, 9), enter(1)]);
    g.apply_move(&mv(0, 9)).unwrap();
    assert_eq!(places(&g, 0), vec![track(&g, 0, 9), YARD]);
    assert_eq!(g.turn, extra_roll_turn(0));
    g.apply_dice(&[6]).unwrap();
    g.apply_move(&enter(1)).unwrap();
    assert_eq!(places(&g, 0), vec![track(&g, 0, 9), track(&g, 0, 0)]);
    assert_eq!(g.turn, extra_roll_turn(0));
}

#[test]
fn plain_a_six_gives_an_extra_roll_even_when_it_cannot_be_used() {
    let mut g = started(2, DieKind::Plain, 1, 0);
    put(&mut g, 0, 0, 53); // 53 + 6 overshoots 56
    g.apply_dice(&[6]).unwrap();
    assert_eq!(g.turn, extra_roll_turn(0));
    assert_eq!(places(&g, 0), vec![Place::HomeColumn { field: Field(53) }]);
}

#[test]
fn plain_only_a_six_enters() {
    for roll in 1..=5 {
        let mut g = started(2, DieKind::Plain, 4, 0);
        g.apply_dice(&[roll]).unwrap();
        assert_eq!(g.turn, roll_turn(1), "roll {roll}");
    }
}

#[test]
fn plain_other_numbers_move_that_many_fields_without_extra_roll() {
    let mut g = started(2, DieKind::Plain, 1, 0);
    put(&mut g, 0, 0, 10);
    g.apply_dice(&[3]).unwrap();
    assert_eq!(g.turn, move_turn(0, 3, false));
    g.apply_move(&mv(0, 13)).unwrap();
    assert_eq!(places(&g, 0), vec![track(&g, 0, 13)]);
    assert_eq!(g.turn, roll_turn(1));
}

#[test]
fn plain_globes_and_stars_have_no_effect() {
    let mut g = started(2, DieKind::Plain, 1, 0);
    put(&mut g, 0, 0, 0);
    g.apply_dice(&[5]).unwrap();
    assert_eq!(g.legal_moves(), vec![mv(0, 5)]);
    g.apply_move(&mv(0, 5)).unwrap();
    g.apply_dice(&[1]).unwrap(); // seat 1: nothing to move
    g.apply_dice(&[3]).unwrap();
    assert_eq!(g.turn, move_turn(0, 3, false));
    assert_eq!(g.legal_moves(), vec![mv(0, 8)]);
}

#[test]
fn plain_after_50_the_pawn_goes_up_its_home_column() {
    let mut g = started(2, DieKind::Plain, 1, 0);
    put(&mut g, 0, 0, 48);
    g.apply_dice(&[5]).unwrap();
    g.apply_move(&mv(0, 53)).unwrap();
    assert_eq!(places(&g, 0), vec![Place::HomeColumn { field: Field(53) }]);
    assert_eq!(places(&g, 0)[0].track_field(), None);
}

#[test]
fn plain_home_is_56_and_needs_the_exact_number() {
    let mut g = started(2, DieKind::Plain, 2, 0);
    put(&mut g, 0, 0, 53);
    put(&mut g, 0, 1, 52);
    g.apply_dice(&[4]).unwrap();
    // 53 + 4 = 57 overshoots; 52 + 4 = 56 is home.
    assert_eq!(g.legal_moves(), vec![home(1)]);
    g.apply_move(&home(1)).unwrap();
    assert_eq!(
        places(&g, 0),
        vec![Place::HomeColumn { field: Field(53) }, Place::Home]
    );
    assert_eq!(g.turn, roll_turn(1));
}

#[test]
fn plain_own_pawns_share_the_home_column_and_nothing_is_captured_there() {
    let mut g = started(2, DieKind::Plain, 2, 0);
    put(&mut g, 0, 0, 54);
    put(&mut g, 0, 1, 50);
    // Seat 1's pawn stands on the shared track field that seat 0's 54 would be if the
    // track went on: the home column is seat 0's own.
    put(&mut g, 1, 0, 28); // colour 2: track field 26 + 28 = 54 mod 52 = 2
    g.apply_dice(&[4]).unwrap();
    g.apply_move(&mv(1, 54)).unwrap();
    let column = Place::HomeColumn { field: Field(54) };
    assert_eq!(places(&g, 0), vec![column, column]);
    assert_eq!(places(&g, 1), vec![track(&g, 1, 28), YARD]);
}

#[test]
fn plain_win_with_all_pawns_home_ends_the_game_even_after_a_six() {
    let mut g = started(2, DieKind::Plain, 1, 0);
    put(&mut g, 0, 0, 50);
    g.apply_dice(&[6]).unwrap();
    g.apply_move(&home(0)).unwrap();
    assert_eq!(
        g.awaiting(),
        Awaiting::Finished {
            result: GameResult::won(Seat(0))
        }
    );
}

// ---------------------------------------------------------------------------------------
// Both dice: captures, blockades, stacking

#[test]
fn landing_on_a_single_opposing_pawn_captures_it() {
    for die in [DieKind::Special, DieKind::Plain] {
        let mut g = started(2, die, 1, 0);
        put(&mut g, 0, 0, 10); // colour 0: track field 10
        put(&mut g, 1, 0, 38); // colour 2: track field 26 + 38 = 64 mod 52 = 12
        g.apply_dice(&[2]).unwrap();
        g.apply_move(&mv(0, 12)).unwrap();
        assert_eq!(places(&g, 0), vec![track(&g, 0, 12)]);
        assert_eq!(places(&g, 1), vec![YARD]);
    }
}

#[test]
fn landing_on_two_pawns_of_one_opponent_sends_the_mover_back() {
    for die in [DieKind::Special, DieKind::Plain] {
        let mut g = started(2, die, 2, 0);
        put(&mut g, 0, 0, 10);
        put(&mut g, 0, 1, 20);
        put(&mut g, 1, 0, 38); // track field 12
        put(&mut g, 1, 1, 38);
        g.apply_dice(&[2]).unwrap();
        assert_eq!(g.legal_moves(), vec![mv(0, 12), mv(1, 22)]);
        g.apply_move(&mv(0, 12)).unwrap();
        assert_eq!(places(&g, 0), vec![YARD, track(&g, 0, 20)]);
        assert_eq!(places(&g, 1), vec![track(&g, 1, 38), track(&g, 1, 38)]);
    }
}

#[test]
fn being_sent_back_is_compulsory_when_it_is_the_only_move() {
    let mut g = started(2, DieKind::Special, 1, 0);
    put(&mut g, 0, 0, 10);
    g.seats[1].pawns = Pawns::in_yard(3);
    put(&mut g, 1, 0, 38); // track field 12
    put(&mut g, 1, 1, 38);
    put(&mut g, 1, 2, 38);
    g.apply_dice(&[2]).unwrap();
    assert_eq!(g.turn, move_turn(0, 2, false));
    assert_eq!(g.legal_moves(), vec![mv(0, 12)]);
    g.apply_move(&mv(0, 12)).unwrap();
    assert_eq!(places(&g, 0), vec![YARD]);
    assert_eq!(g.turn, roll_turn(1));
}

#[test]
fn pawns_pass_any_pawns_and_the_fields_passed_do_not_matter() {
    let mut g = started(2, DieKind::Special, 1, 0);
    put(&mut g, 0, 0, 10);
    g.seats[1].pawns = Pawns::in_yard(2);
    put(&mut g, 1, 0, 40); // colour 2: track field 66 mod 52 = 14, a pair
    put(&mut g, 1, 1, 40);
    g.apply_dice(&[6]).unwrap();
    g.apply_move(&mv(0, 16)).unwrap();
    assert_eq!(places(&g, 0), vec![track(&g, 0, 16)]);
    assert_eq!(places(&g, 1), vec![track(&g, 1, 40); 2]);
}

#[test]
fn own_pawns_may_share_a_field() {
    let mut g = started(2, DieKind::Special, 3, 0);
    put(&mut g, 0, 0, 12);
    put(&mut g, 0, 1, 12);
    put(&mut g, 0, 2, 10);
    g.apply_dice(&[2]).unwrap();
    g.apply_move(&mv(2, 12)).unwrap();
    assert_eq!(places(&g, 0), vec![track(&g, 0, 12); 3]);
}

#[test]
fn entering_captures_a_single_opposing_pawn_on_the_start_globe() {
    let mut g = started(2, DieKind::Special, 1, 0);
    put(&mut g, 1, 0, 26); // colour 2: track field 52 mod 52 = 0, seat 0's start
    g.apply_dice(&[GLOBE]).unwrap();
    g.apply_move(&enter(0)).unwrap();
    assert_eq!(places(&g, 0), vec![track(&g, 0, 0)]);
    assert_eq!(places(&g, 1), vec![YARD]);
}

#[test]
fn entering_onto_two_opposing_pawns_sends_the_entering_pawn_back() {
    let mut g = started(2, DieKind::Plain, 1, 0);
    g.seats[1].pawns = Pawns::in_yard(2);
    put(&mut g, 1, 0, 26); // seat 0's start globe
    put(&mut g, 1, 1, 26);
    g.apply_dice(&[6]).unwrap();
    assert_eq!(g.legal_moves(), vec![enter(0)]);
    g.apply_move(&enter(0)).unwrap();
    assert_eq!(places(&g, 0), vec![YARD]);
    assert_eq!(places(&g, 1), vec![track(&g, 1, 26); 2]);
    assert_eq!(g.turn, extra_roll_turn(0)); // the plain 6 still rolls again
}

#[test]
fn no_field_is_safe_not_even_a_globe_or_a_star() {
    let mut g = started(2, DieKind::Special, 1, 0);
    put(&mut g, 0, 0, 4);
    put(&mut g, 1, 0, 34); // colour 2: 26 + 34 = 60 mod 52 = 8, seat 0's globe 8
    g.apply_dice(&[GLOBE]).unwrap();
    g.apply_move(&mv(0, 8)).unwrap();
    assert_eq!(places(&g, 1), vec![YARD]);
    // A star field too: seat 1 lands on seat 0's pawn standing on its star 11.
    put(&mut g, 0, 0, 11); // track field 11
    put(&mut g, 1, 0, 33); // track field 7
    g.turn = roll_turn(1);
    g.apply_dice(&[4]).unwrap();
    g.apply_move(&mv(0, 37)).unwrap();
    assert_eq!(places(&g, 0), vec![YARD]);
    assert_eq!(places(&g, 1), vec![track(&g, 1, 37)]);
}

#[test]
fn a_track_field_never_holds_pawns_of_two_players() {
    let mut g = started(3, DieKind::Special, 2, 0);
    put(&mut g, 0, 0, 20); // colour 0: track field 20
    put(&mut g, 1, 0, 9); // colour 1: track field 13 + 9 = 22
    put(&mut g, 1, 1, 11); // colour 1: track field 24
    put(&mut g, 2, 0, 44); // colour 2: track field 26 + 44 = 70 mod 52 = 18
    put(&mut g, 2, 1, 44);
    // Seat 0 lands on seat 1's single on track field 22: it is captured.
    g.apply_dice(&[2]).unwrap();
    g.apply_move(&mv(0, 22)).unwrap();
    assert_eq!(places(&g, 1), vec![YARD, track(&g, 1, 11)]);
    g.apply_dice(&[2]).unwrap();
    g.apply_move(&mv(1, 13)).unwrap();
    // Seat 2 moves one pawn of its pair 44 → 48 = track field 22: seat 0's single goes.
    g.apply_dice(&[4]).unwrap();
    assert_eq!(g.legal_moves(), vec![mv(0, 48)]);
    g.apply_move(&mv(0, 48)).unwrap();
    assert_eq!(places(&g, 0), vec![YARD, YARD]);
    assert_eq!(places(&g, 2), vec![track(&g, 2, 48), track(&g, 2, 44)]);
    for field in 0..TRACK_FIELDS {
        let owners = g
            .seats
            .iter()
            .filter(|p| p.count_on(TrackField(field)) > 0)
            .count();
        assert!(owners <= 1, "track field {field}");
    }
}

#[test]
fn the_first_player_with_all_pawns_home_wins() {
    let mut g = started(3, DieKind::Special, 2, 1);
    put(&mut g, 1, 0, 56);
    put(&mut g, 1, 1, 50);
    g.apply_dice(&[GLOBE]).unwrap();
    g.apply_move(&home(1)).unwrap();
    assert_eq!(
        g.awaiting(),
        Awaiting::Finished {
            result: GameResult::won(Seat(1))
        }
    );
    assert_eq!(g.apply_dice(&[1]), Err(EngineError::Finished));
    assert_eq!(g.retire(Seat(0)), Err(EngineError::Finished));
}

// ---------------------------------------------------------------------------------------
// Options, errors, retiring

#[test]
fn invalid_options_are_refused() {
    let bad = |opts: Options, seats: u8, field: &str| match Ludo::new(&opts, seats) {
        Err(EngineError::InvalidOptions { reason }) => {
            assert!(reason.starts_with(field), "{reason}")
        }
        other => panic!("expected invalid options, got {other:?}"),
    };
    bad(options(DieKind::Special, 0), 2, "pawns");
    bad(options(DieKind::Plain, 5), 2, "pawns");
    let colours = |c: &[u8]| Options {
        colours: Some(c.iter().copied().map(Colour).collect()),
        ..Options::default()
    };
    bad(colours(&[0, 4]), 2, "colours");
    bad(colours(&[1, 1]), 2, "colours");
    bad(colours(&[0, 1, 2]), 2, "colours");
    bad(colours(&[0]), 2, "colours");
    bad(colours(&[0, 1, 2, 3]), 3, "colours");
    assert!(matches!(
        Ludo::new(&Options::default(), 5),
        Err(EngineError::SeatCount { .. })
    ));
    // Through the registry: JSON options.
    let v = crate::variant("ludo").unwrap();
    for opts in [
        json!({"die": "loaded"}),
        json!({"pawns": 0}),
        json!({"pawns": 5}),
        json!({"colours": [0, 4]}),
        json!({"colours": [2, 2]}),
        json!({"colours": [0, 1, 2]}),
        json!({"speed": 3}),
    ] {
        assert!(
            matches!(v.create(&opts, 2), Err(EngineError::InvalidOptions { .. })),
            "{opts}"
        );
    }
    assert!(v
        .create(&json!({"die": "plain", "pawns": 1, "colours": [3, 1]}), 2)
        .is_ok());
    assert_eq!(
        v.default_options(),
        Ok(json!({"die": "special", "pawns": 4, "colours": null}))
    );
}

#[test]
fn an_impossible_die_value_is_refused_and_changes_nothing() {
    let mut g = Ludo::new(&Options::default(), 2).unwrap();
    let before = serde_json::to_value(&g).unwrap();
    assert_eq!(
        g.apply_dice(&[7]),
        Err(EngineError::ImpossibleDieValue {
            die: "d6",
            value: 7
        })
    );
    assert_eq!(
        g.apply_dice(&[1, 2]),
        Err(EngineError::DiceCount {
            expected: 1,
            got: 2
        })
    );
    assert_eq!(serde_json::to_value(&g).unwrap(), before);
    let mut g = started(2, DieKind::Special, 4, 0);
    let before = serde_json::to_value(&g).unwrap();
    assert_eq!(
        g.apply_dice(&[0]),
        Err(EngineError::ImpossibleDieValue {
            die: "ludo",
            value: 0
        })
    );
    assert_eq!(g.apply_move(&enter(0)), Err(EngineError::NotAwaitingMove));
    assert_eq!(serde_json::to_value(&g).unwrap(), before);
}

#[test]
fn an_illegal_move_is_refused_and_changes_nothing() {
    let mut g = started(2, DieKind::Special, 2, 0);
    put(&mut g, 0, 0, 10);
    g.apply_dice(&[2]).unwrap();
    let before = serde_json::to_value(&g).unwrap();
    let err = g.apply_move(&mv(0, 13)).unwrap_err();
    assert_eq!(
        err,
        EngineError::illegal("with a roll of 2 pawn 0 can only move to field 12")
    );
    let err = g.apply_move(&enter(1)).unwrap_err();
    assert_eq!(
        err,
        EngineError::illegal("pawn 1 in the yard cannot use a roll of 2")
    );
    for bad in [mv(0, 13), enter(1), home(0), mv(1, 2), mv(7, 12)] {
        assert!(
            matches!(g.apply_move(&bad), Err(EngineError::IllegalMove { .. })),
            "{bad:?}"
        );
        assert_eq!(serde_json::to_value(&g).unwrap(), before);
    }
    assert_eq!(g.legal_moves(), vec![mv(0, 12)]);
}

#[test]
fn retiring_takes_the_pawns_off_and_passes_the_turn() {
    let mut g = started(3, DieKind::Special, 2, 0);
    put(&mut g, 0, 0, 10);
    put(&mut g, 1, 0, 10); // colour 1: track field 23
    g.apply_dice(&[GLOBE]).unwrap();
    g.retire(Seat(0)).unwrap();
    assert_eq!(places(&g, 0), vec![YARD, YARD]);
    assert!(g.seats[0].retired);
    assert_eq!(g.turn, roll_turn(1));
    assert!(g.legal_moves().is_empty());
    assert_eq!(g.retire(Seat(0)), Err(EngineError::NoSuchSeat { seat: 0 }));
    assert_eq!(g.retire(Seat(3)), Err(EngineError::NoSuchSeat { seat: 3 }));
    // Seat 2 retires while seat 1 is to roll: seat 1 is the last seat standing.
    g.retire(Seat(2)).unwrap();
    assert_eq!(
        g.awaiting(),
        Awaiting::Finished {
            result: GameResult {
                winner: Some(Seat(1)),
                winners: vec![Seat(1)],
                ending: Ending::OpponentsRetired,
                points: 1
            }
        }
    );
}

#[test]
fn retiring_during_the_roll_off_and_while_another_seat_moves() {
    let mut g = Ludo::new(&Options::default(), 3).unwrap();
    g.apply_dice(&[2]).unwrap();
    g.apply_dice(&[6]).unwrap();
    g.retire(Seat(2)).unwrap(); // the round is decided without seat 2
    assert_eq!(g.turn, roll_turn(1));
    // Seat 1 is about to capture seat 0's single pawn; seat 0 retires: the move stays,
    // it captures nothing any more.
    let mut g = started(3, DieKind::Special, 1, 1);
    put(&mut g, 1, 0, 0); // track field 13
    put(&mut g, 0, 0, 15); // track field 15
    g.apply_dice(&[2]).unwrap();
    g.retire(Seat(0)).unwrap();
    assert_eq!(g.turn, move_turn(1, 2, false));
    g.apply_move(&mv(0, 2)).unwrap();
    assert_eq!(places(&g, 1), vec![track(&g, 1, 2)]);
    assert_eq!(g.turn, roll_turn(2));
}

#[test]
fn the_state_and_moves_read_as_json() {
    let mut g = started(2, DieKind::Special, 2, 0);
    put(&mut g, 0, 0, 5);
    g.apply_dice(&[GLOBE]).unwrap();
    assert_eq!(
        serde_json::to_value(g.legal_moves()).unwrap(),
        json!([
            {"action": "move", "pawn": 0, "to": 8},
            {"action": "enter", "pawn": 1}
        ])
    );
    assert_eq!(
        serde_json::to_value(&g).unwrap(),
        json!({
            "options": {"die": "special", "pawns": 2, "colours": [0, 2]},
            "die": {"name": "ludo", "faces": [1, 2, 3, 4, 5, 6],
                    "labels": ["1", "2", "globe", "4", "star", "6"]},
            "seats": [
                {"colour": 0, "pawns": [
                    {"at": "track", "field": 5, "track_field": 5},
                    {"at": "yard"}
                ], "retired": false},
                {"colour": 2, "pawns": [{"at": "yard"}, {"at": "yard"}], "retired": false}
            ],
            "turn": {"phase": "move", "seat": 0, "roll": 3, "extra_roll": true},
            "last_roll": {"seat": 0, "value": 3, "symbol": "globe", "roll_off": false}
        })
    );
    let schemas = crate::variant("ludo").unwrap().schemas();
    let names: Vec<&str> = schemas.components.iter().map(|(n, _)| n.as_str()).collect();
    for name in [
        "Place", "Turn", "Roll", "Player", "Field", "Colour", "DieKind",
    ] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    let mv_schema = serde_json::to_string(&schemas.mv).unwrap();
    assert!(mv_schema.contains("enter") && mv_schema.contains("home"));
    let options_schema = serde_json::to_string(&schemas.options).unwrap();
    assert!(options_schema.contains("pawns") && options_schema.contains("colours"));
    let parsed: Move = serde_json::from_value(json!({"action": "home", "pawn": 3})).unwrap();
    assert_eq!(parsed, home(3));
}

// ---------------------------------------------------------------------------------------
// Rebuilt from the state

/// The game read back from its state JSON.
fn rebuilt(g: &Ludo) -> Ludo {
    Ludo::from_state(&serde_json::to_string(g).unwrap()).unwrap()
}

#[test]
fn a_game_rebuilt_after_a_seat_retired_mid_move_captures_nothing_as_the_original() {
    // Seat 1 is about to capture seat 0's single pawn; seat 0 retires, so the move
    // captures nothing any more, in the rebuilt game too.
    let mut g = started(3, DieKind::Special, 1, 1);
    put(&mut g, 1, 0, 0); // track field 13
    put(&mut g, 0, 0, 15); // track field 15
    g.apply_dice(&[2]).unwrap();
    g.retire(Seat(0)).unwrap();
    let mut r = rebuilt(&g);
    assert_eq!(r.moves, g.moves);
    assert_eq!(r.legal_moves(), vec![mv(0, 2)]);
    r.apply_move(&mv(0, 2)).unwrap();
    g.apply_move(&mv(0, 2)).unwrap();
    assert_eq!(
        serde_json::to_value(&r).unwrap(),
        serde_json::to_value(&g).unwrap()
    );
    assert_eq!(r.turn, roll_turn(2));
}

#[test]
fn a_game_rebuilt_before_a_capture_or_a_blockade_moves_as_the_original() {
    let mut g = started(2, DieKind::Plain, 2, 0);
    put(&mut g, 0, 0, 10);
    put(&mut g, 0, 1, 20);
    put(&mut g, 1, 0, 38); // track field 12: two pawns of seat 1
    put(&mut g, 1, 1, 38);
    g.apply_dice(&[2]).unwrap();
    let mut r = rebuilt(&g);
    assert_eq!(r.moves, g.moves);
    r.apply_move(&mv(0, 12)).unwrap();
    assert_eq!(places(&r, 0), vec![YARD, track(&r, 0, 20)]);
    assert_eq!(r.die, Die::D6);
}

#[test]
fn a_state_the_game_cannot_be_in_is_refused_with_a_reason() {
    let mut g = started(2, DieKind::Special, 2, 0);
    put(&mut g, 0, 0, 5);
    g.apply_dice(&[GLOBE]).unwrap();
    let good = serde_json::to_value(&g).unwrap();
    let cases = [
        // The die written is not the options' die.
        ("/die", serde_json::to_value(Die::D6).unwrap()),
        (
            "/seats/0/pawns/0",
            json!({"at": "track", "field": 5, "track_field": 9}),
        ),
        (
            "/seats/0/pawns/0",
            json!({"at": "home_column", "field": 52}),
        ),
        ("/seats/1/pawns", json!([{"at": "yard"}])),
        ("/seats/1/colour", json!(1)),
        (
            "/turn",
            json!({"phase": "move", "seat": 1, "roll": 2, "extra_roll": false}),
        ),
        (
            "/turn",
            json!({"phase": "move", "seat": 0, "roll": 3, "extra_roll": false}),
        ),
        (
            "/turn",
            json!({"phase": "roll", "seat": 2, "extra_roll": false}),
        ),
        ("/options/colours", json!(null)),
        ("/last_roll/symbol", json!("star")),
    ];
    for (at, value) in cases {
        let mut bad = good.clone();
        *bad.pointer_mut(at).unwrap() = value;
        let e = Ludo::from_state(&bad.to_string()).unwrap_err().to_string();
        assert!(e.starts_with("unreadable state"), "{at}: {e}");
    }
}
