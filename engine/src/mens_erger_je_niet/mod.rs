//! Mens-erger-je-niet (RULES.md §1): 2 to 6 seats on the four- or six-colour board.
//!
//! The seats roll off for who starts; then the colours in play take turns in board order,
//! whoever holds them. A colour's first turn is its opening: a pawn is put on A and the
//! roll is bound to it. A 6 with pawns in B forces a new pawn onto A and binds the next
//! roll to it. Every 6 gives another roll, except a 6 that brings the colour's last pawn
//! home. The first seat with every pawn of each of its colours home wins.

mod board;
mod colour;
mod from_state;
mod moves;
mod options;
#[cfg(test)]
mod tests;
mod turn;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

pub use board::{Side, PAWNS};
pub use colour::{Circle, Colour, Pawn, Place};
pub use moves::{destination, Move};
pub use options::Options;

use crate::rolloff::RollOff;
use crate::{Awaiting, Die, EngineError, Game, GameResult, Seat};

/// The game (its state), under the name every game module gives it.
pub type State = MensErgerJeNiet;

/// The die of Mens-erger-je-niet: a plain d6.
pub const DIE: Die = Die::D6;

/// A game of Mens-erger-je-niet: the whole state.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct MensErgerJeNiet {
    /// The options the game was created with.
    options: Options,
    /// The side of the board played.
    side: Side,
    /// The seats, in seat order.
    seats: Vec<SeatState>,
    /// Every colour of the board side, in board order (index = colour number); colours
    /// nobody plays are `absent`.
    colours: Vec<ColourState>,
    /// What happens now.
    stage: Stage,
    /// The last value rolled (roll-off rolls included), if any.
    last_roll: Option<u8>,
    /// The legal moves of the current position (a cache; empty unless a move is awaited).
    #[serde(skip)]
    #[schema(ignore)]
    moves: Vec<Move>,
}

/// One seat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SeatState {
    /// The seat.
    seat: Seat,
    /// The colours it plays, in board order.
    colours: Vec<Colour>,
    /// Whether it has left the game (resigned or ran out of time).
    retired: bool,
}

/// How a colour stands in the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ColourStatus {
    /// Nobody plays this colour.
    Absent,
    /// In play.
    Playing,
    /// All four pawns are home; it takes no more turns.
    Finished,
    /// Its seat retired; its pawns left the board.
    Retired,
}

/// One colour: who plays it and where its pawns stand.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ColourState {
    /// The colour.
    colour: Colour,
    /// The seat that plays it, if any.
    owner: Option<Seat>,
    /// Whether it is in play, finished, retired or absent.
    status: ColourStatus,
    /// Whether it has had its opening turn.
    opened: bool,
    /// Where each of its four pawns stands.
    pawns: [Place; PAWNS],
}

/// What the game waits for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "stage", rename_all = "snake_case")]
pub enum Stage {
    /// The seats roll off for who starts.
    RollOff {
        /// The roll-off so far.
        roll_off: RollOff,
    },
    /// `colour` rolls the die.
    Roll {
        /// The colour to roll.
        colour: Colour,
        /// The pawn this roll must move (the pawn just put on A), if the roll is bound.
        bound: Option<Pawn>,
        /// Whether this is the colour's opening roll (the bound pawn moves by it, a 6
        /// included).
        opening: bool,
        /// Rolls left before the turn passes if they bring no usable roll (more than 1
        /// only with the option `three_tries`).
        tries_left: u8,
    },
    /// `colour` chooses a move for `roll`.
    Move {
        /// The colour to move.
        colour: Colour,
        /// The roll being played.
        roll: u8,
        /// The pawn the roll is bound to, if any.
        bound: Option<Pawn>,
    },
    /// The game is over.
    Finished {
        /// How it ended.
        result: GameResult,
    },
}

impl MensErgerJeNiet {
    /// The side of the board played.
    pub fn side(&self) -> Side {
        self.side
    }

    /// The pawns of `colour`, if the board has that colour.
    pub fn pawns(&self, colour: Colour) -> Option<&[Place; PAWNS]> {
        self.colours.get(colour.index()).map(|c| &c.pawns)
    }

    /// What happens now.
    pub fn stage(&self) -> &Stage {
        &self.stage
    }

    fn colour(&self, colour: Colour) -> &ColourState {
        &self.colours[colour.index()]
    }

    fn colour_mut(&mut self, colour: Colour) -> &mut ColourState {
        &mut self.colours[colour.index()]
    }

    /// The seat that plays `colour` (colours in turn always have an owner).
    fn owner(&self, colour: Colour) -> Seat {
        self.colour(colour).owner.unwrap_or(Seat(0))
    }

    /// Fills the move cache for `colour` rolling `roll`; only `bound` may move if given.
    fn collect_moves(&mut self, colour: Colour, roll: u8, bound: Option<Pawn>) {
        self.moves.clear();
        let c = &self.colours[colour.index()];
        for (i, &from) in c.pawns.iter().enumerate() {
            if bound.is_some_and(|b| b.index() != i) {
                continue;
            }
            if let Some(to) = moves::legal_destination(self.side, colour, &c.pawns, from, roll) {
                self.moves.push(Move {
                    colour,
                    pawn: Pawn(i as u8),
                    to,
                });
            }
        }
    }

    fn seat_has_won(&self, seat: Seat) -> bool {
        self.seats.get(seat.index()).is_some_and(|s| {
            s.colours
                .iter()
                .all(|&c| self.colour(c).status == ColourStatus::Finished)
        })
    }
}

impl Game for MensErgerJeNiet {
    type Options = Options;
    type Move = Move;

    const VARIANT: &'static str = "mens_erger_je_niet";
    const TITLE: &'static str = "Mens-erger-je-niet";
    const MIN_SEATS: u8 = 2;
    const MAX_SEATS: u8 = 6;

    fn new(options: &Options, seats: u8) -> Result<Self, EngineError> {
        crate::game::check_seat_count::<Self>(seats)?;
        let setup = options.setup(seats)?;
        let mut colours: Vec<ColourState> = (0..setup.side.colours())
            .map(|c| ColourState {
                colour: Colour(c),
                owner: None,
                status: ColourStatus::Absent,
                opened: false,
                pawns: [Place::Waiting; PAWNS],
            })
            .collect();
        let mut seat_states = Vec::with_capacity(usize::from(seats));
        for (s, own) in (0..seats).zip(&setup.colours) {
            for colour in own {
                if let Some(c) = colours.get_mut(colour.index()) {
                    c.owner = Some(Seat(s));
                    c.status = ColourStatus::Playing;
                }
            }
            seat_states.push(SeatState {
                seat: Seat(s),
                colours: own.clone(),
                retired: false,
            });
        }
        Ok(MensErgerJeNiet {
            options: options.clone(),
            side: setup.side,
            seats: seat_states,
            colours,
            stage: Stage::RollOff {
                roll_off: RollOff::new((0..seats).map(Seat)),
            },
            last_roll: None,
            moves: Vec::with_capacity(PAWNS),
        })
    }

    fn options(&self) -> &Options {
        &self.options
    }

    fn from_state(state: &str) -> Result<Self, EngineError> {
        MensErgerJeNiet::from_state_json(state)
    }

    fn awaiting(&self) -> Awaiting {
        match &self.stage {
            Stage::RollOff { roll_off } => Awaiting::Dice {
                seat: roll_off.next_roller(),
                die: DIE,
                count: 1,
            },
            Stage::Roll { colour, .. } => Awaiting::Dice {
                seat: self.owner(*colour),
                die: DIE,
                count: 1,
            },
            Stage::Move { colour, .. } => Awaiting::Move {
                seat: self.owner(*colour),
            },
            Stage::Finished { result } => Awaiting::Finished {
                result: result.clone(),
            },
        }
    }

    fn legal_moves(&self) -> Vec<Move> {
        match self.stage {
            Stage::Move { .. } => self.moves.clone(),
            _ => Vec::new(),
        }
    }

    fn apply_dice(&mut self, values: &[u8]) -> Result<(), EngineError> {
        match self.stage {
            Stage::Finished { .. } => return Err(EngineError::Finished),
            Stage::Move { .. } => return Err(EngineError::NotAwaitingDice),
            _ => {}
        }
        DIE.check(1, values)?;
        let roll = *values.first().ok_or(EngineError::DiceCount {
            expected: 1,
            got: 0,
        })?;
        self.last_roll = Some(roll);
        match &mut self.stage {
            Stage::RollOff { roll_off } => {
                if let Some(seat) = roll_off.roll(roll) {
                    let first = self
                        .seats
                        .get(seat.index())
                        .and_then(|s| s.colours.first().copied())
                        .unwrap_or(Colour(0));
                    self.begin_turn(first);
                }
            }
            &mut Stage::Roll {
                colour,
                bound,
                opening,
                tries_left,
            } => {
                let waiting = self.colour(colour).pawns.iter().any(|p| p.is_waiting());
                if roll == 6 && waiting && !opening {
                    // Compulsory entry; the next roll is bound to the pawn on A.
                    let pawn = self.enter(colour);
                    self.stage = Stage::Roll {
                        colour,
                        bound: pawn,
                        opening: false,
                        tries_left: 1,
                    };
                    return Ok(());
                }
                self.collect_moves(colour, roll, bound);
                if !self.moves.is_empty() {
                    self.stage = Stage::Move {
                        colour,
                        roll,
                        bound,
                    };
                } else if roll != 6 && tries_left > 1 {
                    self.stage = Stage::Roll {
                        colour,
                        bound: None,
                        opening: false,
                        tries_left: tries_left - 1,
                    };
                } else {
                    // The roll is lost.
                    self.roll_again_or_pass(colour, roll);
                }
            }
            Stage::Move { .. } | Stage::Finished { .. } => {}
        }
        Ok(())
    }

    fn apply_move(&mut self, mv: &Move) -> Result<(), EngineError> {
        let (colour, roll) = match self.stage {
            Stage::Finished { .. } => return Err(EngineError::Finished),
            Stage::Move { colour, roll, .. } => (colour, roll),
            _ => return Err(EngineError::NotAwaitingMove),
        };
        if !self.moves.contains(mv) {
            let reason = if mv.colour != colour {
                format!("it is colour {colour}'s turn, not colour {}'s", mv.colour)
            } else if let Some(legal) = self.moves.iter().find(|m| m.pawn == mv.pawn) {
                format!(
                    "a roll of {roll} takes pawn {} to {:?}, not {:?}",
                    mv.pawn.0, legal.to, mv.to
                )
            } else {
                format!(
                    "pawn {} of colour {colour} cannot move by {roll} now",
                    mv.pawn.0
                )
            };
            return Err(EngineError::illegal(reason));
        }
        if let Some(field) = mv.to.track_field() {
            self.capture_on(field);
        }
        self.moves.clear();
        let state = self.colour_mut(colour);
        state.pawns[mv.pawn.index()] = mv.to;
        if state.pawns.iter().all(|p| p.is_home()) {
            state.status = ColourStatus::Finished;
            let seat = self.owner(colour);
            if self.seat_has_won(seat) {
                self.stage = Stage::Finished {
                    result: GameResult::won(seat),
                };
            } else {
                // A 6 that brings the last pawn home gives no other roll.
                self.end_turn(colour);
            }
            return Ok(());
        }
        self.roll_again_or_pass(colour, roll);
        Ok(())
    }

    /// Fields travelled by the pawns of the seat's colours (a home circle counts as the
    /// fields before it).
    fn progress(&self, seat: Seat) -> i32 {
        self.colours
            .iter()
            .filter(|c| c.owner == Some(seat))
            .flat_map(|c| c.pawns.iter())
            .map(|p| match p {
                Place::Waiting => 0,
                Place::Track { step, .. } => i32::from(*step) + 1,
                Place::Home { circle } => 60 + i32::from(circle.number()),
            })
            .sum()
    }

    fn retire(&mut self, seat: Seat) -> Result<(), EngineError> {
        if matches!(self.stage, Stage::Finished { .. }) {
            return Err(EngineError::Finished);
        }
        let own = match self.seats.get_mut(seat.index()) {
            Some(s) if !s.retired => {
                s.retired = true;
                s.colours.clone()
            }
            _ => return Err(EngineError::NoSuchSeat { seat: seat.0 }),
        };
        for colour in &own {
            let c = self.colour_mut(*colour);
            c.status = ColourStatus::Retired;
            c.pawns = [Place::Waiting; PAWNS];
        }
        let mut left = self.seats.iter().filter(|s| !s.retired);
        if let (Some(last), None) = (left.next(), left.next()) {
            self.moves.clear();
            self.stage = Stage::Finished {
                result: GameResult::last_seat_standing(last.seat),
            };
            return Ok(());
        }
        match &mut self.stage {
            Stage::RollOff { roll_off } => {
                if let Some(first) = roll_off.remove(seat) {
                    let colour = self
                        .seats
                        .get(first.index())
                        .and_then(|s| s.colours.first().copied())
                        .unwrap_or(Colour(0));
                    self.begin_turn(colour);
                }
            }
            &mut Stage::Roll { colour, .. } | &mut Stage::Move { colour, .. } => {
                if own.contains(&colour) {
                    self.moves.clear();
                    self.end_turn(colour);
                }
            }
            Stage::Finished { .. } => {}
        }
        Ok(())
    }
}
