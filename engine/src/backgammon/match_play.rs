//! Match play (RULES.md §2b): games one after another until a player has at least N
//! points, the score, the game number and the Crawford game.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::Side;
use crate::Ending;

/// Points per player.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = BackgammonScore)]
pub struct Score {
    /// White's points (seat 0, GNU Backgammon's player 0).
    pub white: u16,
    /// Black's points (seat 1).
    pub black: u16,
}

impl Score {
    /// The points of `side`.
    pub fn get(&self, side: Side) -> u16 {
        match side {
            Side::White => self.white,
            Side::Black => self.black,
        }
    }

    fn add(&mut self, side: Side, points: u16) {
        let p = match side {
            Side::White => &mut self.white,
            Side::Black => &mut self.black,
        };
        *p = p.saturating_add(points);
    }
}

/// One finished game of a match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = BackgammonGameScore)]
pub struct GameScore {
    /// Who won it.
    pub winner: Side,
    /// What it was worth: the cube's value × 1, 2 or 3.
    pub points: u16,
    /// How it ended (a passed double and an accepted single resignation are `won`; a
    /// resignation through the API or a time-out is `opponents_retired`).
    pub ending: Ending,
    /// The cube's value when it ended.
    pub cube: u8,
    /// Whether it was the Crawford game.
    pub crawford: bool,
}

/// Where a match stands. A single game (`length` 0) is a match of one game.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = BackgammonMatch)]
pub struct MatchPlay {
    /// Points to win the match; 0 for a single game.
    pub length: u8,
    /// The score before the game being played.
    pub score: Score,
    /// The number of the game being played (or the last one), from 1.
    pub game: u16,
    /// Whether this game is the Crawford game (nobody may double).
    pub crawford: bool,
    /// Whether the Crawford game has been played.
    pub post_crawford: bool,
    /// Every finished game, in order.
    pub games: Vec<GameScore>,
}

impl MatchPlay {
    /// A match to `length` points (0: one game), before game 1.
    pub fn new(length: u8) -> MatchPlay {
        MatchPlay {
            length,
            game: 1,
            ..MatchPlay::default()
        }
    }

    /// Records a finished game and says whether the match is over. When it is not, the
    /// next game's number and Crawford flag are set: the first game after a player first
    /// reaches N − 1 points is the Crawford game when `crawford_rule` holds.
    pub fn record(&mut self, game: GameScore, crawford_rule: bool) -> bool {
        self.score.add(game.winner, game.points);
        self.games.push(game);
        if self.length == 0 || self.score.get(game.winner) >= u16::from(self.length) {
            return true;
        }
        self.game = self.game.saturating_add(1);
        if self.crawford {
            self.crawford = false;
            self.post_crawford = true;
        } else if crawford_rule && !self.post_crawford {
            let at = u16::from(self.length) - 1;
            self.crawford = Side::BOTH.iter().any(|s| self.score.get(*s) == at);
        }
        false
    }

    /// The match is won by `side` at once (the other resigned or ran out of time),
    /// after recording `game`.
    pub fn concede(&mut self, game: GameScore) {
        self.score.add(game.winner, game.points);
        self.games.push(game);
    }
}
