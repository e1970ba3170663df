//! gnubg's bots against the engine: every answer a legal move, whole games and matches
//! played out with every cube decision, and the cube seen from the right side.

use std::time::Duration;

use serde_json::{json, Value};
use worp_engine::backgammon::match_id::{match_id, MatchKey};
use worp_engine::backgammon::position_id::position_id;
use worp_engine::backgammon::{Backgammon, Options, Position, Side, Tally};
use worp_engine::playout::SplitMix64;
use worp_engine::{Awaiting, Game};
use worp_gnubg::{choose, Level, Pool, PoolSettings};

fn pool() -> Option<Pool> {
    let Ok(program) = PoolSettings::find_program(None) else {
        assert!(
            std::env::var_os("WORP_SKIP_GNUBG").is_some(),
            "GNU Backgammon is needed for this test (apt-get install gnubg), or set WORP_SKIP_GNUBG=1"
        );
        return None;
    };
    Some(
        Pool::start(PoolSettings {
            program,
            workers: 1,
            queue: 4,
            timeout: Duration::from_secs(30),
        })
        .expect("gnubg starts"),
    )
}

/// White on roll, two checkers on its ace point and thirteen off; Black's fifteen on
/// White's 2-point: White wins a backgammon whatever the dice.
fn white_wins_everything() -> Position {
    let mut board = [0i8; 24];
    board[23] = 2;
    board[22] = -15;
    Position {
        board,
        bar: Tally { white: 0, black: 0 },
        off: Tally {
            white: 13,
            black: 0,
        },
    }
}

/// The same with the colours swapped: White, on roll, loses a backgammon.
fn white_loses_everything() -> Position {
    let mut board = [0i8; 24];
    board[0] = -2;
    board[1] = 15;
    Position {
        board,
        bar: Tally { white: 0, black: 0 },
        off: Tally {
            white: 0,
            black: 13,
        },
    }
}

fn ask(pool: &Pool, position: &Position, doubled: bool, what: &str) -> Value {
    let id = match_id(&MatchKey {
        cube: 1,
        on_roll: 0,
        turn: u8::from(doubled),
        game_state: 1,
        doubled,
        ..MatchKey::default()
    });
    pool.ask(&json!({
        "gnubgid": format!("{}:{id}", position_id(position, Side::White)),
        "ask": what,
        "plies": 0,
        "noise": 0.0,
        "cubeful": true,
    }))
    .expect("an answer")
}

#[test]
fn the_cube_is_judged_from_the_doublers_side_while_the_taker_decides() {
    let Some(pool) = pool() else { return };
    for doubled in [false, true] {
        // Doubling a sure backgammon: a take would give the doubler more than a pass.
        let sure = ask(&pool, &white_wins_everything(), doubled, "cube");
        assert!(sure["take"].as_f64() > sure["pass"].as_f64(), "{sure}");
        assert!(sure["chances"][0].as_f64().expect("win") > 0.999, "{sure}");
        // Doubling a sure loss: a take costs the doubler more than a pass.
        let lost = ask(&pool, &white_loses_everything(), doubled, "cube");
        assert!(lost["take"].as_f64() < lost["pass"].as_f64(), "{lost}");
        assert!(lost["chances"][0].as_f64().expect("win") < 1e-6, "{lost}");
        assert!(
            lost["chances"][4].as_f64().expect("backgammon") > 0.999,
            "{lost}"
        );
    }
}

/// Plays `games` whole games with `options` between gnubg bots (expert, beginner and
/// world class in turn), every decision through `choose`; returns the decisions made.
fn play(pool: &Pool, options: Options, games: u64) -> usize {
    let mut decisions = 0;
    for seed in 0..games {
        let mut rng = SplitMix64(seed);
        let mut game = Backgammon::new(&options, 2).expect("a game");
        for _ in 0..5_000 {
            match Game::awaiting(&game) {
                Awaiting::Finished { .. } => break,
                Awaiting::Dice { die, count, .. } => {
                    let values: Vec<u8> = (0..count).map(|_| rng.roll(&die)).collect();
                    game.apply_dice(&values).expect("dice");
                }
                Awaiting::Move { .. } => {
                    let level = [Level::Expert, Level::Beginner, Level::WorldClass][decisions % 3];
                    let i = choose(pool, level, &game)
                        .expect("gnubg decides")
                        .expect("a move");
                    let mv = Game::legal_moves(&game)[i];
                    game.apply_move(&mv)
                        .expect("the engine takes gnubg's choice");
                    decisions += 1;
                }
            }
        }
        assert!(
            matches!(Game::awaiting(&game), Awaiting::Finished { .. }),
            "game {seed} ended"
        );
    }
    decisions
}

#[test]
fn gnubg_plays_money_games_and_matches_through_the_engine() {
    let Some(pool) = pool() else { return };
    let money = Options {
        cube: Some(true),
        ..Options::default()
    };
    let matches = Options {
        match_length: 5,
        ..Options::default()
    };
    let counts = [
        play(&pool, money, 6),
        play(&pool, matches, 2),
        play(&pool, Options::default(), 2),
    ];
    println!("decisions: {counts:?}");
    assert!(counts.iter().all(|n| *n > 20), "{counts:?}");
}
