//! The checker play of a turn: the legal moves of a roll (or passing when there is
//! none), playing one, and why steps that are none of them are illegal.

use super::{Backgammon, Destination, Move, Origin, Phase, Side, CHECKERS};
use crate::EngineError;

impl Backgammon {
    /// Starts the turn of `self.to_move` with `dice`: lists the legal moves, or passes
    /// the turn when the roll cannot be used.
    pub(super) fn begin_turn(&mut self, dice: [u8; 2]) {
        self.dice = Some(dice);
        let side = self.to_move;
        if self.movegen.generate(&self.position, side, dice).is_empty() {
            self.on_roll(side.opponent());
        } else {
            self.phase = Phase::Move;
        }
    }

    /// Plays a move already known to be legal for `side`, and ends the turn (or the game).
    pub(super) fn play_checked(&mut self, side: Side, mv: &Move) {
        self.position.play(side, mv);
        self.movegen.clear();
        if self.position.off.get(side) == CHECKERS {
            let level = self.level_lost_by(side.opponent());
            self.end_game(side, level.ending(), level);
        } else {
            self.on_roll(side.opponent());
        }
    }

    /// Plays `mv`, checker steps of the side to move, if it is one of the legal moves of
    /// the roll.
    pub(super) fn play_steps(&mut self, mv: &Move) -> Result<(), EngineError> {
        let side = self.to_move;
        let mut slots = [(0u8, 0u8); 4];
        for (slot, step) in slots.iter_mut().zip(mv.steps()) {
            let from = match step.from {
                Origin::Bar => 25,
                Origin::Point(p) => p.distance(side),
            };
            let to = match step.to {
                Destination::Off => 0,
                Destination::Point(p) => p.distance(side),
            };
            *slot = (from, to);
        }
        let slots = slots.get(..mv.steps().len()).unwrap_or(&[]);
        if !self.movegen.leaves().iter().any(|l| l.has_steps(slots)) {
            return Err(self.why_illegal(mv));
        }
        self.play_checked(side, mv);
        Ok(())
    }

    /// Why `mv` is not among the legal moves.
    fn why_illegal(&self, mv: &Move) -> EngineError {
        let used = self.movegen.leaves().first().map_or(0, |l| l.dice_used());
        let dice = self.dice.unwrap_or_default();
        if mv.steps().len() != used {
            return EngineError::illegal(format!(
                "the roll {}-{} must be played with {used} checker step(s), not {}",
                dice[0],
                dice[1],
                mv.steps().len()
            ));
        }
        let mut wanted = mv.steps().to_vec();
        wanted.sort_unstable();
        for leaf in self.movegen.leaves() {
            let listed = leaf.as_move(self.to_move);
            let mut steps = listed.steps().to_vec();
            steps.sort_unstable();
            if steps == wanted {
                return match serde_json::to_string(&listed) {
                    Ok(listed) => EngineError::illegal(format!(
                        "the legal move with these steps lists them in the order {listed}"
                    )),
                    Err(e) => EngineError::unserialisable("a legal move", e),
                };
            }
        }
        EngineError::illegal(format!(
            "no legal way to play the roll {}-{} is these steps (there are {} legal moves)",
            dice[0],
            dice[1],
            self.movegen.leaves().len()
        ))
    }
}
