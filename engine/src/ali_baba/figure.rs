//! The three kinds of figure and who beats whom.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A kind of figure. Every seat has one of each.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
#[schema(as = AliBabaFigure)]
pub enum Figure {
    /// The robber: beats the lady.
    Robber,
    /// The lady: beats the officer.
    Lady,
    /// The officer: beats the robber.
    Officer,
}

impl Figure {
    /// The three kinds, in the order the engine lists moves.
    pub const ALL: [Figure; 3] = [Figure::Robber, Figure::Lady, Figure::Officer];

    /// The one kind this figure beats: officer beats robber, robber beats lady, lady beats
    /// officer.
    pub const fn beats(self) -> Figure {
        match self {
            Figure::Officer => Figure::Robber,
            Figure::Robber => Figure::Lady,
            Figure::Lady => Figure::Officer,
        }
    }

    /// The figure's name in the game's terms.
    pub const fn name(self) -> &'static str {
        match self {
            Figure::Robber => "robber",
            Figure::Lady => "lady",
            Figure::Officer => "officer",
        }
    }
}

impl std::fmt::Display for Figure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
