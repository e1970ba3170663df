//! A game rebuilt from its state JSON (`Variant::from_state`, what a checkpoint kept
//! outside the process holds) is the game that was written: the same state, the same
//! legal moves, the same question, and it takes the next input exactly as the original
//! does. Checked at every step of random games of every variant, with their options,
//! seats retiring along the way in some.

use serde_json::{json, Value};
use worp_engine::playout::SplitMix64;
use worp_engine::{variant, AnyGame, Awaiting, Seat};

/// Everything a reader can ask a game, as text to compare.
fn observed(game: &dyn AnyGame, seats: u8) -> String {
    let progress: Vec<i32> = (0..seats).map(|s| game.progress(Seat(s))).collect();
    format!(
        "state {}\nlegal moves {}\nawaiting {:?}\nquestion {:?}\nhint {:?}\nend {:?}\nprogress {:?}",
        game.state_json().expect("state").get(),
        game.legal_moves_json().expect("legal moves").get(),
        game.awaiting(),
        game.question(),
        game.decision_hint(),
        game.end_reason(),
        progress,
    )
}

/// Plays `games` random games of `name` with `options` and `seats` seats. At every step
/// the game is rebuilt from its state and compared with the original, and the next input
/// (dice, a move, or now and then a seat retiring) is given to both and compared again.
fn rebuilt_games_play_on_alike(name: &str, options: Value, seats: u8, games: u64) {
    let v = variant(name).expect("registered");
    for seed in 0..games {
        let mut rng = SplitMix64(seed.wrapping_mul(0x9e37_79b9) ^ u64::from(seats));
        let mut game = v.create(&options, seats).expect("game");
        let mut steps = 0;
        loop {
            let mut rebuilt = v
                .from_state(game.state_json().expect("state").get())
                .unwrap_or_else(|e| panic!("{name} {options} seed {seed} step {steps}: {e}"));
            let before = observed(game.as_ref(), seats);
            assert_eq!(
                observed(rebuilt.as_ref(), seats),
                before,
                "{name} {options} seed {seed}: rebuilt at step {steps}"
            );
            let awaiting = game.awaiting();
            if matches!(awaiting, Awaiting::Finished { .. }) || steps == 20_000 {
                break;
            }
            // A seat retires now and then in every third game; the others run their
            // course, so that late positions (pawns home, checkers off) are reached.
            let retiring = seed % 3 == 2 && rng.below(300) == 0;
            let (a, b) = match awaiting {
                _ if retiring => {
                    let seat = Seat(rng.below(usize::from(seats)) as u8);
                    (game.retire(seat), rebuilt.retire(seat))
                }
                Awaiting::Dice { die, count, .. } => {
                    let values: Vec<u8> = (0..count).map(|_| rng.roll(&die)).collect();
                    (game.apply_dice(&values), rebuilt.apply_dice(&values))
                }
                Awaiting::Move { .. } => {
                    let moves = game.legal_moves().expect("legal moves");
                    let mv = &moves[rng.below(moves.len())];
                    (game.apply_move(mv), rebuilt.apply_move(mv))
                }
                Awaiting::Finished { .. } => unreachable!(),
            };
            assert_eq!(
                a.map_err(|e| e.to_string()),
                b.map_err(|e| e.to_string()),
                "{name} {options} seed {seed} step {steps}: the input's outcome"
            );
            assert_eq!(
                observed(rebuilt.as_ref(), seats),
                observed(game.as_ref(), seats),
                "{name} {options} seed {seed}: after the input of step {steps}"
            );
            steps += 1;
        }
    }
}

#[test]
fn a_backgammon_game_rebuilt_from_its_state_plays_on_alike() {
    rebuilt_games_play_on_alike("backgammon", Value::Null, 2, 60);
    rebuilt_games_play_on_alike("backgammon", json!({"cube": true}), 2, 60);
    rebuilt_games_play_on_alike("backgammon", json!({"match_length": 5}), 2, 20);
    rebuilt_games_play_on_alike(
        "backgammon",
        json!({"match_length": 3, "crawford": false, "jacoby": true}),
        2,
        20,
    );
}

#[test]
fn a_mens_erger_je_niet_game_rebuilt_from_its_state_plays_on_alike() {
    rebuilt_games_play_on_alike("mens_erger_je_niet", Value::Null, 4, 8);
    rebuilt_games_play_on_alike("mens_erger_je_niet", Value::Null, 2, 8);
    rebuilt_games_play_on_alike("mens_erger_je_niet", json!({"board": 6}), 6, 4);
    rebuilt_games_play_on_alike("mens_erger_je_niet", json!({"board": 6}), 5, 3);
    rebuilt_games_play_on_alike("mens_erger_je_niet", json!({"three_tries": false}), 3, 6);
}

#[test]
fn an_ali_baba_game_rebuilt_from_its_state_plays_on_alike() {
    rebuilt_games_play_on_alike("ali_baba", Value::Null, 3, 40);
    rebuilt_games_play_on_alike("ali_baba", Value::Null, 2, 40);
    rebuilt_games_play_on_alike("ali_baba", json!({"planks": 3}), 4, 20);
}

#[test]
fn a_hoofden_game_rebuilt_from_its_state_plays_on_alike() {
    rebuilt_games_play_on_alike("hoofden", Value::Null, 2, 20);
    rebuilt_games_play_on_alike("hoofden", json!({"forced_attack": true}), 2, 20);
    rebuilt_games_play_on_alike("hoofden", json!({"movement": "by_head"}), 2, 10);
}

#[test]
fn a_ludo_game_rebuilt_from_its_state_plays_on_alike() {
    rebuilt_games_play_on_alike("ludo", Value::Null, 4, 8);
    rebuilt_games_play_on_alike("ludo", json!({"die": "plain"}), 3, 8);
    rebuilt_games_play_on_alike("ludo", json!({"pawns": 2}), 2, 8);
}

#[test]
fn a_state_that_is_not_a_game_is_refused_with_a_reason() {
    for v in worp_engine::builtin_variants() {
        for bad in ["", "null", "[]", "{}", "{\"options\": 7}"] {
            let e = v.from_state(bad).err().map(|e| e.to_string());
            assert!(
                e.as_deref()
                    .is_some_and(|e| e.starts_with("unreadable state")),
                "{} from {bad:?}: {e:?}",
                v.name
            );
        }
    }
}
