//! A position as four words, which a search adds each step's change to: the positions
//! of [`super::front_first`] and [`super::white_doubles`] are written as they are found,
//! not decoded from keys.

use crate::backgammon::{Position, Tally};

/// A position as four little-endian words: the 24 points' values, each plus 128, in the
/// first three (a step changes a value by at most 2 and values stay within ±15, so words
/// add without a carry from one point into the next); the bar's and the checkers off's
/// counts (White's, then Black's) in the low bytes of the fourth.
pub(super) type Words = [u64; 4];

/// Each point's value plus 128, in every byte of the board's words.
const BIAS: u64 = 0x8080_8080_8080_8080;

/// The bytes of the bar's and the checkers off's counts in [`Words`] (after the 24
/// points').
pub(super) const WHITE_BAR: usize = 24;
pub(super) const BLACK_BAR: usize = 25;
pub(super) const WHITE_OFF: usize = 26;

/// `pos` as [`Words`].
pub(super) fn words(pos: &Position) -> Words {
    let mut bytes = [0u8; 32];
    for (b, &v) in bytes.iter_mut().zip(&pos.board) {
        *b = v.to_ne_bytes()[0];
    }
    bytes[24..28].copy_from_slice(&[pos.bar.white, pos.bar.black, pos.off.white, pos.off.black]);
    let mut at = [0u64; 4];
    for (w, chunk) in at.iter_mut().zip(bytes.chunks_exact(8)) {
        let mut le = [0u8; 8];
        le.copy_from_slice(chunk);
        *w = u64::from_le_bytes(le);
    }
    [at[0] ^ BIAS, at[1] ^ BIAS, at[2] ^ BIAS, at[3]]
}

/// The change to [`Words`] of adding each `(byte, by)`: `by` to a point's value (bytes
/// 0..24) or to a count.
pub(super) const fn words_of(changes: &[(usize, i64)]) -> Words {
    let mut at = [0u64; 4];
    let mut i = 0;
    while i < changes.len() {
        let (byte, by) = changes[i];
        at[byte / 8] = at[byte / 8].wrapping_add((by as u64).wrapping_shl(8 * (byte % 8) as u32));
        i += 1;
    }
    at
}

/// `at` after the change `by` (from [`words_of`]).
#[inline(always)]
pub(super) fn add(at: Words, by: Words) -> Words {
    std::array::from_fn(|i| at[i].wrapping_add(by[i]))
}

/// The position `at` holds.
#[inline(always)]
pub(super) fn position(at: Words) -> Position {
    let mut board = [0i8; 24];
    for (points, &w) in board.chunks_exact_mut(8).zip(&at[..3]) {
        for (v, b) in points.iter_mut().zip((w ^ BIAS).to_le_bytes()) {
            *v = i8::from_ne_bytes([b]);
        }
    }
    let [white_bar, black_bar, white_off, black_off, ..] = at[3].to_le_bytes();
    Position {
        board,
        bar: Tally {
            white: white_bar,
            black: black_bar,
        },
        off: Tally {
            white: white_off,
            black: black_off,
        },
    }
}
