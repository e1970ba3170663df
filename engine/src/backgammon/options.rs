//! The creation options of backgammon: one game as the German text describes it, or
//! the doubling cube and match play of RULES.md §2b.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The creation options (RULES.md §2b). Without any, one game without the cube, as the
/// German text describes. Options left out are not stored (a game created without
/// options stores `{}`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
#[schema(as = BackgammonOptions)]
pub struct Options {
    /// The doubling cube is in play. Default: false for a single game, true in a match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cube: Option<bool>,
    /// 0 = one game; N (1..=25) = a match to N points.
    #[serde(skip_serializing_if = "is_zero")]
    #[schema(maximum = 25)]
    pub match_length: u8,
    /// With the cube in a single game: a gammon or backgammon counts as a single while
    /// the cube was never turned. Default true; no effect in a match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jacoby: Option<bool>,
    /// In a match: the first game after a player first reaches N − 1 points is the
    /// Crawford game, in which nobody may double. Default true; no effect in a single
    /// game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crawford: Option<bool>,
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

/// The longest match.
pub const MAX_MATCH_LENGTH: u8 = 25;

impl Options {
    /// Whether the doubling cube is in play.
    pub fn cube_in_play(&self) -> bool {
        self.cube.unwrap_or(self.match_length > 0)
    }

    /// Whether this is a match (to `match_length` points).
    pub fn is_match(&self) -> bool {
        self.match_length > 0
    }

    /// Whether the rules of §2b apply (the cube or a match): decisions and resignation
    /// offers among the moves, the cube, the score and the Match ID in the state.
    pub fn section_2b(&self) -> bool {
        self.cube_in_play() || self.is_match()
    }

    /// Whether the Jacoby rule applies: the cube in a single game, `jacoby` not off.
    pub fn jacoby_rule(&self) -> bool {
        self.cube_in_play() && !self.is_match() && self.jacoby.unwrap_or(true)
    }

    /// Whether the Crawford rule applies: a match, `crawford` not off.
    pub fn crawford_rule(&self) -> bool {
        self.is_match() && self.crawford.unwrap_or(true)
    }
}
