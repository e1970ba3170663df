//! Driving a game to its end with choices made by the caller.
//!
//! The engine draws no random numbers: `play_out` asks the caller for every die value and
//! every choice among the legal moves. Tests, benchmarks and bots use it with their own
//! random source or strategy.

use serde::{Deserialize, Serialize};

use crate::{Awaiting, Die, EngineError, Game};

/// One input a game takes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Input<M> {
    /// The values shown by the awaited dice.
    Dice(Vec<u8>),
    /// A move by the seat to move.
    Move(M),
}

impl<M> Input<M> {
    /// Applies this input to `game`.
    pub fn apply<G: Game<Move = M>>(&self, game: &mut G) -> Result<(), EngineError> {
        match self {
            Input::Dice(values) => game.apply_dice(values),
            Input::Move(mv) => game.apply_move(mv),
        }
    }
}

/// How a play-out stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The game is finished.
    Finished,
    /// `max_inputs` inputs were applied and the game is still going.
    Limit,
}

/// Plays `game` on until it is finished or `max_inputs` inputs were applied.
/// `roll(die)` gives each die value; `choose(game, moves)` gives the index of the move
/// to play. Each applied input is pushed to `log` when one is given.
pub fn play_out<G: Game>(
    game: &mut G,
    mut roll: impl FnMut(&Die) -> u8,
    mut choose: impl FnMut(&G, &[G::Move]) -> usize,
    max_inputs: usize,
    mut log: Option<&mut Vec<Input<G::Move>>>,
) -> Result<Stop, EngineError> {
    let mut values = Vec::with_capacity(4);
    for _ in 0..max_inputs {
        match game.awaiting() {
            Awaiting::Finished { .. } => return Ok(Stop::Finished),
            Awaiting::Dice { die, count, .. } => {
                values.clear();
                values.extend((0..count).map(|_| roll(&die)));
                game.apply_dice(&values)?;
                if let Some(log) = log.as_deref_mut() {
                    log.push(Input::Dice(values.clone()));
                }
            }
            Awaiting::Move { .. } => {
                let moves = game.legal_moves();
                let i = choose(game, &moves).min(moves.len().saturating_sub(1));
                let mv = moves.into_iter().nth(i).ok_or_else(|| {
                    EngineError::illegal("the game awaits a move but has no legal move")
                })?;
                game.apply_move(&mv)?;
                if let Some(log) = log.as_deref_mut() {
                    log.push(Input::Move(mv));
                }
            }
        }
    }
    Ok(match game.awaiting() {
        Awaiting::Finished { .. } => Stop::Finished,
        _ => Stop::Limit,
    })
}

/// Plays `game` on with random dice and uniformly random legal moves drawn from `rng`,
/// until it is finished or `max_inputs` inputs were applied. Moves are chosen by their
/// index in the legal list, so games that know their moves without building them are
/// not slowed down by it.
pub fn play_random<G: Game>(
    game: &mut G,
    rng: &mut SplitMix64,
    max_inputs: usize,
) -> Result<Stop, EngineError> {
    let mut values = [0u8; 8];
    for _ in 0..max_inputs {
        match game.awaiting() {
            Awaiting::Finished { .. } => return Ok(Stop::Finished),
            Awaiting::Dice { die, count, .. } => {
                let n = usize::from(count).min(values.len());
                for v in values.iter_mut().take(n) {
                    *v = rng.roll(&die);
                }
                game.apply_dice(&values[..n])?;
            }
            Awaiting::Move { .. } => {
                let n = game.legal_move_count();
                if n == 0 {
                    return Err(EngineError::illegal(
                        "the game awaits a move but has no legal move",
                    ));
                }
                let i = rng.below(n);
                game.apply_legal_move(i)?;
            }
        }
    }
    Ok(match game.awaiting() {
        Awaiting::Finished { .. } => Stop::Finished,
        _ => Stop::Limit,
    })
}

/// A small deterministic pseudo-random source (SplitMix64) for tests, benchmarks and
/// bots that need reproducible choices. The engine itself never uses it.
#[derive(Debug, Clone)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (n > 0), by multiply-shift (bias below 2^-32 for small n).
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }

    /// A roll of `die`: one of its faces, each equally likely.
    pub fn roll(&mut self, die: &Die) -> u8 {
        die.faces[self.below(die.faces.len())]
    }
}
