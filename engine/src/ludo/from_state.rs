//! Reading a game of Ludo back from its state JSON, for checkpoints kept outside the
//! process, with the checks that refuse a state no game could be in.

use serde::Deserialize;

use super::{where_is, DieKind, Ludo, MoveList, Options, Place, Player, Roll, Turn};
#[cfg(doc)]
use crate::Game;
use crate::{Die, EngineError, Seat};

/// A game as its `Serialize` writes it, for [`Game::from_state`]: the die is written out
/// in full, but the game takes it from the options.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Written {
    options: Options,
    die: serde_json::Value,
    seats: Vec<Player>,
    turn: Turn,
    last_roll: Option<Roll>,
}

impl Ludo {
    /// Reads the state, takes the die from the options (the die written must be that
    /// one) and fills the move cache as the roll awaiting a move filled it (a seat
    /// retiring since then fills it again alike).
    pub(super) fn from_state_json(state: &str) -> Result<Self, EngineError> {
        let written: Written =
            serde_json::from_str(state).map_err(|e| EngineError::state(e.to_string()))?;
        let die = written.options.die.die();
        if serde_json::to_value(die).ok().as_ref() != Some(&written.die) {
            return Err(EngineError::state(format!(
                "the die {} is not the die of the options, {}",
                written.die, die.name
            )));
        }
        let mut game = Ludo {
            options: written.options,
            die,
            seats: written.seats,
            turn: written.turn,
            last_roll: written.last_roll,
            moves: MoveList::default(),
        };
        game.check_state().map_err(EngineError::state)?;
        if let Turn::Move { seat, roll, .. } = game.turn {
            game.moves = MoveList::generate(&game.seats, seat.index(), game.kind(), roll);
            if game.moves.is_empty() {
                return Err(EngineError::state(format!(
                    "seat {seat} is to move with a roll of {roll} but has no legal move"
                )));
            }
        }
        Ok(game)
    }

    /// Checks a state read by [`Game::from_state`] for what the game relies on: the
    /// options valid for its seats, the colours and pawn counts they give, pawns where
    /// their own count puts them, a turn for a seat still playing.
    fn check_state(&self) -> Result<(), String> {
        let n = u8::try_from(self.seats.len())
            .map_err(|_| format!("{} seats are too many", self.seats.len()))?;
        crate::game::check_seat_count::<Self>(n).map_err(|e| e.to_string())?;
        let colours = self.options.validate(n).map_err(|e| e.to_string())?;
        if self.options.colours.as_ref() != Some(&colours) {
            return Err("the options do not name each seat's colour".to_owned());
        }
        for (i, (player, colour)) in self.seats.iter().zip(&colours).enumerate() {
            if player.colour != *colour {
                return Err(format!(
                    "seat {i} plays colour {}, but the options give it {colour}",
                    player.colour
                ));
            }
            if player.pawns.places().len() != usize::from(self.options.pawns) {
                return Err(format!(
                    "seat {i} has {} pawns, but the options give each seat {}",
                    player.pawns.places().len(),
                    self.options.pawns
                ));
            }
            for (pawn, place) in player.pawns.iter() {
                let fits = match place {
                    Place::Yard => true,
                    Place::Home => !player.retired,
                    Place::Track { field, .. } => {
                        !player.retired && Place::counted(*colour, field) == place
                    }
                    Place::HomeColumn { field } => {
                        !player.retired
                            && self.kind() == DieKind::Plain
                            && Place::counted(*colour, field) == place
                    }
                };
                if !fits {
                    return Err(format!(
                        "pawn {} of seat {i} cannot stand {}",
                        pawn.0,
                        where_is(place)
                    ));
                }
            }
        }
        if let Some(roll) = self.last_roll {
            let (die, symbol) = if roll.roll_off {
                (Die::D6, None)
            } else {
                (self.die, self.kind().symbol(roll.value))
            };
            if roll.seat.index() >= self.seats.len()
                || !die.shows(roll.value)
                || roll.symbol != symbol
            {
                return Err(format!("the last roll {roll:?} cannot have been made"));
            }
        }
        let playing = |seat: Seat| self.seats.get(seat.index()).is_some_and(|p| !p.retired);
        match &self.turn {
            Turn::RollOff { roll_off } => roll_off.check(playing),
            Turn::Roll { seat, .. } if !playing(*seat) => {
                Err(format!("it is the turn of seat {seat}, not playing"))
            }
            Turn::Move { seat, .. } if !playing(*seat) => {
                Err(format!("it is the turn of seat {seat}, not playing"))
            }
            Turn::Move {
                roll, extra_roll, ..
            } => {
                if !self.die.shows(*roll) {
                    Err(format!("the roll {roll} is not on the die"))
                } else if *extra_roll != self.kind().gives_extra_roll(*roll) {
                    Err(format!(
                        "the move of a roll of {roll} has extra_roll {extra_roll}, which that \
                         roll does not give"
                    ))
                } else {
                    Ok(())
                }
            }
            Turn::Roll { .. } | Turn::Finished { .. } => Ok(()),
        }
    }
}
