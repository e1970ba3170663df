//! Reading a game of Hoofden back from its state JSON, for checkpoints kept outside the
//! process, with the checks that refuse a state no game could be in.

use serde::Deserialize;

use super::board::opponent;
use super::{moves, Board, Fight, Hoofden, Move, Options, BLUE, PLIES_WITHOUT_FIGHT_FOR_DRAW, RED};
#[cfg(doc)]
use crate::Game;
use crate::{EngineError, GameResult, Seat};

/// The state as [`Hoofden`]'s `Serialize` writes it: every field but the legal moves,
/// read back by [`Game::from_state`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Stored {
    options: Options,
    board: Board,
    turn: Seat,
    fight: Option<Fight>,
    last_move: Option<Move>,
    last_fight: Option<Fight>,
    plies_without_fight: u16,
    result: Option<GameResult>,
}

/// The most pawns a player has: the 14 of the set-up (no rule adds any).
const PAWNS_PER_PLAYER: u32 = 14;

impl Hoofden {
    /// The game whose state JSON is `state`: read as [`Stored`], then [`Hoofden::rebuilt`].
    pub(super) fn from_state_json(state: &str) -> Result<Self, EngineError> {
        let stored: Stored =
            serde_json::from_str(state).map_err(|e| EngineError::state(e.to_string()))?;
        Hoofden::rebuilt(stored)
    }

    /// The game whose state is `stored`, with the legal moves rebuilt as the inputs build
    /// them: generated for the seat to move when a move is awaited (as in
    /// [`Hoofden::end_turn`]), none during a fight or once the game is over. Refuses a
    /// state no game of Hoofden could be in.
    fn rebuilt(stored: Stored) -> Result<Hoofden, EngineError> {
        let Stored {
            options,
            board,
            turn,
            fight,
            last_move,
            last_fight,
            plies_without_fight,
            result,
        } = stored;
        if turn != BLUE && turn != RED {
            return Err(EngineError::state(format!(
                "seat {turn} is to move: only seats 0 and 1 play"
            )));
        }
        for seat in [BLUE, RED] {
            if board.count(seat) > PAWNS_PER_PLAYER {
                return Err(EngineError::state(format!(
                    "seat {seat} has {} pawns, more than the {PAWNS_PER_PLAYER} of the set-up",
                    board.count(seat)
                )));
            }
        }
        if plies_without_fight > PLIES_WITHOUT_FIGHT_FOR_DRAW {
            return Err(EngineError::state(format!(
                "{plies_without_fight} plies without a fight: the game ends at {PLIES_WITHOUT_FIGHT_FOR_DRAW}"
            )));
        }
        let mut game = Hoofden {
            options,
            board,
            turn,
            fight,
            last_move,
            last_fight,
            plies_without_fight,
            result,
            moves: Vec::new(),
        };
        if let Some(result) = &game.result {
            if let Some(seat) = result.winners.iter().find(|s| **s != BLUE && **s != RED) {
                return Err(EngineError::state(format!(
                    "seat {seat} won: only seats 0 and 1 play"
                )));
            }
            if game.fight.is_some() {
                return Err(EngineError::state("the game is over but a fight goes on"));
            }
            return Ok(game);
        }
        if game.board.count(BLUE) == 0 || game.board.count(RED) == 0 {
            return Err(EngineError::state(
                "the game goes on though a player has no pawns left",
            ));
        }
        if game.plies_without_fight >= PLIES_WITHOUT_FIGHT_FOR_DRAW {
            return Err(EngineError::state(format!(
                "the game goes on after {PLIES_WITHOUT_FIGHT_FOR_DRAW} plies without a fight"
            )));
        }
        match &game.fight {
            Some(fight) => game.check_fight(fight)?,
            None => {
                moves::generate(&game.board, turn, &game.options, &mut game.moves);
                if game.moves.is_empty() {
                    return Err(EngineError::state(format!(
                        "a move of seat {turn} is awaited, but it has no legal move"
                    )));
                }
            }
        }
        Ok(game)
    }

    /// Checks that the fight in progress is between the pawns on its squares: the seat to
    /// move attacks, both wear the heads the fight says, and every finished round was a
    /// tie (any other round ends the fight).
    fn check_fight(&self, fight: &Fight) -> Result<(), EngineError> {
        if self.plies_without_fight != 0 {
            return Err(EngineError::state(
                "a fight goes on, but the plies without a fight were not reset",
            ));
        }
        let sides = [
            (fight.attacker, self.turn, fight.attacker_head, "attacker"),
            (
                fight.defender,
                opponent(self.turn),
                fight.defender_head,
                "defender",
            ),
        ];
        for (square, owner, head, role) in sides {
            match self.board.get(square) {
                Some(pawn) if pawn.owner == owner && pawn.head == head => {}
                found => {
                    return Err(EngineError::state(format!(
                        "the fight's {role} is seat {owner}'s pawn with a {head} head on {square}, \
                         but the board has {found:?} there"
                    )))
                }
            }
        }
        if let Some(roll) = fight.attacker_roll {
            if !fight.attacker_head.die().shows(roll) {
                return Err(EngineError::state(format!(
                    "the attacker's roll {roll} is not a face of its {} die",
                    fight.attacker_head.die().name
                )));
            }
        }
        if fight.rounds.iter().any(|r| r.attacker != r.defender) {
            return Err(EngineError::state(
                "a fight goes on after a round that was not a tie",
            ));
        }
        Ok(())
    }
}
