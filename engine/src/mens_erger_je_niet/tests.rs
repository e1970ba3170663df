//! One test per rule of RULES.md §1, each built from dice and moves (or a position set
//! up by hand) and asserting the exact state after.

use super::*;
use crate::Ending;

const B: Place = Place::Waiting;

fn opts(board: u8, colours: Option<Vec<Vec<u8>>>, three_tries: bool) -> Options {
    Options {
        board,
        colours: colours.map(|l| {
            l.into_iter()
                .map(|own| own.into_iter().map(Colour).collect())
                .collect()
        }),
        three_tries,
    }
}

fn new_game(options: &Options, seats: u8) -> MensErgerJeNiet {
    match MensErgerJeNiet::new(options, seats) {
        Ok(g) => g,
        Err(e) => panic!("cannot create the game: {e}"),
    }
}

/// A track place of `colour`, `step` fields from its own A.
fn t(g: &MensErgerJeNiet, colour: u8, step: u8) -> Place {
    Place::Track {
        step,
        field: g.side.field(Colour(colour), step),
    }
}

/// Home circle `n` (0 = a).
fn h(n: u8) -> Place {
    Place::Home {
        circle: Circle::ALL[usize::from(n)],
    }
}

fn roll(g: &mut MensErgerJeNiet, value: u8) {
    if let Err(e) = g.apply_dice(&[value]) {
        panic!("roll {value} refused: {e}");
    }
}

fn rolls(g: &mut MensErgerJeNiet, values: &[u8]) {
    for &v in values {
        roll(g, v);
    }
}

fn play(g: &mut MensErgerJeNiet, colour: u8, pawn: u8, to: Place) {
    let mv = Move {
        colour: Colour(colour),
        pawn: Pawn(pawn),
        to,
    };
    if let Err(e) = g.apply_move(&mv) {
        panic!("move {mv:?} refused: {e}");
    }
}

fn mv(colour: u8, pawn: u8, to: Place) -> Move {
    Move {
        colour: Colour(colour),
        pawn: Pawn(pawn),
        to,
    }
}

fn pawns(g: &MensErgerJeNiet, colour: u8) -> [Place; PAWNS] {
    g.colours[usize::from(colour)].pawns
}

fn to_roll(colour: u8, bound: Option<u8>, opening: bool, tries_left: u8) -> Stage {
    Stage::Roll {
        colour: Colour(colour),
        bound: bound.map(Pawn),
        opening,
        tries_left,
    }
}

fn to_move(colour: u8, roll: u8, bound: Option<u8>) -> Stage {
    Stage::Move {
        colour: Colour(colour),
        roll,
        bound: bound.map(Pawn),
    }
}

/// A game past every opening, with these pawns set, where `colour` is about to roll.
fn position(
    options: &Options,
    seats: u8,
    colour: u8,
    set: &[(u8, [Place; PAWNS])],
) -> MensErgerJeNiet {
    let mut g = new_game(options, seats);
    for c in &mut g.colours {
        c.opened = true;
    }
    for &(c, p) in set {
        g.colours[usize::from(c)].pawns = p;
    }
    g.begin_turn(Colour(colour));
    g
}

fn json(g: &MensErgerJeNiet) -> serde_json::Value {
    serde_json::to_value(g).unwrap_or_default()
}

// Board

#[test]
fn board_sides_have_40_or_48_track_fields_with_a_at_10c_or_8c() {
    let g4 = new_game(&opts(4, None, false), 4);
    assert_eq!(g4.side, Side::FourColours);
    assert_eq!(g4.side.track_fields(), 40);
    assert_eq!(g4.colours.len(), 4);
    for c in 0..4 {
        assert_eq!(g4.side.field_a(Colour(c)), 10 * c);
    }
    // Step 39 of colour 1 is the field before its A: track field 9.
    assert_eq!(g4.side.field(Colour(1), 39), 9);
    let g6 = new_game(&opts(6, None, false), 6);
    assert_eq!(g6.side, Side::SixColours);
    assert_eq!(g6.side.track_fields(), 48);
    assert_eq!(g6.colours.len(), 6);
    for c in 0..6 {
        assert_eq!(g6.side.field_a(Colour(c)), 8 * c);
    }
    assert_eq!(g6.side.field(Colour(5), 47), 39);
    // Every pawn starts in B.
    assert!(g6.colours.iter().all(|c| c.pawns == [B; 4]));
}

#[test]
fn default_colours_follow_the_decision_table() {
    let table: &[(u8, u8, &[u8])] = &[
        (4, 2, &[0, 2]),
        (4, 3, &[0, 1, 2]),
        (4, 4, &[0, 1, 2, 3]),
        (6, 2, &[0, 3]),
        (6, 3, &[0, 2, 4]),
        (6, 4, &[0, 1, 2, 3]),
        (6, 5, &[0, 1, 2, 3, 4]),
        (6, 6, &[0, 1, 2, 3, 4, 5]),
    ];
    for &(board, seats, colours) in table {
        let g = new_game(&opts(board, None, false), seats);
        let got: Vec<Vec<Colour>> = g.seats.iter().map(|s| s.colours.clone()).collect();
        let want: Vec<Vec<Colour>> = colours.iter().map(|&c| vec![Colour(c)]).collect();
        assert_eq!(got, want, "board {board}, {seats} seats");
        for c in &g.colours {
            let owner = colours.iter().position(|&x| x == c.colour.0);
            assert_eq!(c.owner, owner.map(|s| Seat(s as u8)));
            let status = if owner.is_some() {
                ColourStatus::Playing
            } else {
                ColourStatus::Absent
            };
            assert_eq!(c.status, status);
        }
    }
}

#[test]
fn a_seat_plays_two_colours_only_when_there_are_fewer_seats_than_colours() {
    let g = new_game(&opts(4, Some(vec![vec![2, 0], vec![1, 3]]), false), 2);
    assert_eq!(g.seats[0].colours, vec![Colour(0), Colour(2)]);
    assert_eq!(g.seats[1].colours, vec![Colour(1), Colour(3)]);
    assert_eq!(g.colours[2].owner, Some(Seat(0)));
    assert_eq!(g.colours[3].owner, Some(Seat(1)));
    let e = MensErgerJeNiet::new(
        &opts(4, Some(vec![vec![0, 1], vec![2], vec![3], vec![]]), false),
        4,
    );
    assert!(matches!(e, Err(EngineError::InvalidOptions { .. })));
    let e = MensErgerJeNiet::new(
        &opts(
            6,
            Some(vec![
                vec![0],
                vec![1],
                vec![2],
                vec![3],
                vec![4],
                vec![5, 0],
            ]),
            false,
        ),
        6,
    );
    match e {
        Err(EngineError::InvalidOptions { reason }) => {
            assert!(reason.contains("two only when"), "{reason}")
        }
        other => panic!("expected refusal, got {other:?}"),
    }
}

#[test]
fn two_colours_of_one_player_capture_each_other() {
    // Seat 0 plays colours 0 and 1; colour 0 lands on colour 1's pawn.
    let o = opts(4, Some(vec![vec![0, 1], vec![2, 3]]), false);
    let mut g = position(
        &o,
        2,
        0,
        &[(0, [t_(0, 5), B, B, B]), (1, [t_(1, 0), B, B, B])],
    );
    roll(&mut g, 5);
    assert_eq!(g.legal_moves(), vec![mv(0, 0, t_(0, 10))]);
    play(&mut g, 0, 0, t_(0, 10));
    assert_eq!(pawns(&g, 0), [t_(0, 10), B, B, B]);
    assert_eq!(pawns(&g, 1), [B; 4]);
    // Colour 1 (seat 0 again) is next in board order.
    assert_eq!(g.stage, to_roll(1, None, false, 1));
    assert_eq!(
        g.awaiting(),
        Awaiting::Dice {
            seat: Seat(0),
            die: DIE,
            count: 1
        }
    );
}

/// A track place on the four-colour board.
fn t_(colour: u8, step: u8) -> Place {
    Place::Track {
        step,
        field: Side::FourColours.field(Colour(colour), step),
    }
}

/// A track place on the six-colour board.
fn t6(colour: u8, step: u8) -> Place {
    Place::Track {
        step,
        field: Side::SixColours.field(Colour(colour), step),
    }
}

// Turn order

#[test]
fn who_starts_the_seats_roll_off_and_the_winner_starts_with_its_lowest_colour() {
    let o = opts(4, Some(vec![vec![1], vec![3, 2]]), false);
    let mut g = new_game(&o, 2);
    assert_eq!(
        g.awaiting(),
        Awaiting::Dice {
            seat: Seat(0),
            die: DIE,
            count: 1
        }
    );
    rolls(&mut g, &[4, 4]);
    // Tied: both roll again, in seat order.
    assert_eq!(g.awaiting().seat(), Some(Seat(0)));
    rolls(&mut g, &[2, 5]);
    // Seat 1 starts with colour 2, its lowest: the opening puts pawn 0 on A.
    assert_eq!(g.stage, to_roll(2, Some(0), true, 1));
    assert_eq!(pawns(&g, 2), [t_(2, 0), B, B, B]);
    assert_eq!(g.awaiting().seat(), Some(Seat(1)));
    assert_eq!(g.last_roll, Some(5));
}

#[test]
fn colours_take_turns_in_board_order_whoever_holds_them() {
    // Seat 0: colours 0 and 2; seat 1: colour 1; seat 2: colour 3. Seat 1 wins the
    // roll-off: colour 1, then 2 (seat 0), 3 (seat 2), 0 (seat 0).
    let o = opts(4, Some(vec![vec![0, 2], vec![1], vec![3]]), false);
    let mut g = new_game(&o, 3);
    rolls(&mut g, &[1, 6, 3]);
    let mut order = Vec::new();
    for _ in 0..5 {
        let Stage::Roll { colour, .. } = g.stage else {
            panic!("expected a roll, got {:?}", g.stage)
        };
        order.push((colour.0, g.awaiting().seat().map(|s| s.0)));
        roll(&mut g, 1);
        let only = g.legal_moves()[0];
        play(&mut g, only.colour.0, only.pawn.0, only.to);
    }
    assert_eq!(
        order,
        vec![
            (1, Some(1)),
            (2, Some(0)),
            (3, Some(2)),
            (0, Some(0)),
            (1, Some(1))
        ]
    );
}

#[test]
fn a_finished_colour_takes_no_more_turns() {
    // Seat 0 plays colours 0 and 1; colour 0 brings its last pawn home, then colour 1
    // moves, then colour 2 (seat 1), and colour 0 is skipped after colour 3.
    let o = opts(4, Some(vec![vec![0, 1], vec![2, 3]]), false);
    let mut g = position(
        &o,
        2,
        0,
        &[
            (0, [h(0), h(1), h(2), t_(0, 38)]),
            (1, [t_(1, 1), B, B, B]),
            (2, [t_(2, 1), B, B, B]),
            (3, [t_(3, 1), B, B, B]),
        ],
    );
    roll(&mut g, 5);
    play(&mut g, 0, 3, h(3));
    assert_eq!(g.colours[0].status, ColourStatus::Finished);
    assert_eq!(g.stage, to_roll(1, None, false, 1));
    for c in [1, 2, 3] {
        assert_eq!(g.stage, to_roll(c, None, false, 1));
        roll(&mut g, 1);
        play(&mut g, c, 0, t_(c, 2));
    }
    assert_eq!(g.stage, to_roll(1, None, false, 1));
}

// Opening

#[test]
fn opening_puts_a_pawn_on_a_and_the_roll_moves_it() {
    let mut g = new_game(&opts(4, None, false), 2);
    rolls(&mut g, &[6, 2]);
    assert_eq!(pawns(&g, 0), [t_(0, 0), B, B, B]);
    assert_eq!(g.stage, to_roll(0, Some(0), true, 1));
    roll(&mut g, 4);
    assert_eq!(g.stage, to_move(0, 4, Some(0)));
    assert_eq!(g.legal_moves(), vec![mv(0, 0, t_(0, 4))]);
    play(&mut g, 0, 0, t_(0, 4));
    assert_eq!(pawns(&g, 0), [t_(0, 4), B, B, B]);
    // Colour 2 (seat 1) opens the same way.
    assert_eq!(g.stage, to_roll(2, Some(0), true, 1));
    assert_eq!(pawns(&g, 2), [t_(2, 0), B, B, B]);
}

#[test]
fn opening_entry_captures_the_pawn_on_a() {
    // Colour 0 opens and goes 6 + 4 = 10 onto colour 1's A; colour 1 then opens on it.
    let mut g = new_game(&opts(4, None, false), 4);
    rolls(&mut g, &[6, 1, 1, 1]);
    roll(&mut g, 6);
    play(&mut g, 0, 0, t_(0, 6));
    assert_eq!(g.stage, to_roll(0, None, false, 1));
    roll(&mut g, 4);
    assert_eq!(g.legal_moves(), vec![mv(0, 0, t_(0, 10))]);
    play(&mut g, 0, 0, t_(0, 10));
    assert_eq!(pawns(&g, 0), [B; 4]);
    assert_eq!(pawns(&g, 1), [t_(1, 0), B, B, B]);
    assert_eq!(g.stage, to_roll(1, Some(0), true, 1));
}

#[test]
fn a_six_on_the_opening_roll_moves_the_pawn_6_and_gives_an_ordinary_roll() {
    let mut g = new_game(&opts(4, None, false), 2);
    rolls(&mut g, &[6, 2]);
    roll(&mut g, 6);
    // No compulsory entry on the opening roll: the pawn moves 6.
    assert_eq!(g.legal_moves(), vec![mv(0, 0, t_(0, 6))]);
    play(&mut g, 0, 0, t_(0, 6));
    assert_eq!(g.stage, to_roll(0, None, false, 1));
    // The extra roll is ordinary: a 6 now forces an entry.
    roll(&mut g, 6);
    assert_eq!(pawns(&g, 0), [t_(0, 6), t_(0, 0), B, B]);
    assert_eq!(g.stage, to_roll(0, Some(1), false, 1));
}

// Sixes

#[test]
fn a_six_with_pawns_in_b_forces_an_entry_and_binds_the_next_roll() {
    let o = opts(4, None, false);
    let mut g = position(&o, 2, 0, &[(0, [t_(0, 20), B, B, B])]);
    roll(&mut g, 6);
    assert_eq!(pawns(&g, 0), [t_(0, 20), t_(0, 0), B, B]);
    assert_eq!(g.stage, to_roll(0, Some(1), false, 1));
    roll(&mut g, 3);
    // Only the bound pawn may move.
    assert_eq!(g.stage, to_move(0, 3, Some(1)));
    assert_eq!(g.legal_moves(), vec![mv(0, 1, t_(0, 3))]);
    assert!(g.apply_move(&mv(0, 0, t_(0, 23))).is_err());
    play(&mut g, 0, 1, t_(0, 3));
    assert_eq!(pawns(&g, 0), [t_(0, 20), t_(0, 3), B, B]);
    // The binding lasted one roll; the turn passes.
    assert_eq!(g.stage, to_roll(2, None, false, 1));
}

#[test]
fn the_entry_captures_whatever_stands_on_a() {
    // Colour 2 (the other seat) stands on colour 0's A.
    let o = opts(4, None, false);
    let mut g = position(
        &o,
        2,
        0,
        &[(0, [t_(0, 20), B, B, B]), (2, [t_(2, 20), B, B, B])],
    );
    assert_eq!(t_(2, 20).track_field(), t_(0, 0).track_field());
    roll(&mut g, 6);
    assert_eq!(pawns(&g, 0), [t_(0, 20), t_(0, 0), B, B]);
    assert_eq!(pawns(&g, 2), [B; 4]);
}

#[test]
fn a_bound_six_with_b_not_empty_re_enters_and_the_position_stays() {
    let o = opts(4, None, false);
    let mut g = position(&o, 2, 0, &[(0, [t_(0, 20), B, B, B])]);
    roll(&mut g, 6);
    let before = pawns(&g, 0);
    roll(&mut g, 6);
    assert_eq!(pawns(&g, 0), before);
    assert_eq!(pawns(&g, 0), [t_(0, 20), t_(0, 0), B, B]);
    assert_eq!(g.stage, to_roll(0, Some(1), false, 1));
    roll(&mut g, 2);
    assert_eq!(g.legal_moves(), vec![mv(0, 1, t_(0, 2))]);
}

#[test]
fn a_bound_six_with_b_empty_moves_the_bound_pawn_and_the_next_roll_is_free() {
    let o = opts(4, None, false);
    let mut g = position(&o, 2, 0, &[(0, [t_(0, 20), t_(0, 30), h(3), B])]);
    roll(&mut g, 6);
    assert_eq!(pawns(&g, 0), [t_(0, 20), t_(0, 30), h(3), t_(0, 0)]);
    assert_eq!(g.stage, to_roll(0, Some(3), false, 1));
    roll(&mut g, 6);
    assert_eq!(g.legal_moves(), vec![mv(0, 3, t_(0, 6))]);
    play(&mut g, 0, 3, t_(0, 6));
    assert_eq!(g.stage, to_roll(0, None, false, 1));
    roll(&mut g, 1);
    assert_eq!(
        g.legal_moves(),
        vec![mv(0, 0, t_(0, 21)), mv(0, 1, t_(0, 31)), mv(0, 3, t_(0, 7))]
    );
}

#[test]
fn a_six_with_b_empty_moves_any_pawn_6_and_the_extra_roll_moves_any_pawn() {
    let o = opts(4, None, false);
    let mut g = position(&o, 2, 0, &[(0, [t_(0, 5), t_(0, 15), h(2), h(3)])]);
    roll(&mut g, 6);
    assert_eq!(g.stage, to_move(0, 6, None));
    assert_eq!(
        g.legal_moves(),
        vec![mv(0, 0, t_(0, 11)), mv(0, 1, t_(0, 21))]
    );
    play(&mut g, 0, 0, t_(0, 11));
    assert_eq!(g.stage, to_roll(0, None, false, 1));
    roll(&mut g, 2);
    assert_eq!(
        g.legal_moves(),
        vec![mv(0, 0, t_(0, 13)), mv(0, 1, t_(0, 17))]
    );
    play(&mut g, 0, 1, t_(0, 17));
    assert_eq!(pawns(&g, 0), [t_(0, 11), t_(0, 17), h(2), h(3)]);
    assert_eq!(g.stage, to_roll(2, None, false, 1));
}

#[test]
fn every_six_gives_another_roll_even_one_that_cannot_be_used() {
    // B is empty, b, c and d are taken: from field 39 a 6 counts back onto b (taken),
    // and the home pawns cannot go higher. The 6 is lost but another roll follows.
    let o = opts(4, None, false);
    let mut g = position(&o, 2, 0, &[(0, [t_(0, 39), h(1), h(2), h(3)])]);
    roll(&mut g, 6);
    assert_eq!(pawns(&g, 0), [t_(0, 39), h(1), h(2), h(3)]);
    assert_eq!(g.stage, to_roll(0, None, false, 1));
    assert_eq!(g.last_roll, Some(6));
    roll(&mut g, 6);
    assert_eq!(g.stage, to_roll(0, None, false, 1));
    roll(&mut g, 3);
    assert_eq!(g.stage, to_roll(2, None, false, 1));
}

#[test]
fn a_six_that_brings_the_last_pawn_home_gives_no_other_roll() {
    let o = opts(4, Some(vec![vec![0, 1], vec![2]]), false);
    let mut g = position(
        &o,
        2,
        0,
        &[(0, [h(0), h(1), h(2), t_(0, 37)]), (1, [t_(1, 4), B, B, B])],
    );
    roll(&mut g, 6);
    assert_eq!(g.legal_moves(), vec![mv(0, 3, h(3))]);
    play(&mut g, 0, 3, h(3));
    assert_eq!(pawns(&g, 0), [h(0), h(1), h(2), h(3)]);
    assert_eq!(g.colours[0].status, ColourStatus::Finished);
    assert_eq!(g.stage, to_roll(1, None, false, 1));
}

// Ordinary rolls, passing and capturing

#[test]
fn any_other_roll_moves_any_one_pawn_on_the_track_or_in_the_home_row() {
    let o = opts(4, None, false);
    let mut g = position(&o, 2, 0, &[(0, [t_(0, 3), B, h(0), t_(0, 25)])]);
    roll(&mut g, 2);
    assert_eq!(g.stage, to_move(0, 2, None));
    assert_eq!(
        g.legal_moves(),
        vec![mv(0, 0, t_(0, 5)), mv(0, 2, h(2)), mv(0, 3, t_(0, 27))]
    );
    play(&mut g, 0, 2, h(2));
    assert_eq!(pawns(&g, 0), [t_(0, 3), B, h(2), t_(0, 25)]);
    assert_eq!(g.stage, to_roll(2, None, false, 1));
}

#[test]
fn passed_pawns_stay_where_they_are_and_the_fields_passed_count() {
    let o = opts(4, None, false);
    let mut g = position(
        &o,
        2,
        0,
        &[(0, [t_(0, 3), B, B, B]), (2, [t_(2, 26), B, B, B])],
    );
    assert_eq!(t_(2, 26).track_field(), t_(0, 6).track_field());
    roll(&mut g, 5);
    play(&mut g, 0, 0, t_(0, 8));
    assert_eq!(pawns(&g, 0), [t_(0, 3 + 5), B, B, B]);
    assert_eq!(pawns(&g, 2), [t_(2, 26), B, B, B]);
}

#[test]
fn landing_on_an_occupied_track_field_captures_the_pawn_there_own_colour_included() {
    let o = opts(4, None, false);
    let mut g = position(
        &o,
        2,
        0,
        &[(0, [t_(0, 3), t_(0, 7), B, B]), (2, [t_(2, 30), B, B, B])],
    );
    assert_eq!(t_(2, 30).track_field(), t_(0, 10).track_field());
    roll(&mut g, 3);
    // Pawn 1 onto field 10 captures colour 2's pawn.
    assert_eq!(
        g.legal_moves(),
        vec![mv(0, 0, t_(0, 6)), mv(0, 1, t_(0, 10))]
    );
    play(&mut g, 0, 1, t_(0, 10));
    assert_eq!(pawns(&g, 0), [t_(0, 3), t_(0, 10), B, B]);
    assert_eq!(pawns(&g, 2), [B; 4]);
    // Pawn 0 onto its own pawn 1 captures it too.
    let mut g = position(&o, 2, 0, &[(0, [t_(0, 3), t_(0, 7), B, B])]);
    roll(&mut g, 4);
    assert_eq!(
        g.legal_moves(),
        vec![mv(0, 0, t_(0, 7)), mv(0, 1, t_(0, 11))]
    );
    play(&mut g, 0, 0, t_(0, 7));
    assert_eq!(pawns(&g, 0), [t_(0, 7), B, B, B]);
}

#[test]
fn capturing_is_never_compulsory() {
    let o = opts(4, None, false);
    let mut g = position(
        &o,
        2,
        0,
        &[(0, [t_(0, 1), t_(0, 12), B, B]), (2, [t_(2, 25), B, B, B])],
    );
    roll(&mut g, 4);
    assert_eq!(
        g.legal_moves(),
        vec![mv(0, 0, t_(0, 5)), mv(0, 1, t_(0, 16))]
    );
    play(&mut g, 0, 1, t_(0, 16));
    assert_eq!(pawns(&g, 0), [t_(0, 1), t_(0, 16), B, B]);
    assert_eq!(pawns(&g, 2), [t_(2, 25), B, B, B]);
}

// Home row

#[test]
fn after_the_last_field_the_pawn_counts_on_into_a_b_c_d() {
    for (board, last) in [(4, 39), (6, 47)] {
        let o = opts(board, None, false);
        let mut g = position(&o, 2, 0, &[(0, [t(&new_game(&o, 2), 0, last), B, B, B])]);
        let on_last = t(&g, 0, last);
        assert_eq!(pawns(&g, 0)[0], on_last);
        for r in 1..=4 {
            let mut g2 = g.clone();
            roll(&mut g2, r);
            assert_eq!(g2.legal_moves(), vec![mv(0, 0, h(r - 1))], "board {board}");
        }
        roll(&mut g, 3);
        play(&mut g, 0, 0, h(2));
        assert_eq!(pawns(&g, 0), [h(2), B, B, B]);
    }
}

#[test]
fn overshooting_d_counts_back_on_both_boards_at_every_overshoot() {
    // 4-colour side: target t > 43 lands on 86 - t; 6-colour side: t > 51 on 102 - t.
    // Targets below a (40 resp. 48) are not allowed.
    for (board, side, track, mirror) in [
        (4, Side::FourColours, 40u8, 86u8),
        (6, Side::SixColours, 48, 102),
    ] {
        for from in track - 6..=track + 3 {
            for r in 1..=6u8 {
                let target = from + r;
                if target <= track + 3 {
                    continue;
                }
                let back = mirror - target;
                let place = if from < track {
                    Place::Track {
                        step: from,
                        field: side.field(Colour(0), from),
                    }
                } else {
                    h(from - track)
                };
                let want = (back >= track && back > from).then(|| h(back - track));
                // The arithmetic alone.
                let counted = (back >= track).then(|| h(back - track));
                assert_eq!(
                    destination(side, Colour(0), place, r),
                    counted,
                    "board {board}: from {from} by {r}"
                );
                // In a game: the only other pawns are far back on the track.
                let o = opts(board, None, false);
                let far = |s| Place::Track {
                    step: s,
                    field: side.field(Colour(0), s),
                };
                let mut g = position(&o, 2, 0, &[(0, [place, far(1), far(2), far(3)])]);
                roll(&mut g, r);
                let home_moves: Vec<Move> = g
                    .legal_moves()
                    .into_iter()
                    .filter(|m| m.pawn == Pawn(0))
                    .collect();
                let expected: Vec<Move> = want.map(|to| mv(0, 0, to)).into_iter().collect();
                assert_eq!(home_moves, expected, "board {board}: from {from} by {r}");
            }
        }
    }
    // Spelled out: 4-colour side from step 39 by 6 → 45 → 41 (b); from d by 1 → 44 → 42 (c),
    // lower than d so not allowed; 6-colour side from step 47 by 6 → 53 → 49 (b).
    assert_eq!(
        destination(Side::FourColours, Colour(0), t_(0, 39), 6),
        Some(h(1))
    );
    assert_eq!(
        destination(Side::FourColours, Colour(0), h(3), 1),
        Some(h(2))
    );
    assert_eq!(
        destination(Side::SixColours, Colour(0), t6(0, 47), 6),
        Some(h(1))
    );
    assert_eq!(destination(Side::SixColours, Colour(0), h(2), 6), None);
}

#[test]
fn a_home_move_must_end_on_a_free_circle() {
    let o = opts(4, None, false);
    let mut g = position(&o, 2, 0, &[(0, [t_(0, 38), h(1), B, B])]);
    // With a 3 the pawn on field 38 would end on b, taken: no capture in the home row.
    // The pawn on b counts 44 back to c.
    roll(&mut g, 3);
    assert_eq!(g.legal_moves(), vec![mv(0, 1, h(2))]);
    assert!(g.apply_move(&mv(0, 0, h(1))).is_err());
    play(&mut g, 0, 1, h(2));
    assert_eq!(pawns(&g, 0), [t_(0, 38), h(2), B, B]);
}

#[test]
fn home_row_pawns_only_move_to_a_higher_circle() {
    let o = opts(4, None, false);
    // The pawn on c with a 2 would count back onto c (44 → 42), with a 3 onto b: neither.
    let mut g = position(&o, 2, 0, &[(0, [h(2), B, B, B])]);
    let before = json(&g);
    roll(&mut g, 2);
    assert_eq!(g.stage, to_roll(2, None, false, 1));
    assert_eq!(pawns(&g, 0), [h(2), B, B, B]);
    let mut after = json(&g);
    after["stage"] = before["stage"].clone();
    after["last_roll"] = before["last_roll"].clone();
    assert_eq!(after, before);
    // With a 1 it goes up to d.
    let mut g = position(&o, 2, 0, &[(0, [h(2), B, B, B])]);
    roll(&mut g, 1);
    assert_eq!(g.legal_moves(), vec![mv(0, 0, h(3))]);
}

#[test]
fn pawns_may_pass_pawns_in_the_home_row() {
    let o = opts(4, None, false);
    let mut g = position(&o, 2, 0, &[(0, [h(0), h(1), h(2), t_(0, 39)])]);
    roll(&mut g, 3);
    assert_eq!(g.legal_moves(), vec![mv(0, 0, h(3))]);
    play(&mut g, 0, 0, h(3));
    assert_eq!(pawns(&g, 0), [h(3), h(1), h(2), t_(0, 39)]);
    let mut g = position(&o, 2, 0, &[(0, [h(1), h(2), B, t_(0, 37)])]);
    roll(&mut g, 6);
    // The 6 first forces the entry; the bound roll follows.
    assert_eq!(pawns(&g, 0), [h(1), h(2), t_(0, 0), t_(0, 37)]);
    let mut g = position(&o, 2, 0, &[(0, [h(1), h(2), h(0), t_(0, 37)])]);
    roll(&mut g, 6);
    // 37 + 6 = 43: d, past b and c.
    assert_eq!(g.legal_moves(), vec![mv(0, 3, h(3))]);
}

#[test]
fn a_roll_no_pawn_can_use_is_lost_and_the_turn_passes() {
    let o = opts(4, None, false);
    let mut g = position(&o, 2, 0, &[(2, [t_(2, 4), B, B, B])]);
    roll(&mut g, 5);
    assert_eq!(pawns(&g, 0), [B; 4]);
    assert_eq!(g.stage, to_roll(2, None, false, 1));
    assert!(g.legal_moves().is_empty());
}

// Three tries

#[test]
fn three_tries_a_colour_with_nothing_to_move_rolls_up_to_three_times() {
    let o = opts(4, None, true);
    let mut g = position(&o, 2, 0, &[(0, [B, h(3), B, B]), (2, [t_(2, 4), B, B, B])]);
    assert_eq!(g.stage, to_roll(0, None, false, 3));
    roll(&mut g, 1);
    assert_eq!(g.stage, to_roll(0, None, false, 2));
    roll(&mut g, 5);
    assert_eq!(g.stage, to_roll(0, None, false, 1));
    roll(&mut g, 2);
    assert_eq!(g.stage, to_roll(2, None, false, 1));
    // Colour 2 has a pawn on the track: one roll only.
    roll(&mut g, 3);
    assert_eq!(g.stage, to_move(2, 3, None));
}

#[test]
fn three_tries_the_first_six_is_played_as_usual() {
    let o = opts(4, None, true);
    let mut g = position(&o, 2, 0, &[(0, [B, h(3), B, h(2)])]);
    rolls(&mut g, &[4, 6]);
    assert_eq!(pawns(&g, 0), [t_(0, 0), h(3), B, h(2)]);
    assert_eq!(g.stage, to_roll(0, Some(0), false, 1));
    roll(&mut g, 2);
    play(&mut g, 0, 0, t_(0, 2));
    // Colour 2, all in B, has its three tries in turn.
    assert_eq!(g.stage, to_roll(2, None, false, 3));
}

#[test]
fn three_tries_not_when_a_home_row_pawn_can_move_nor_when_the_option_is_off() {
    let o = opts(4, None, true);
    // A pawn on a can still go up: one roll.
    let g = position(&o, 2, 0, &[(0, [B, h(0), B, B])]);
    assert_eq!(g.stage, to_roll(0, None, false, 1));
    // Option off: one roll.
    let mut g = position(&opts(4, None, false), 2, 0, &[(0, [B, h(3), B, B])]);
    assert_eq!(g.stage, to_roll(0, None, false, 1));
    roll(&mut g, 1);
    assert_eq!(g.stage, to_roll(2, None, false, 1));
}

#[test]
fn three_tries_not_in_the_opening_turn() {
    let mut g = new_game(&opts(4, None, true), 2);
    rolls(&mut g, &[6, 1]);
    assert_eq!(g.stage, to_roll(0, Some(0), true, 1));
}

// Winning

#[test]
fn the_first_seat_with_all_pawns_home_wins() {
    let o = opts(4, None, false);
    let mut g = position(&o, 2, 0, &[(0, [h(0), h(1), t_(0, 39), h(3)])]);
    roll(&mut g, 3);
    play(&mut g, 0, 2, h(2));
    let result = GameResult::won(Seat(0));
    assert_eq!(
        g.awaiting(),
        Awaiting::Finished {
            result: result.clone()
        }
    );
    assert_eq!(g.stage, Stage::Finished { result });
    assert_eq!(g.apply_dice(&[1]), Err(EngineError::Finished));
}

#[test]
fn a_two_colour_player_wins_only_when_both_colours_are_home() {
    let o = opts(4, Some(vec![vec![0, 2], vec![1]]), false);
    let mut g = position(
        &o,
        2,
        0,
        &[
            (0, [h(0), h(1), h(2), t_(0, 38)]),
            (2, [h(0), h(1), h(2), t_(2, 39)]),
        ],
    );
    roll(&mut g, 5);
    play(&mut g, 0, 3, h(3));
    assert_eq!(g.colours[0].status, ColourStatus::Finished);
    assert_eq!(g.stage, to_roll(1, None, false, 1));
    roll(&mut g, 3);
    // Colour 1 has nothing to move; colour 2 finishes and seat 0 wins.
    assert_eq!(g.stage, to_roll(2, None, false, 1));
    roll(&mut g, 4);
    play(&mut g, 2, 3, h(3));
    assert_eq!(
        g.stage,
        Stage::Finished {
            result: GameResult::won(Seat(0))
        }
    );
}

// Inputs refused, retiring

#[test]
fn invalid_options_are_refused() {
    let cases: &[(Options, u8, &str)] = &[
        (opts(5, None, false), 2, "board"),
        (opts(0, None, false), 2, "board"),
        (opts(4, None, false), 5, "board"),
        (opts(4, Some(vec![vec![0]]), false), 2, "one list per seat"),
        (opts(4, Some(vec![vec![0], vec![]]), false), 2, "no colour"),
        (
            opts(4, Some(vec![vec![0], vec![1, 2, 3]]), false),
            2,
            "one or two",
        ),
        (
            opts(4, Some(vec![vec![0], vec![4]]), false),
            2,
            "not on the 4-colour",
        ),
        (
            opts(6, Some(vec![vec![0], vec![6]]), false),
            2,
            "not on the 6-colour",
        ),
        (
            opts(4, Some(vec![vec![0, 1], vec![1]]), false),
            2,
            "more than once",
        ),
        (
            opts(4, Some(vec![vec![2, 2], vec![1]]), false),
            2,
            "more than once",
        ),
        (
            opts(4, Some(vec![vec![0], vec![1], vec![2], vec![3, 0]]), false),
            4,
            "two only when",
        ),
    ];
    for (o, seats, needle) in cases {
        match MensErgerJeNiet::new(o, *seats) {
            Err(EngineError::InvalidOptions { reason }) => {
                assert!(reason.contains(needle), "{reason:?} lacks {needle:?}")
            }
            other => panic!("{o:?} with {seats} seats: expected refusal, got {other:?}"),
        }
    }
    assert!(matches!(
        MensErgerJeNiet::new(&opts(6, None, false), 7),
        Err(EngineError::SeatCount { .. })
    ));
    // Unknown fields and a wrong type are refused by the registry.
    let v = crate::variant("mens_erger_je_niet").copied();
    let Ok(v) = v else { panic!("not registered") };
    assert!(v
        .create(&serde_json::json!({"board": 4, "dice": 2}), 2)
        .is_err());
    assert!(v
        .create(&serde_json::json!({"colours": [[0, 1], [7]]}), 2)
        .is_err());
    assert!(v
        .create(
            &serde_json::json!({"board": 6, "colours": [[0, 1], [3, 4]], "three_tries": true}),
            2
        )
        .is_ok());
    assert_eq!(
        v.default_options(),
        Ok(serde_json::json!({"board": 4, "colours": null, "three_tries": false}))
    );
}

#[test]
fn an_impossible_die_value_is_refused_and_the_game_is_unchanged() {
    let mut g = new_game(&opts(4, None, false), 2);
    rolls(&mut g, &[6, 2]);
    let before = json(&g);
    for bad in [&[0u8][..], &[7], &[], &[3, 3]] {
        assert!(g.apply_dice(bad).is_err());
        assert_eq!(json(&g), before);
    }
    assert_eq!(
        g.apply_dice(&[7]),
        Err(EngineError::ImpossibleDieValue {
            die: "d6",
            value: 7
        })
    );
    // Dice while a move is awaited.
    roll(&mut g, 3);
    assert_eq!(g.apply_dice(&[3]), Err(EngineError::NotAwaitingDice));
}

#[test]
fn an_illegal_move_is_refused_and_the_game_is_unchanged() {
    let o = opts(4, None, false);
    let mut g = position(
        &o,
        2,
        0,
        &[(0, [t_(0, 3), B, B, B]), (2, [t_(2, 3), B, B, B])],
    );
    assert_eq!(
        g.apply_move(&mv(0, 0, t_(0, 5))),
        Err(EngineError::NotAwaitingMove)
    );
    roll(&mut g, 2);
    let before = json(&g);
    let legal = g.legal_moves();
    for bad in [
        mv(0, 0, t_(0, 6)),
        mv(0, 1, t_(0, 2)),
        mv(2, 0, t_(2, 5)),
        mv(0, 7, t_(0, 5)),
        mv(9, 0, t_(0, 5)),
    ] {
        assert!(matches!(
            g.apply_move(&bad),
            Err(EngineError::IllegalMove { .. })
        ));
        assert_eq!(json(&g), before);
        assert_eq!(g.legal_moves(), legal);
    }
}

#[test]
fn retire_the_awaited_seat_passes_the_turn_and_its_pawns_leave_the_board() {
    let o = opts(4, None, false);
    let mut g = position(
        &o,
        3,
        1,
        &[
            (0, [t_(0, 3), B, B, B]),
            (1, [t_(1, 3), h(0), B, B]),
            (2, [t_(2, 3), B, B, B]),
        ],
    );
    roll(&mut g, 4);
    assert_eq!(g.awaiting(), Awaiting::Move { seat: Seat(1) });
    assert_eq!(g.retire(Seat(1)), Ok(()));
    assert_eq!(pawns(&g, 1), [B; 4]);
    assert_eq!(g.colours[1].status, ColourStatus::Retired);
    assert_eq!(g.stage, to_roll(2, None, false, 1));
    assert_eq!(g.retire(Seat(1)), Err(EngineError::NoSuchSeat { seat: 1 }));
    assert_eq!(g.retire(Seat(3)), Err(EngineError::NoSuchSeat { seat: 3 }));
    // Colour 1 is skipped from now on.
    roll(&mut g, 1);
    play(&mut g, 2, 0, t_(2, 4));
    roll(&mut g, 1);
    play(&mut g, 0, 0, t_(0, 4));
    assert_eq!(g.stage, to_roll(2, None, false, 1));
    // Another seat retires: the last one standing wins.
    assert_eq!(g.retire(Seat(0)), Ok(()));
    assert_eq!(
        g.awaiting(),
        Awaiting::Finished {
            result: GameResult::last_seat_standing(Seat(2))
        }
    );
    assert_eq!(g.retire(Seat(2)), Err(EngineError::Finished));
}

#[test]
fn retire_during_the_roll_off() {
    let mut g = new_game(&opts(4, None, false), 3);
    rolls(&mut g, &[2, 5]);
    // Seat 2 leaves before rolling: seat 1 has the highest roll and starts (colour 1).
    assert_eq!(g.retire(Seat(2)), Ok(()));
    assert_eq!(g.stage, to_roll(1, Some(0), true, 1));
    assert_eq!(pawns(&g, 1), [t_(1, 0), B, B, B]);
    // Two seats: one retiring ends the game at once.
    let mut g = new_game(&opts(4, None, false), 2);
    assert_eq!(g.retire(Seat(0)), Ok(()));
    assert_eq!(
        g.stage,
        Stage::Finished {
            result: GameResult::last_seat_standing(Seat(1))
        }
    );
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
fn the_state_reads_in_game_terms() {
    let mut g = new_game(&opts(4, None, false), 2);
    rolls(&mut g, &[6, 2, 3]);
    let v = json(&g);
    assert_eq!(v["side"], "four_colours");
    assert_eq!(
        v["colours"][0]["pawns"],
        serde_json::json!([{"at": "track", "step": 0, "field": 0}, {"at": "B"}, {"at": "B"}, {"at": "B"}])
    );
    assert_eq!(
        v["stage"],
        serde_json::json!({"stage": "move", "colour": 0, "roll": 3, "bound": 0})
    );
    assert_eq!(v["last_roll"], 3);
    assert_eq!(
        serde_json::to_value(g.legal_moves()).unwrap_or_default(),
        serde_json::json!([{"colour": 0, "pawn": 0, "to": {"at": "track", "step": 3, "field": 3}}])
    );
    assert_eq!(
        serde_json::to_value(h(2)).unwrap_or_default(),
        serde_json::json!({"at": "home", "circle": "c"})
    );
    // The published schemas name the parts of the state and of a move.
    let Ok(v) = crate::variant("mens_erger_je_niet") else {
        panic!("not registered")
    };
    let schemas = v.schemas();
    let names: Vec<&str> = schemas.components.iter().map(|(n, _)| n.as_str()).collect();
    for name in ["Place", "Circle", "Stage", "ColourState", "RollOff"] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
}

// Rebuilt from the state

/// The game read back from its state JSON.
fn rebuilt(g: &MensErgerJeNiet) -> MensErgerJeNiet {
    let text = serde_json::to_string(g).unwrap_or_default();
    match MensErgerJeNiet::from_state(&text) {
        Ok(r) => r,
        Err(e) => panic!("cannot rebuild the game: {e}"),
    }
}

fn refused(v: &serde_json::Value) -> String {
    match MensErgerJeNiet::from_state(&v.to_string()) {
        Ok(_) => panic!("state accepted: {v}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_game_rebuilt_in_the_middle_of_a_three_tries_turn_keeps_its_tries() {
    let o = opts(4, None, true);
    let mut g = position(&o, 2, 0, &[(0, [B, h(3), B, B]), (2, [t_(2, 4), B, B, B])]);
    roll(&mut g, 1);
    let mut r = rebuilt(&g);
    assert_eq!(r.stage, to_roll(0, None, false, 2));
    // Both take the second and third tries alike; then colour 2 moves.
    for value in [5, 2, 3] {
        roll(&mut g, value);
        roll(&mut r, value);
        assert_eq!(json(&r), json(&g));
    }
    assert_eq!(r.stage, to_move(2, 3, None));
    assert_eq!(r.legal_moves(), g.legal_moves());
    assert_eq!(r.legal_moves(), vec![mv(2, 0, t_(2, 7))]);
}

#[test]
fn a_game_rebuilt_while_a_bound_roll_awaits_its_move_offers_only_the_bound_pawn() {
    let o = opts(4, None, false);
    let mut g = position(&o, 2, 0, &[(0, [t_(0, 5), B, B, B])]);
    rolls(&mut g, &[6, 4]);
    assert_eq!(g.stage, to_move(0, 4, Some(1)));
    let mut r = rebuilt(&g);
    assert_eq!(r.legal_moves(), vec![mv(0, 1, t_(0, 4))]);
    assert_eq!(r.legal_moves(), g.legal_moves());
    play(&mut r, 0, 1, t_(0, 4));
    play(&mut g, 0, 1, t_(0, 4));
    assert_eq!(json(&r), json(&g));
}

#[test]
fn a_state_the_game_cannot_be_in_is_refused_with_a_reason() {
    let mut g = new_game(&opts(4, None, false), 2);
    rolls(&mut g, &[6, 2, 3]);
    let good = json(&g);
    let cases: [(&str, serde_json::Value); 6] = [
        (
            "/colours/0/pawns/0",
            serde_json::json!({"at": "track", "step": 3, "field": 7}),
        ),
        (
            "/colours/0/pawns/0",
            serde_json::json!({"at": "track", "step": 250, "field": 10}),
        ),
        (
            "/stage",
            serde_json::json!({"stage": "move", "colour": 0, "roll": 3, "bound": 2}),
        ),
        (
            "/stage",
            serde_json::json!({"stage": "move", "colour": 1, "roll": 3, "bound": null}),
        ),
        (
            "/stage",
            serde_json::json!({"stage": "roll_off", "roll_off": {"contenders": [0, 1], "rolls": [2, 5]}}),
        ),
        ("/side", serde_json::json!("six_colours")),
    ];
    for (at, value) in cases {
        let mut bad = good.clone();
        if let Some(slot) = bad.pointer_mut(at) {
            *slot = value;
        }
        let e = refused(&bad);
        assert!(e.starts_with("unreadable state"), "{at}: {e}");
    }
    let mut seats = good.clone();
    seats["seats"][1]["colours"] = serde_json::json!([1]);
    assert!(refused(&seats).starts_with("unreadable state"));
    assert!(refused(&serde_json::json!({"stage": "finished"})).starts_with("unreadable state"));
}
