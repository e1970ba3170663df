//! One test per rule of RULES.md §4, each from a position and inputs chosen here,
//! asserting the exact state after.

use serde_json::{json, Value};

use super::*;
use crate::{variant, Die, Ending};

const B: Seat = BLUE;
const R: Seat = RED;
const BLUE_HEAD: Head = Head::Blue;
const GREEN: Head = Head::Green;
const RED_HEAD: Head = Head::Red;
const YELLOW: Head = Head::Yellow;

fn basic() -> Options {
    Options::default()
}

fn by_head() -> Options {
    Options {
        movement: Movement::ByHead,
        forced_attack: false,
    }
}

fn sq(name: &str) -> Square {
    Square::parse(name).unwrap_or_else(|e| panic!("{e}"))
}

fn mv(from: &str, to: &str) -> Move {
    Move {
        from: sq(from),
        to: sq(to),
    }
}

fn play(game: &mut Hoofden, from: &str, to: &str) {
    game.apply_move(&mv(from, to))
        .unwrap_or_else(|e| panic!("{from}-{to}: {e}"));
}

fn roll(game: &mut Hoofden, value: u8) {
    game.apply_dice(&[value])
        .unwrap_or_else(|e| panic!("roll {value}: {e}"));
}

fn board(game: &Hoofden) -> Value {
    serde_json::to_value(game.board()).unwrap_or(Value::Null)
}

fn state(game: &Hoofden) -> Value {
    serde_json::to_value(game).unwrap_or(Value::Null)
}

/// The legal moves as `from-to` strings.
fn moves(game: &Hoofden) -> Vec<String> {
    game.legal_moves()
        .iter()
        .map(|m| format!("{}-{}", m.from, m.to))
        .collect()
}

fn dice(seat: Seat, die: Die) -> Awaiting {
    Awaiting::Dice {
        seat,
        die,
        count: 1,
    }
}

fn finished(result: GameResult) -> Awaiting {
    Awaiting::Finished { result }
}

// ---------------------------------------------------------------- set-up and turns

#[test]
fn start_position_has_fourteen_pawns_each_and_j2_and_a9_empty() {
    let game = Hoofden::new(&basic(), 2).unwrap_or_else(|e| panic!("{e}"));
    let p = |owner: u8, head: &str| json!({"owner": owner, "head": head});
    assert_eq!(
        board(&game),
        json!({
            "a1": p(0, "green"), "c1": p(0, "red"), "e1": p(0, "yellow"), "g1": p(0, "red"),
            "i1": p(0, "green"),
            "b2": p(0, "blue"), "d2": p(0, "blue"), "f2": p(0, "blue"), "h2": p(0, "blue"),
            "a3": p(0, "blue"), "c3": p(0, "blue"), "e3": p(0, "blue"), "g3": p(0, "blue"),
            "i3": p(0, "blue"),
            "b8": p(1, "blue"), "d8": p(1, "blue"), "f8": p(1, "blue"), "h8": p(1, "blue"),
            "j8": p(1, "blue"),
            "c9": p(1, "blue"), "e9": p(1, "blue"), "g9": p(1, "blue"), "i9": p(1, "blue"),
            "b10": p(1, "green"), "d10": p(1, "red"), "f10": p(1, "yellow"),
            "h10": p(1, "red"), "j10": p(1, "green"),
        })
    );
    assert_eq!(game.board().get(sq("j2")), None);
    assert_eq!(game.board().get(sq("a9")), None);
    assert_eq!(game.board().count(B), 14);
    assert_eq!(game.board().count(R), 14);
}

#[test]
fn the_state_reads_as_json_in_game_terms() {
    let mut game = Hoofden::new(&basic(), 2).unwrap_or_else(|e| panic!("{e}"));
    play(&mut game, "c3", "d4");
    let s = state(&game);
    assert_eq!(
        s["options"],
        json!({"movement": "basic", "forced_attack": false})
    );
    assert_eq!(s["turn"], json!(1));
    assert_eq!(s["fight"], Value::Null);
    assert_eq!(s["last_move"], json!({"from": "c3", "to": "d4"}));
    assert_eq!(s["last_fight"], Value::Null);
    assert_eq!(s["plies_without_fight"], json!(1));
    assert_eq!(s["result"], Value::Null);
    assert_eq!(s["board"]["d4"], json!({"owner": 0, "head": "blue"}));
    assert_eq!(s["board"].get("c3"), None);
    assert_eq!(s.as_object().map(|o| o.len()), Some(8));
}

#[test]
fn blue_moves_first_and_the_players_alternate() {
    let mut game = Hoofden::new(&basic(), 2).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(game.awaiting(), Awaiting::Move { seat: B });
    assert_eq!(
        moves(&game),
        [
            "i1-j2", "a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4", "g3-f4", "g3-h4", "i3-h4",
            "i3-j4"
        ]
    );
    let by_head_start = Hoofden::new(&by_head(), 2).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(moves(&by_head_start)[..], moves(&game)[1..]);
    play(&mut game, "c3", "d4");
    assert_eq!(game.awaiting(), Awaiting::Move { seat: R });
    assert_eq!(
        moves(&game),
        [
            "b8-a7", "b8-c7", "d8-c7", "d8-e7", "f8-e7", "f8-g7", "h8-g7", "h8-i7", "j8-i7",
            "b10-a9"
        ]
    );
    play(&mut game, "j8", "i7");
    assert_eq!(game.awaiting(), Awaiting::Move { seat: B });
}

// ---------------------------------------------------------------- basic movement

#[test]
fn a_pawn_moves_one_square_diagonally_forward() {
    let mut game = Hoofden::at_position(
        basic(),
        &[("c3", B, RED_HEAD), ("f6", R, GREEN), ("j10", R, BLUE_HEAD)],
        B,
    );
    assert_eq!(moves(&game), ["c3-b4", "c3-d4"]);
    play(&mut game, "c3", "b4");
    assert_eq!(
        board(&game),
        json!({"b4": {"owner": 0, "head": "red"}, "f6": {"owner": 1, "head": "green"},
               "j10": {"owner": 1, "head": "blue"}})
    );
    // Red's forward is towards rank 1.
    assert_eq!(moves(&game), ["f6-e5", "f6-g5", "j10-i9"]);
}

#[test]
fn a_yellow_head_also_moves_diagonally_backward() {
    let game = Hoofden::at_position(basic(), &[("e5", B, YELLOW), ("j10", R, BLUE_HEAD)], B);
    assert_eq!(moves(&game), ["e5-d4", "e5-f4", "e5-d6", "e5-f6"]);
    let game = Hoofden::at_position(basic(), &[("a1", B, GREEN), ("e5", R, YELLOW)], R);
    assert_eq!(moves(&game), ["e5-d4", "e5-f4", "e5-d6", "e5-f6"]);
}

#[test]
fn own_pawns_block_and_opposing_pawns_can_be_attacked() {
    let game = Hoofden::at_position(
        basic(),
        &[
            ("c3", B, BLUE_HEAD),
            ("b4", B, BLUE_HEAD),
            ("d4", R, BLUE_HEAD),
        ],
        B,
    );
    assert_eq!(moves(&game), ["c3-d4", "b4-a5", "b4-c5"]);
}

#[test]
fn a_pawn_ending_its_move_on_the_opponents_back_row_gets_a_yellow_head() {
    let mut game = Hoofden::at_position(
        basic(),
        &[
            ("c9", B, BLUE_HEAD),
            ("h2", R, GREEN),
            ("j10", R, BLUE_HEAD),
        ],
        B,
    );
    play(&mut game, "c9", "d10");
    play(&mut game, "h2", "g1");
    assert_eq!(
        board(&game),
        json!({"g1": {"owner": 1, "head": "yellow"}, "d10": {"owner": 0, "head": "yellow"},
               "j10": {"owner": 1, "head": "blue"}})
    );
}

// ---------------------------------------------------------------- fights

/// Blue `attacker` on c3 attacks Red `defender` on d4; a1 and j10 keep both sides alive.
fn fight_position(attacker: Head, defender: Head) -> Hoofden {
    let mut game = Hoofden::at_position(
        basic(),
        &[
            ("a1", B, GREEN),
            ("c3", B, attacker),
            ("d4", R, defender),
            ("j10", R, GREEN),
        ],
        B,
    );
    play(&mut game, "c3", "d4");
    game
}

#[test]
fn a_move_onto_an_opposing_pawn_starts_a_fight_the_attacker_rolling_first() {
    let mut game = fight_position(RED_HEAD, GREEN);
    assert_eq!(game.awaiting(), dice(B, COMBAT_RED));
    assert!(game.legal_moves().is_empty());
    roll(&mut game, 8);
    assert_eq!(game.awaiting(), dice(R, COMBAT_GREEN));
    assert_eq!(
        state(&game)["fight"],
        json!({"attacker": "c3", "defender": "d4", "attacker_head": "red",
               "defender_head": "green", "attacker_roll": 8, "rounds": []})
    );
}

#[test]
fn the_higher_roll_wins_the_loser_is_removed_and_the_winner_goes_up_one_head() {
    let mut game = fight_position(BLUE_HEAD, BLUE_HEAD);
    roll(&mut game, 5);
    roll(&mut game, 2);
    assert_eq!(
        board(&game),
        json!({"a1": {"owner": 0, "head": "green"}, "d4": {"owner": 0, "head": "green"},
               "j10": {"owner": 1, "head": "green"}})
    );
    assert_eq!(game.awaiting(), Awaiting::Move { seat: R });
    assert_eq!(
        state(&game)["last_fight"],
        json!({"attacker": "c3", "defender": "d4", "attacker_head": "green",
               "defender_head": "blue", "attacker_roll": null,
               "rounds": [{"attacker": 5, "defender": 2}]})
    );
    assert_eq!(state(&game)["fight"], Value::Null);
}

#[test]
fn a_defender_winning_stays_and_goes_up_one_head_the_attacker_is_removed() {
    let mut game = fight_position(BLUE_HEAD, BLUE_HEAD);
    roll(&mut game, 2);
    roll(&mut game, 5);
    assert_eq!(
        board(&game),
        json!({"a1": {"owner": 0, "head": "green"}, "d4": {"owner": 1, "head": "green"},
               "j10": {"owner": 1, "head": "green"}})
    );
    assert_eq!(game.awaiting(), Awaiting::Move { seat: R });
}

#[test]
fn a_yellow_winner_stays_yellow() {
    let mut game = fight_position(YELLOW, RED_HEAD);
    roll(&mut game, 9);
    roll(&mut game, 3);
    assert_eq!(
        board(&game),
        json!({"a1": {"owner": 0, "head": "green"}, "d4": {"owner": 0, "head": "yellow"},
               "j10": {"owner": 1, "head": "green"}})
    );
}

#[test]
fn a_tie_lowers_both_heads_and_the_fight_goes_on_with_the_new_heads() {
    let mut game = fight_position(RED_HEAD, GREEN);
    roll(&mut game, 4);
    roll(&mut game, 4);
    assert_eq!(
        board(&game),
        json!({"a1": {"owner": 0, "head": "green"}, "c3": {"owner": 0, "head": "green"},
               "d4": {"owner": 1, "head": "blue"}, "j10": {"owner": 1, "head": "green"}})
    );
    assert_eq!(game.awaiting(), dice(B, COMBAT_GREEN));
    roll(&mut game, 6);
    assert_eq!(game.awaiting(), dice(R, COMBAT_BLUE));
    roll(&mut game, 3);
    assert_eq!(
        board(&game),
        json!({"a1": {"owner": 0, "head": "green"}, "d4": {"owner": 0, "head": "red"},
               "j10": {"owner": 1, "head": "green"}})
    );
    assert_eq!(game.awaiting(), Awaiting::Move { seat: R });
}

#[test]
fn a_fight_goes_on_round_after_round_until_a_pawn_is_removed() {
    let mut game = fight_position(RED_HEAD, RED_HEAD);
    for (a, d) in [(5, 5), (4, 4)] {
        roll(&mut game, a);
        roll(&mut game, d);
    }
    assert_eq!(game.awaiting(), dice(B, COMBAT_BLUE));
    roll(&mut game, 2);
    assert_eq!(game.awaiting(), dice(R, COMBAT_BLUE));
    roll(&mut game, 6);
    assert_eq!(
        board(&game),
        json!({"a1": {"owner": 0, "head": "green"}, "d4": {"owner": 1, "head": "green"},
               "j10": {"owner": 1, "head": "green"}})
    );
    assert_eq!(
        state(&game)["last_fight"]["rounds"],
        json!([{"attacker": 5, "defender": 5}, {"attacker": 4, "defender": 4},
               {"attacker": 2, "defender": 6}])
    );
}

#[test]
fn a_blue_head_going_down_on_a_tie_is_removed() {
    let mut game = fight_position(BLUE_HEAD, BLUE_HEAD);
    roll(&mut game, 3);
    roll(&mut game, 3);
    assert_eq!(
        board(&game),
        json!({"a1": {"owner": 0, "head": "green"}, "j10": {"owner": 1, "head": "green"}})
    );
    assert_eq!(game.awaiting(), Awaiting::Move { seat: R });
    assert_eq!(game.plies_without_fight(), 0);
}

#[test]
fn an_attacker_surviving_a_tie_takes_the_square_without_promotion() {
    let mut game = fight_position(GREEN, BLUE_HEAD);
    roll(&mut game, 4);
    roll(&mut game, 4);
    assert_eq!(
        board(&game),
        json!({"a1": {"owner": 0, "head": "green"}, "d4": {"owner": 0, "head": "blue"},
               "j10": {"owner": 1, "head": "green"}})
    );
}

#[test]
fn a_defender_surviving_a_tie_stays_without_promotion() {
    let mut game = fight_position(BLUE_HEAD, GREEN);
    roll(&mut game, 3);
    roll(&mut game, 3);
    assert_eq!(
        board(&game),
        json!({"a1": {"owner": 0, "head": "green"}, "d4": {"owner": 1, "head": "blue"},
               "j10": {"owner": 1, "head": "green"}})
    );
}

#[test]
fn an_attacker_winning_a_square_on_the_opponents_back_row_gets_a_yellow_head() {
    let mut game = Hoofden::at_position(
        basic(),
        &[
            ("e9", B, GREEN),
            ("f10", R, BLUE_HEAD),
            ("j10", R, BLUE_HEAD),
        ],
        B,
    );
    play(&mut game, "e9", "f10");
    roll(&mut game, 7);
    roll(&mut game, 1);
    assert_eq!(
        board(&game),
        json!({"f10": {"owner": 0, "head": "yellow"}, "j10": {"owner": 1, "head": "blue"}})
    );
}

#[test]
fn an_attacker_surviving_a_tie_on_the_opponents_back_row_gets_a_yellow_head() {
    let mut game = Hoofden::at_position(
        basic(),
        &[
            ("e9", B, GREEN),
            ("f10", R, BLUE_HEAD),
            ("j10", R, BLUE_HEAD),
        ],
        B,
    );
    play(&mut game, "e9", "f10");
    roll(&mut game, 3);
    roll(&mut game, 3);
    assert_eq!(
        board(&game),
        json!({"f10": {"owner": 0, "head": "yellow"}, "j10": {"owner": 1, "head": "blue"}})
    );
}

#[test]
fn a_defender_on_the_back_row_is_never_promoted_to_yellow() {
    // Red's green pawn on a1 (Red's promotion row) defends against Blue's yellow pawn
    // moving backward from b2, and wins: it goes up one head, to red, not to yellow.
    let mut game = Hoofden::at_position(
        basic(),
        &[
            ("a1", R, GREEN),
            ("b2", B, YELLOW),
            ("j2", B, BLUE_HEAD),
            ("j10", R, BLUE_HEAD),
        ],
        B,
    );
    play(&mut game, "b2", "a1");
    roll(&mut game, 4);
    roll(&mut game, 7);
    assert_eq!(
        board(&game),
        json!({"a1": {"owner": 1, "head": "red"}, "j2": {"owner": 0, "head": "blue"},
               "j10": {"owner": 1, "head": "blue"}})
    );
    assert_eq!(game.awaiting(), Awaiting::Move { seat: R });
}

// ---------------------------------------------------------------- by_head movement

#[test]
fn by_head_a_blue_head_moves_exactly_one_square_forward() {
    let game = Hoofden::at_position(
        by_head(),
        &[
            ("e5", B, BLUE_HEAD),
            ("c3", R, BLUE_HEAD),
            ("d4", R, BLUE_HEAD),
        ],
        B,
    );
    assert_eq!(moves(&game), ["e5-d6", "e5-f6"]);
    let game = Hoofden::at_position(
        by_head(),
        &[
            ("e5", B, BLUE_HEAD),
            ("c3", R, BLUE_HEAD),
            ("d4", R, BLUE_HEAD),
        ],
        R,
    );
    assert_eq!(moves(&game), ["c3-b2", "c3-d2", "d4-e3"]);
}

#[test]
fn by_head_a_green_head_makes_two_steps_over_empty_squares_changing_direction() {
    // Crowded: own d6 and opposing f6 block the forward paths, own g3 blocks an end,
    // the opposing c5 can be attacked at the end of a path; e3 is reached by two paths.
    let game = Hoofden::at_position(
        by_head(),
        &[
            ("e5", B, GREEN),
            ("d6", B, BLUE_HEAD),
            ("g3", B, BLUE_HEAD),
            ("f6", R, BLUE_HEAD),
            ("c5", R, RED_HEAD),
        ],
        B,
    );
    assert_eq!(
        moves(&game),
        ["g3-f4", "g3-h4", "e5-c3", "e5-e3", "e5-c5", "e5-g5", "d6-c7", "d6-e7"]
    );
}

#[test]
fn by_head_a_red_head_makes_exactly_three_steps() {
    // a1-b2, then a3-b4, c3-b4, c3-d4, c3-d2 or c1-d2: b4 and d2 by two paths each.
    let game = Hoofden::at_position(by_head(), &[("a1", B, RED_HEAD), ("j10", R, BLUE_HEAD)], B);
    assert_eq!(moves(&game), ["a1-d2", "a1-b4", "a1-d4"]);
}

#[test]
fn by_head_a_path_never_returns_to_a_square_it_left_and_ends_may_be_fights() {
    // The yellow head on a1 makes 4 steps; without the no-return rule it could end on
    // a1 or b2. Red d4 blocks the paths through it, own c1 blocks and is no end, Red e3
    // can be attacked; c3 and a5 are each reached by two paths and listed once.
    let mut game = Hoofden::at_position(
        by_head(),
        &[
            ("a1", B, YELLOW),
            ("c1", B, BLUE_HEAD),
            ("d4", R, BLUE_HEAD),
            ("e3", R, GREEN),
        ],
        B,
    );
    assert_eq!(
        moves(&game),
        ["a1-e1", "a1-a3", "a1-c3", "a1-e3", "a1-a5", "a1-c5", "c1-b2", "c1-d2"]
    );
    play(&mut game, "a1", "e3");
    assert_eq!(game.awaiting(), dice(B, COMBAT_YELLOW));
    roll(&mut game, 9);
    roll(&mut game, 2);
    assert_eq!(
        board(&game),
        json!({"c1": {"owner": 0, "head": "blue"}, "e3": {"owner": 0, "head": "yellow"},
               "d4": {"owner": 1, "head": "blue"}})
    );
    assert_eq!(game.awaiting(), Awaiting::Move { seat: R });
}

// ---------------------------------------------------------------- forced attack

#[test]
fn forced_attack_a_player_who_can_attack_must_attack() {
    let pawns = [
        ("c3", B, BLUE_HEAD),
        ("g3", B, BLUE_HEAD),
        ("d4", R, BLUE_HEAD),
        ("h4", R, GREEN),
        ("j10", R, GREEN),
    ];
    let free = Hoofden::at_position(basic(), &pawns, B);
    assert_eq!(moves(&free), ["c3-b4", "c3-d4", "g3-f4", "g3-h4"]);
    let forced_options = Options {
        forced_attack: true,
        ..basic()
    };
    let mut forced = Hoofden::at_position(forced_options, &pawns, B);
    assert_eq!(moves(&forced), ["c3-d4", "g3-h4"]);
    let before = state(&forced);
    let err = forced.apply_move(&mv("g3", "f4"));
    assert!(
        matches!(&err, Err(EngineError::IllegalMove { reason }) if reason.contains("forced_attack"))
    );
    assert_eq!(state(&forced), before);
    play(&mut forced, "g3", "h4");
    assert_eq!(forced.awaiting(), dice(B, COMBAT_BLUE));
    // Without an attack, every move stays allowed.
    let quiet = Hoofden::at_position(
        forced_options,
        &[("c3", B, BLUE_HEAD), ("j10", R, GREEN)],
        B,
    );
    assert_eq!(moves(&quiet), ["c3-b4", "c3-d4"]);
    // With by_head too: only the green head's attack on c5 remains.
    let by_head_forced = Hoofden::at_position(
        Options {
            forced_attack: true,
            ..by_head()
        },
        &[("e5", B, GREEN), ("c5", R, RED_HEAD), ("j10", R, GREEN)],
        B,
    );
    assert_eq!(moves(&by_head_forced), ["e5-c5"]);
}

// ---------------------------------------------------------------- the end

#[test]
fn both_sides_without_pawns_is_a_draw() {
    let mut game = Hoofden::at_position(basic(), &[("c3", B, BLUE_HEAD), ("d4", R, BLUE_HEAD)], B);
    play(&mut game, "c3", "d4");
    roll(&mut game, 3);
    roll(&mut game, 3);
    assert_eq!(board(&game), json!({}));
    assert_eq!(game.awaiting(), finished(GameResult::draw()));
    assert_eq!(game.end_reason(), Some(EndReason::AllPawnsRemoved));
}

#[test]
fn the_opponent_without_pawns_loses() {
    let mut game = Hoofden::at_position(basic(), &[("c3", B, BLUE_HEAD), ("d4", R, BLUE_HEAD)], B);
    play(&mut game, "c3", "d4");
    roll(&mut game, 6);
    roll(&mut game, 1);
    assert_eq!(board(&game), json!({"d4": {"owner": 0, "head": "green"}}));
    assert_eq!(game.awaiting(), finished(GameResult::won(B)));
    assert_eq!(game.end_reason(), Some(EndReason::NoPawnsLeft));
    assert!(game.legal_moves().is_empty());
    assert_eq!(game.apply_move(&mv("d4", "c5")), Err(EngineError::Finished));
}

#[test]
fn the_mover_without_pawns_loses() {
    let mut game = Hoofden::at_position(
        basic(),
        &[
            ("c3", B, BLUE_HEAD),
            ("d4", R, BLUE_HEAD),
            ("j10", R, GREEN),
        ],
        B,
    );
    play(&mut game, "c3", "d4");
    roll(&mut game, 1);
    roll(&mut game, 6);
    assert_eq!(
        board(&game),
        json!({"d4": {"owner": 1, "head": "green"}, "j10": {"owner": 1, "head": "green"}})
    );
    assert_eq!(game.awaiting(), finished(GameResult::won(R)));
    assert_eq!(game.end_reason(), Some(EndReason::NoPawnsLeft));
}

/// Red's pawns are stuck on a1, c1 (red heads, on Red's last row) and b2 (blue head),
/// with Blue's d2 beside c1.
fn stuck_red(options: Options) -> Hoofden {
    Hoofden::at_position(
        options,
        &[
            ("a1", R, RED_HEAD),
            ("c1", R, RED_HEAD),
            ("b2", R, BLUE_HEAD),
            ("d2", B, BLUE_HEAD),
            ("j2", B, BLUE_HEAD),
        ],
        B,
    )
}

#[test]
fn the_opponent_without_a_legal_move_loses_in_both_movement_rules() {
    for options in [basic(), by_head()] {
        let mut game = stuck_red(options);
        play(&mut game, "j2", "i3");
        assert_eq!(game.awaiting(), finished(GameResult::won(B)), "{options:?}");
        assert_eq!(game.end_reason(), Some(EndReason::CannotMove));
    }
}

#[test]
fn a_hundred_plies_in_a_row_without_a_fight_draw() {
    let mut game = Hoofden::at_position(basic(), &[("a1", B, YELLOW), ("j10", R, YELLOW)], B);
    for ply in 0..100 {
        assert_eq!(game.plies_without_fight(), ply);
        assert!(game.result.is_none());
        match ply % 4 {
            0 => play(&mut game, "a1", "b2"),
            1 => play(&mut game, "j10", "i9"),
            2 => play(&mut game, "b2", "a1"),
            _ => play(&mut game, "i9", "j10"),
        }
    }
    assert_eq!(game.plies_without_fight(), 100);
    assert_eq!(game.awaiting(), finished(GameResult::draw()));
    assert_eq!(game.end_reason(), Some(EndReason::QuietMoves));
    assert_eq!(
        board(&game),
        json!({"a1": {"owner": 0, "head": "yellow"}, "j10": {"owner": 1, "head": "yellow"}})
    );
}

#[test]
fn a_fight_restarts_the_count_of_plies_without_a_fight() {
    let mut game = Hoofden::at_position(
        basic(),
        &[("c3", B, YELLOW), ("d4", R, BLUE_HEAD), ("j10", R, GREEN)],
        B,
    );
    game.plies_without_fight = 99;
    play(&mut game, "c3", "d4");
    let mut game2 = game.clone();
    roll(&mut game, 9);
    roll(&mut game, 1);
    assert_eq!(game.plies_without_fight(), 0);
    assert_eq!(game.awaiting(), Awaiting::Move { seat: R });
    roll(&mut game2, 4);
    roll(&mut game2, 6);
    assert_eq!(game2.plies_without_fight(), 0);
}

#[test]
fn the_end_checks_come_before_the_hundred_ply_draw() {
    let mut game = stuck_red(basic());
    game.plies_without_fight = 99;
    play(&mut game, "j2", "i3");
    assert_eq!(game.plies_without_fight(), 100);
    assert_eq!(game.awaiting(), finished(GameResult::won(B)));
    assert_eq!(game.end_reason(), Some(EndReason::CannotMove));
}

// ---------------------------------------------------------------- options and errors

#[test]
fn options_are_validated_with_clear_reasons() {
    let hoofden = variant("hoofden").unwrap_or_else(|e| panic!("{e}"));
    let reason = |options: Value, seats: u8| match hoofden.create(&options, seats) {
        Err(e) => e.to_string(),
        Ok(_) => String::from("accepted"),
    };
    assert!(reason(json!({"movement": "diagonal"}), 2)
        .contains(r#"movement must be "basic" or "by_head", not "diagonal""#));
    assert!(
        reason(json!({"forced_attack": "yes"}), 2).contains("forced_attack must be true or false")
    );
    assert!(reason(json!({"speed": 3}), 2).contains("unknown field `speed`"));
    assert_eq!(
        hoofden.create(&Value::Null, 3).map(|_| ()),
        Err(EngineError::SeatCount {
            min: 2,
            max: 2,
            got: 3
        })
    );
    assert_eq!(
        Hoofden::new(&basic(), 1).map(|_| ()),
        Err(EngineError::SeatCount {
            min: 2,
            max: 2,
            got: 1
        })
    );
    assert_eq!(
        reason(json!({"movement": "by_head", "forced_attack": true}), 2),
        "accepted"
    );
    assert_eq!(
        hoofden.default_options(),
        Ok(json!({"movement": "basic", "forced_attack": false}))
    );
    let game = hoofden
        .create(&json!({"movement": "by_head"}), 2)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        game.options(),
        Ok(json!({"movement": "by_head", "forced_attack": false}))
    );
}

#[test]
fn an_impossible_die_value_is_refused_and_the_game_unchanged() {
    let mut game = fight_position(GREEN, YELLOW);
    let before = state(&game);
    assert_eq!(
        game.apply_dice(&[1]),
        Err(EngineError::ImpossibleDieValue {
            die: "combat_green",
            value: 1
        })
    );
    assert_eq!(
        game.apply_dice(&[2, 3]),
        Err(EngineError::DiceCount {
            expected: 1,
            got: 2
        })
    );
    assert_eq!(state(&game), before);
    roll(&mut game, 7);
    let before = state(&game);
    assert_eq!(
        game.apply_dice(&[3]),
        Err(EngineError::ImpossibleDieValue {
            die: "combat_yellow",
            value: 3
        })
    );
    assert_eq!(
        game.apply_move(&mv("a1", "b2")),
        Err(EngineError::NotAwaitingMove)
    );
    assert_eq!(state(&game), before);
}

#[test]
fn an_illegal_move_is_refused_and_the_game_unchanged() {
    let mut game = Hoofden::new(&basic(), 2).unwrap_or_else(|e| panic!("{e}"));
    let before = state(&game);
    let reason = |r: Result<(), EngineError>| match r {
        Err(EngineError::IllegalMove { reason }) => reason,
        other => format!("{other:?}"),
    };
    assert_eq!(
        reason(game.apply_move(&mv("c5", "d6"))),
        "there is no pawn on c5"
    );
    assert_eq!(
        reason(game.apply_move(&mv("b8", "a7"))),
        "the pawn on b8 is not yours"
    );
    assert_eq!(
        reason(game.apply_move(&mv("c3", "e5"))),
        "the pawn on c3 (blue head) cannot move to e5"
    );
    assert_eq!(
        reason(game.apply_move(&mv("b2", "c3"))),
        "the pawn on b2 (blue head) cannot move to c3"
    );
    assert_eq!(game.apply_dice(&[3]), Err(EngineError::NotAwaitingDice));
    assert_eq!(state(&game), before);
    let malformed = hoofden_json_move(&mut game, json!({"from": "b3", "to": "c4"}));
    assert!(malformed.contains("light square"), "{malformed}");
    let malformed = hoofden_json_move(&mut game, json!({"from": "k1", "to": "c4"}));
    assert!(
        malformed.contains("squares are named a1 to j10"),
        "{malformed}"
    );
    assert_eq!(state(&game), before);
}

fn hoofden_json_move(game: &mut Hoofden, mv: Value) -> String {
    match crate::AnyGame::apply_move(game, &mv) {
        Err(e) => e.to_string(),
        Ok(()) => String::from("accepted"),
    }
}

#[test]
fn squares_are_named_by_file_and_rank() {
    assert_eq!(sq("a1").to_string(), "a1");
    assert_eq!(sq("j10").to_string(), "j10");
    assert_eq!(sq("a1").index(), 0);
    assert_eq!(sq("j10").index(), 49);
    assert_eq!(sq("c3").rotated(), sq("h8"));
    assert!(Square::parse("b1").is_err());
    assert!(Square::parse("a11").is_err());
    assert!(Square::parse("a01").is_err());
    assert!(Square::parse("a").is_err());
    assert!(Square::all().all(|s| Square::parse(&s.to_string()) == Ok(s)));
    assert_eq!(Square::all().count(), 50);
}

#[test]
fn retiring_gives_the_other_seat_the_win() {
    let mut game = fight_position(GREEN, GREEN);
    roll(&mut game, 4);
    assert_eq!(
        game.retire(Seat(2)),
        Err(EngineError::NoSuchSeat { seat: 2 })
    );
    game.retire(R).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        board(&game),
        json!({"a1": {"owner": 0, "head": "green"}, "c3": {"owner": 0, "head": "green"}})
    );
    assert_eq!(state(&game)["fight"], Value::Null);
    assert_eq!(
        game.awaiting(),
        finished(GameResult {
            winner: Some(B),
            winners: vec![B],
            ending: Ending::OpponentsRetired,
            points: 1
        })
    );
    assert_eq!(game.end_reason(), Some(EndReason::OpponentsRetired));
    assert_eq!(game.retire(B), Err(EngineError::Finished));
    assert_eq!(game.apply_dice(&[3]), Err(EngineError::Finished));
}

#[test]
fn the_variant_publishes_schemas_for_options_moves_and_state() {
    let hoofden = variant("hoofden").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(hoofden.title, "Hoofden (dice-combat draughts)");
    assert_eq!((hoofden.min_seats, hoofden.max_seats), (2, 2));
    let schemas = hoofden.schemas();
    let text = |s: &utoipa::openapi::RefOr<utoipa::openapi::Schema>| {
        serde_json::to_string(s).unwrap_or_default()
    };
    for field in ["board", "turn", "fight", "plies_without_fight", "result"] {
        assert!(
            text(&schemas.state).contains(field),
            "state schema lacks {field}"
        );
    }
    assert!(text(&schemas.options).contains("forced_attack"));
    assert!(text(&schemas.mv).contains("from"));
    let names: Vec<&str> = schemas.components.iter().map(|(n, _)| n.as_str()).collect();
    for name in ["Movement", "Pawn", "Head", "Fight", "Round", "GameResult"] {
        assert!(names.contains(&name), "no component {name}: {names:?}");
    }
}

// ---------------------------------------------------------------- rebuilt from the state

fn rebuilt(game: &Hoofden) -> Hoofden {
    let text = serde_json::to_string(game).unwrap_or_default();
    Hoofden::from_state(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn a_game_rebuilt_in_the_middle_of_a_fight_keeps_the_fights_rounds_and_rolls() {
    let mut game = fight_position(RED_HEAD, RED_HEAD);
    for (a, d) in [(5, 5), (4, 4)] {
        roll(&mut game, a);
        roll(&mut game, d);
    }
    roll(&mut game, 2);
    // Two tied rounds and the attacker's roll of the third are in.
    let mut again = rebuilt(&game);
    assert_eq!(state(&again), state(&game));
    assert_eq!(again.awaiting(), dice(R, COMBAT_BLUE));
    assert!(again.legal_moves().is_empty());
    assert_eq!(
        again.apply_move(&mv("a1", "b2")),
        Err(EngineError::NotAwaitingMove)
    );
    roll(&mut again, 6);
    roll(&mut game, 6);
    assert_eq!(state(&again), state(&game));
    assert_eq!(
        state(&again)["last_fight"]["rounds"],
        json!([{"attacker": 5, "defender": 5}, {"attacker": 4, "defender": 4},
               {"attacker": 2, "defender": 6}])
    );
    assert_eq!(again.awaiting(), Awaiting::Move { seat: R });
    assert_eq!(moves(&again), moves(&game));
}

#[test]
fn a_by_head_game_rebuilt_from_its_state_has_the_by_head_moves() {
    let game = Hoofden::at_position(
        by_head(),
        &[("e5", B, GREEN), ("a1", B, BLUE_HEAD), ("f6", R, BLUE_HEAD)],
        B,
    );
    let again = rebuilt(&game);
    assert_eq!(again.options(), &by_head());
    // Two steps any way round for the green head, never over f6 (the basic rules would
    // give e5-d6 and e5-f6).
    assert_eq!(
        moves(&again),
        ["a1-b2", "e5-c3", "e5-e3", "e5-g3", "e5-c5", "e5-g5", "e5-c7", "e5-e7"]
    );
    assert_eq!(moves(&again), moves(&game));
}

#[test]
fn a_state_no_hoofden_game_could_be_in_is_refused_with_a_reason() {
    let good = state(&fight_position(RED_HEAD, GREEN));
    let refused = |change: &dyn Fn(&mut Value)| {
        let mut s = good.clone();
        change(&mut s);
        let e = Hoofden::from_state(&s.to_string())
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.starts_with("unreadable state"), "{e}");
        e
    };
    assert!(
        refused(&|s| s["board"]["b1"] = json!({"owner": 0, "head": "blue"}))
            .contains("light square")
    );
    assert!(
        refused(&|s| s["board"]["a1"] = json!({"owner": 2, "head": "blue"}))
            .contains("only seats 0 and 1")
    );
    assert!(refused(&|s| s["board"]["d4"]["head"] = json!("blue")).contains("defender"));
    assert!(refused(&|s| s["fight"]["attacker_roll"] = json!(9)).contains("combat_red"));
    assert!(
        refused(&|s| s["fight"]["rounds"] = json!([{"attacker": 4, "defender": 3}]))
            .contains("not a tie")
    );
    assert!(refused(&|s| s["turn"] = json!(2)).contains("only seats 0 and 1"));
    assert!(refused(&|s| s["plies_without_fight"] = json!(101)).contains("plies"));
    assert!(refused(&|s| {
        s["fight"] = Value::Null;
        s["plies_without_fight"] = json!(100);
    })
    .contains("after 100 plies"));
    // A square named twice in the text itself.
    let text = good.to_string().replacen(
        "\"a1\":{",
        "\"a1\":{\"owner\":0,\"head\":\"blue\"},\"a1\":{",
        1,
    );
    let e = Hoofden::from_state(&text).err().map(|e| e.to_string());
    assert!(
        e.as_deref().is_some_and(|e| e.contains("named twice")),
        "{e:?}: {text}"
    );
}
