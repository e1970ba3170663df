//! The board: which pawn (owner and head) stands on each dark square.

use serde::de::{Error as _, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use utoipa::ToSchema;

use super::head::Head;
use super::square::{Square, SQUARES};
use crate::Seat;

/// Blue, the player at the bottom (ranks 1-3), who moves first.
pub const BLUE: Seat = Seat(0);
/// Red, the player at the top (ranks 8-10).
pub const RED: Seat = Seat(1);

/// The other player of the two.
pub fn opponent(seat: Seat) -> Seat {
    if seat == BLUE {
        RED
    } else {
        BLUE
    }
}

/// Index 0 for Blue, 1 for Red: always in range of a per-player array.
pub(crate) fn side(seat: Seat) -> usize {
    usize::from(seat != BLUE)
}

/// A pawn: whose it is and the head it wears.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Pawn {
    /// The owner: 0 (Blue) or 1 (Red).
    pub owner: Seat,
    /// The head the pawn wears.
    pub head: Head,
}

/// Blue's set-up, from its back row: (file, rank, head), files and ranks from 0.
const BLUE_SET_UP: [(u8, u8, Head); 14] = [
    (0, 0, Head::Green),
    (2, 0, Head::Red),
    (4, 0, Head::Yellow),
    (6, 0, Head::Red),
    (8, 0, Head::Green),
    (1, 1, Head::Blue),
    (3, 1, Head::Blue),
    (5, 1, Head::Blue),
    (7, 1, Head::Blue),
    (0, 2, Head::Blue),
    (2, 2, Head::Blue),
    (4, 2, Head::Blue),
    (6, 2, Head::Blue),
    (8, 2, Head::Blue),
];

/// The pawns on the board. Serialized as a map from square name to pawn, occupied
/// squares only, in square order (a1, c1, ..., j10).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Board {
    squares: [Option<Pawn>; SQUARES],
    /// The squares of each player's pawns (Blue, Red) as bit sets.
    occupied: [u64; 2],
}

impl Board {
    /// A board without pawns.
    pub fn empty() -> Board {
        Board {
            squares: [None; SQUARES],
            occupied: [0; 2],
        }
    }

    /// The starting position: 14 pawns each, Red's set-up Blue's turned by 180°.
    pub fn start() -> Board {
        let mut board = Board::empty();
        for (file, rank, head) in BLUE_SET_UP {
            if let Some(square) = Square::at(file, rank) {
                board.put(square, Pawn { owner: BLUE, head });
                board.put(square.rotated(), Pawn { owner: RED, head });
            }
        }
        board
    }

    /// The pawn on `square`, if any.
    pub fn get(&self, square: Square) -> Option<Pawn> {
        self.squares[square.index()]
    }

    /// Puts `pawn` on `square`, replacing whatever stood there.
    pub fn put(&mut self, square: Square, pawn: Pawn) {
        self.remove(square);
        self.squares[square.index()] = Some(pawn);
        self.occupied[side(pawn.owner)] |= square.bit();
    }

    /// Takes the pawn off `square` and returns it.
    pub fn remove(&mut self, square: Square) -> Option<Pawn> {
        let pawn = self.squares[square.index()].take();
        if let Some(p) = pawn {
            self.occupied[side(p.owner)] &= !square.bit();
        }
        pawn
    }

    /// Changes the head of the pawn on `square` (nothing if the square is empty).
    pub fn set_head(&mut self, square: Square, head: Head) {
        if let Some(pawn) = &mut self.squares[square.index()] {
            pawn.head = head;
        }
    }

    /// The squares of `seat`'s pawns as a bit set.
    pub fn occupied_by(&self, seat: Seat) -> u64 {
        self.occupied[side(seat)]
    }

    /// The squares holding any pawn as a bit set.
    pub fn occupied(&self) -> u64 {
        self.occupied[0] | self.occupied[1]
    }

    /// How many pawns `seat` has on the board.
    pub fn count(&self, seat: Seat) -> u32 {
        self.occupied_by(seat).count_ones()
    }

    /// The squares of `seat`'s pawns, in square order.
    pub fn squares_of(&self, seat: Seat) -> impl Iterator<Item = Square> {
        let mut bits = self.occupied_by(seat);
        std::iter::from_fn(move || {
            let index = bits.trailing_zeros() as usize;
            bits &= bits.wrapping_sub(1);
            Square::from_index(index)
        })
    }

    /// Removes every pawn of `seat`.
    pub fn clear(&mut self, seat: Seat) {
        for square in self.squares_of(seat) {
            self.squares[square.index()] = None;
        }
        self.occupied[side(seat)] = 0;
    }
}

impl Serialize for Board {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.occupied().count_ones() as usize))?;
        for square in Square::all() {
            if let Some(pawn) = self.get(square) {
                map.serialize_entry(&square, &pawn)?;
            }
        }
        map.end()
    }
}

/// Reads what [`Board`]'s `Serialize` writes: a map from square name to pawn. Refuses a
/// square named twice and a pawn of a seat other than Blue and Red.
impl<'de> Deserialize<'de> for Board {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct BoardVisitor;

        impl<'de> Visitor<'de> for BoardVisitor {
            type Value = Board;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a map from square name (a1 to j10) to pawn")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Board, A::Error> {
                let mut board = Board::empty();
                while let Some((square, pawn)) = map.next_entry::<Square, Pawn>()? {
                    if pawn.owner != BLUE && pawn.owner != RED {
                        return Err(A::Error::custom(format!(
                            "the pawn on {square} belongs to seat {}: only seats 0 and 1 play",
                            pawn.owner
                        )));
                    }
                    if board.get(square).is_some() {
                        return Err(A::Error::custom(format!("square {square} is named twice")));
                    }
                    board.put(square, pawn);
                }
                Ok(board)
            }
        }

        deserializer.deserialize_map(BoardVisitor)
    }
}
