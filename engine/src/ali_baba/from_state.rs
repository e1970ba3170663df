//! Reading a game of Ali Baba back from its state JSON, for checkpoints kept outside the
//! process, with the checks that refuse a state no game could be in.

use serde::Deserialize;

use super::{AliBaba, Figure, Figures, MoveList, Options, Position, Stage, ALI_BABA_DIE};
use crate::{EngineError, Game, Seat};

/// The state as [`AliBaba`]'s `Serialize` writes it: every field but the derived ones,
/// read back by [`Game::from_state`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Stored {
    options: Options,
    far_bank: Position,
    figures: Vec<Option<Figures>>,
    stage: Stage,
    last_roll: Option<u8>,
}

impl AliBaba {
    /// The game whose state JSON is `state`: read as [`Stored`], then [`AliBaba::rebuilt`].
    pub(super) fn from_state_json(state: &str) -> Result<Self, EngineError> {
        let stored: Stored =
            serde_json::from_str(state).map_err(|e| EngineError::state(e.to_string()))?;
        AliBaba::rebuilt(stored)
    }

    /// The game whose state is `stored`, with the derived fields rebuilt as the inputs
    /// build them: the bridge from the options, and the legal moves of the awaited move
    /// (as [`AliBaba::rolled`] makes them; none unless a move is awaited). Refuses a
    /// state no game of Ali Baba could be in.
    fn rebuilt(stored: Stored) -> Result<AliBaba, EngineError> {
        let Stored {
            options,
            far_bank,
            figures,
            stage,
            last_roll,
        } = stored;
        let bridge = options
            .bridge()
            .map_err(|e| EngineError::state(e.to_string()))?;
        if far_bank != bridge.far_bank() {
            return Err(EngineError::state(format!(
                "the far bank is at {far_bank}, but a bridge of {} planks has it at {}",
                bridge.planks(),
                bridge.far_bank()
            )));
        }
        let seats = u8::try_from(figures.len()).unwrap_or(u8::MAX);
        if !(Self::MIN_SEATS..=Self::MAX_SEATS).contains(&seats) {
            return Err(EngineError::state(format!(
                "{} seats: Ali Baba is played by {} to {}",
                figures.len(),
                Self::MIN_SEATS,
                Self::MAX_SEATS
            )));
        }
        for (seat, f) in figures.iter().enumerate() {
            if let Some(f) = f {
                if let Some(figure) = Figure::ALL.into_iter().find(|k| f.at(*k) > far_bank) {
                    return Err(EngineError::state(format!(
                        "seat {seat}'s {figure} stands at {}, beyond the far bank ({far_bank})",
                        f.at(figure)
                    )));
                }
            }
        }
        if let Some(roll) = last_roll.filter(|r| !ALI_BABA_DIE.shows(*r)) {
            return Err(EngineError::state(format!(
                "the last roll {roll} is not a face of the Ali Baba die"
            )));
        }
        let game = AliBaba {
            options,
            far_bank,
            figures,
            stage,
            last_roll,
            bridge,
            moves: MoveList::default(),
        };
        game.check_stage()?;
        let moves = match game.stage {
            Stage::Move { seat, roll, .. } => match game.figures(seat) {
                Some(figures) => MoveList::generate(bridge, figures, roll),
                None => MoveList::default(),
            },
            _ => MoveList::default(),
        };
        if matches!(game.stage, Stage::Move { .. }) && moves.is_empty() {
            return Err(EngineError::state(
                "a move is awaited, but the roll moves no figure of the seat to move",
            ));
        }
        Ok(AliBaba { moves, ..game })
    }

    /// Checks that the stage fits the seats still playing and their figures.
    fn check_stage(&self) -> Result<(), EngineError> {
        if matches!(self.stage, Stage::Finished { .. }) {
            return Ok(());
        }
        if self.active_seats().nth(1).is_none() {
            return Err(EngineError::state(
                "the game goes on with fewer than two seats playing",
            ));
        }
        if let Some(seat) = self
            .active_seats()
            .find(|s| self.figures(*s).is_some_and(|f| f.all_at(self.far_bank)))
        {
            return Err(EngineError::state(format!(
                "the game goes on though seat {seat} has every figure on the far bank"
            )));
        }
        let playing = |seat: Seat| self.figures(seat).is_some();
        match &self.stage {
            Stage::RollOff { roll_off } => {
                roll_off.check(playing).map_err(EngineError::state)?;
            }
            Stage::Roll { seat, .. } if !playing(*seat) => {
                return Err(EngineError::state(format!(
                    "seat {seat} is to roll but is not playing"
                )));
            }
            Stage::Move { seat, roll, .. } => {
                if !playing(*seat) {
                    return Err(EngineError::state(format!(
                        "seat {seat} is to move but is not playing"
                    )));
                }
                if self.last_roll != Some(*roll) {
                    return Err(EngineError::state(format!(
                        "the roll to move is {roll}, but the last roll is {:?}",
                        self.last_roll
                    )));
                }
            }
            Stage::Roll { .. } | Stage::Finished { .. } => {}
        }
        Ok(())
    }
}
