//! A position as four words, which a search adds each step's change to: the positions
//! of [`super::two_numbers`], [`super::front_first`] and [`super::white_doubles`] are
//! written as they are found, not decoded from keys. The words compare as the positions
//! do ([`after`]), so a search's results are sorted as words.

use super::BAR;
use crate::backgammon::{Position, Tally};

/// A position as four little-endian words: the 24 points' values, each plus 128, in the
/// first three (a step changes a value by at most 2 and values stay within ±15, so words
/// add without a carry from one point into the next); the bar's and the checkers off's
/// counts (White's, then Black's) in the low bytes of the fourth. A value plus 128
/// orders as the value does: with their bytes reversed, words compare as [`Position`]'s
/// derived order compares positions ([`after`]).
pub(super) type Words = [u64; 4];

/// Each point's value plus 128, in every byte of the board's words.
const BIAS: u64 = 0x8080_8080_8080_8080;

/// The bytes of the bar's and the checkers off's counts in [`Words`] (after the 24
/// points').
pub(super) const WHITE_BAR: usize = 24;
pub(super) const BLACK_BAR: usize = 25;
pub(super) const WHITE_OFF: usize = 26;
pub(super) const BLACK_OFF: usize = 27;

/// What a step of `d` from slot `s` changes, `STEPS[side][d][s]` (White's, then
/// Black's), but for a hit: one checker less on `s` (or the bar), one more where it lands
/// (or off, below slot `d`).
pub(super) static STEPS: [[[Words; 26]; 7]; 2] = [steps(true), steps(false)];

/// What hitting a blot on slot `t` changes beyond the step, `HITS[side][t]`: the point's
/// value moves one more towards the mover's sign, and the opponent's bar gains the checker.
pub(super) static HITS: [[Words; 26]; 2] = [hits(true), hits(false)];

/// The board index of `side`'s slot `s` (1..=24): White's slot s is index 24 − s,
/// Black's s − 1.
const fn index(white: bool, s: usize) -> usize {
    if white {
        24 - s
    } else {
        s - 1
    }
}

const fn steps(white: bool) -> [[Words; 26]; 7] {
    let (sign, bar, off) = if white {
        (1, WHITE_BAR, WHITE_OFF)
    } else {
        (-1, BLACK_BAR, BLACK_OFF)
    };
    let mut table = [[[0; 4]; 26]; 7];
    let mut d = 1;
    while d <= 6 {
        let mut s = 1;
        while s <= BAR {
            let from = if s == BAR {
                (bar, -1)
            } else {
                (index(white, s), -sign)
            };
            let to = if s > d {
                (index(white, s - d), sign)
            } else {
                (off, 1)
            };
            table[d][s] = words_of(&[from, to]);
            s += 1;
        }
        d += 1;
    }
    table
}

const fn hits(white: bool) -> [Words; 26] {
    let (sign, opponent_bar) = if white {
        (1, BLACK_BAR)
    } else {
        (-1, WHITE_BAR)
    };
    let mut table = [[0; 4]; 26];
    let mut t = 1;
    while t <= 24 {
        table[t] = words_of(&[(index(white, t), sign), (opponent_bar, 1)]);
        t += 1;
    }
    table
}

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
        let shift = 8 * (byte % 8) as u32;
        at[byte / 8] = at[byte / 8].wrapping_add((by as u64).wrapping_shl(shift));
        i += 1;
    }
    at
}

/// `at` after the change `by` (from [`words_of`]).
#[inline(always)]
pub(super) fn add(at: Words, by: Words) -> Words {
    std::array::from_fn(|i| at[i].wrapping_add(by[i]))
}

/// `at` after a step of `side`'s `steps` (a row of [`STEPS`]) from slot `s`, hitting
/// with `hits` (its row of [`HITS`]) where `blots` has the slot it lands on.
#[inline(always)]
pub(super) fn stepped(
    at: Words,
    (steps, hits): (&[Words; 26], &[Words; 26]),
    s: usize,
    t: usize,
    blots: u32,
) -> Words {
    let blot = u64::from((blots >> t) & 1).wrapping_neg();
    add(add(at, steps[s]), hits[t].map(|w| w & blot))
}

/// Whether `a`'s position sorts after `b`'s, without a branch: two 128-bit comparisons
/// of the words with their bytes reversed, the first point most significant (the derived
/// comparison of arrays goes word by word, a branch on each, which the CPU mispredicts
/// as often as a result's first differing word changes).
#[inline(always)]
pub(super) fn after(a: &Words, b: &Words) -> bool {
    let ([a0, a1], [b0, b1]) = (order(a), order(b));
    (a0 > b0) | ((a0 == b0) & (a1 > b1))
}

/// Two numbers that order as `at`'s position does, the first most significant.
#[inline(always)]
pub(super) fn order(at: &Words) -> [u128; 2] {
    let be = at.map(u64::swap_bytes).map(u128::from);
    [be[0] << 64 | be[1], be[2] << 64 | be[3]]
}

/// Whether `a` and `b` hold the same position, without a branch.
#[inline(always)]
pub(super) fn same(a: &Words, b: &Words) -> bool {
    (a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2]) | (a[3] ^ b[3]) == 0
}

/// Makes room in `out` for `more` results after the first `found`, so that a search
/// writes each where it goes as soon as it is computed: with a call to grow in between
/// (`Vec::push`), the compiler kept the result in memory and read it back in halves the
/// CPU could not forward from the stores just made.
#[inline(always)]
pub(super) fn room<T: Copy>(out: &mut Vec<T>, found: usize, more: usize, filler: T) {
    if found + more > out.len() {
        grow(out, found + more, filler);
    }
}

/// [`room`] when there is not enough: at least doubles the room.
#[inline(never)]
fn grow<T: Copy>(out: &mut Vec<T>, least: usize, filler: T) {
    let size = least.max(2 * out.len()).max(64);
    out.resize(size, filler);
}

/// The position `at` holds.
#[inline(always)]
pub(super) fn position(at: Words) -> Position {
    let mut bytes = [0u8; 24];
    bytes[..8].copy_from_slice(&(at[0] ^ BIAS).to_le_bytes());
    bytes[8..16].copy_from_slice(&(at[1] ^ BIAS).to_le_bytes());
    bytes[16..].copy_from_slice(&(at[2] ^ BIAS).to_le_bytes());
    let [white_bar, black_bar, white_off, black_off, ..] = at[3].to_le_bytes();
    Position {
        board: bytes.map(|b| i8::from_ne_bytes([b])),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backgammon::tests::corpus_and_walk_positions;

    /// Words hold their positions, and compare as they do.
    #[test]
    fn words_order_as_positions_do() {
        let positions = corpus_and_walk_positions(13, 2_000);
        for pair in positions.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            assert_eq!(position(words(&a)), a);
            assert_eq!(after(&words(&a), &words(&b)), a > b, "{a:?} {b:?}");
            assert_eq!(same(&words(&a), &words(&b)), a == b, "{a:?} {b:?}");
            assert!(same(&words(&a), &words(&a)) && !after(&words(&a), &words(&a)));
            // The counts, after the board: one more checker off either side.
            for more in [Tally { white: 1, black: 0 }, Tally { white: 0, black: 1 }] {
                let mut c = a;
                c.off.white += more.white;
                c.off.black += more.black;
                assert!(after(&words(&c), &words(&a)) && !same(&words(&a), &words(&c)));
            }
        }
    }
}
