//! Bots against bots through the engine alone, seeded and reproducible: what `worp bots
//! duel` prints. Bot `a` takes one seat, rotating game by game so that no seat's edge
//! decides; bot `b` plays every other seat. Win rates come with Wilson's 95 % interval.

use serde_json::Value;
use worp_engine::playout::SplitMix64;
use worp_engine::{variant, AnyGame, Awaiting, EngineError, Seat};

use crate::bots::{choose, BotKind};

/// Why a duel stopped.
#[derive(Debug, thiserror::Error)]
pub enum DuelError {
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// A bot could not decide (its worker failed, say).
    #[error("{bot} could not decide: {reason}")]
    Bot { bot: &'static str, reason: String },
}

/// How a duel's bots decide: the engine's own bots by default; the command line adds
/// GNU Backgammon's.
pub type Chooser<'a> =
    dyn FnMut(BotKind, &dyn AnyGame, Seat, usize, u64) -> Result<Option<usize>, DuelError> + 'a;

/// The engine's bots, as a [`Chooser`].
pub fn engine_bots(
    kind: BotKind,
    game: &dyn AnyGame,
    seat: Seat,
    seats: usize,
    entropy: u64,
) -> Result<Option<usize>, DuelError> {
    Ok(choose(kind, game, seat, seats, entropy)?)
}

/// The most inputs (rolls and moves) one game may take before it is called unfinished.
const MAX_INPUTS: usize = 200_000;

/// What a duel came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duel {
    pub variant: &'static str,
    pub seats: u8,
    pub games: u32,
    /// Games won by bot `a`, by one of bot `b`'s seats, drawn, and cut off unfinished.
    pub a_wins: u32,
    pub b_wins: u32,
    pub draws: u32,
    pub unfinished: u32,
}

/// A share of `n` and its 95 % interval (Wilson's score interval), as fractions.
pub fn wilson(wins: u32, n: u32) -> (f64, f64, f64) {
    if n == 0 {
        return (0.0, 0.0, 1.0);
    }
    let (w, n) = (f64::from(wins), f64::from(n));
    let z = 1.959_963_984_540_054_f64;
    let p = w / n;
    let denominator = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denominator;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denominator;
    (p, (centre - half).max(0.0), (centre + half).min(1.0))
}

/// Plays `games` games of `variant_name` with `seats` seats (`None`: the fewest the game
/// allows), bot `a` against bot `b`, from `seed`, with the engine's bots.
pub fn duel(
    variant_name: &str,
    a: BotKind,
    b: BotKind,
    games: u32,
    seats: Option<u8>,
    seed: u64,
) -> Result<Duel, DuelError> {
    let setup = Setup {
        variant: variant_name,
        options: &Value::Object(Default::default()),
        seats,
        games,
        seed,
    };
    duel_with(&setup, a, b, &mut engine_bots)
}

/// What a duel plays.
#[derive(Debug, Clone, Copy)]
pub struct Setup<'a> {
    pub variant: &'a str,
    /// The game's options (`{}` for the defaults; `{"match_length": 5}`).
    pub options: &'a Value,
    pub seats: Option<u8>,
    pub games: u32,
    pub seed: u64,
}

/// [`duel`] with the variant's `options` and bots deciding through `choose`.
pub fn duel_with(
    setup: &Setup<'_>,
    a: BotKind,
    b: BotKind,
    choose: &mut Chooser<'_>,
) -> Result<Duel, DuelError> {
    let Setup {
        variant: variant_name,
        options,
        seats,
        games,
        seed,
    } = *setup;
    let v = variant(variant_name)?;
    let seats = seats.unwrap_or(v.min_seats);
    let mut rng = SplitMix64(seed);
    let mut out = Duel {
        variant: v.name,
        seats,
        games,
        a_wins: 0,
        b_wins: 0,
        draws: 0,
        unfinished: 0,
    };
    let mut values = [0u8; 8];
    for g in 0..games {
        let a_seat = Seat((g % u32::from(seats.max(1))) as u8);
        let mut game = v.create(options, seats)?;
        let mut finished = None;
        for _ in 0..MAX_INPUTS {
            match game.awaiting() {
                Awaiting::Finished { result } => {
                    finished = Some(result);
                    break;
                }
                Awaiting::Dice { die, count, .. } => {
                    let n = usize::from(count).min(values.len());
                    for value in values.iter_mut().take(n) {
                        *value = rng.roll(&die);
                    }
                    game.apply_dice(&values[..n])?;
                }
                Awaiting::Move { seat } => {
                    let bot = if seat == a_seat { a } else { b };
                    let moves = game.legal_moves()?;
                    let i = choose(bot, game.as_ref(), seat, usize::from(seats), rng.next_u64())?
                        .ok_or_else(|| {
                        EngineError::illegal("the game awaits a move but has none")
                    })?;
                    let mv = moves.get(i).ok_or_else(|| {
                        EngineError::illegal("a bot chose a move that is not there")
                    })?;
                    game.apply_move(mv)?;
                }
            }
        }
        match finished.map(|r| r.winner) {
            Some(Some(w)) if w == a_seat => out.a_wins += 1,
            Some(Some(_)) => out.b_wins += 1,
            Some(None) => out.draws += 1,
            None => out.unfinished += 1,
        }
    }
    Ok(out)
}

impl Duel {
    /// The report `worp bots duel` prints.
    pub fn report(&self, a: &str, b: &str, seed: u64) -> String {
        let line = |who: &str, wins: u32| {
            let (p, lo, hi) = wilson(wins, self.games);
            format!(
                "{who:<8} wins {wins:>6} of {}: {:.1} % (95 % interval {:.1}-{:.1} %)\n",
                self.games,
                p * 100.0,
                lo * 100.0,
                hi * 100.0
            )
        };
        let mut text = format!(
            "{}, {} seats: {a} in one seat (rotating), {b} in the others; seed {seed}\n",
            self.variant, self.seats
        );
        text.push_str(&line(a, self.a_wins));
        text.push_str(&line(b, self.b_wins));
        text.push_str(&format!(
            "chance gives {a} {:.1} %; draws {}, unfinished {}\n",
            100.0 / f64::from(self.seats.max(1)),
            self.draws,
            self.unfinished
        ));
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_intervals_are_those_of_the_tables() {
        let (p, lo, hi) = wilson(81, 100);
        assert!((p - 0.81).abs() < 1e-12);
        // Wilson's interval for 81/100 at 95 %: 0.7222 to 0.8750.
        assert!((lo - 0.7222).abs() < 5e-4, "{lo}");
        assert!((hi - 0.8750).abs() < 5e-4, "{hi}");
        assert_eq!(wilson(0, 0), (0.0, 0.0, 1.0));
        let (_, lo, hi) = wilson(0, 10);
        assert_eq!(lo, 0.0);
        assert!(hi > 0.25 && hi < 0.35, "{hi}");
    }

    #[test]
    fn a_duel_is_reproducible_and_greedy_beats_random_beyond_chance() {
        let play = || {
            duel(
                "mens_erger_je_niet",
                BotKind::Greedy,
                BotKind::Random,
                60,
                None,
                7,
            )
            .expect("a duel")
        };
        let (first, again) = (play(), play());
        assert_eq!(first, again, "the same seed, the same games");
        assert_eq!(
            first.a_wins + first.b_wins + first.draws + first.unfinished,
            60
        );
        assert_eq!(first.unfinished, 0);
        let (_, lo, _) = wilson(first.a_wins, first.games);
        assert!(
            lo > 0.5,
            "greedy beats random in Mens-erger-je-niet: {first:?}"
        );
        let report = first.report("greedy", "random", 7);
        assert!(report.contains("95 % interval"), "{report}");
    }

    #[test]
    fn the_hoofden_search_wins_more_than_half_against_greedy() {
        // Wins alone, draws counted against it: over 1,000 games (seed 1) it wins about
        // four in five; over these 100, well above half.
        let d = duel(
            "hoofden",
            BotKind::Expectimax,
            BotKind::Greedy,
            100,
            None,
            1,
        )
        .expect("a duel");
        let (_, lo, _) = wilson(d.a_wins, d.games);
        assert!(lo > 0.5, "expectimax wins more than half in Hoofden: {d:?}");
        assert!(d.b_wins < 15, "and greedy seldom: {d:?}");
    }

    #[test]
    fn looking_a_roll_ahead_beats_greedy_beyond_chance() {
        let d = duel("ludo", BotKind::Expectimax, BotKind::Greedy, 100, None, 1).expect("a duel");
        let (_, lo, _) = wilson(d.a_wins, d.games);
        assert!(lo > 0.5, "expectimax beats greedy in Ludo: {d:?}");
    }
}
