//! One test per rule of RULES.md §2, each from a position and dice chosen for it.

use serde_json::json;

use super::*;
use crate::{variant, Awaiting, Ending, EngineError, Game, GameResult, Seat};

/// A position with White's and Black's checkers on the given points (point, count);
/// checkers not placed and not on the bar are borne off.
pub(super) fn setup(white: &[(u8, u8)], black: &[(u8, u8)], bar: (u8, u8)) -> Position {
    let mut board = [0i8; 24];
    for &(p, n) in white {
        board[usize::from(p - 1)] += n as i8;
    }
    for &(p, n) in black {
        board[usize::from(p - 1)] -= n as i8;
    }
    let on = |list: &[(u8, u8)]| list.iter().map(|x| x.1).sum::<u8>();
    Position {
        board,
        bar: Tally {
            white: bar.0,
            black: bar.1,
        },
        off: Tally {
            white: 15 - on(white) - bar.0,
            black: 15 - on(black) - bar.1,
        },
    }
}

/// A game in `pos` with `side` to move, after rolling `dice`.
fn rolled(pos: Position, side: Side, dice: [u8; 2]) -> Backgammon {
    let mut g = Backgammon::from_position(pos, side).unwrap();
    g.apply_dice(&dice).unwrap();
    g
}

fn parse(text: &str) -> Move {
    let steps: Vec<Step> = text
        .split_whitespace()
        .map(|s| {
            let (a, b) = s.split_once('/').unwrap();
            let from = match a {
                "bar" => Origin::Bar,
                n => Origin::Point(Point::new(n.parse().unwrap()).unwrap()),
            };
            let to = match b {
                "off" => Destination::Off,
                n => Destination::Point(Point::new(n.parse().unwrap()).unwrap()),
            };
            Step { from, to }
        })
        .collect();
    Move::new(&steps).unwrap()
}

fn show(m: &Move) -> String {
    m.steps()
        .iter()
        .map(|s| {
            let a = match s.from {
                Origin::Bar => "bar".to_string(),
                Origin::Point(p) => p.number().to_string(),
            };
            let b = match s.to {
                Destination::Off => "off".to_string(),
                Destination::Point(p) => p.number().to_string(),
            };
            format!("{a}/{b}")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn moves(g: &Backgammon) -> Vec<String> {
    let mut v: Vec<String> = g.legal_moves().iter().map(show).collect();
    v.sort();
    v
}

fn play(g: &mut Backgammon, text: &str) {
    g.apply_move(&parse(text)).unwrap();
}

#[test]
fn opening_roll_white_first_then_black_and_the_higher_plays_both_numbers() {
    let mut g = Backgammon::new(&Options::default(), 2).unwrap();
    assert_eq!(
        g.awaiting(),
        Awaiting::Dice {
            seat: Seat(0),
            die: DIE,
            count: 1
        }
    );
    g.apply_dice(&[3]).unwrap();
    assert_eq!(
        g.awaiting(),
        Awaiting::Dice {
            seat: Seat(1),
            die: DIE,
            count: 1
        }
    );
    g.apply_dice(&[5]).unwrap();
    // Black rolled higher and plays 5 and 3.
    assert_eq!(g.awaiting(), Awaiting::Move { seat: Seat(1) });
    assert_eq!(g.dice(), Some([3, 5]));
    assert!(moves(&g).contains(&"13/8 8/5".to_string()));
    play(&mut g, "13/8 8/5");
    let mut want = Position::START;
    want.board[12] = -4;
    want.board[4] = -1;
    assert_eq!(*g.position(), want);
    assert_eq!(
        g.awaiting(),
        Awaiting::Dice {
            seat: Seat(0),
            die: DIE,
            count: 2
        }
    );
}

#[test]
fn opening_roll_tie_both_roll_again() {
    let mut g = Backgammon::new(&Options::default(), 2).unwrap();
    g.apply_dice(&[4]).unwrap();
    g.apply_dice(&[4]).unwrap();
    assert_eq!(g.phase(), Phase::OpeningRoll);
    assert_eq!(
        g.awaiting(),
        Awaiting::Dice {
            seat: Seat(0),
            die: DIE,
            count: 1
        }
    );
    assert_eq!(*g.position(), Position::START);
    g.apply_dice(&[6]).unwrap();
    g.apply_dice(&[1]).unwrap();
    // White rolled higher and plays 6-1.
    assert_eq!(g.awaiting(), Awaiting::Move { seat: Seat(0) });
    assert_eq!(g.to_move(), Side::White);
    assert_eq!(g.dice(), Some([6, 1]));
    play(&mut g, "12/18 17/18");
    let mut want = Position::START;
    want.board[11] = 4;
    want.board[16] = 2;
    want.board[17] = 2;
    assert_eq!(*g.position(), want);
}

#[test]
fn entering_from_the_bar_uses_the_die_as_the_point() {
    // White enters on point d.
    let pos = setup(&[(19, 14)], &[(13, 15)], (1, 0));
    let mut g = rolled(pos, Side::White, [4, 1]);
    assert!(moves(&g).iter().all(|m| m.starts_with("bar/")));
    play(&mut g, "bar/4 19/20");
    assert_eq!(
        *g.position(),
        setup(&[(4, 1), (19, 13), (20, 1)], &[(13, 15)], (0, 0))
    );
    // Black enters on point 25 - d.
    let pos = setup(&[(12, 15)], &[(6, 14)], (0, 1));
    let mut g = rolled(pos, Side::Black, [4, 1]);
    assert!(moves(&g).iter().all(|m| m.starts_with("bar/")));
    play(&mut g, "bar/21 6/5");
    assert_eq!(
        *g.position(),
        setup(&[(12, 15)], &[(21, 1), (6, 13), (5, 1)], (0, 0))
    );
}

#[test]
fn cannot_enter_on_two_or_more_opposing_checkers() {
    // Black holds points 1..5; only a 6 enters.
    let pos = setup(
        &[(19, 14)],
        &[(1, 2), (2, 2), (3, 2), (4, 2), (5, 2), (13, 5)],
        (1, 0),
    );
    let g = rolled(pos, Side::White, [5, 6]);
    assert_eq!(
        moves(&g),
        ["bar/6 19/24", "bar/6 6/11"].map(String::from).to_vec()
    );
}

#[test]
fn hitting_a_blot_puts_it_on_the_bar() {
    let pos = setup(&[(1, 15)], &[(4, 1), (24, 14)], (0, 0));
    let mut g = rolled(pos, Side::White, [3, 2]);
    play(&mut g, "1/4 4/6");
    assert_eq!(
        *g.position(),
        setup(&[(1, 14), (6, 1)], &[(24, 14)], (0, 1))
    );
    assert_eq!(g.to_move(), Side::Black);
}

#[test]
fn a_checker_may_not_land_on_two_or_more_opposing_checkers() {
    // Points 4 and 3 are Black's; 1 + 3 and 1 + 2 are closed, and so is 1 + 5 = 6.
    let pos = setup(&[(1, 15)], &[(3, 2), (4, 2), (6, 2), (24, 9)], (0, 0));
    let g = rolled(pos, Side::White, [3, 2]);
    assert!(g.legal_moves().is_empty());
    assert_eq!(g.to_move(), Side::Black);
}

#[test]
fn doubles_are_played_four_times() {
    let pos = setup(&[(1, 1), (12, 14)], &[(24, 15)], (0, 0));
    let mut g = rolled(pos, Side::White, [5, 5]);
    assert!(g.legal_moves().iter().all(|m| m.steps().len() == 4));
    play(&mut g, "12/17 12/17 12/17 12/17");
    assert_eq!(
        *g.position(),
        setup(&[(1, 1), (12, 10), (17, 4)], &[(24, 15)], (0, 0))
    );
}

#[test]
fn the_same_checker_may_use_several_numbers() {
    let pos = setup(&[(1, 1), (19, 14)], &[(24, 15)], (0, 0));
    let mut g = rolled(pos, Side::White, [6, 5]);
    assert!(moves(&g).contains(&"1/7 7/12".to_string()));
    play(&mut g, "1/7 7/12");
    assert_eq!(
        *g.position(),
        setup(&[(12, 1), (19, 14)], &[(24, 15)], (0, 0))
    );
    // With doubles, one checker may take all four steps.
    let pos = setup(&[(1, 1), (19, 14)], &[(24, 15)], (0, 0));
    let mut g = rolled(pos, Side::White, [3, 3]);
    play(&mut g, "1/4 4/7 7/10 10/13");
    assert_eq!(
        *g.position(),
        setup(&[(13, 1), (19, 14)], &[(24, 15)], (0, 0))
    );
}

#[test]
fn checkers_on_the_bar_must_all_enter_before_any_other_move() {
    // Two on the bar and a 6-4: both numbers enter, nothing else moves.
    let pos = setup(&[(12, 13)], &[(24, 15)], (2, 0));
    let g = rolled(pos, Side::White, [6, 4]);
    assert_eq!(moves(&g), ["bar/6 bar/4"].map(String::from).to_vec());
    // Two on the bar, one number blocked: the other enters and the turn ends.
    let pos = setup(&[(12, 13)], &[(6, 2), (24, 13)], (2, 0));
    let mut g = rolled(pos, Side::White, [6, 4]);
    assert_eq!(moves(&g), ["bar/4"].map(String::from).to_vec());
    play(&mut g, "bar/4");
    assert_eq!(
        *g.position(),
        setup(&[(4, 1), (12, 13)], &[(6, 2), (24, 13)], (1, 0))
    );
}

#[test]
fn bearing_off_only_when_all_checkers_are_home() {
    // One checker on 18 is outside the home board: no bearing off with the 6.
    let pos = setup(&[(18, 1), (20, 14)], &[(1, 15)], (0, 0));
    let mut g = rolled(pos, Side::White, [6, 1]);
    // The 6 cannot bear off from 20 while the checker on 18 is outside: every move
    // first brings it home.
    assert_eq!(
        moves(&g),
        ["18/24 20/21", "18/24 24/off"].map(String::from).to_vec()
    );
    play(&mut g, "18/24 24/off");
    assert_eq!(*g.position(), setup(&[(20, 14)], &[(1, 15)], (0, 0)));
}

#[test]
fn bearing_off_with_the_exact_number() {
    let pos = setup(&[(20, 2), (23, 1)], &[(1, 15)], (0, 0));
    let mut g = rolled(pos, Side::White, [5, 2]);
    assert!(moves(&g).contains(&"20/off 23/off".to_string()));
    play(&mut g, "20/off 23/off");
    assert_eq!(*g.position(), setup(&[(20, 1)], &[(1, 15)], (0, 0)));
}

#[test]
fn bearing_off_with_a_larger_number_only_from_the_rearmost_point() {
    // 6-5 with checkers on 21 (4 pips) and 23 (2 pips): the 6 and the 5 bear off the
    // rearmost checker each time.
    let pos = setup(&[(21, 1), (23, 1)], &[(1, 15)], (0, 0));
    let g = rolled(pos, Side::White, [6, 5]);
    assert_eq!(moves(&g), ["21/off 23/off"].map(String::from).to_vec());
    // A 6 with a checker on 19 (6 pips) and 22: the 6 must bear off from 19 exactly, it
    // cannot take the checker on 22 while the one on 19 is there.
    let pos = setup(&[(19, 1), (22, 1)], &[(1, 15)], (0, 0));
    let g = rolled(pos, Side::White, [6, 1]);
    assert_eq!(
        moves(&g),
        ["19/20 20/off", "19/off 22/23"].map(String::from).to_vec()
    );
}

#[test]
fn moving_inside_the_home_board_instead_of_bearing_off() {
    let pos = setup(&[(20, 1), (23, 1)], &[(1, 15)], (0, 0));
    let mut g = rolled(pos, Side::White, [2, 1]);
    // 23/off 20/21 bears off, but the player may also move inside the home board.
    assert_eq!(
        moves(&g),
        ["20/22 22/23", "20/22 23/24", "23/off 20/21"]
            .map(String::from)
            .to_vec()
    );
    play(&mut g, "20/22 22/23");
    assert_eq!(*g.position(), setup(&[(23, 2)], &[(1, 15)], (0, 0)));
}

#[test]
fn a_hit_checker_stops_bearing_off_until_it_is_home() {
    // White has borne off 5 and has 10 at home, but one checker is hit onto the bar.
    let pos = setup(&[(20, 5), (24, 4)], &[(1, 14), (12, 1)], (1, 0));
    let mut g = rolled(pos, Side::White, [4, 1]);
    // The checker enters; no checker bears off this turn (the entered one is far away).
    assert!(moves(&g).iter().all(|m| !m.contains("off")));
    play(&mut g, "bar/4 4/5");
    assert_eq!(
        *g.position(),
        setup(&[(5, 1), (20, 5), (24, 4)], &[(1, 14), (12, 1)], (0, 0))
    );
}

#[test]
fn both_numbers_must_be_played_if_any_order_allows_it() {
    // 6-1: 10/16 is a dead end (17 is closed and 4/5 too), but 4/10 10/11 plays both
    // numbers, so stopping after 10/16 is illegal.
    let pos = setup(
        &[(4, 1), (10, 1), (24, 13)],
        &[(5, 2), (17, 2), (1, 11)],
        (0, 0),
    );
    let mut g = rolled(pos, Side::White, [6, 1]);
    assert_eq!(moves(&g), ["4/10 10/11"].map(String::from).to_vec());
    assert!(matches!(
        g.apply_move(&parse("10/16")),
        Err(EngineError::IllegalMove { .. })
    ));
    play(&mut g, "4/10 10/11");
    assert_eq!(
        *g.position(),
        setup(
            &[(10, 1), (11, 1), (24, 13)],
            &[(5, 2), (17, 2), (1, 11)],
            (0, 0)
        )
    );
}

#[test]
fn if_only_one_number_can_be_played_the_larger_must_be() {
    // One movable White checker on 12, Black holds 19 (= 12 + 5 + 2): the 5 or the 2 can
    // be played alone, never both. Only the larger is legal.
    let pos = setup(&[(12, 1), (24, 14)], &[(19, 2), (1, 13)], (0, 0));
    let mut g = rolled(pos, Side::White, [2, 5]);
    assert_eq!(moves(&g), ["12/17"].map(String::from).to_vec());
    play(&mut g, "12/17");
    assert_eq!(
        *g.position(),
        setup(&[(17, 1), (24, 14)], &[(19, 2), (1, 13)], (0, 0))
    );
}

#[test]
fn if_only_the_smaller_number_can_be_played_it_is() {
    let pos = setup(&[(12, 15)], &[(17, 2), (19, 2), (24, 11)], (0, 0));
    let mut g = rolled(pos, Side::White, [5, 2]);
    assert_eq!(moves(&g), ["12/14"].map(String::from).to_vec());
    play(&mut g, "12/14");
    assert_eq!(
        *g.position(),
        setup(&[(12, 14), (14, 1)], &[(17, 2), (19, 2), (24, 11)], (0, 0))
    );
}

#[test]
fn a_roll_no_move_can_use_is_lost_and_the_turn_passes() {
    // White on the bar, Black holds points 1..6.
    let pos = setup(
        &[(19, 14)],
        &[(1, 2), (2, 2), (3, 2), (4, 2), (5, 2), (6, 2), (13, 3)],
        (1, 0),
    );
    let g = rolled(pos, Side::White, [6, 6]);
    assert_eq!(*g.position(), pos);
    assert_eq!(g.dice(), Some([6, 6]));
    assert_eq!(g.phase(), Phase::Roll);
    assert_eq!(
        g.awaiting(),
        Awaiting::Dice {
            seat: Seat(1),
            die: DIE,
            count: 2
        }
    );
}

#[test]
fn win_single_game_when_the_loser_bore_off_a_checker() {
    let pos = setup(&[(24, 1)], &[(1, 14)], (0, 0));
    let mut g = rolled(pos, Side::White, [2, 1]);
    play(&mut g, "24/off");
    let want = GameResult {
        winner: Some(Seat(0)),
        winners: vec![Seat(0)],
        ending: Ending::Won,
        points: 1,
    };
    assert_eq!(
        g.awaiting(),
        Awaiting::Finished {
            result: want.clone()
        }
    );
    assert_eq!(g.result(), Some(&want));
    assert_eq!(g.apply_dice(&[1, 2]), Err(EngineError::Finished));
}

#[test]
fn win_gammon_when_the_loser_bore_off_none() {
    let pos = setup(&[(12, 15)], &[(1, 2)], (0, 0));
    let mut g = rolled(pos, Side::Black, [1, 1]);
    assert!(moves(&g).contains(&"1/off 1/off".to_string()));
    play(&mut g, "1/off 1/off");
    assert_eq!(
        g.result(),
        Some(&GameResult {
            winner: Some(Seat(1)),
            winners: vec![Seat(1)],
            ending: Ending::Gammon,
            points: 2,
        })
    );
}

#[test]
fn win_backgammon_when_the_loser_is_still_in_the_winners_home_board_or_on_the_bar() {
    // A White checker on Black's 6-point (Black's home board).
    let pos = setup(&[(6, 1), (12, 14)], &[(1, 1)], (0, 0));
    let mut g = rolled(pos, Side::Black, [3, 2]);
    play(&mut g, "1/off");
    assert_eq!(
        g.result(),
        Some(&GameResult {
            winner: Some(Seat(1)),
            winners: vec![Seat(1)],
            ending: Ending::Backgammon,
            points: 3,
        })
    );
    // A Black checker on the bar.
    let pos = setup(&[(24, 1)], &[(13, 14)], (0, 1));
    let mut g = rolled(pos, Side::White, [3, 2]);
    play(&mut g, "24/off");
    assert_eq!(g.result().map(|r| r.ending), Some(Ending::Backgammon));
}

#[test]
fn retiring_gives_the_game_to_the_other_player() {
    let mut g = Backgammon::new(&Options::default(), 2).unwrap();
    g.apply_dice(&[2]).unwrap();
    assert_eq!(g.retire(Seat(2)), Err(EngineError::NoSuchSeat { seat: 2 }));
    g.retire(Seat(1)).unwrap();
    assert_eq!(
        g.awaiting(),
        Awaiting::Finished {
            result: GameResult::last_seat_standing(Seat(0))
        }
    );
    // Black's checkers have left the board.
    assert!(g.position().board.iter().all(|v| *v >= 0));
    assert_eq!(g.position().total(Side::White), 15);
    assert_eq!(g.retire(Seat(1)), Err(EngineError::NoSuchSeat { seat: 1 }));
    assert_eq!(g.retire(Seat(0)), Err(EngineError::Finished));
}

#[test]
fn invalid_options_and_seat_counts_are_refused() {
    let v = variant("backgammon").unwrap();
    assert!(matches!(
        v.create(&json!({"doubling_cube": true}), 2),
        Err(EngineError::InvalidOptions { .. })
    ));
    assert!(v.create(&json!({}), 2).is_ok());
    assert!(v.create(&serde_json::Value::Null, 2).is_ok());
    assert!(matches!(
        v.create(&json!({}), 3),
        Err(EngineError::SeatCount { .. })
    ));
    assert!(Backgammon::new(&Options::default(), 1).is_err());
}

#[test]
fn an_impossible_die_value_is_refused_and_the_game_is_unchanged() {
    let mut g = Backgammon::new(&Options::default(), 2).unwrap();
    let before = serde_json::to_value(&g).unwrap();
    assert_eq!(
        g.apply_dice(&[7]),
        Err(EngineError::ImpossibleDieValue {
            die: "d6",
            value: 7
        })
    );
    assert!(matches!(
        g.apply_dice(&[3, 4]),
        Err(EngineError::DiceCount { .. })
    ));
    assert_eq!(serde_json::to_value(&g).unwrap(), before);
    let mut g = Backgammon::from_position(Position::START, Side::White).unwrap();
    let before = serde_json::to_value(&g).unwrap();
    assert!(matches!(
        g.apply_dice(&[0, 3]),
        Err(EngineError::ImpossibleDieValue { .. })
    ));
    assert!(matches!(
        g.apply_dice(&[3]),
        Err(EngineError::DiceCount { .. })
    ));
    assert_eq!(
        g.apply_move(&parse("1/4")),
        Err(EngineError::NotAwaitingMove)
    );
    assert_eq!(serde_json::to_value(&g).unwrap(), before);
}

#[test]
fn an_illegal_move_is_refused_and_the_game_is_unchanged() {
    let mut g = rolled(Position::START, Side::White, [3, 1]);
    let before = serde_json::to_value(&g).unwrap();
    let legal = g.legal_moves();
    for bad in [
        "1/4",
        "1/4 1/2 12/13",
        "1/5 1/2",
        "19/22 24/off",
        "bar/3 1/2",
    ] {
        assert!(
            matches!(
                g.apply_move(&parse(bad)),
                Err(EngineError::IllegalMove { .. })
            ),
            "{bad}"
        );
    }
    // The same steps in another order than the listed one are refused, with a hint.
    let listed = g
        .legal_moves()
        .into_iter()
        .find(|m| m.steps().len() == 2 && m.steps()[0] != m.steps()[1])
        .unwrap();
    let swapped = Move::new(&[listed.steps()[1], listed.steps()[0]]).unwrap();
    if !legal.contains(&swapped) {
        match g.apply_move(&swapped) {
            Err(EngineError::IllegalMove { reason }) => {
                assert!(reason.contains("order"), "{reason}")
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(g.apply_dice(&[1, 2]), Err(EngineError::NotAwaitingDice));
    assert_eq!(serde_json::to_value(&g).unwrap(), before);
    assert_eq!(g.legal_moves(), legal);
}

#[test]
fn one_legal_move_per_distinct_result() {
    // From the start, 3-1 gives 16 distinct positions (the usual count).
    let g = rolled(Position::START, Side::White, [3, 1]);
    let n = g.legal_moves().len();
    let mut results: Vec<Position> = Position::START.outcomes(Side::White, [3, 1]);
    results.dedup();
    assert_eq!(n, results.len());
    assert_eq!(n, 16);
    // 6-6 from the start: 1/7, 12/18 and 17/23 combined four times (24 and 13 closed).
    assert_eq!(
        rolled(Position::START, Side::White, [6, 6])
            .legal_moves()
            .len(),
        11
    );
}

#[test]
fn state_and_move_json() {
    let g = Backgammon::new(&Options::default(), 2).unwrap();
    let state = serde_json::to_value(&g).unwrap();
    assert_eq!(
        state,
        json!({
            "board": [2,0,0,0,0,-5,0,-3,0,0,0,5,-5,0,0,0,3,0,5,0,0,0,0,-2],
            "bar": {"white": 0, "black": 0},
            "off": {"white": 0, "black": 0},
            "to_move": "white",
            "phase": "opening_roll",
            "opening_roll": {"white": null, "black": null},
            "dice": [],
            "position_id": "4HPwATDgc/ABMA",
            "retired": null,
            "result": null,
            "options": {}
        })
    );
    let mv = parse("13/7 bar/22 3/off");
    let j = serde_json::to_value(mv).unwrap();
    assert_eq!(
        j,
        json!({"steps":[{"from":13,"to":7},{"from":"bar","to":22},{"from":3,"to":"off"}]})
    );
    assert_eq!(serde_json::from_value::<Move>(j).unwrap(), mv);
    for bad in [
        json!({"steps":[{"from":25,"to":7}]}),
        json!({"steps":[{"from":"off","to":7}]}),
        json!({"steps":[{"from":1,"to":"bar"}]}),
        json!({"steps":[{"from":1,"to":2}], "x": 1}),
        json!({"steps":[{"from":1,"to":2},{"from":1,"to":2},{"from":1,"to":2},{"from":1,"to":2},{"from":1,"to":2}]}),
    ] {
        assert!(
            serde_json::from_value::<Move>(bad.clone()).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn analyze_reports_what_is_wrong_with_a_line() {
    use super::analyze::analyze_line;
    let good = json!({
        "board": [2,0,0,0,0,-5,0,-3,0,0,0,5,-5,0,0,0,3,0,5,0,0,0,0,-2],
        "bar": {"white": 0, "black": 0}, "off": {"white": 0, "black": 0},
        "to_move": "white", "dice": [6, 6], "id": 7
    });
    let out = analyze_line(&good.to_string());
    assert_eq!(out["outcomes"].as_array().unwrap().len(), 11);
    let cases: Vec<(serde_json::Value, &str)> = vec![
        (json!("not json"), "JSON"),
        (json!({"board": vec![0; 23]}), "24"),
        (json!({"dice": [7, 1]}), "1..6"),
        (json!({"dice": [0, 1]}), "1..6"),
        (json!({"dice": [1, 2, 3]}), "two values"),
        (json!({"to_move": "red"}), "to_move"),
        (json!({"bar": {"white": 1, "black": 0}}), "15"),
        (json!({"off": {"white": 0}}), "off.black"),
    ];
    for (patch, needle) in cases {
        let line = if patch.is_string() {
            "{not json".to_string()
        } else {
            let mut v = good.clone();
            for (k, x) in patch.as_object().unwrap() {
                v[k] = x.clone();
            }
            v.to_string()
        };
        let out = analyze_line(&line);
        let err = out["error"]
            .as_str()
            .unwrap_or_else(|| panic!("no error for {line}"));
        assert!(err.contains(needle), "{err:?} should mention {needle:?}");
    }
    let mut missing = good.clone();
    missing.as_object_mut().unwrap().remove("dice");
    assert!(analyze_line(&missing.to_string())["error"]
        .as_str()
        .unwrap()
        .contains("dice"));
}

#[test]
fn json_schemas_are_published() {
    let s = variant("backgammon").unwrap().schemas();
    let names: Vec<&str> = s.components.iter().map(|(n, _)| n.as_str()).collect();
    for name in ["Step", "Origin", "Destination", "Tally", "Phase", "Side"] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
    let state = serde_json::to_value(&s.state).unwrap();
    assert!(state.to_string().contains("position_id"));
    let mv = serde_json::to_value(&s.mv).unwrap();
    let checker_move = serde_json::to_value(
        &s.components
            .iter()
            .find(|(n, _)| n == "BackgammonCheckerMove")
            .expect("checker move")
            .1,
    )
    .unwrap();
    assert!(
        mv.to_string().contains("BackgammonCheckerMove")
            && checker_move.to_string().contains("steps")
    );
    for name in [
        "BackgammonDecision",
        "BackgammonLevel",
        "BackgammonCube",
        "BackgammonMatch",
        "BackgammonOffer",
    ] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
}

/// `Position::outcomes` as it was before it sorted the generator's keys: a fresh
/// generator, each way's position, the positions sorted by their derived order and
/// deduplicated.
fn outcomes_reference(pos: &Position, side: Side, dice: [u8; 2]) -> Vec<Position> {
    let mut movegen = super::movegen::MoveGen::default();
    let mut out: Vec<Position> = movegen
        .generate(pos, side, dice)
        .iter()
        .map(|leaf| leaf.apply(*pos, side))
        .collect();
    if out.is_empty() {
        out.push(*pos);
    }
    out.sort_unstable();
    out.dedup();
    out
}

#[test]
fn outcomes_match_the_previous_implementation() {
    // A random walk through games (hits, the bar, bearing off, blocked rolls), every one
    // of the 36 rolls tried at each step, both for the side to move and its opponent.
    let mut rng = crate::playout::SplitMix64(7);
    let (mut pos, mut side) = (Position::START, Side::White);
    let mut compared = 0;
    let mut blocked = 0;
    for _ in 0..400 {
        for s in Side::BOTH {
            for a in 1..=6 {
                for b in 1..=6 {
                    let want = outcomes_reference(&pos, s, [a, b]);
                    assert_eq!(pos.outcomes(s, [a, b]), want, "{pos:?} {s:?} {a}-{b}");
                    compared += 1;
                    blocked += usize::from(want == [pos]);
                }
            }
        }
        let roll = [rng.below(6) as u8 + 1, rng.below(6) as u8 + 1];
        let next = pos.outcomes(side, roll);
        pos = next[rng.below(next.len())];
        side = side.opponent();
        if pos.off.white == 15 || pos.off.black == 15 {
            (pos, side) = (Position::START, Side::White);
        }
    }
    assert_eq!(compared, 400 * 72);
    assert!(blocked > 0, "some rolls were blocked");
}

/// The corpus positions (`shared/oracle/backgammon.jsonl`, or `$WORP_ORACLE_DIR`).
pub(super) fn corpus_positions() -> Vec<Position> {
    let dir = std::env::var_os("WORP_ORACLE_DIR").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/oracle"),
        std::path::PathBuf::from,
    );
    let text = std::fs::read_to_string(dir.join("backgammon.jsonl"))
        .expect("the oracle corpus (set WORP_ORACLE_DIR)");
    serde_json::Deserializer::from_str(&text)
        .into_iter::<Position>()
        .collect::<Result<_, _>>()
        .expect("corpus lines")
}

/// The corpus positions and `steps` more, from a random walk through games (seeded by
/// `seed`): a random outcome of a random roll each turn, from the start again at a
/// game's end.
pub(super) fn corpus_and_walk_positions(seed: u64, steps: usize) -> Vec<Position> {
    let mut positions = corpus_positions();
    let mut rng = crate::playout::SplitMix64(seed);
    let (mut pos, mut side) = (Position::START, Side::White);
    for _ in 0..steps {
        positions.push(pos);
        let next = pos.outcomes(side, [rng.below(6) as u8 + 1, rng.below(6) as u8 + 1]);
        pos = next[rng.below(next.len())];
        side = side.opponent();
        if pos.off.white == 15 || pos.off.black == 15 {
            (pos, side) = (Position::START, Side::White);
        }
    }
    positions
}

#[test]
fn outcomes_are_the_sorted_generator_results_on_the_corpus_positions() {
    // Every corpus position, with each of the 36 rolls for either side: the positions of
    // the generator's ways, sorted and deduplicated by `Position`'s own order.
    let positions = corpus_positions();
    assert_eq!(positions.len(), 2_997);
    for pos in &positions {
        for s in Side::BOTH {
            for a in 1..=6 {
                for b in 1..=6 {
                    let want = outcomes_reference(pos, s, [a, b]);
                    assert_eq!(pos.outcomes(s, [a, b]), want, "{pos:?} {s:?} {a}-{b}");
                }
            }
        }
    }
}

#[test]
fn outcomes_read_from_keys_at_the_extremes() {
    // The digits at their limits: 15 checkers on one point (a White digit of 30, a Black
    // one of 1), every checker home and bearing off, blots on every entry point for a
    // side with two on the bar (hits with every number, the hit counts summed over the
    // words), and the same mirrored.
    let bare = |bar: Tally| Position {
        board: [0; 24],
        bar,
        off: Tally::default(),
    };
    let mut all_home = bare(Tally::default());
    all_home.board[23] = 15;
    all_home.board[0] = -15;
    let mut enter_white = bare(Tally { white: 2, black: 0 });
    enter_white.board[..6].fill(-1);
    enter_white.board[10] = 13;
    enter_white.board[20] = -9;
    let mut enter_black = bare(Tally { white: 0, black: 2 });
    enter_black.board[18..].fill(1);
    enter_black.board[13] = -13;
    enter_black.board[3] = 9;
    let mut last_ones = all_home;
    last_ones.board[23] = 1;
    last_ones.board[0] = -2;
    last_ones.off = Tally {
        white: 14,
        black: 13,
    };
    for pos in [all_home, enter_white, enter_black, last_ones] {
        assert_eq!(pos.check(), Ok(()), "{pos:?}");
        for s in Side::BOTH {
            for a in 1..=6 {
                for b in 1..=6 {
                    let want = outcomes_reference(&pos, s, [a, b]);
                    assert_eq!(pos.outcomes(s, [a, b]), want, "{pos:?} {s:?} {a}-{b}");
                }
            }
        }
    }
}

#[test]
fn a_single_game_won_rebuilt_from_its_state_still_counts_the_win_in_the_winners_progress() {
    // White's last checker on his 24 point; Black has borne off none: a gammon.
    let mut g =
        Backgammon::from_position(setup(&[(24, 1)], &[(6, 15)], (0, 0)), Side::White).unwrap();
    g.apply_dice(&[1, 2]).unwrap();
    let mv = g.legal_moves()[0];
    g.apply_move(&mv).unwrap();
    assert_eq!(g.result().map(|r| r.ending), Some(Ending::Gammon));
    let r = Backgammon::from_state(&serde_json::to_string(&g).unwrap()).unwrap();
    assert_eq!(r.progress(Seat(0)), g.progress(Seat(0)));
    assert_eq!(r.progress(Seat(0)), 2 * 376 + 375);
    assert_eq!(r.progress(Seat(1)), g.progress(Seat(1)));
    // A player who retired in a single game leaves the board; the rebuilt game agrees.
    let mut g = Backgammon::new(&Options::default(), 2).unwrap();
    g.retire(Seat(1)).unwrap();
    let text = serde_json::to_string(&g).unwrap();
    let mut r = Backgammon::from_state(&text).unwrap();
    assert_eq!(serde_json::to_string(&r).unwrap(), text);
    assert_eq!(r.progress(Seat(0)), g.progress(Seat(0)));
    assert_eq!(r.retire(Seat(1)), Err(EngineError::NoSuchSeat { seat: 1 }));
}
