//! The playing squares: the 50 dark squares of the 10×10 board, named like `c3`.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use utoipa::ToSchema;

/// Files (columns `a`..`j`) and ranks (rows `1`..`10`) of the board.
pub const SIDE: u8 = 10;

/// The number of dark squares, the only squares pawns stand on.
pub const SQUARES: usize = 50;

/// A dark square of the board (a1 is dark). Written as its file letter and rank number,
/// `a1` to `j10`, from Blue's side: rank 1 is Blue's back row, rank 10 Red's.
///
/// Internally the index of the square among the dark squares, row by row from a1
/// (a1 = 0, c1 = 1, ..., b2 = 5, ..., j10 = 49): every value is a playing square.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, ToSchema)]
#[schema(value_type = String, example = "c3")]
pub struct Square(u8);

/// One of the four diagonal directions, seen from Blue's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Diagonal {
    /// Towards rank 10 and file a.
    UpLeft = 0,
    /// Towards rank 10 and file j.
    UpRight = 1,
    /// Towards rank 1 and file a.
    DownLeft = 2,
    /// Towards rank 1 and file j.
    DownRight = 3,
}

impl Diagonal {
    /// All four directions.
    pub const ALL: [Diagonal; 4] = [
        Diagonal::UpLeft,
        Diagonal::UpRight,
        Diagonal::DownLeft,
        Diagonal::DownRight,
    ];
    /// The two directions towards rank 10 (Blue's forward, Red's backward).
    pub const UP: [Diagonal; 2] = [Diagonal::UpLeft, Diagonal::UpRight];
    /// The two directions towards rank 1 (Red's forward, Blue's backward).
    pub const DOWN: [Diagonal; 2] = [Diagonal::DownLeft, Diagonal::DownRight];

    const fn offsets(self) -> (i8, i8) {
        match self {
            Diagonal::UpLeft => (-1, 1),
            Diagonal::UpRight => (1, 1),
            Diagonal::DownLeft => (-1, -1),
            Diagonal::DownRight => (1, -1),
        }
    }
}

/// `NEIGHBOURS[square][diagonal]`: the square one step away, or `NONE` off the board.
const NONE: u8 = u8::MAX;
const NEIGHBOURS: [[u8; 4]; SQUARES] = neighbours();

const fn neighbours() -> [[u8; 4]; SQUARES] {
    let mut table = [[NONE; 4]; SQUARES];
    let mut i = 0;
    while i < SQUARES {
        let sq = Square(i as u8);
        let mut d = 0;
        while d < 4 {
            let (df, dr) = Diagonal::ALL[d].offsets();
            let file = sq.file() as i8 + df;
            let rank = sq.rank() as i8 + dr;
            if file >= 0 && rank >= 0 {
                if let Some(to) = Square::at(file as u8, rank as u8) {
                    table[i][d] = to.0;
                }
            }
            d += 1;
        }
        i += 1;
    }
    table
}

impl Square {
    /// The square on `file` (0 = a) and `rank` (0 = rank 1), if it is on the board and dark.
    pub const fn at(file: u8, rank: u8) -> Option<Square> {
        if file < SIDE && rank < SIDE && (file + rank) % 2 == 0 {
            Some(Square(rank * 5 + file / 2))
        } else {
            None
        }
    }

    /// The square with this index among the dark squares (0..50).
    pub const fn from_index(index: usize) -> Option<Square> {
        if index < SQUARES {
            Some(Square(index as u8))
        } else {
            None
        }
    }

    /// Every playing square, from a1 row by row to j10.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..SQUARES as u8).map(Square)
    }

    /// The index among the dark squares, `0..50`.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The file, 0 (a) to 9 (j).
    pub const fn file(self) -> u8 {
        2 * (self.0 % 5) + (self.0 / 5) % 2
    }

    /// The rank, 0 (rank 1, Blue's back row) to 9 (rank 10, Red's back row).
    pub const fn rank(self) -> u8 {
        self.0 / 5
    }

    /// The square one diagonal step away, if it is on the board.
    pub fn step(self, diagonal: Diagonal) -> Option<Square> {
        let to = NEIGHBOURS[self.index()][diagonal as usize];
        (to != NONE).then_some(Square(to))
    }

    /// The square seen from the other side of the board (the board turned by 180°).
    pub const fn rotated(self) -> Square {
        Square(SQUARES as u8 - 1 - self.0)
    }

    /// This square as a bit of a set of squares.
    pub const fn bit(self) -> u64 {
        1 << self.0
    }

    /// Reads a square name such as `c3` (a dark square of the board).
    pub fn parse(name: &str) -> Result<Square, String> {
        let mut chars = name.chars();
        let file = match chars.next() {
            Some(c @ 'a'..='j') => c as u8 - b'a',
            _ => {
                return Err(format!(
                    "{name:?} is not a square: squares are named a1 to j10"
                ))
            }
        };
        let rank = match chars.as_str().parse::<u8>() {
            Ok(r @ 1..=10) if !chars.as_str().starts_with(['0', '+']) => r - 1,
            _ => {
                return Err(format!(
                    "{name:?} is not a square: squares are named a1 to j10"
                ))
            }
        };
        Square::at(file, rank).ok_or_else(|| {
            format!("{name:?} is a light square: pawns stand on the dark squares only")
        })
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", char::from(b'a' + self.file()), self.rank() + 1)
    }
}

impl Serialize for Square {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Square {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        Square::parse(&name).map_err(serde::de::Error::custom)
    }
}
