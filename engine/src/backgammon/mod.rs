//! Backgammon (RULES.md §2): two players, White (seat 0) and Black (seat 1).
//!
//! The game opens with one die per player (White first, ties roll again); the higher
//! roller plays the two numbers shown. Afterwards every turn is a roll of two dice and
//! one full move ([`Move`]): every checker step the roll is used for. A roll no move can
//! use passes the turn inside [`Game::apply_dice`].
//!
//! With the options of RULES.md §2b the game is played with the doubling cube
//! ([`cube`]), as a match to N points ([`match_play`]), and with decisions ([`Decision`]:
//! roll or double, take or pass, resignation offers and answers) among the legal moves;
//! `cube_play.rs` plays them. Without options it is one game as the German text
//! describes, exactly as before.

mod advice;
pub mod analyze;
mod checker_play;
pub mod cube;
mod cube_play;
mod decision;
pub mod mat;
pub mod match_id;
pub mod match_play;
mod movegen;
mod moves;
mod options;
mod outcomes;
mod point;
mod position;
pub mod position_id;
mod side;
mod state_json;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_2b;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::{Awaiting, Capabilities, Die, Ending, EngineError, Game, GameResult, Seat};

pub use cube::Cube;
pub use decision::{Decision, Level, Offer, OfferKind};
pub use match_play::{GameScore, MatchPlay, Score};
pub use moves::{Move, Step, Steps};
pub use options::{Options, MAX_MATCH_LENGTH};
pub use outcomes::OutcomeCounter;
pub use point::{Destination, Origin, Point};
pub use position::{Position, Tally, CHECKERS};
pub use side::Side;
pub use state_json::StateJson;

use cube_play::Ended;
use movegen::MoveGen;

/// The game (its state), under the name every game module gives it.
pub type State = Backgammon;

/// The die of backgammon: an ordinary d6.
pub const DIE: Die = Die::D6;

/// Where the game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Each player rolls one die, White first; the higher roller starts.
    OpeningRoll,
    /// The player to move chooses `roll` or `double` (only when he may double).
    RollOrDouble,
    /// The player to move rolls two dice.
    Roll,
    /// The player to move plays the roll.
    Move,
    /// The game is over.
    Finished,
}

/// The one-die rolls of the opening (the current round; a tie starts a new one).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct OpeningRoll {
    /// White's die, once rolled.
    pub white: Option<u8>,
    /// Black's die, once rolled.
    pub black: Option<u8>,
}

/// A game of backgammon. This value is the state; see [`StateJson`] for its JSON.
#[derive(Debug, Clone)]
pub struct Backgammon {
    options: Options,
    position: Position,
    to_move: Side,
    phase: Phase,
    opening: OpeningRoll,
    /// The last dice rolled (for the first move: White's and Black's opening dice).
    dice: Option<[u8; 2]>,
    result: Option<GameResult>,
    retired: Option<Side>,
    movegen: MoveGen,
    /// The doubling cube (centred at 1 while not in play).
    cube: Cube,
    /// The match: score, game number, Crawford game, finished games.
    play: MatchPlay,
    /// A double or resignation awaiting the opponent's answer.
    offer: Option<Offer>,
    /// How the last game ended by a resignation or a drop, as GNU Backgammon's Match ID
    /// says it once the match is over.
    ended: Option<Ended>,
}

impl Backgammon {
    /// The most the opponent of `loser` wins from the position: a backgammon while
    /// `loser` has borne off none and has a checker on the bar or in the opponent's home
    /// board, a gammon while he has borne off none, a single otherwise.
    fn level_lost_by(&self, loser: Side) -> Level {
        if self.position.off.get(loser) > 0 {
            Level::Single
        } else if self.position.in_home_or_bar(loser, loser.opponent()) {
            Level::Backgammon
        } else {
            Level::Gammon
        }
    }

    /// Pips travelled by `side`'s checkers in the game being played (a checker borne off
    /// counts 25, one on the bar 0): 167 less the pip count, at the start.
    pub(super) fn pips_travelled(&self, side: Side) -> i32 {
        let p = &self.position;
        let white = side == Side::White;
        let on_board: i32 = p
            .board
            .iter()
            .enumerate()
            .map(|(i, &n)| {
                let point = i as i32 + 1;
                match (white, n) {
                    (true, n) if n > 0 => i32::from(n) * point,
                    (false, n) if n < 0 => i32::from(-n) * (25 - point),
                    _ => 0,
                }
            })
            .sum();
        on_board + 25 * i32::from(p.off.get(side))
    }

    /// The position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The colour to roll or move.
    pub fn to_move(&self) -> Side {
        self.to_move
    }

    /// The phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The last dice rolled.
    pub fn dice(&self) -> Option<[u8; 2]> {
        self.dice
    }

    /// The result, once the game is over.
    pub fn result(&self) -> Option<&GameResult> {
        self.result.as_ref()
    }

    /// A game in `position` with `to_move` about to roll (for tests and analysis).
    pub fn from_position(position: Position, to_move: Side) -> Result<Backgammon, EngineError> {
        position.check().map_err(EngineError::options)?;
        let mut game = Backgammon::start();
        game.position = position;
        game.to_move = to_move;
        game.phase = Phase::Roll;
        Ok(game)
    }

    /// The doubling cube.
    pub fn cube(&self) -> Cube {
        self.cube
    }

    /// The match (a single game is a match of one game).
    pub fn match_play(&self) -> &MatchPlay {
        &self.play
    }

    /// A double or resignation awaiting an answer.
    pub fn offer(&self) -> Option<Offer> {
        self.offer
    }

    fn start() -> Backgammon {
        Backgammon {
            options: Options::default(),
            position: Position::START,
            to_move: Side::White,
            phase: Phase::OpeningRoll,
            opening: OpeningRoll::default(),
            dice: None,
            result: None,
            retired: None,
            movegen: MoveGen::default(),
            cube: Cube::CENTRED,
            play: MatchPlay::new(0),
            offer: None,
            ended: None,
        }
    }

    fn finish(&mut self, result: GameResult) {
        self.result = Some(result);
        self.phase = Phase::Finished;
        self.movegen.clear();
    }
}

impl Game for Backgammon {
    type Options = Options;
    type Move = Move;

    const VARIANT: &'static str = "backgammon";
    const TITLE: &'static str = "Backgammon";
    const MIN_SEATS: u8 = 2;
    const MAX_SEATS: u8 = 2;
    const CAPABILITIES: Capabilities = Capabilities {
        match_file: Some(mat::match_file_of_seats),
        analyze_line: Some(analyze::analyze_line),
    };

    fn new(options: &Options, seats: u8) -> Result<Self, EngineError> {
        crate::game::check_seat_count::<Self>(seats)?;
        if options.match_length > MAX_MATCH_LENGTH {
            return Err(EngineError::options(format!(
                "match_length is at most {MAX_MATCH_LENGTH}, not {}",
                options.match_length
            )));
        }
        let mut game = Backgammon::start();
        game.options = options.clone();
        game.play = MatchPlay::new(options.match_length);
        Ok(game)
    }

    fn options(&self) -> &Options {
        &self.options
    }

    /// The game whose state JSON is `state` (see `Backgammon::from_state_json`).
    fn from_state(state: &str) -> Result<Self, EngineError> {
        Backgammon::from_state_json(state)
    }

    fn awaiting(&self) -> Awaiting {
        if let (Some(offer), false) = (self.offer, self.phase == Phase::Finished) {
            return Awaiting::Move {
                seat: offer.by.opponent().seat(),
            };
        }
        match self.phase {
            Phase::OpeningRoll => Awaiting::Dice {
                seat: if self.opening.white.is_none() {
                    Seat(0)
                } else {
                    Seat(1)
                },
                die: DIE,
                count: 1,
            },
            Phase::Roll => Awaiting::Dice {
                seat: self.to_move.seat(),
                die: DIE,
                count: 2,
            },
            Phase::Move | Phase::RollOrDouble => Awaiting::Move {
                seat: self.to_move.seat(),
            },
            Phase::Finished => match &self.result {
                Some(result) => Awaiting::Finished {
                    result: result.clone(),
                },
                None => Awaiting::Finished {
                    result: GameResult::draw(),
                },
            },
        }
    }

    fn legal_moves(&self) -> Vec<Move> {
        let decisions = self.decisions();
        if self.phase == Phase::Move && self.offer.is_none() {
            let side = self.to_move;
            let mut moves: Vec<Move> = self
                .movegen
                .leaves()
                .iter()
                .map(|l| l.as_move(side))
                .collect();
            moves.extend(decisions.iter().map(|d| Move::Decision(*d)));
            moves
        } else {
            decisions.iter().map(|d| Move::Decision(*d)).collect()
        }
    }

    fn apply_dice(&mut self, values: &[u8]) -> Result<(), EngineError> {
        if self.offer.is_some() && self.phase != Phase::Finished {
            return Err(EngineError::NotAwaitingDice);
        }
        match self.phase {
            Phase::Finished => Err(EngineError::Finished),
            Phase::Move | Phase::RollOrDouble => Err(EngineError::NotAwaitingDice),
            Phase::OpeningRoll => {
                DIE.check(1, values)?;
                let v = values.first().copied().unwrap_or(0);
                match self.opening.white {
                    None => {
                        self.opening.white = Some(v);
                        self.to_move = Side::Black;
                    }
                    Some(white) => {
                        self.opening.black = Some(v);
                        if white == v {
                            // A tie: both roll again, White first.
                            self.dice = Some([white, v]);
                            self.opening = OpeningRoll::default();
                            self.to_move = Side::White;
                        } else {
                            self.to_move = if white > v { Side::White } else { Side::Black };
                            self.begin_turn([white, v]);
                        }
                    }
                }
                Ok(())
            }
            Phase::Roll => {
                DIE.check(2, values)?;
                self.begin_turn([values[0], values[1]]);
                Ok(())
            }
        }
    }

    fn apply_move(&mut self, mv: &Move) -> Result<(), EngineError> {
        if self.phase == Phase::Finished {
            return Err(EngineError::Finished);
        }
        if let Move::Decision(d) = mv {
            return self.decide(*d);
        }
        if self.phase != Phase::Move || self.offer.is_some() {
            return Err(if self.decisions().is_empty() {
                EngineError::NotAwaitingMove
            } else {
                EngineError::illegal(format!(
                    "the game awaits a decision now ({}), not checker steps",
                    self.decision_names()
                ))
            });
        }
        self.play_steps(mv)
    }

    fn legal_move_count(&self) -> usize {
        let checkers = if self.phase == Phase::Move && self.offer.is_none() {
            self.movegen.leaves().len()
        } else {
            0
        };
        checkers + self.decisions().len()
    }

    fn apply_legal_move(&mut self, index: usize) -> Result<(), EngineError> {
        match self.phase {
            Phase::Finished => return Err(EngineError::Finished),
            Phase::Move if self.offer.is_none() => {}
            _ if !self.decisions().is_empty() => {}
            _ => return Err(EngineError::NotAwaitingMove),
        }
        let side = self.to_move;
        let leaves = if self.phase == Phase::Move && self.offer.is_none() {
            self.movegen.leaves().len()
        } else {
            0
        };
        if let Some(leaf) = self.movegen.leaves().get(index).filter(|_| index < leaves) {
            let mv = leaf.as_move(side);
            self.play_checked(side, &mv);
            return Ok(());
        }
        let decision = index
            .checked_sub(leaves)
            .and_then(|i| self.decisions().get(i).copied())
            .ok_or_else(|| {
                EngineError::illegal(format!("there is no legal move number {index}"))
            })?;
        self.decide(decision)
    }

    fn question(&self) -> Option<&'static str> {
        self.offer.map(|o| o.question())
    }

    fn decision_hint(&self) -> Option<usize> {
        advice::hint(self)
    }

    fn end_reason(&self) -> Option<crate::game::EndReason> {
        Backgammon::end_reason(self)
    }

    /// The points `seat` has won in the match so far, each worth more than a whole race
    /// (a game's pips travelled are at most 15 × 25 = 375), then the pips its checkers
    /// have travelled in the game being played. A move that wins a game of a match starts
    /// the next game from the opening position: by points first, that is progress, and
    /// the greedy bot plays it rather than an offer to resign.
    fn progress(&self, seat: Seat) -> i32 {
        let side = if seat == Seat(0) {
            Side::White
        } else {
            Side::Black
        };
        i32::from(self.play.score.get(side)) * 376 + self.pips_travelled(side)
    }

    fn retire(&mut self, seat: Seat) -> Result<(), EngineError> {
        let side = Side::of_seat(seat).ok_or(EngineError::NoSuchSeat { seat: seat.0 })?;
        if self.retired == Some(side) {
            return Err(EngineError::NoSuchSeat { seat: seat.0 });
        }
        if self.phase == Phase::Finished {
            return Err(EngineError::Finished);
        }
        if self.options.section_2b() {
            // The match is lost at the highest score the opponent could still win.
            let level = self.level_lost_by(side);
            let points = self.game_points(level);
            self.play.concede(GameScore {
                winner: side.opponent(),
                points,
                ending: Ending::OpponentsRetired,
                cube: self.cube.value,
                crawford: self.play.crawford,
            });
            self.offer = None;
            self.retired = Some(side);
            self.ended = Some(Ended {
                state: 3,
                on_roll: side,
                turn: side.opponent(),
                resigned: 0,
                dice: [0, 0],
            });
            self.to_move = side.opponent();
            let mut result = GameResult::last_seat_standing(side.opponent().seat());
            result.points = u8::try_from(points).unwrap_or(u8::MAX);
            self.finish(result);
            return Ok(());
        }
        // Its checkers leave the board (those borne off stay counted as borne off).
        for v in self.position.board.iter_mut() {
            if v.signum() == side.sign() {
                *v = 0;
            }
        }
        *self.position.bar.get_mut(side) = 0;
        self.retired = Some(side);
        self.to_move = side.opponent();
        self.finish(GameResult::last_seat_standing(side.opponent().seat()));
        Ok(())
    }
}
