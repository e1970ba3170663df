//! The engine interface behaves the same for every game: choosing a move by its index
//! in the legal list is the same as sending that move, and random play-outs end.

use worp_engine::ali_baba::AliBaba;
use worp_engine::backgammon::Backgammon;
use worp_engine::hoofden::Hoofden;
use worp_engine::ludo::Ludo;
use worp_engine::mens_erger_je_niet::MensErgerJeNiet;
use worp_engine::playout::{play_random, SplitMix64, Stop};
use worp_engine::{Awaiting, Game};

/// Plays `games` random games; at every move checks that `apply_legal_move(i)` and
/// `apply_move(&legal_moves()[i])` give the same game, and that the count matches.
fn index_choice_is_the_listed_move<G: Game>(seats: u8, games: u64) {
    for seed in 0..games {
        let mut game = G::new(&G::Options::default(), seats).expect("game");
        let mut rng = SplitMix64(seed);
        for _ in 0..100_000 {
            match game.awaiting() {
                Awaiting::Finished { .. } => break,
                Awaiting::Dice { die, count, .. } => {
                    let values: Vec<u8> = (0..count).map(|_| rng.roll(&die)).collect();
                    game.apply_dice(&values).expect("dice");
                }
                Awaiting::Move { .. } => {
                    let moves = game.legal_moves();
                    assert_eq!(game.legal_move_count(), moves.len());
                    let i = rng.below(moves.len());
                    let mut by_index = game.clone();
                    by_index.apply_legal_move(i).expect("by index");
                    game.apply_move(&moves[i]).expect("by move");
                    assert_eq!(
                        serde_json::to_value(&by_index).expect("json"),
                        serde_json::to_value(&game).expect("json")
                    );
                    assert!(
                        by_index.apply_legal_move(usize::MAX).is_err()
                            || by_index.legal_move_count() == 0
                    );
                }
            }
        }
        let mut fresh = G::new(&G::Options::default(), seats).expect("game");
        assert_eq!(
            play_random(&mut fresh, &mut rng, 1_000_000).expect("play"),
            Stop::Finished
        );
    }
}

#[test]
fn choosing_by_index_is_choosing_the_listed_move_in_every_game() {
    index_choice_is_the_listed_move::<Backgammon>(2, 20);
    index_choice_is_the_listed_move::<MensErgerJeNiet>(4, 5);
    index_choice_is_the_listed_move::<AliBaba>(3, 20);
    index_choice_is_the_listed_move::<Hoofden>(2, 10);
    index_choice_is_the_listed_move::<Ludo>(4, 5);
}

/// The variant of `G`, which must be played with options `O` and moves `M`.
fn variant_of<G: Game<Options = O, Move = M>, O, M>() -> &'static str {
    G::VARIANT
}

#[test]
fn every_game_module_names_its_state_options_and_move_alike() {
    use worp_engine::{ali_baba, backgammon, hoofden, ludo, mens_erger_je_niet};
    let names = [
        variant_of::<
            mens_erger_je_niet::State,
            mens_erger_je_niet::Options,
            mens_erger_je_niet::Move,
        >(),
        variant_of::<backgammon::State, backgammon::Options, backgammon::Move>(),
        variant_of::<ali_baba::State, ali_baba::Options, ali_baba::Move>(),
        variant_of::<hoofden::State, hoofden::Options, hoofden::Move>(),
        variant_of::<ludo::State, ludo::Options, ludo::Move>(),
    ];
    let registered: Vec<&str> = worp_engine::variants().iter().map(|v| v.name).collect();
    assert_eq!(names[..], registered[..5]);
}
