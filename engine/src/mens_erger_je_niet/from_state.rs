//! Reading a game of Mens-erger-je-niet back from its state JSON, for checkpoints kept
//! outside the process, with the checks that refuse a state no game could be in.

use super::{Colour, ColourState, ColourStatus, MensErgerJeNiet, Pawn, Place, Stage, DIE, PAWNS};
#[cfg(doc)]
use crate::Game;
use crate::{EngineError, Seat};

impl MensErgerJeNiet {
    /// Reads the state and fills the move cache as the roll awaiting a move filled it
    /// (the moves of the colour to move depend on its own pawns alone, so a seat retiring
    /// since then changed nothing).
    pub(super) fn from_state_json(state: &str) -> Result<Self, EngineError> {
        let mut game: MensErgerJeNiet =
            serde_json::from_str(state).map_err(|e| EngineError::state(e.to_string()))?;
        game.check_state().map_err(EngineError::state)?;
        game.moves = Vec::with_capacity(PAWNS);
        if let Stage::Move {
            colour,
            roll,
            bound,
        } = game.stage
        {
            game.collect_moves(colour, roll, bound);
            if game.moves.is_empty() {
                return Err(EngineError::state(format!(
                    "colour {colour} is to move with a roll of {roll} but has no legal move"
                )));
            }
        }
        Ok(game)
    }

    /// Checks a state read by [`Game::from_state`] for what the game relies on: the
    /// options valid for its seats, the seats and colours as the options set them up,
    /// pawns on fields of their own count, a turn for a colour in play.
    fn check_state(&self) -> Result<(), String> {
        let seats = u8::try_from(self.seats.len())
            .map_err(|_| format!("{} seats are too many", self.seats.len()))?;
        crate::game::check_seat_count::<Self>(seats).map_err(|e| e.to_string())?;
        let setup = self.options.setup(seats).map_err(|e| e.to_string())?;
        if setup.side != self.side {
            return Err(format!(
                "the side {:?} is not the options' board {}",
                self.side, self.options.board
            ));
        }
        for (i, (s, own)) in self.seats.iter().zip(&setup.colours).enumerate() {
            if s.seat != Seat(i as u8) {
                return Err(format!("seat {i} is named seat {}", s.seat));
            }
            if &s.colours != own {
                return Err(format!(
                    "seat {i} plays colours {:?}, but the options give it {:?}",
                    s.colours, own
                ));
            }
        }
        if self.colours.len() != usize::from(self.side.colours()) {
            return Err(format!(
                "the {}-colour board has {} colours in the state",
                self.side.colours(),
                self.colours.len()
            ));
        }
        for (i, c) in self.colours.iter().enumerate() {
            self.check_colour(i, c)?;
        }
        if let Some(roll) = self.last_roll.filter(|r| !DIE.shows(*r)) {
            return Err(format!("the last roll {roll} is not on the die"));
        }
        match &self.stage {
            Stage::RollOff { roll_off } => {
                roll_off.check(|seat| self.seats.get(seat.index()).is_some_and(|s| !s.retired))
            }
            Stage::Roll {
                colour,
                bound,
                tries_left,
                ..
            } => {
                self.check_turn(*colour, *bound)?;
                if !(1..=3).contains(tries_left) {
                    return Err(format!("{tries_left} tries left"));
                }
                Ok(())
            }
            Stage::Move {
                colour,
                roll,
                bound,
            } => {
                self.check_turn(*colour, *bound)?;
                if !DIE.shows(*roll) {
                    return Err(format!("the roll {roll} is not on the die"));
                }
                Ok(())
            }
            Stage::Finished { .. } => Ok(()),
        }
    }

    /// Checks colour number `i` of a state read: the owner the options give it, a status
    /// that fits its owner, pawns where its own count puts them.
    fn check_colour(&self, i: usize, c: &ColourState) -> Result<(), String> {
        if c.colour.index() != i {
            return Err(format!("colour number {i} is named colour {}", c.colour));
        }
        let owner = self.seats.iter().find(|s| s.colours.contains(&c.colour));
        if c.owner != owner.map(|s| s.seat) {
            return Err(format!(
                "colour {i} is owned by {:?}, but the seats say {:?}",
                c.owner,
                owner.map(|s| s.seat)
            ));
        }
        let fits = match (owner, c.status) {
            (None, status) => status == ColourStatus::Absent,
            (Some(s), ColourStatus::Retired) => s.retired,
            (Some(s), ColourStatus::Playing | ColourStatus::Finished) => !s.retired,
            (Some(_), ColourStatus::Absent) => false,
        };
        if !fits {
            return Err(format!(
                "colour {i} is {:?} though its seat is {:?}",
                c.status, owner
            ));
        }
        let on_board = c.pawns.iter().any(|p| !p.is_waiting());
        if on_board && matches!(c.status, ColourStatus::Absent | ColourStatus::Retired) {
            return Err(format!("colour {i} is {:?} but has pawns out", c.status));
        }
        let home = c.pawns.iter().all(|p| p.is_home());
        if home != (c.status == ColourStatus::Finished) {
            return Err(format!("colour {i} is {:?}", c.status));
        }
        for p in &c.pawns {
            if let Place::Track { step, field } = *p {
                if step >= self.side.track_fields() || field != self.side.field(c.colour, step) {
                    return Err(format!(
                        "a pawn of colour {i} stands on step {step}, field {field}"
                    ));
                }
            }
        }
        Ok(())
    }

    /// Checks the colour whose turn a state read gives: in play, its bound pawn one of
    /// its four.
    fn check_turn(&self, colour: Colour, bound: Option<Pawn>) -> Result<(), String> {
        let playing = self
            .colours
            .get(colour.index())
            .is_some_and(|c| c.status == ColourStatus::Playing);
        if !playing {
            return Err(format!("it is the turn of colour {colour}, not in play"));
        }
        match bound {
            Some(pawn) if pawn.index() >= PAWNS => {
                Err(format!("the roll is bound to pawn {}", pawn.0))
            }
            _ => Ok(()),
        }
    }
}
