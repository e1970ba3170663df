//! One test per rule of RULES.md §2b (the doubling cube and match play), each named
//! after its rule.

use serde_json::json;

use super::*;
use crate::{variant, Awaiting, Ending, Game, Seat};

/// A position with White's and Black's checkers on the given points (point, count);
/// checkers not placed are borne off.
fn setup(white: &[(u8, u8)], black: &[(u8, u8)]) -> Position {
    super::tests::setup(white, black, (0, 0))
}

/// White's last checker on his 24 point; Black with 15 checkers on his 6 point (a
/// gammon for White), or `black` as given.
fn white_about_to_win(black: &[(u8, u8)]) -> Position {
    setup(&[(24, 1)], black)
}

/// Checkers of one side (point, count), a number, and the points expected.
type Case = (&'static [(u8, u8)], u8, u8);

fn options(cube: Option<bool>, match_length: u8) -> Options {
    Options {
        cube,
        match_length,
        ..Options::default()
    }
}

/// A game with `options` in `pos`, `side` on roll (choosing roll or double if he may).
fn game(options: &Options, pos: Position, side: Side) -> Backgammon {
    let mut g = Backgammon::new(options, 2).unwrap();
    g.position = pos;
    g.on_roll(side);
    g
}

fn decide(g: &mut Backgammon, d: Decision) {
    g.apply_move(&Move::Decision(d)).unwrap();
}

fn decisions(g: &Backgammon) -> Vec<Decision> {
    g.legal_moves().iter().filter_map(Move::decision).collect()
}

/// White rolls 1-2 and bears his last checker off.
fn white_bears_off(g: &mut Backgammon) {
    if g.phase == Phase::RollOrDouble {
        decide(g, Decision::Roll);
    }
    g.apply_dice(&[1, 2]).unwrap();
    let mv = g.legal_moves().into_iter().next().unwrap();
    g.apply_move(&mv).unwrap();
}

fn points_won(g: &Backgammon) -> u8 {
    g.result().expect("finished").points
}

#[test]
fn options_cube_is_off_in_a_single_game_and_on_in_a_match_by_default() {
    assert!(!Options::default().cube_in_play());
    assert!(options(None, 7).cube_in_play());
    assert!(!options(Some(false), 7).cube_in_play());
    assert!(options(Some(true), 0).cube_in_play());
    // Defaults are not stored: a game without options stores `{}` as before.
    assert_eq!(serde_json::to_value(Options::default()).unwrap(), json!({}));
    assert_eq!(
        serde_json::to_value(options(None, 7)).unwrap(),
        json!({"match_length": 7})
    );
}

#[test]
fn options_match_length_is_0_to_25() {
    assert!(Backgammon::new(&options(None, 25), 2).is_ok());
    assert!(matches!(
        Backgammon::new(&options(None, 26), 2),
        Err(EngineError::InvalidOptions { .. })
    ));
    assert!(variant("backgammon")
        .unwrap()
        .create(&json!({"match_length": 3, "beavers": true}), 2)
        .is_err());
}

#[test]
fn without_options_a_game_is_one_game_without_cube_decisions_or_match_state() {
    let mut g = game(
        &Options::default(),
        white_about_to_win(&[(6, 15)]),
        Side::White,
    );
    assert_eq!(g.phase, Phase::Roll);
    let mut rolled = g.clone();
    rolled.apply_dice(&[1, 2]).unwrap();
    assert!(decisions(&rolled).is_empty());
    let state = serde_json::to_value(g.state()).unwrap();
    for absent in ["cube", "match", "offer", "match_id"] {
        assert!(state.get(absent).is_none(), "{absent} in {state}");
    }
    white_bears_off(&mut g);
    assert_eq!(g.result().unwrap().ending, Ending::Gammon);
    assert_eq!(points_won(&g), 2);
}

#[test]
fn the_cube_starts_centred_at_1() {
    let g = Backgammon::new(&options(None, 5), 2).unwrap();
    assert_eq!(g.cube(), Cube::CENTRED);
    let state = serde_json::to_value(g.state()).unwrap();
    assert_eq!(state["cube"], json!({"value": 1, "owner": null}));
}

#[test]
fn a_double_only_before_rolling_at_the_start_of_his_own_turn_never_before_the_opening_roll() {
    let mut g = Backgammon::new(&options(Some(true), 0), 2).unwrap();
    // The opening roll: dice, no decision.
    assert!(matches!(g.awaiting(), Awaiting::Dice { count: 1, .. }));
    assert!(g.apply_move(&Move::Decision(Decision::Double)).is_err());
    g.apply_dice(&[3]).unwrap();
    g.apply_dice(&[1]).unwrap();
    // White plays the opening 3-1 at once: only checker moves and resignation offers.
    assert_eq!(g.awaiting(), Awaiting::Move { seat: Seat(0) });
    assert!(!decisions(&g).contains(&Decision::Double));
    let mv = g.legal_moves().into_iter().next().unwrap();
    g.apply_move(&mv).unwrap();
    // Black's turn starts with his choice, before the dice.
    assert_eq!(g.awaiting(), Awaiting::Move { seat: Seat(1) });
    assert_eq!(g.phase, Phase::RollOrDouble);
    assert_eq!(
        decisions(&g)[..2],
        [Decision::Roll, Decision::Double],
        "roll or double first"
    );
    assert!(g.apply_dice(&[1, 2]).is_err());
}

#[test]
fn a_double_needs_the_cube_centred_or_owned() {
    let mut g = game(&options(Some(true), 0), Position::START, Side::White);
    g.cube = Cube {
        value: 2,
        owner: Some(Side::White),
    };
    g.on_roll(Side::White);
    assert_eq!(g.phase, Phase::RollOrDouble);
    // When no double is possible the server rolls at once: dice are awaited.
    g.on_roll(Side::Black);
    assert_eq!(g.phase, Phase::Roll);
    assert!(matches!(g.awaiting(), Awaiting::Dice { seat: Seat(1), .. }));
    assert!(g.legal_moves().is_empty());
}

#[test]
fn a_double_needs_the_cube_below_64() {
    let mut g = game(&options(Some(true), 0), Position::START, Side::White);
    g.cube = Cube {
        value: 64,
        owner: Some(Side::White),
    };
    g.on_roll(Side::White);
    assert_eq!(g.phase, Phase::Roll);
    g.cube.value = 32;
    g.on_roll(Side::White);
    assert_eq!(g.phase, Phase::RollOrDouble);
}

#[test]
fn no_double_in_the_crawford_game() {
    let mut g = game(&options(None, 5), Position::START, Side::White);
    g.play.crawford = true;
    g.on_roll(Side::White);
    assert_eq!(g.phase, Phase::Roll);
    g.on_roll(Side::Black);
    assert_eq!(g.phase, Phase::Roll);
}

#[test]
fn take_doubles_the_cube_the_taker_owns_it_and_the_doubler_rolls() {
    let mut g = game(&options(Some(true), 0), Position::START, Side::White);
    decide(&mut g, Decision::Double);
    // The opponent must choose at once.
    assert_eq!(g.awaiting(), Awaiting::Move { seat: Seat(1) });
    assert_eq!(decisions(&g), [Decision::Take, Decision::Pass]);
    assert_eq!(g.question(), Some("double"));
    decide(&mut g, Decision::Take);
    assert_eq!(
        g.cube(),
        Cube {
            value: 2,
            owner: Some(Side::Black)
        }
    );
    assert!(matches!(
        g.awaiting(),
        Awaiting::Dice {
            seat: Seat(0),
            count: 2,
            ..
        }
    ));
    // The next turn of White: the cube is Black's, so White rolls at once.
    g.apply_dice(&[6, 5]).unwrap();
    let mv = g.legal_moves().into_iter().next().unwrap();
    g.apply_move(&mv).unwrap();
    assert_eq!(g.phase, Phase::RollOrDouble, "Black owns the cube");
    decide(&mut g, Decision::Roll);
    g.apply_dice(&[6, 5]).unwrap();
    let mv = g.legal_moves().into_iter().next().unwrap();
    g.apply_move(&mv).unwrap();
    assert_eq!(
        g.phase,
        Phase::Roll,
        "White may not double a cube he does not own"
    );
}

#[test]
fn pass_ends_the_game_and_the_doubler_wins_the_value_before_the_double_as_a_single() {
    let mut g = game(
        &options(Some(true), 0),
        white_about_to_win(&[(6, 15)]),
        Side::White,
    );
    g.cube = Cube {
        value: 4,
        owner: Some(Side::White),
    };
    g.on_roll(Side::White);
    decide(&mut g, Decision::Double);
    decide(&mut g, Decision::Pass);
    let result = g.result().unwrap();
    assert_eq!(result.winner, Some(Seat(0)));
    assert_eq!(result.ending, Ending::Won);
    assert_eq!(result.points, 4);
    assert_eq!(g.end_reason(), Some(crate::game::EndReason::DoublePassed));
}

#[test]
fn score_of_a_game_is_the_cube_value_times_single_gammon_or_backgammon() {
    let cases: [Case; 3] = [
        (&[(6, 14)], 2, 2),           // Black bore one off: a single.
        (&[(6, 15)], 2, 4),           // None off: a gammon.
        (&[(6, 14), (20, 1)], 4, 12), // One in White's home board: a backgammon.
    ];
    for (black, cube, want) in cases {
        let mut g = game(&options(None, 25), white_about_to_win(black), Side::White);
        g.cube = Cube {
            value: cube,
            owner: Some(Side::Black),
        };
        g.on_roll(Side::White);
        white_bears_off(&mut g);
        assert_eq!(g.play.games[0].points, u16::from(want), "{black:?}");
    }
}

#[test]
fn jacoby_a_gammon_counts_as_a_single_while_the_cube_is_centred_in_a_single_game() {
    let mut g = game(
        &options(Some(true), 0),
        white_about_to_win(&[(6, 15)]),
        Side::White,
    );
    white_bears_off(&mut g);
    assert_eq!(g.result().unwrap().ending, Ending::Gammon);
    assert_eq!(points_won(&g), 1);
    // After the cube was turned the gammon counts.
    let mut g = game(
        &options(Some(true), 0),
        white_about_to_win(&[(6, 15)]),
        Side::White,
    );
    g.cube = Cube {
        value: 2,
        owner: Some(Side::Black),
    };
    g.on_roll(Side::White);
    white_bears_off(&mut g);
    assert_eq!(points_won(&g), 4);
    // With `jacoby` off, or in a match, it counts at once.
    let off = Options {
        cube: Some(true),
        jacoby: Some(false),
        ..Options::default()
    };
    let mut g = game(&off, white_about_to_win(&[(6, 15)]), Side::White);
    white_bears_off(&mut g);
    assert_eq!(points_won(&g), 2);
    let mut g = game(
        &options(None, 2),
        white_about_to_win(&[(6, 15)]),
        Side::White,
    );
    white_bears_off(&mut g);
    assert_eq!(points_won(&g), 2);
}

#[test]
fn no_beavers_raccoons_or_automatic_doubles() {
    let mut g = game(&options(Some(true), 0), Position::START, Side::White);
    assert_eq!(g.cube().value, 1);
    decide(&mut g, Decision::Double);
    // The answer is take or pass, nothing else (no beaver).
    assert_eq!(decisions(&g), [Decision::Take, Decision::Pass]);
    assert!(g.apply_move(&Move::Decision(Decision::Double)).is_err());
    // A tie in the opening roll does not turn the cube.
    let mut g = Backgammon::new(&options(Some(true), 0), 2).unwrap();
    g.apply_dice(&[4]).unwrap();
    g.apply_dice(&[4]).unwrap();
    assert_eq!(g.cube(), Cube::CENTRED);
}

#[test]
fn resigning_offer_before_rolling_or_with_a_move_pending_and_accept_scores_it_times_the_cube() {
    // Before rolling (a double is possible, so a decision is awaited).
    let mut g = game(&options(None, 7), Position::START, Side::Black);
    g.cube = Cube {
        value: 2,
        owner: Some(Side::Black),
    };
    g.on_roll(Side::Black);
    decide(&mut g, Decision::Resign(Level::Gammon));
    assert_eq!(g.awaiting(), Awaiting::Move { seat: Seat(0) });
    assert_eq!(decisions(&g), [Decision::Accept, Decision::Decline]);
    assert_eq!(g.question(), Some("resignation"));
    decide(&mut g, Decision::Accept);
    assert_eq!(g.play.games[0].points, 4);
    assert_eq!(g.play.games[0].winner, Side::White);
    assert_eq!(g.play.score.white, 4);
    // With a move pending: the offers follow the checker moves.
    let mut g = game(&options(None, 7), Position::START, Side::White);
    decide(&mut g, Decision::Roll);
    g.apply_dice(&[3, 1]).unwrap();
    let all = g.legal_moves();
    assert_eq!(
        all[all.len() - 3..],
        Level::ALL.map(|l| Move::Decision(Decision::Resign(l)))
    );
    decide(&mut g, Decision::Resign(Level::Single));
    decide(&mut g, Decision::Accept);
    assert_eq!(g.play.score.black, 1);
    let mut short = game(&options(None, 1), Position::START, Side::White);
    decide(&mut short, Decision::Resign(Level::Single));
    decide(&mut short, Decision::Accept);
    assert_eq!(
        short.end_reason(),
        Some(crate::game::EndReason::ResignationAccepted)
    );
}

#[test]
fn resigning_declined_play_goes_on_where_it_was_and_may_be_offered_again() {
    let mut g = game(&options(None, 7), Position::START, Side::White);
    decide(&mut g, Decision::Roll);
    g.apply_dice(&[3, 1]).unwrap();
    let before = g.legal_moves();
    decide(&mut g, Decision::Resign(Level::Backgammon));
    assert!(g.apply_move(&before[0]).is_err(), "the answer comes first");
    decide(&mut g, Decision::Decline);
    assert_eq!(g.legal_moves(), before);
    assert_eq!(g.awaiting(), Awaiting::Move { seat: Seat(0) });
    decide(&mut g, Decision::Resign(Level::Backgammon));
    decide(&mut g, Decision::Decline);
    g.apply_move(&before[0]).unwrap();
}

#[test]
fn resigning_through_the_api_gives_up_the_match_at_the_highest_score_the_opponent_could_win() {
    let cube4 = Cube {
        value: 4,
        owner: Some(Side::White),
    };
    // (Black's checkers, Black's checkers on the bar, points White wins.)
    let cases: [Case; 3] = [
        (&[(6, 15)], 0, 8),           // None off: a gammon.
        (&[(6, 14)], 1, 12),          // On the bar: a backgammon.
        (&[(6, 14), (20, 1)], 0, 12), // In White's home board: a backgammon.
    ];
    for (black, bar, want) in cases {
        let mut pos = white_about_to_win(black);
        pos.bar.black = bar;
        pos.off.black -= bar;
        let mut g = game(&options(None, 25), pos, Side::White);
        g.cube = cube4;
        g.retire(Seat(1)).unwrap();
        let result = g.result().unwrap();
        assert_eq!(result.winner, Some(Seat(0)), "the whole match is lost");
        assert_eq!(result.ending, Ending::OpponentsRetired);
        assert_eq!(result.points, want, "{black:?}");
        assert_eq!(g.play.score.white, u16::from(want));
    }
    let mut g = game(
        &options(None, 25),
        white_about_to_win(&[(6, 14)]),
        Side::White,
    );
    g.cube = cube4;
    g.retire(Seat(1)).unwrap();
    assert_eq!(points_won(&g), 4, "a single once he bore one off");
}

#[test]
fn a_match_ends_when_a_player_has_n_points_otherwise_the_next_game_starts_at_once() {
    let mut g = game(
        &options(None, 3),
        white_about_to_win(&[(6, 14)]),
        Side::White,
    );
    white_bears_off(&mut g);
    // Not over: game 2 begins with a new opening roll-off and the cube centred.
    assert!(g.result().is_none());
    assert_eq!(g.play.game, 2);
    assert_eq!(g.play.score, Score { white: 1, black: 0 });
    assert_eq!(*g.position(), Position::START);
    assert_eq!(g.cube(), Cube::CENTRED);
    assert!(matches!(
        g.awaiting(),
        Awaiting::Dice {
            seat: Seat(0),
            count: 1,
            ..
        }
    ));
    // A gammon (2 points) brings White to 3 of 3: the match is over.
    g.position = white_about_to_win(&[(6, 15)]);
    g.on_roll(Side::White);
    white_bears_off(&mut g);
    let result = g.result().unwrap();
    assert_eq!(result.winner, Some(Seat(0)));
    assert_eq!(g.play.score, Score { white: 3, black: 0 });
    assert_eq!(g.play.games.len(), 2);
    assert_eq!(
        g.awaiting(),
        Awaiting::Finished {
            result: result.clone()
        }
    );
}

#[test]
fn crawford_the_first_game_after_a_player_first_reaches_n_minus_1_and_not_the_games_after() {
    let mut g = game(
        &options(None, 3),
        white_about_to_win(&[(6, 15)]),
        Side::White,
    );
    white_bears_off(&mut g); // 2-0: White is at N − 1.
    assert!(g.play.crawford);
    assert_eq!(g.play.game, 2);
    // The Crawford game: nobody may double.
    g.apply_dice(&[6]).unwrap();
    g.apply_dice(&[1]).unwrap();
    let mv = g.legal_moves().into_iter().next().unwrap();
    g.apply_move(&mv).unwrap();
    assert_eq!(g.phase, Phase::Roll);
    // Black wins the Crawford game: the game after it is played normally.
    g.position = setup(&[(12, 14)], &[(1, 1)]);
    g.on_roll(Side::Black);
    g.apply_dice(&[1, 2]).unwrap();
    let mv = g.legal_moves().into_iter().next().unwrap();
    g.apply_move(&mv).unwrap();
    assert_eq!(g.play.score, Score { white: 2, black: 1 });
    assert!(!g.play.crawford && g.play.post_crawford);
    g.position = Position::START;
    g.on_roll(Side::Black);
    assert_eq!(g.phase, Phase::RollOrDouble);
    // With `crawford` off, no game is a Crawford game.
    let off = Options {
        match_length: 3,
        crawford: Some(false),
        ..Options::default()
    };
    let mut g = game(&off, white_about_to_win(&[(6, 15)]), Side::White);
    white_bears_off(&mut g);
    assert!(!g.play.crawford);
}

#[test]
fn state_shows_the_match_the_score_the_game_number_crawford_the_cube_the_offer_and_match_id() {
    let mut g = game(&options(None, 7), Position::START, Side::White);
    g.play.score = Score { white: 3, black: 5 };
    g.play.game = 4;
    decide(&mut g, Decision::Double);
    let state = serde_json::to_value(g.state()).unwrap();
    assert_eq!(state["match"]["length"], 7);
    assert_eq!(state["match"]["score"], json!({"white": 3, "black": 5}));
    assert_eq!(state["match"]["game"], 4);
    assert_eq!(state["match"]["crawford"], false);
    assert_eq!(state["cube"], json!({"value": 1, "owner": null}));
    assert_eq!(state["offer"], json!({"kind": "double", "by": "white"}));
    assert_eq!(state["match_id"].as_str().map(str::len), Some(12));
    assert_eq!(state["position_id"], "4HPwATDgc/ABMA");
}

#[test]
fn match_id_names_the_cube_the_score_the_turn_and_the_dice_as_gnubg_does() {
    // Oracle case 6: 7-point match, 3-5, cube centred, Black on roll with 2-1.
    let mut g = game(&options(None, 7), Position::START, Side::Black);
    g.play.score = Score { white: 3, black: 5 };
    decide(&mut g, Decision::Roll);
    g.apply_dice(&[2, 1]).unwrap();
    assert_eq!(g.match_id(), "cAnlADAAKAAE");
    // Oracle case 1: 11-point match, 6-6, White doubled (centred cube), Black to answer.
    let mut g = game(&options(None, 11), Position::START, Side::White);
    g.play.score = Score { white: 6, black: 6 };
    decide(&mut g, Decision::Double);
    assert_eq!(g.match_id(), "MBlgAWAAMAAE");
}

/// The game rebuilt from `g`'s state JSON, checked to show what `g` shows.
fn rebuilt(g: &Backgammon) -> Backgammon {
    let text = serde_json::to_string(g).unwrap();
    let r = Backgammon::from_state(&text).unwrap();
    assert_eq!(serde_json::to_string(&r).unwrap(), text);
    assert_eq!(r.legal_moves(), g.legal_moves());
    assert_eq!(r.awaiting(), g.awaiting());
    assert_eq!(r.end_reason(), g.end_reason());
    assert_eq!(r.match_id(), g.match_id());
    for seat in [Seat(0), Seat(1)] {
        assert_eq!(r.progress(seat), g.progress(seat));
    }
    r
}

#[test]
fn a_finished_match_rebuilt_from_its_state_keeps_gnubgs_match_id_and_why_it_ended() {
    use crate::game::EndReason;
    // A double passed: GNU Backgammon's game state 4, the doubler on roll.
    let mut g = game(&options(None, 1), Position::START, Side::Black);
    decide(&mut g, Decision::Double);
    decide(&mut g, Decision::Pass);
    assert_eq!(rebuilt(&g).end_reason(), Some(EndReason::DoublePassed));
    // A resignation accepted: game state 3, the resigner on roll.
    let mut g = game(&options(Some(true), 0), Position::START, Side::White);
    decide(&mut g, Decision::Resign(Level::Gammon));
    decide(&mut g, Decision::Accept);
    assert_eq!(
        rebuilt(&g).end_reason(),
        Some(EndReason::ResignationAccepted)
    );
    // A seat that left: game state 3 too.
    let mut g = game(&options(None, 5), Position::START, Side::White);
    g.retire(Seat(0)).unwrap();
    assert_eq!(rebuilt(&g).end_reason(), Some(EndReason::OpponentsRetired));
    // Played out: game state 2, the loser on roll.
    let mut g = game(
        &options(None, 1),
        white_about_to_win(&[(6, 15)]),
        Side::White,
    );
    white_bears_off(&mut g);
    assert_eq!(rebuilt(&g).end_reason(), Some(EndReason::Goal));
}

#[test]
fn a_game_rebuilt_with_a_resignation_pending_over_a_move_plays_the_move_after_a_decline() {
    let mut g = game(&options(None, 7), Position::START, Side::White);
    decide(&mut g, Decision::Roll);
    g.apply_dice(&[3, 1]).unwrap();
    decide(&mut g, Decision::Resign(Level::Single));
    let mut r = rebuilt(&g);
    decide(&mut g, Decision::Decline);
    decide(&mut r, Decision::Decline);
    let mv = g.legal_moves()[0];
    assert_eq!(r.legal_moves(), g.legal_moves());
    g.apply_move(&mv).unwrap();
    r.apply_move(&mv).unwrap();
    assert_eq!(
        serde_json::to_string(&r).unwrap(),
        serde_json::to_string(&g).unwrap()
    );
}

#[test]
fn a_state_that_no_game_could_be_in_is_refused_with_a_reason() {
    let mut g = game(&options(None, 7), Position::START, Side::White);
    decide(&mut g, Decision::Roll);
    g.apply_dice(&[3, 1]).unwrap();
    let state = serde_json::to_value(&g).unwrap();
    let refused = |change: &dyn Fn(&mut serde_json::Value)| {
        let mut bad = state.clone();
        change(&mut bad);
        let e = Backgammon::from_state(&bad.to_string()).unwrap_err();
        assert!(matches!(e, EngineError::UnreadableState { .. }), "{e}");
        e.to_string()
    };
    assert!(refused(&|s| s["board"][0] = json!(3)).contains("16 checkers"));
    assert!(refused(&|s| s["dice"] = json!([3, 7])).contains("cannot show 7"));
    assert!(refused(&|s| s["match_id"] = json!("cAnlADAAKAAE")).contains("match_id"));
    assert!(refused(&|s| s["position_id"] = json!("4HPhASLgc/ABMA")).contains("position_id"));
    refused(&|s| s["cube"]["value"] = json!(3));
    refused(&|s| s["match"]["length"] = json!(5));
    refused(&|s| s["phase"] = json!("finished"));
    refused(&|s| {
        s["cube"].take();
    });
    // Without §2b (no Match ID): Black on the bar against a closed board cannot play
    // 6-6, so his turn would have passed.
    let mut single = Backgammon::from_position(Position::START, Side::White).unwrap();
    single.apply_dice(&[3, 1]).unwrap();
    let closed = super::tests::setup(
        &[(19, 2), (20, 2), (21, 2), (22, 2), (23, 2), (24, 2)],
        &[(6, 14)],
        (0, 1),
    );
    let mut state = serde_json::to_value(&single).unwrap();
    state["board"] = json!(closed.board);
    state["bar"] = json!(closed.bar);
    state["off"] = json!(closed.off);
    state["to_move"] = json!("black");
    state["dice"] = json!([6, 6]);
    let e = Backgammon::from_state(&state.to_string()).unwrap_err();
    assert!(e.to_string().contains("cannot be played"), "{e}");
}

#[test]
fn an_accepted_resignation_ends_the_match_as_gnubg_reads_it_the_resigner_to_decide_and_the_level() {
    use crate::backgammon::match_id::parse_match_id;
    // The Match IDs GNU Backgammon 1.07 shows after importing Worp's `.mat` of each
    // match: game state 3, the resigner on roll and to decide, the level he resigned.
    // White resigns before rolling in a 1-point match.
    for (level, id) in [
        (Level::Single, "MCMgAAAACAAE"),
        (Level::Gammon, "MEMgAAAAEAAE"),
        (Level::Backgammon, "MGMgAAAAGAAE"),
    ] {
        let mut g = game(&options(None, 1), Position::START, Side::White);
        decide(&mut g, Decision::Resign(level));
        decide(&mut g, Decision::Accept);
        assert_eq!(g.match_id(), id, "{level:?}");
        assert_eq!(rebuilt(&g).match_id(), id, "{level:?}");
    }
    // Black, owning the cube at 2 in a 5-point match, resigns a backgammon: 6 points.
    let mut g = game(&options(None, 5), Position::START, Side::Black);
    g.cube = Cube {
        value: 2,
        owner: Some(Side::Black),
    };
    g.on_roll(Side::Black);
    decide(&mut g, Decision::Resign(Level::Backgammon));
    decide(&mut g, Decision::Accept);
    assert_eq!(g.match_id(), "UWugAGAAAAAE");
    // White resigns with 6-4 to play: the roll is written, and its dice stay shown.
    let mut g = game(&options(None, 1), Position::START, Side::White);
    decide(&mut g, Decision::Roll);
    g.apply_dice(&[6, 4]).unwrap();
    decide(&mut g, Decision::Resign(Level::Single));
    decide(&mut g, Decision::Accept);
    assert_eq!(g.match_id(), "MCMzAAAACAAE");
    assert_eq!(rebuilt(&g).match_id(), "MCMzAAAACAAE");
    // A roll with one way to play is not written (GNU Backgammon would play it), so no
    // dice are shown.
    let mut g = game(
        &options(None, 1),
        white_about_to_win(&[(6, 15)]),
        Side::White,
    );
    decide(&mut g, Decision::Roll);
    g.apply_dice(&[1, 2]).unwrap();
    decide(&mut g, Decision::Resign(Level::Single));
    decide(&mut g, Decision::Accept);
    let key = parse_match_id(&g.match_id()).unwrap();
    assert_eq!((key.game_state, key.resigned, key.dice), (3, 1, [0, 0]));
    // A money game: a gammon resigned under the Jacoby rule with the cube centred
    // scores, and reads, as a single; with the cube turned, as a gammon.
    let mut g = game(&options(Some(true), 0), Position::START, Side::White);
    decide(&mut g, Decision::Resign(Level::Gammon));
    decide(&mut g, Decision::Accept);
    assert_eq!(g.match_id(), "MCMAAAAACAAA");
    let mut g = game(&options(Some(true), 0), Position::START, Side::White);
    g.cube = Cube {
        value: 2,
        owner: Some(Side::White),
    };
    g.on_roll(Side::White);
    decide(&mut g, Decision::Resign(Level::Gammon));
    decide(&mut g, Decision::Accept);
    assert_eq!(g.match_id(), "AUMAAAAAIAAA");
}

#[test]
fn decisions_are_displayed_as_their_json() {
    let all = [
        Decision::Roll,
        Decision::Double,
        Decision::Take,
        Decision::Pass,
        Decision::Accept,
        Decision::Decline,
    ]
    .into_iter()
    .chain(Level::ALL.map(Decision::Resign));
    for d in all {
        assert_eq!(Some(d.to_string()), serde_json::to_string(&d).ok());
    }
}
