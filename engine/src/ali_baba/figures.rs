//! One seat's three figures.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::bridge::Position;
use super::figure::Figure;

/// Where one seat's robber, lady and officer stand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = AliBabaFigures)]
pub struct Figures {
    /// The robber's position.
    pub robber: Position,
    /// The lady's position.
    pub lady: Position,
    /// The officer's position.
    pub officer: Position,
}

impl Figures {
    /// All three figures on the near bank.
    pub const START: Figures = Figures {
        robber: Position::NEAR_BANK,
        lady: Position::NEAR_BANK,
        officer: Position::NEAR_BANK,
    };

    /// Where `figure` stands.
    pub const fn at(&self, figure: Figure) -> Position {
        match figure {
            Figure::Robber => self.robber,
            Figure::Lady => self.lady,
            Figure::Officer => self.officer,
        }
    }

    /// Puts `figure` at `to`.
    pub fn put(&mut self, figure: Figure, to: Position) {
        match figure {
            Figure::Robber => self.robber = to,
            Figure::Lady => self.lady = to,
            Figure::Officer => self.officer = to,
        }
    }

    /// Whether all three stand at `at`.
    pub fn all_at(&self, at: Position) -> bool {
        self.robber == at && self.lady == at && self.officer == at
    }
}
