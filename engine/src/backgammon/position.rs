//! The position: checkers on the 24 points, on the bar and borne off.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{Destination, Move, Origin, Point, Side};

/// Checkers per colour each player has.
pub const CHECKERS: u8 = 15;

/// A count per colour (checkers on the bar, or borne off).
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    ToSchema,
)]
#[serde(deny_unknown_fields)]
pub struct Tally {
    /// White's count.
    pub white: u8,
    /// Black's count.
    pub black: u8,
}

impl Tally {
    /// The count of `side`.
    pub fn get(&self, side: Side) -> u8 {
        match side {
            Side::White => self.white,
            Side::Black => self.black,
        }
    }

    /// The count of `side`, to change.
    pub fn get_mut(&mut self, side: Side) -> &mut u8 {
        match side {
            Side::White => &mut self.white,
            Side::Black => &mut self.black,
        }
    }
}

/// Where every checker stands. The layout of the oracle corpus: `board[i]` is point i+1,
/// positive for White checkers, negative for Black. Ordered as the corpus sorts outcomes
/// (board, then bar, then off; White before Black).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
pub struct Position {
    /// Point 1..24 (index 0..23): positive = White checkers, negative = Black checkers.
    #[schema(value_type = Vec<i8>, min_items = 24, max_items = 24)]
    pub board: [i8; 24],
    /// Checkers on the bar.
    pub bar: Tally,
    /// Checkers borne off.
    pub off: Tally,
}

impl Position {
    /// The starting position: White 2 on 1, 5 on 12, 3 on 17, 5 on 19; Black 2 on 24,
    /// 5 on 13, 3 on 8, 5 on 6.
    pub const START: Position = Position {
        board: [
            2, 0, 0, 0, 0, -5, 0, -3, 0, 0, 0, 5, -5, 0, 0, 0, 3, 0, 5, 0, 0, 0, 0, -2,
        ],
        bar: Tally { white: 0, black: 0 },
        off: Tally { white: 0, black: 0 },
    };

    /// The checkers of `side` on `point`.
    pub fn checkers_on(&self, point: Point, side: Side) -> u8 {
        let v = self.board[point.index()];
        if v.signum() == side.sign() {
            v.unsigned_abs()
        } else {
            0
        }
    }

    /// All checkers of `side`: on the board, on the bar and borne off.
    pub fn total(&self, side: Side) -> u32 {
        let on_board: u32 = self
            .board
            .iter()
            .filter(|v| v.signum() == side.sign())
            .map(|v| u32::from(v.unsigned_abs()))
            .sum();
        on_board + u32::from(self.bar.get(side)) + u32::from(self.off.get(side))
    }

    /// Checks that each colour has exactly 15 checkers on board, bar and off.
    pub fn check(&self) -> Result<(), String> {
        for side in Side::BOTH {
            let n = self.total(side);
            if n != u32::from(CHECKERS) {
                let name = match side {
                    Side::White => "white",
                    Side::Black => "black",
                };
                return Err(format!(
                    "{name} has {n} checkers on board, bar and off; it must have 15"
                ));
            }
        }
        Ok(())
    }

    /// Plays the steps of `mv` for `side` (a move known to be legal): a checker landing
    /// on a single opposing checker sends it to the bar.
    pub(crate) fn play(&mut self, side: Side, mv: &Move) {
        let sign = side.sign();
        for step in mv.steps() {
            match step.from {
                Origin::Bar => {
                    let n = self.bar.get_mut(side);
                    *n = n.wrapping_sub(1);
                }
                Origin::Point(p) => {
                    let v = &mut self.board[p.index()];
                    *v = v.wrapping_sub(sign);
                }
            }
            match step.to {
                Destination::Off => {
                    let n = self.off.get_mut(side);
                    *n = n.wrapping_add(1);
                }
                Destination::Point(p) => {
                    let v = &mut self.board[p.index()];
                    if *v == -sign {
                        *v = 0;
                        let n = self.bar.get_mut(side.opponent());
                        *n = n.wrapping_add(1);
                    }
                    *v = v.wrapping_add(sign);
                }
            }
        }
    }

    /// Whether every checker of `side` still in play is in its home board.
    pub fn all_home(&self, side: Side) -> bool {
        self.bar.get(side) == 0
            && self.board.iter().enumerate().all(|(i, v)| {
                v.signum() != side.sign()
                    || Point::new(i as u8 + 1).is_some_and(|p| p.is_home(side))
            })
    }

    /// Whether `side` has a checker on the bar or in `home_of`'s home board.
    pub fn in_home_or_bar(&self, side: Side, home_of: Side) -> bool {
        self.bar.get(side) > 0
            || self.board.iter().enumerate().any(|(i, v)| {
                v.signum() == side.sign()
                    && Point::new(i as u8 + 1).is_some_and(|p| p.is_home(home_of))
            })
    }
}
