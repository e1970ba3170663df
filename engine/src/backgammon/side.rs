//! The two colours: White (seat 0) and Black (seat 1).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::Seat;

/// A player's colour. White sits at seat 0 and moves from point 1 to point 24; Black sits
/// at seat 1 and moves from point 24 to point 1.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// Seat 0, moves 1 → 24, home board 19..24.
    White,
    /// Seat 1, moves 24 → 1, home board 1..6.
    Black,
}

impl Side {
    /// Both sides, White first.
    pub const BOTH: [Side; 2] = [Side::White, Side::Black];

    /// The colour played by `seat`, if it is one of the two seats.
    pub fn of_seat(seat: Seat) -> Option<Side> {
        match seat.0 {
            0 => Some(Side::White),
            1 => Some(Side::Black),
            _ => None,
        }
    }

    /// The seat playing this colour.
    pub fn seat(self) -> Seat {
        match self {
            Side::White => Seat(0),
            Side::Black => Seat(1),
        }
    }

    /// The other colour.
    pub fn opponent(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }

    /// +1 for White, −1 for Black: the sign of this side's checkers in a board entry.
    pub fn sign(self) -> i8 {
        match self {
            Side::White => 1,
            Side::Black => -1,
        }
    }
}
