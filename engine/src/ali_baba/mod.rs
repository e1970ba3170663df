//! Ali Baba (Alexander Randolph): get your robber, lady and officer across the bridge,
//! beating the figures of others on the way. RULES.md §3.
//!
//! Files: [`figure`] (the three kinds and who beats whom), [`bridge`] (planks, banks and
//! positions), [`figures`] (one seat's three figures), [`moves`] (a move and the moves of
//! a roll), [`stage`] (whose turn and what is awaited), [`options`].

pub mod bridge;
pub mod figure;
pub mod figures;
mod from_state;
pub mod moves;
pub mod options;
pub mod stage;

#[cfg(test)]
mod tests;

use serde::Serialize;
use utoipa::ToSchema;

use crate::rolloff::RollOff;
use crate::{Awaiting, Die, EngineError, Game, GameResult, Seat};

pub use bridge::{Bridge, Position};
pub use figure::Figure;
pub use figures::Figures;
pub use moves::{Move, MoveList};
pub use options::Options;
pub use stage::Stage;

/// The game (its state), under the name every game module gives it.
pub type State = AliBaba;

/// The Ali Baba die: faces 0, 1, 1, 2, 2, 3.
pub const ALI_BABA_DIE: Die = Die {
    name: "ali_baba",
    faces: &[0, 1, 1, 2, 2, 3],
    labels: &[],
};

/// The die of the roll-off that decides who starts (shared convention).
pub const ROLL_OFF_DIE: Die = Die::D6;

/// A game of Ali Baba: the whole state.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AliBaba {
    /// The options the game was created with (the number of planks).
    options: Options,
    /// The far bank's position: planks + 1.
    far_bank: Position,
    /// Each seat's figures, by seat; null once the seat has retired (its figures left the
    /// board).
    figures: Vec<Option<Figures>>,
    /// What the game is doing now: the roll-off, whose turn and what they must do, or
    /// the result.
    stage: Stage,
    /// The last value shown by the Ali Baba die (also a lost one); null before the first.
    last_roll: Option<u8>,
    /// The bridge (derived from the options).
    #[serde(skip)]
    #[schema(ignore)]
    bridge: Bridge,
    /// The legal moves of the awaited move (empty otherwise).
    #[serde(skip)]
    #[schema(ignore)]
    moves: MoveList,
}

impl AliBaba {
    /// The bridge the game is played on.
    pub fn bridge(&self) -> Bridge {
        self.bridge
    }

    /// The stage of the game.
    pub fn stage(&self) -> &Stage {
        &self.stage
    }

    /// The figures of `seat`, or `None` if there is no such seat or it retired.
    pub fn figures(&self, seat: Seat) -> Option<&Figures> {
        self.figures.get(seat.index()).and_then(Option::as_ref)
    }

    /// The last value shown by the Ali Baba die.
    pub fn last_roll(&self) -> Option<u8> {
        self.last_roll
    }

    /// The seats still playing, in seat order.
    fn active_seats(&self) -> impl Iterator<Item = Seat> + '_ {
        self.figures
            .iter()
            .enumerate()
            .filter(|(_, f)| f.is_some())
            .map(|(i, _)| Seat(i as u8))
    }

    /// The next seat still playing after `seat`, in seat order (`seat` itself if it is
    /// the only one).
    fn next_seat(&self, seat: Seat) -> Seat {
        let n = self.figures.len();
        (1..=n)
            .map(|k| (seat.index() + k) % n)
            .find(|&i| matches!(self.figures.get(i), Some(Some(_))))
            .map_or(seat, |i| Seat(i as u8))
    }

    /// The turn passes from `seat` to the next seat still playing.
    fn pass_turn(&mut self, seat: Seat) {
        self.moves = MoveList::default();
        self.stage = Stage::Roll {
            seat: self.next_seat(seat),
            extra: false,
        };
    }

    /// `seat` rolled `roll` with the Ali Baba die (an extra roll if `extra`).
    fn rolled(&mut self, seat: Seat, roll: u8, extra: bool) {
        self.last_roll = Some(roll);
        let moves = match self.figures(seat) {
            Some(figures) => MoveList::generate(self.bridge, figures, roll),
            None => MoveList::default(),
        };
        if moves.is_empty() {
            // A 0, or a roll no figure can use, is lost; so is a lost extra roll.
            self.pass_turn(seat);
        } else {
            self.moves = moves;
            self.stage = Stage::Move { seat, roll, extra };
        }
    }

    /// Beats, on `at`, every figure of another seat that `mover` beats; returns how many.
    fn beat(&mut self, seat: Seat, mover: Figure, at: Position) -> usize {
        if !self.bridge.is_plank(at) {
            return 0; // The banks are safe.
        }
        let victim = mover.beats();
        let mut beaten = 0;
        for (i, figures) in self.figures.iter_mut().enumerate() {
            if i == seat.index() {
                continue; // Same colour: nothing happens.
            }
            if let Some(figures) = figures {
                if figures.at(victim) == at {
                    figures.put(victim, Position::NEAR_BANK);
                    beaten += 1;
                }
            }
        }
        beaten
    }
}

impl Game for AliBaba {
    type Options = Options;
    type Move = Move;

    const VARIANT: &'static str = "ali_baba";
    const TITLE: &'static str = "Ali Baba";
    const MIN_SEATS: u8 = 2;
    const MAX_SEATS: u8 = 4;

    fn new(options: &Options, seats: u8) -> Result<Self, EngineError> {
        let bridge = options.bridge()?;
        crate::game::check_seat_count::<Self>(seats)?;
        Ok(AliBaba {
            options: options.clone(),
            far_bank: bridge.far_bank(),
            figures: vec![Some(Figures::START); usize::from(seats)],
            stage: Stage::RollOff {
                roll_off: RollOff::new((0..seats).map(Seat)),
            },
            last_roll: None,
            bridge,
            moves: MoveList::default(),
        })
    }

    fn options(&self) -> &Options {
        &self.options
    }

    fn from_state(state: &str) -> Result<Self, EngineError> {
        AliBaba::from_state_json(state)
    }

    fn awaiting(&self) -> Awaiting {
        match &self.stage {
            Stage::RollOff { roll_off } => Awaiting::Dice {
                seat: roll_off.next_roller(),
                die: ROLL_OFF_DIE,
                count: 1,
            },
            Stage::Roll { seat, .. } => Awaiting::Dice {
                seat: *seat,
                die: ALI_BABA_DIE,
                count: 1,
            },
            Stage::Move { seat, .. } => Awaiting::Move { seat: *seat },
            Stage::Finished { result } => Awaiting::Finished {
                result: result.clone(),
            },
        }
    }

    fn legal_moves(&self) -> Vec<Move> {
        match self.stage {
            Stage::Move { .. } => self.moves.iter().copied().collect(),
            _ => Vec::new(),
        }
    }

    fn apply_dice(&mut self, values: &[u8]) -> Result<(), EngineError> {
        match &mut self.stage {
            Stage::Finished { .. } => Err(EngineError::Finished),
            Stage::Move { .. } => Err(EngineError::NotAwaitingDice),
            Stage::RollOff { roll_off } => {
                ROLL_OFF_DIE.check(1, values)?;
                let value = values.first().copied().unwrap_or(0);
                if let Some(seat) = roll_off.roll(value) {
                    self.stage = Stage::Roll { seat, extra: false };
                }
                Ok(())
            }
            Stage::Roll { seat, extra } => {
                ALI_BABA_DIE.check(1, values)?;
                let (seat, extra) = (*seat, *extra);
                let roll = values.first().copied().unwrap_or(0);
                self.rolled(seat, roll, extra);
                Ok(())
            }
        }
    }

    fn apply_move(&mut self, mv: &Move) -> Result<(), EngineError> {
        let seat = match self.stage {
            Stage::Finished { .. } => return Err(EngineError::Finished),
            Stage::RollOff { .. } | Stage::Roll { .. } => return Err(EngineError::NotAwaitingMove),
            Stage::Move { seat, roll, .. } => {
                if !self.moves.contains(mv) {
                    return Err(self.why_illegal(seat, roll, mv));
                }
                seat
            }
        };
        let Some(figures) = self.figures.get_mut(seat.index()).and_then(Option::as_mut) else {
            return Err(EngineError::illegal("the seat to move has no figures"));
        };
        figures.put(mv.figure, mv.to);
        let home = figures.all_at(self.far_bank);
        if home {
            self.moves = MoveList::default();
            self.stage = Stage::Finished {
                result: GameResult::won(seat),
            };
            return Ok(());
        }
        if self.beat(seat, mv.figure, mv.to) > 0 {
            self.moves = MoveList::default();
            self.stage = Stage::Roll { seat, extra: true };
        } else {
            self.pass_turn(seat);
        }
        Ok(())
    }

    /// Planks travelled by the seat's three figures.
    fn progress(&self, seat: Seat) -> i32 {
        match self.figures.get(seat.index()) {
            Some(Some(f)) => [f.robber, f.lady, f.officer]
                .iter()
                .map(|p| i32::from(p.0))
                .sum(),
            _ => 0,
        }
    }

    fn retire(&mut self, seat: Seat) -> Result<(), EngineError> {
        if matches!(self.stage, Stage::Finished { .. }) {
            return Err(EngineError::Finished);
        }
        match self.figures.get_mut(seat.index()) {
            Some(slot @ Some(_)) => *slot = None,
            _ => return Err(EngineError::NoSuchSeat { seat: seat.0 }),
        }
        let last_standing = {
            let mut active = self.active_seats();
            match (active.next(), active.next()) {
                (Some(last), None) => Some(last),
                _ => None,
            }
        };
        if let Some(last) = last_standing {
            self.moves = MoveList::default();
            self.stage = Stage::Finished {
                result: GameResult::last_seat_standing(last),
            };
            return Ok(());
        }
        match &mut self.stage {
            Stage::RollOff { roll_off } => {
                if let Some(start) = roll_off.remove(seat) {
                    self.stage = Stage::Roll {
                        seat: start,
                        extra: false,
                    };
                }
            }
            Stage::Roll { seat: s, .. } | Stage::Move { seat: s, .. } if *s == seat => {
                self.pass_turn(seat);
            }
            _ => {}
        }
        Ok(())
    }
}

impl AliBaba {
    /// Why `mv` is not a legal move of `seat` for `roll`.
    fn why_illegal(&self, seat: Seat, roll: u8, mv: &Move) -> EngineError {
        let Some(figures) = self.figures(seat) else {
            return EngineError::illegal("the seat to move has no figures");
        };
        let at = figures.at(mv.figure);
        let reason = if at == self.far_bank {
            format!("the {} is already on the far bank", mv.figure)
        } else if mv.from != at {
            format!("the {} stands at {}, not at {}", mv.figure, at, mv.from)
        } else if self.bridge.advance(at, roll).is_none() {
            format!(
                "the {} at {} cannot move {}: the far bank ({}) needs the exact number",
                mv.figure, at, roll, self.far_bank
            )
        } else {
            format!(
                "the roll is {}: the {} at {} goes to {}, not to {}",
                roll,
                mv.figure,
                at,
                u16::from(at.0) + u16::from(roll),
                mv.to
            )
        };
        EngineError::illegal(reason)
    }
}
