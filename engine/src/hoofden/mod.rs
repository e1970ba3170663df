//! Hoofden, the dice-combat draughts game (RULES.md §4).
//!
//! Two players, Blue (seat 0, ranks 1-3, moves first) and Red (seat 1), each with 14
//! pawns on the dark squares of a 10×10 board. Every pawn wears a head, blue < green <
//! red < yellow. A pawn moving onto an opposing pawn starts a fight decided by the
//! combat dice of the two heads; the winner's head goes up, a tie lowers both.
//!
//! One file per noun: [`square`] (the dark squares, `c3`), [`head`] (heads and their
//! combat dice), [`board`] (pawns on squares), [`moves`] (a move and the legal moves),
//! [`fight`] (the rounds of a fight), [`options`].

pub mod board;
pub mod fight;
mod from_state;
pub mod head;
pub mod moves;
pub mod options;
pub mod square;

#[cfg(test)]
mod tests;

use serde::Serialize;
use utoipa::ToSchema;

pub use board::{Board, Pawn, BLUE, RED};
pub use fight::{Fight, Round};
pub use head::{Head, COMBAT_BLUE, COMBAT_GREEN, COMBAT_RED, COMBAT_YELLOW};
pub use moves::Move;
pub use options::{Movement, Options};
pub use square::Square;

use board::opponent;
use fight::{Outcome, Survivors};

use crate::{Awaiting, EndReason, Ending, EngineError, Game, GameResult, Seat};

/// The game (its state), under the name every game module gives it.
pub type State = Hoofden;

/// Plies in a row without a fight after which the game is drawn.
pub const PLIES_WITHOUT_FIGHT_FOR_DRAW: u16 = 100;

/// A game of Hoofden: the whole state.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Hoofden {
    /// The options the game was created with.
    options: Options,
    /// The pawns: square name (`a1`..`j10`, dark squares) to owner and head; empty
    /// squares are left out.
    #[schema(value_type = std::collections::BTreeMap<String, Pawn>)]
    board: Board,
    /// The seat whose turn it is: 0 (Blue) or 1 (Red). During a fight, the attacker.
    turn: Seat,
    /// The fight in progress, if any: the attacker rolls, then the defender, round after
    /// round.
    fight: Option<Fight>,
    /// The last move played, if any.
    last_move: Option<Move>,
    /// The last finished fight, if any (with every round's rolls).
    last_fight: Option<Fight>,
    /// Plies (single moves) in a row without a fight; at 100 the game is drawn.
    plies_without_fight: u16,
    /// How the game ended, once it has.
    result: Option<GameResult>,
    /// The legal moves of the seat to move (empty unless a move is awaited).
    #[serde(skip)]
    moves: Vec<Move>,
}

impl Hoofden {
    /// The pawns on the board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The fight in progress, if any.
    pub fn fight(&self) -> Option<&Fight> {
        self.fight.as_ref()
    }

    /// Plies in a row without a fight.
    pub fn plies_without_fight(&self) -> u16 {
        self.plies_without_fight
    }

    /// The rank on which `seat`'s pawns get a yellow head: the opponent's back row.
    fn promotion_rank(seat: Seat) -> u8 {
        if seat == BLUE {
            9
        } else {
            0
        }
    }

    /// Puts `pawn` on `to` at the end of its move, with a yellow head on the opponent's
    /// back row.
    fn arrive(&mut self, to: Square, mut pawn: Pawn) {
        if to.rank() == Self::promotion_rank(pawn.owner) {
            pawn.head = Head::Yellow;
        }
        self.board.put(to, pawn);
    }

    /// After `mover`'s move and its fight: the end checks in RULES.md's order, then the
    /// 100-ply draw; otherwise the opponent's turn with its legal moves.
    fn end_turn(&mut self, mover: Seat) {
        let other = opponent(mover);
        let (mine, theirs) = (self.board.count(mover), self.board.count(other));
        self.moves.clear();
        self.result = if mine == 0 && theirs == 0 {
            Some(GameResult::draw())
        } else if theirs == 0 {
            Some(GameResult::won(mover))
        } else if mine == 0 {
            Some(GameResult::won(other))
        } else {
            moves::generate(&self.board, other, &self.options, &mut self.moves);
            if self.moves.is_empty() {
                Some(GameResult::won(mover))
            } else if self.plies_without_fight >= PLIES_WITHOUT_FIGHT_FOR_DRAW {
                Some(GameResult::draw())
            } else {
                None
            }
        };
        if self.result.is_some() {
            self.moves.clear();
        } else {
            self.turn = other;
        }
    }

    /// Why `mv` is not among the legal moves.
    fn why_illegal(&self, mv: &Move) -> EngineError {
        let Move { from, to } = *mv;
        match self.board.get(from) {
            None => EngineError::illegal(format!("there is no pawn on {from}")),
            Some(pawn) if pawn.owner != self.turn => {
                EngineError::illegal(format!("the pawn on {from} is not yours"))
            }
            Some(_)
                if moves::destinations(&self.board, from, self.options.movement) & to.bit()
                    != 0 =>
            {
                EngineError::illegal(format!(
                    "forced_attack: you have an attack, so you must attack; {from} to {to} is not one"
                ))
            }
            Some(pawn) => EngineError::illegal(format!(
                "the pawn on {from} ({} head) cannot move to {to}",
                pawn.head
            )),
        }
    }

    /// Ends the fight in progress with these survivors.
    fn end_fight(&mut self, fight: Fight, survivors: Survivors) {
        let (from, to) = (fight.attacker, fight.defender);
        let attacker = self.board.remove(from);
        match survivors.defender {
            Some(head) => self.board.set_head(to, head),
            None => {
                self.board.remove(to);
            }
        }
        if let (Some(head), Some(pawn)) = (survivors.attacker, attacker) {
            if survivors.defender.is_none() {
                self.arrive(to, Pawn { head, ..pawn });
            }
        }
        let mover = self.turn;
        self.last_fight = Some(fight);
        self.end_turn(mover);
    }
}

impl Game for Hoofden {
    type Options = Options;
    type Move = Move;

    const VARIANT: &'static str = "hoofden";
    const TITLE: &'static str = "Hoofden (dice-combat draughts)";
    const MIN_SEATS: u8 = 2;
    const MAX_SEATS: u8 = 2;

    fn new(options: &Options, seats: u8) -> Result<Self, EngineError> {
        crate::game::check_seat_count::<Self>(seats)?;
        let board = Board::start();
        let mut moves = Vec::with_capacity(64);
        moves::generate(&board, BLUE, options, &mut moves);
        Ok(Hoofden {
            options: *options,
            board,
            turn: BLUE,
            fight: None,
            last_move: None,
            last_fight: None,
            plies_without_fight: 0,
            result: None,
            moves,
        })
    }

    fn options(&self) -> &Options {
        &self.options
    }

    fn from_state(state: &str) -> Result<Self, EngineError> {
        Hoofden::from_state_json(state)
    }

    fn awaiting(&self) -> Awaiting {
        if let Some(result) = &self.result {
            return Awaiting::Finished {
                result: result.clone(),
            };
        }
        match &self.fight {
            Some(fight) if fight.attacker_roll.is_none() => Awaiting::Dice {
                seat: self.turn,
                die: *fight.attacker_head.die(),
                count: 1,
            },
            Some(fight) => Awaiting::Dice {
                seat: opponent(self.turn),
                die: *fight.defender_head.die(),
                count: 1,
            },
            None => Awaiting::Move { seat: self.turn },
        }
    }

    fn legal_moves(&self) -> Vec<Move> {
        if self.result.is_some() || self.fight.is_some() {
            return Vec::new();
        }
        self.moves.clone()
    }

    fn apply_dice(&mut self, values: &[u8]) -> Result<(), EngineError> {
        if self.result.is_some() {
            return Err(EngineError::Finished);
        }
        let Some(fight) = &mut self.fight else {
            return Err(EngineError::NotAwaitingDice);
        };
        let die = match fight.attacker_roll {
            None => fight.attacker_head.die(),
            Some(_) => fight.defender_head.die(),
        };
        die.check(1, values)?;
        let Some(&value) = values.first() else {
            return Err(EngineError::DiceCount {
                expected: 1,
                got: 0,
            });
        };
        let Some(attacker_roll) = fight.attacker_roll else {
            fight.attacker_roll = Some(value);
            return Ok(());
        };
        match fight.settle(attacker_roll, value) {
            Outcome::GoesOn => {
                let (a, ah, d, dh) = (
                    fight.attacker,
                    fight.attacker_head,
                    fight.defender,
                    fight.defender_head,
                );
                self.board.set_head(a, ah);
                self.board.set_head(d, dh);
            }
            Outcome::Over(survivors) => {
                if let Some(fight) = self.fight.take() {
                    self.end_fight(fight, survivors);
                }
            }
        }
        Ok(())
    }

    fn apply_move(&mut self, mv: &Move) -> Result<(), EngineError> {
        if self.result.is_some() {
            return Err(EngineError::Finished);
        }
        if self.fight.is_some() {
            return Err(EngineError::NotAwaitingMove);
        }
        if !self.moves.contains(mv) {
            return Err(self.why_illegal(mv));
        }
        let Some(pawn) = self.board.get(mv.from) else {
            return Err(self.why_illegal(mv));
        };
        self.last_move = Some(*mv);
        match self.board.get(mv.to) {
            Some(defender) => {
                self.plies_without_fight = 0;
                self.moves.clear();
                self.fight = Some(Fight::new(mv.from, pawn.head, mv.to, defender.head));
            }
            None => {
                self.plies_without_fight = self.plies_without_fight.saturating_add(1);
                self.board.remove(mv.from);
                self.arrive(mv.to, pawn);
                self.end_turn(pawn.owner);
            }
        }
        Ok(())
    }

    /// Material: each pawn counts by its head (blue 10 … yellow 40), plus one per row
    /// advanced towards the opponent.
    fn progress(&self, seat: Seat) -> i32 {
        self.board
            .squares_of(seat)
            .filter_map(|sq| self.board.get(sq).map(|p| (sq, p)))
            .map(|(sq, p)| {
                let rank = i32::from(sq.rank());
                let advanced = if seat == Seat(0) { rank } else { 9 - rank };
                (p.head as i32 + 1) * 10 + advanced
            })
            .sum()
    }

    /// Read off the final position: who has pawns left, and whether the game ended on a
    /// move (the end checks of RULES.md, in their order).
    fn end_reason(&self) -> Option<EndReason> {
        let result = self.result.as_ref()?;
        let pawns = |seat| self.board.count(seat);
        Some(match (result.ending, result.winner) {
            (Ending::OpponentsRetired, _) => EndReason::OpponentsRetired,
            (_, None) if pawns(BLUE) == 0 && pawns(RED) == 0 => EndReason::AllPawnsRemoved,
            (_, None) => EndReason::QuietMoves,
            (_, Some(winner)) if pawns(opponent(winner)) == 0 => EndReason::NoPawnsLeft,
            (_, Some(_)) => EndReason::CannotMove,
        })
    }

    fn retire(&mut self, seat: Seat) -> Result<(), EngineError> {
        if seat != BLUE && seat != RED {
            return Err(EngineError::NoSuchSeat { seat: seat.0 });
        }
        if self.result.is_some() {
            return Err(EngineError::Finished);
        }
        self.board.clear(seat);
        self.fight = None;
        self.moves.clear();
        self.result = Some(GameResult::last_seat_standing(opponent(seat)));
        Ok(())
    }
}

#[cfg(test)]
impl Hoofden {
    /// A game at an arbitrary position: `pawns` as (square, owner, head), `turn` to move.
    pub(crate) fn at_position(
        options: Options,
        pawns: &[(&str, Seat, Head)],
        turn: Seat,
    ) -> Hoofden {
        let mut board = Board::empty();
        for (name, owner, head) in pawns {
            let square = Square::parse(name).unwrap_or_else(|e| panic!("{e}"));
            board.put(
                square,
                Pawn {
                    owner: *owner,
                    head: *head,
                },
            );
        }
        let mut moves = Vec::new();
        moves::generate(&board, turn, &options, &mut moves);
        Hoofden {
            options,
            board,
            turn,
            fight: None,
            last_move: None,
            last_fight: None,
            plies_without_fight: 0,
            result: None,
            moves,
        }
    }
}
