//! Ludo (RULES.md §5), 2 to 4 seats, 1 to 4 pawns each, with the special die (globe and
//! star) or the plain d6.
//!
//! - `track.rs`: the 52-field track, each colour's own count of it, globes and stars.
//! - `colour.rs`, `pawn.rs`, `player.rs`: who plays which colour, where each pawn stands.
//! - `die.rs`: the special die and what its faces do.
//! - `moves.rs`: the moves, their effects, and the legal moves of a position.
//! - `options.rs`: the creation options.
//!
//! Who starts: the shared roll-off with the plain d6 (also with the special die); then
//! turns go round in seat order. A roll no pawn can use is lost; a globe (special die) or
//! a 6 (plain die) gives an extra roll even then.

mod colour;
mod die;
mod from_state;
mod moves;
mod options;
mod pawn;
mod player;
mod track;

#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

pub use colour::Colour;
pub use die::{DieKind, Symbol, GLOBE, SIX, SPECIAL_DIE, STAR};
pub use moves::{Effect, Move, MoveList};
pub use options::{Options, MAX_PAWNS};
pub use pawn::{PawnId, Pawns, Place};
pub use player::Player;
pub use track::{Field, TrackField, GLOBES, HOME_COUNT, STARS, TRACK_FIELDS};

use crate::rolloff::RollOff;
use crate::{Awaiting, Die, EngineError, Game, GameResult, Seat};

/// The game (its state), under the name every game module gives it.
pub type State = Ludo;

/// A game of Ludo: the whole state.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Ludo {
    /// The options the game was created with, the colours filled in.
    options: Options,
    /// The die turns are rolled with (the roll-off for who starts always uses the plain
    /// d6). The special die has faces 1..=6 where 3 is the globe and 5 the star.
    die: Die,
    /// Each seat's colour and pawns, in seat order.
    seats: Vec<Player>,
    /// Whose turn it is and what the game waits for.
    turn: Turn,
    /// The most recent roll (roll-off rolls included), if any.
    last_roll: Option<Roll>,
    /// The legal moves of the awaited move, with their effects (a cache).
    #[serde(skip)]
    #[schema(ignore)]
    moves: MoveList,
}

/// Whose turn it is and what for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "phase", rename_all = "snake_case")]
pub enum Turn {
    /// The seats roll the plain d6 for who starts (highest starts, ties roll again).
    RollOff {
        /// The roll-off so far.
        roll_off: RollOff,
    },
    /// `seat` rolls the die.
    Roll {
        /// The seat to roll.
        seat: Seat,
        /// Whether this is an extra roll of the same seat (after a globe, or a plain 6).
        extra_roll: bool,
    },
    /// `seat` chooses a move for `roll`.
    Move {
        /// The seat to move.
        seat: Seat,
        /// The value rolled (special die: 3 is the globe, 5 the star).
        roll: u8,
        /// Whether the same seat rolls again after this move (a globe, or a plain 6).
        extra_roll: bool,
    },
    /// The game is over.
    Finished {
        /// How it ended.
        result: GameResult,
    },
}

/// A roll that was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Roll {
    /// Who rolled.
    pub seat: Seat,
    /// The value shown (special die: 3 is the globe, 5 the star).
    pub value: u8,
    /// The symbol shown, when the special die shows one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<Symbol>,
    /// Whether it was a roll for who starts (always the plain d6).
    pub roll_off: bool,
}

impl Ludo {
    /// The seats: colour and pawns.
    pub fn players(&self) -> &[Player] {
        &self.seats
    }

    /// Whose turn it is and what for.
    pub fn turn(&self) -> &Turn {
        &self.turn
    }

    /// The most recent roll.
    pub fn last_roll(&self) -> Option<Roll> {
        self.last_roll
    }

    /// The die kind of this game.
    fn kind(&self) -> DieKind {
        self.options.die
    }

    /// The next seat in seat order still playing after `seat`.
    fn next_seat(&self, seat: Seat) -> Seat {
        let n = self.seats.len();
        (1..=n)
            .map(|k| (seat.index() + k) % n)
            .find(|i| self.seats.get(*i).is_some_and(|p| !p.retired))
            .map_or(seat, |i| Seat(i as u8))
    }

    /// `seat` has rolled `roll`: await its move, or (no pawn can use the roll) pass the
    /// turn, or roll again if the roll gives an extra roll.
    fn begin_move(&mut self, seat: Seat, roll: u8) {
        let extra_roll = self.kind().gives_extra_roll(roll);
        self.moves = MoveList::generate(&self.seats, seat.index(), self.kind(), roll);
        self.turn = if !self.moves.is_empty() {
            Turn::Move {
                seat,
                roll,
                extra_roll,
            }
        } else if extra_roll {
            Turn::Roll {
                seat,
                extra_roll: true,
            }
        } else {
            Turn::Roll {
                seat: self.next_seat(seat),
                extra_roll: false,
            }
        };
    }

    /// Why `mv` is not among the legal moves of `seat`.
    fn why_illegal(&self, seat: Seat, roll: u8, mv: &Move) -> EngineError {
        let pawn = mv.pawn();
        let Some(player) = self.seats.get(seat.index()) else {
            return EngineError::illegal("no such seat");
        };
        let Some(place) = player.pawns.get(pawn) else {
            return EngineError::illegal(format!(
                "seat {seat} has {} pawns, numbered from 0; there is no pawn {}",
                player.pawns.places().len(),
                pawn.0
            ));
        };
        if let Some(first) = player.pawns.first_on(place).filter(|f| *f != pawn) {
            return EngineError::illegal(format!(
                "pawn {} stands with pawn {}: pawns on one place are interchangeable, name pawn {}",
                pawn.0, first.0, first.0
            ));
        }
        match self.moves.iter().find(|(m, _)| m.pawn() == pawn) {
            Some((legal, _)) => EngineError::illegal(format!(
                "with a roll of {roll} pawn {} can only {}",
                pawn.0,
                describe(legal)
            )),
            None => EngineError::illegal(format!(
                "pawn {} {} cannot use a roll of {roll}",
                pawn.0,
                where_is(place)
            )),
        }
    }
}

/// A place in words, for error messages.
fn where_is(place: Place) -> String {
    match place {
        Place::Yard => "in the yard".to_owned(),
        Place::Track { field, .. } => format!("on field {}", field.0),
        Place::HomeColumn { field } => format!("on field {} of the home column", field.0),
        Place::Home => "home".to_owned(),
    }
}

/// A move in words, for error messages.
fn describe(mv: Move) -> String {
    match mv {
        Move::Enter { .. } => "enter".to_owned(),
        Move::Move { to, .. } => format!("move to field {}", to.0),
        Move::Home { .. } => "go home".to_owned(),
    }
}

impl Game for Ludo {
    type Options = Options;
    type Move = Move;

    const VARIANT: &'static str = "ludo";
    const TITLE: &'static str = "Ludo";
    const MIN_SEATS: u8 = 2;
    const MAX_SEATS: u8 = 4;

    fn new(options: &Options, seats: u8) -> Result<Self, EngineError> {
        crate::game::check_seat_count::<Self>(seats)?;
        let colours = options.validate(seats)?;
        let players = colours
            .iter()
            .map(|c| Player::new(*c, options.pawns))
            .collect();
        Ok(Ludo {
            options: Options {
                colours: Some(colours),
                ..options.clone()
            },
            die: options.die.die(),
            seats: players,
            turn: Turn::RollOff {
                roll_off: RollOff::new((0..seats).map(Seat)),
            },
            last_roll: None,
            moves: MoveList::default(),
        })
    }

    fn options(&self) -> &Options {
        &self.options
    }

    fn from_state(state: &str) -> Result<Self, EngineError> {
        Ludo::from_state_json(state)
    }

    fn awaiting(&self) -> Awaiting {
        match &self.turn {
            Turn::RollOff { roll_off } => Awaiting::Dice {
                seat: roll_off.next_roller(),
                die: Die::D6,
                count: 1,
            },
            Turn::Roll { seat, .. } => Awaiting::Dice {
                seat: *seat,
                die: self.die,
                count: 1,
            },
            Turn::Move { seat, .. } => Awaiting::Move { seat: *seat },
            Turn::Finished { result } => Awaiting::Finished {
                result: result.clone(),
            },
        }
    }

    fn legal_moves(&self) -> Vec<Move> {
        match self.turn {
            Turn::Move { .. } => self.moves.iter().map(|(m, _)| m).collect(),
            _ => Vec::new(),
        }
    }

    fn apply_dice(&mut self, values: &[u8]) -> Result<(), EngineError> {
        match &mut self.turn {
            Turn::Finished { .. } => Err(EngineError::Finished),
            Turn::Move { .. } => Err(EngineError::NotAwaitingDice),
            Turn::RollOff { roll_off } => {
                Die::D6.check(1, values)?;
                let value = values.first().copied().unwrap_or(0);
                let seat = roll_off.next_roller();
                self.last_roll = Some(Roll {
                    seat,
                    value,
                    symbol: None,
                    roll_off: true,
                });
                if let Some(starter) = roll_off.roll(value) {
                    self.turn = Turn::Roll {
                        seat: starter,
                        extra_roll: false,
                    };
                }
                Ok(())
            }
            Turn::Roll { seat, .. } => {
                let seat = *seat;
                self.die.check(1, values)?;
                let value = values.first().copied().unwrap_or(0);
                self.last_roll = Some(Roll {
                    seat,
                    value,
                    symbol: self.kind().symbol(value),
                    roll_off: false,
                });
                self.begin_move(seat, value);
                Ok(())
            }
        }
    }

    fn apply_move(&mut self, mv: &Move) -> Result<(), EngineError> {
        let (seat, roll, extra_roll) = match self.turn {
            Turn::Move {
                seat,
                roll,
                extra_roll,
            } => (seat, roll, extra_roll),
            Turn::Finished { .. } => return Err(EngineError::Finished),
            _ => return Err(EngineError::NotAwaitingMove),
        };
        let Some(effect) = self.moves.find(mv) else {
            return Err(self.why_illegal(seat, roll, mv));
        };
        if let Some((victim, pawn)) = effect.captured {
            if let Some(p) = self.seats.get_mut(victim) {
                p.pawns.set(pawn, Place::Yard);
            }
        }
        let mut won = false;
        if let Some(me) = self.seats.get_mut(seat.index()) {
            me.pawns.set(effect.pawn, effect.place);
            won = me.pawns.all_home();
        }
        self.moves.clear();
        self.turn = if won {
            Turn::Finished {
                result: GameResult::won(seat),
            }
        } else if extra_roll {
            Turn::Roll {
                seat,
                extra_roll: true,
            }
        } else {
            Turn::Roll {
                seat: self.next_seat(seat),
                extra_roll: false,
            }
        };
        Ok(())
    }

    /// Fields travelled by the seat's pawns (home counts most).
    fn progress(&self, seat: Seat) -> i32 {
        let Some(player) = self.seats.get(seat.index()) else {
            return 0;
        };
        player
            .pawns
            .iter()
            .map(|(_, place)| match place {
                pawn::Place::Yard => 0,
                // A pawn on the board is worth much more than one in the yard.
                pawn::Place::Track { field, .. } | pawn::Place::HomeColumn { field } => {
                    i32::from(field.0) + 12
                }
                pawn::Place::Home => 72,
            })
            .sum()
    }

    fn retire(&mut self, seat: Seat) -> Result<(), EngineError> {
        if matches!(self.turn, Turn::Finished { .. }) {
            return Err(EngineError::Finished);
        }
        match self.seats.get_mut(seat.index()) {
            Some(p) if !p.retired => {
                p.retired = true;
                p.pawns.clear();
            }
            _ => return Err(EngineError::NoSuchSeat { seat: seat.0 }),
        }
        let mut active =
            (0..self.seats.len()).filter(|i| self.seats.get(*i).is_some_and(|p| !p.retired));
        if let (Some(last), None) = (active.next(), active.next()) {
            self.moves.clear();
            self.turn = Turn::Finished {
                result: GameResult::last_seat_standing(Seat(last as u8)),
            };
            return Ok(());
        }
        match &mut self.turn {
            Turn::RollOff { roll_off } => {
                if let Some(starter) = roll_off.remove(seat) {
                    self.turn = Turn::Roll {
                        seat: starter,
                        extra_roll: false,
                    };
                }
            }
            Turn::Roll { seat: s, .. } | Turn::Move { seat: s, .. } if *s == seat => {
                self.moves.clear();
                self.turn = Turn::Roll {
                    seat: self.next_seat(seat),
                    extra_roll: false,
                };
            }
            Turn::Move { seat: s, roll, .. } => {
                // The retired pawns left the board: the same moves, but what they
                // capture or bounce off may have changed.
                self.moves = MoveList::generate(&self.seats, s.index(), self.options.die, *roll);
            }
            Turn::Roll { .. } | Turn::Finished { .. } => {}
        }
        Ok(())
    }
}
