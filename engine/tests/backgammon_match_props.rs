//! Property tests of backgammon matches with the doubling cube (RULES.md §2b), over
//! random matches: dice and choices from SplitMix64 seeded by proptest; half the choices
//! of decisions follow the engine's own heuristic (the greedy bot's).

use proptest::prelude::*;
use worp_engine::backgammon::{Backgammon, Decision, Move, Options};
use worp_engine::playout::SplitMix64;
use worp_engine::{Awaiting, Game};

/// Far more inputs than any match to 25 points takes.
const MAX_INPUTS: usize = 400_000;

/// Plays a match to its end; checks at every step that no double is possible in a
/// Crawford game. Returns the finished match and whether it ended in time.
fn random_match(options: &Options, seed: u64) -> (Backgammon, bool) {
    let mut g = Backgammon::new(options, 2).unwrap();
    let mut rng = SplitMix64(seed);
    for _ in 0..MAX_INPUTS {
        match g.awaiting() {
            Awaiting::Finished { .. } => return (g, true),
            Awaiting::Dice { die, count, .. } => {
                let values: Vec<u8> = (0..count).map(|_| rng.roll(&die)).collect();
                g.apply_dice(&values).unwrap();
            }
            Awaiting::Move { .. } => {
                let moves = g.legal_moves();
                if g.match_play().crawford {
                    assert!(
                        !moves.contains(&Move::Decision(Decision::Double)),
                        "a double offered in the Crawford game"
                    );
                }
                // Resignation offers are rare (1 choice in 20), or games would hardly
                // be played out.
                let offers: Vec<usize> = (0..moves.len())
                    .filter(|i| matches!(moves[*i], Move::Decision(Decision::Resign(_))))
                    .collect();
                let others: Vec<usize> = (0..moves.len()).filter(|i| !offers.contains(i)).collect();
                let i = match g.decision_hint() {
                    Some(i) if rng.below(2) == 0 => i,
                    _ if offers.is_empty() || (!others.is_empty() && rng.below(20) > 0) => {
                        others[rng.below(others.len())]
                    }
                    _ => offers[rng.below(offers.len())],
                };
                g.apply_legal_move(i).unwrap();
            }
        }
    }
    let ended = matches!(g.awaiting(), Awaiting::Finished { .. });
    (g, ended)
}

/// The random matches do play the cube: over many matches, many games end with it
/// turned.
#[test]
fn random_matches_turn_the_cube() {
    let options = Options {
        match_length: 7,
        ..Options::default()
    };
    let (mut games, mut turned) = (0, 0);
    for seed in 0..20 {
        let (g, ended) = random_match(&options, seed);
        assert!(ended);
        games += g.match_play().games.len();
        turned += g.match_play().games.iter().filter(|x| x.cube > 1).count();
    }
    assert!(
        games >= 20 && turned * 5 >= games,
        "{turned} of {games} games with the cube turned"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn a_match_always_ends_and_its_winner_has_at_least_n_points(
        seed in any::<u64>(),
        length in 1u8..=9,
        crawford in any::<bool>(),
    ) {
        let options = Options { match_length: length, crawford: Some(crawford), ..Options::default() };
        let (g, ended) = random_match(&options, seed);
        prop_assert!(ended, "the match did not end");
        let result = g.result().unwrap().clone();
        let winner = worp_engine::backgammon::Side::of_seat(result.winner.unwrap()).unwrap();
        prop_assert!(g.match_play().score.get(winner) >= u16::from(length));
        prop_assert!(g.match_play().score.get(winner.opponent()) < u16::from(length));
    }

    #[test]
    fn the_score_is_the_sum_of_the_games_scores(seed in any::<u64>(), length in 1u8..=9) {
        let options = Options { match_length: length, ..Options::default() };
        let (g, _) = random_match(&options, seed);
        let m = g.match_play();
        for side in worp_engine::backgammon::Side::BOTH {
            let sum: u16 = m.games.iter().filter(|x| x.winner == side).map(|x| x.points).sum();
            prop_assert_eq!(m.score.get(side), sum);
        }
        prop_assert_eq!(usize::from(m.game), m.games.len());
        // No game after the first Crawford game is a Crawford game.
        prop_assert!(m.games.iter().filter(|x| x.crawford).count() <= 1);
    }

    #[test]
    fn a_single_game_with_the_cube_ends_with_the_cube_times_its_level(seed in any::<u64>()) {
        let options = Options { cube: Some(true), ..Options::default() };
        let (g, ended) = random_match(&options, seed);
        prop_assert!(ended);
        let last = g.match_play().games[0];
        prop_assert_eq!(u16::from(g.result().unwrap().points), last.points);
        prop_assert_eq!(last.points % u16::from(last.cube), 0);
        prop_assert!(last.points / u16::from(last.cube) <= 3);
    }
}
