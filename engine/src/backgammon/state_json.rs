//! The state of a game as the API shows it.

use serde::Serialize;
use utoipa::ToSchema;

use super::{
    position_id, Backgammon, Cube, MatchPlay, Offer, OpeningRoll, Options, Phase, Side, Tally,
};
use crate::GameResult;

/// The state of a game as JSON: the position in the oracle corpus layout, whose turn,
/// the last dice, the phase and the result.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(as = BackgammonState)]
pub struct StateJson {
    /// Point 1..24 (index 0..23): positive = White checkers, negative = Black checkers.
    #[schema(value_type = Vec<i8>, min_items = 24, max_items = 24)]
    pub board: [i8; 24],
    /// Checkers on the bar.
    pub bar: Tally,
    /// Checkers borne off.
    pub off: Tally,
    /// The colour to roll or move (during the opening: the next to roll its one die).
    pub to_move: Side,
    /// What the game waits for.
    pub phase: Phase,
    /// The opening roll so far (each player's one die).
    pub opening_roll: OpeningRoll,
    /// The last dice rolled: two values (for the first move, White's and Black's opening
    /// dice), or empty before any.
    pub dice: Vec<u8>,
    /// The GNU Backgammon Position ID, from the side of the player to move (with the
    /// cube or in a match, once it is over: from the side GNU Backgammon counts on roll,
    /// as in `match_id`).
    pub position_id: String,
    /// The colour that retired (resigned or ran out of time), if any.
    pub retired: Option<Side>,
    /// How the game ended, once it has.
    pub result: Option<GameResult>,
    /// The creation options.
    pub options: Options,
    /// With the cube or in a match: the doubling cube.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cube: Option<Cube>,
    /// With the cube or in a match: the match length, the score, the game number, the
    /// Crawford game and every finished game (a single game is a match of one game).
    #[serde(rename = "match", skip_serializing_if = "Option::is_none")]
    pub match_play: Option<MatchPlay>,
    /// A double or resignation awaiting the opponent's answer (who answers is the
    /// opponent of `offer.by`; the phase is where play goes on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offer: Option<Offer>,
    /// With the cube or in a match: the GNU Backgammon Match ID (seat 0 is its player 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub match_id: Option<String>,
}

impl Backgammon {
    /// The state as shown in JSON.
    pub fn state(&self) -> StateJson {
        let rules_2b = self.options.section_2b();
        // With §2b, a finished match's Position ID is taken from the side GNU
        // Backgammon counts on roll (the loser); otherwise from the side to move.
        let on_roll = if rules_2b {
            self.gnubg_turn().1
        } else {
            self.to_move
        };
        StateJson {
            board: self.position.board,
            bar: self.position.bar,
            off: self.position.off,
            to_move: self.to_move,
            phase: self.phase,
            opening_roll: self.opening,
            dice: self.dice.map(|d| d.to_vec()).unwrap_or_default(),
            position_id: position_id::position_id(&self.position, on_roll),
            retired: self.retired,
            result: self.result.clone(),
            options: self.options.clone(),
            cube: rules_2b.then_some(self.cube),
            match_play: rules_2b.then(|| self.play.clone()),
            offer: self.offer,
            match_id: rules_2b.then(|| self.match_id()),
        }
    }
}
