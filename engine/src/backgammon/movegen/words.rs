//! A position as four words, which a search adds each step's change to: the positions
//! of [`super::two_numbers`], [`super::front_first`] and [`super::white_doubles`] are
//! written as they are found, not decoded from keys. Two layouts: little-endian words,
//! written out as a position as they are, for the searches that find their results in
//! order; big-endian ones, which compare as the positions do ([`after`]), for the one
//! that sorts its results as it finds them.

use super::BAR;
use crate::backgammon::{Position, Tally};

/// A position as four words: the 24 points' values, each plus 128, in the first three (a
/// step changes a value by at most 2 and values stay within ±15, so words add without a
/// carry from one point into the next); the bar's and the checkers off's counts (White's,
/// then Black's) in the fourth. Little-endian (the first point in the low byte, as a
/// position holds it) or big-endian ("ordered": the first point most significant; a
/// value plus 128 orders as the value does, so ordered words compare as [`Position`]'s
/// derived order compares positions).
pub(super) type Words = [u64; 4];

/// Each point's value plus 128, in every byte of the board's words.
const BIAS: u64 = 0x8080_8080_8080_8080;

/// The bytes of the bar's and the checkers off's counts in [`Words`] (after the 24
/// points').
const WHITE_BAR: usize = 24;
const BLACK_BAR: usize = 25;
const WHITE_OFF: usize = 26;
const BLACK_OFF: usize = 27;

/// What a step of `d` from slot `s` changes, `STEPS[side][d][s]` (White's, then
/// Black's), but for a hit: one checker less on `s` (or the bar), one more where it lands
/// (or off, below slot `d`).
pub(super) static STEPS: [[[Words; 26]; 7]; 2] = [steps(true, false), steps(false, false)];

/// What hitting a blot on slot `t` changes beyond the step, `HITS[side][t]`: the point's
/// value moves one more towards the mover's sign, and the opponent's bar gains the checker.
pub(super) static HITS: [[Words; 26]; 2] = [hits(true, false), hits(false, false)];

/// [`STEPS`] in ordered words.
pub(super) static ORDERED_STEPS: [[[Words; 26]; 7]; 2] = [steps(true, true), steps(false, true)];

/// [`HITS`] in ordered words.
pub(super) static ORDERED_HITS: [[Words; 26]; 2] = [hits(true, true), hits(false, true)];

/// The board index of `side`'s slot `s` (1..=24): White's slot s is index 24 − s,
/// Black's s − 1.
const fn index(white: bool, s: usize) -> usize {
    if white {
        24 - s
    } else {
        s - 1
    }
}

const fn steps(white: bool, ordered: bool) -> [[Words; 26]; 7] {
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
            table[d][s] = words_of(&[from, to], ordered);
            s += 1;
        }
        d += 1;
    }
    table
}

const fn hits(white: bool, ordered: bool) -> [Words; 26] {
    let (sign, opponent_bar) = if white {
        (1, BLACK_BAR)
    } else {
        (-1, WHITE_BAR)
    };
    let mut table = [[0; 4]; 26];
    let mut t = 1;
    while t <= 24 {
        table[t] = words_of(&[(index(white, t), sign), (opponent_bar, 1)], ordered);
        t += 1;
    }
    table
}

/// `pos` as little-endian [`Words`].
pub(super) fn words(pos: &Position) -> Words {
    words_in(pos, u64::from_le_bytes)
}

/// `pos` as ordered [`Words`].
pub(super) fn ordered_words(pos: &Position) -> Words {
    words_in(pos, u64::from_be_bytes)
}

/// `pos` as [`Words`], each read from eight bytes by `word`.
#[inline(always)]
fn words_in(pos: &Position, word: fn([u8; 8]) -> u64) -> Words {
    let mut bytes = [0u8; 32];
    for (b, &v) in bytes.iter_mut().zip(&pos.board) {
        *b = v.to_ne_bytes()[0];
    }
    bytes[24..28].copy_from_slice(&[pos.bar.white, pos.bar.black, pos.off.white, pos.off.black]);
    let mut at = [0u64; 4];
    for (w, chunk) in at.iter_mut().zip(bytes.chunks_exact(8)) {
        let mut eight = [0u8; 8];
        eight.copy_from_slice(chunk);
        *w = word(eight);
    }
    [at[0] ^ BIAS, at[1] ^ BIAS, at[2] ^ BIAS, at[3]]
}

/// The change to [`Words`] (`ordered` or not) of adding each `(byte, by)`: `by` to a
/// point's value (bytes 0..24) or to a count.
const fn words_of(changes: &[(usize, i64)], ordered: bool) -> Words {
    let mut at = [0u64; 4];
    let mut i = 0;
    while i < changes.len() {
        let (byte, by) = changes[i];
        let place = if ordered { 7 - byte % 8 } else { byte % 8 };
        let shift = 8 * place as u32;
        at[byte / 8] = at[byte / 8].wrapping_add((by as u64).wrapping_shl(shift));
        i += 1;
    }
    at
}

/// `at` after the change `by` (a row of a table of changes).
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

/// Whether ordered words `a` hold a position that sorts after `b`'s, without a branch:
/// two 128-bit comparisons (the derived comparison of arrays goes word by word, a branch
/// on each, which the CPU mispredicts as often as a result's first differing word
/// changes).
#[inline(always)]
pub(super) fn after(a: &Words, b: &Words) -> bool {
    let ([a0, a1], [b0, b1]) = (order(a), order(b));
    (a0 > b0) | ((a0 == b0) & (a1 > b1))
}

/// Two numbers that order as the position of the ordered words `at` does, the first
/// most significant.
#[inline(always)]
pub(super) fn order(at: &Words) -> [u128; 2] {
    let w = at.map(u128::from);
    [w[0] << 64 | w[1], w[2] << 64 | w[3]]
}

/// Whether `a` and `b` hold the same position, without a branch.
#[inline(always)]
pub(super) fn same(a: &Words, b: &Words) -> bool {
    (a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2]) | (a[3] ^ b[3]) == 0
}

/// The position little-endian words `at` hold.
#[inline(always)]
pub(super) fn position(at: Words) -> Position {
    position_in(at, u64::to_le_bytes)
}

/// The position ordered words `at` hold.
#[inline(always)]
pub(super) fn ordered_position(at: Words) -> Position {
    position_in(at, u64::to_be_bytes)
}

/// The position [`Words`] `at` hold, each word written as eight bytes by `bytes_of`.
#[inline(always)]
fn position_in(at: Words, bytes_of: fn(u64) -> [u8; 8]) -> Position {
    let mut bytes = [0u8; 24];
    bytes[..8].copy_from_slice(&bytes_of(at[0] ^ BIAS));
    bytes[8..16].copy_from_slice(&bytes_of(at[1] ^ BIAS));
    bytes[16..].copy_from_slice(&bytes_of(at[2] ^ BIAS));
    let [white_bar, black_bar, white_off, black_off, ..] = bytes_of(at[3]);
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

    /// Words hold their positions, and ordered ones compare as they do.
    #[test]
    fn words_hold_positions_and_ordered_words_order_as_they_do() {
        let positions = corpus_and_walk_positions(13, 2_000);
        let ordered = ordered_words;
        for pair in positions.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            assert_eq!(position(words(&a)), a);
            assert_eq!(ordered_position(ordered(&a)), a);
            assert_eq!(after(&ordered(&a), &ordered(&b)), a > b, "{a:?} {b:?}");
            assert_eq!(same(&ordered(&a), &ordered(&b)), a == b, "{a:?} {b:?}");
            assert!(same(&ordered(&a), &ordered(&a)) && !after(&ordered(&a), &ordered(&a)));
            // The counts, after the board: one more checker off either side.
            for more in [Tally { white: 1, black: 0 }, Tally { white: 0, black: 1 }] {
                let mut c = a;
                c.off.white += more.white;
                c.off.black += more.black;
                assert!(after(&ordered(&c), &ordered(&a)) && !same(&ordered(&a), &ordered(&c)));
            }
        }
    }

    /// A step's change, in either layout, takes a position's words to those of the
    /// position after the step (the tables against a step played on the board).
    #[test]
    fn steps_and_hits_change_words_as_the_step_changes_the_position() {
        use crate::backgammon::Side;
        let positions = corpus_and_walk_positions(29, 2_000);
        for pos in &positions {
            for side in Side::BOTH {
                let (sign, i) = (side.sign(), side as usize);
                for d in 1..=6 {
                    for s in 1..=24usize {
                        let from = if side == Side::White { 24 - s } else { s - 1 };
                        if pos.board[from] * sign <= 0 || s <= d {
                            continue;
                        }
                        let to = if side == Side::White {
                            24 - (s - d)
                        } else {
                            s - d - 1
                        };
                        let blot = pos.board[to] == -sign;
                        if pos.board[to] * sign < -1 {
                            continue;
                        }
                        let mut after_step = *pos;
                        after_step.board[from] -= sign;
                        if blot {
                            after_step.board[to] = 0;
                            *after_step.bar.get_mut(side.opponent()) += 1;
                        }
                        after_step.board[to] += sign;
                        let blots = u32::from(blot) << (s - d);
                        let le = stepped(words(pos), (&STEPS[i][d], &HITS[i]), s, s - d, blots);
                        assert_eq!(position(le), after_step, "{pos:?} {side:?} {d} {s}");
                        let tables = (&ORDERED_STEPS[i][d], &ORDERED_HITS[i]);
                        let be = stepped(ordered_words(pos), tables, s, s - d, blots);
                        assert_eq!(ordered_position(be), after_step, "{pos:?} {side:?} {d} {s}");
                    }
                }
            }
        }
    }
}
