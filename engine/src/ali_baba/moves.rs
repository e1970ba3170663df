//! A move, and the short list of them a roll allows.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::bridge::{Bridge, Position};
use super::figure::Figure;
use super::figures::Figures;

/// One move: `figure` goes from `from` forward to `to` (by exactly the roll).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = AliBabaMove)]
pub struct Move {
    /// The figure that moves.
    pub figure: Figure,
    /// Where it stands now.
    pub from: Position,
    /// Where it lands: `from` plus the roll.
    pub to: Position,
}

/// The legal moves of one roll: at most one per figure, in the order robber, lady,
/// officer. Every move gives a distinct result (a different figure moves).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MoveList {
    moves: [Option<Move>; 3],
}

impl MoveList {
    /// The moves `roll` allows a seat whose figures are `figures`.
    pub fn generate(bridge: Bridge, figures: &Figures, roll: u8) -> MoveList {
        let mut list = MoveList::default();
        for (slot, figure) in list.moves.iter_mut().zip(Figure::ALL) {
            let from = figures.at(figure);
            *slot = bridge
                .advance(from, roll)
                .map(|to| Move { figure, from, to });
        }
        list
    }

    /// The moves, in order.
    pub fn iter(&self) -> impl Iterator<Item = &Move> + '_ {
        self.moves.iter().flatten()
    }

    /// Whether no move is possible.
    pub fn is_empty(&self) -> bool {
        self.moves.iter().all(Option::is_none)
    }

    /// Whether `mv` is one of the moves.
    pub fn contains(&self, mv: &Move) -> bool {
        self.iter().any(|m| m == mv)
    }
}
