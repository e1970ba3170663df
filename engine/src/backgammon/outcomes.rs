//! [`Position::outcomes`]: the generator's ways, sorted as the corpus sorts positions.
//!
//! Sorting positions (28 bytes compared field by field) cost more than generating them.
//! The generator's keys already order as the resulting positions do, and they determine
//! them (see `KeyUnits` in [`super::movegen`]): so only the keys (16 bytes each) are
//! sorted, and each position is read straight from its key's digits, a few word
//! operations without a branch, rather than by replaying the way's steps.
//!
//! The search is the generator's own, with [`OutcomeWays`] to keep what it finds: the
//! keys alone, sorted where they were written. It keeps no key set: a result found twice
//! is dropped once sorted, next to its twin (the set cost more than sorting the few
//! extra keys, fewer still as the search takes most pairs of steps in one order only).
//! Black's doubles are ordered by a rank computed from their steps, and two numbers are
//! searched in an order near that of their keys (see [`sort_keys`]).

use std::cell::RefCell;

use super::movegen::{MoveGen, OutcomeWays};
use super::{Position, Side, Tally};

/// What [`outcomes`] reuses from call to call on one thread: the generator and its ways,
/// whose keys are sorted where it left them.
#[derive(Default)]
struct Scratch {
    movegen: MoveGen<OutcomeWays>,
}

thread_local! {
    /// The scratch [`outcomes`] reuses from call to call on this thread.
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// [`Position::outcomes`], on this thread's generator (a fresh one if it is in use or
/// gone, never in practice).
pub(super) fn outcomes(pos: &Position, side: Side, dice: [u8; 2]) -> Vec<Position> {
    SCRATCH
        .try_with(|cell| match cell.try_borrow_mut() {
            Ok(mut scratch) => sorted(&mut scratch, pos, side, dice),
            Err(_) => sorted(&mut Scratch::default(), pos, side, dice),
        })
        .unwrap_or_else(|_| sorted(&mut Scratch::default(), pos, side, dice))
}

/// The outcomes, from the ways found by the search for `side` with `dice` from `pos`.
fn sorted(scratch: &mut Scratch, pos: &Position, side: Side, dice: [u8; 2]) -> Vec<Position> {
    let ways = scratch.movegen.outcome_ways(pos, side, dice);
    if ways.keys.is_empty() {
        return vec![*pos];
    }
    if let Some(ranks) = ways.ranked() {
        // `u32`s sort faster than keys; a way's index rides in the low bits.
        ranks.sort_unstable();
        let keys = &ways.keys;
        let mask = super::movegen::MAX_RANKED as u32 - 1;
        let ordered = ways
            .ranks
            .iter()
            .map(|&r| keys.get((r & mask) as usize).copied().unwrap_or(0));
        return decode_all::<false, _>(pos, ordered);
    }
    let keys = &mut ways.keys;
    sort_keys(keys, side, dice[0] == dice[1]);
    if dice[0] != dice[1] {
        // A double's search finds no result twice (see `OutcomeWays::push`).
        keys.dedup();
    }
    match side {
        Side::White => decode_all::<true, _>(pos, keys.iter().copied()),
        Side::Black => decode_all::<false, _>(pos, keys.iter().copied()),
    }
}

/// Sorts the keys of one search, given in the order the search found them.
///
/// The search takes the rearmost checker first. For White the rear is the key's most
/// significant digit, so a double's ways come in ascending order, and are left so: the
/// search takes the multisets of sources in descending order (`s0 ≥ s1 ≥ …` compared
/// from `s0`), and at the highest source where two differ the one with more checkers
/// leaving has the smaller digit (nothing higher lands there, a checker that leaves a
/// point hits nothing there, and the bar's entries, first in every way, are alike).
/// Two numbers' ways come nearly in order: both orders of the numbers are taken from each first
/// source in turn (`MoveGen::two_numbers_outcomes`), 0.13 inversions a way on the corpus
/// (1.4 with the generator's two passes one after the other). For Black the rear is
/// least significant: its two numbers are searched frontmost checker first, 1.1
/// inversions a way (taken rearmost first they came nearly reversed, 2.6 once
/// reversed). Black's doubles do not (22 inversions a way): they are ranked instead
/// (`OutcomeWays::ranked`), but for a search that bears a checker off, which the
/// standard sort sorts, as it does any search that turns out less ordered than
/// expected (an insertion sort's moves grow with the square of the length).
fn sort_keys(keys: &mut [u128], side: Side, doubles: bool) {
    if doubles {
        match side {
            Side::White => debug_assert!(keys.is_sorted(), "White's doubles come sorted"),
            Side::Black => keys.sort_unstable(),
        }
        return;
    }
    let mut budget = 8 * keys.len();
    for i in 1..keys.len() {
        let key = keys[i];
        let mut j = i;
        while j > 0 && keys[j - 1] > key {
            keys[j] = keys[j - 1];
            j -= 1;
        }
        keys[j] = key;
        budget = budget.saturating_sub(i - j);
        if budget == 0 {
            keys.sort_unstable();
            return;
        }
    }
}

/// Each byte of a word plus 128 (`^ BIAS`): signed point values then add and subtract
/// small counts bytewise in whole words without a carry or borrow into the next byte.
const BIAS: u64 = 0x8080_8080_8080_8080;
/// One in every byte.
const ONES: u64 = 0x0101_0101_0101_0101;
/// The bits of eight points' digits in a key, shifted down.
const EIGHT_DIGITS: u128 = (1 << 40) - 1;

/// The positions of `keys` (keys of the results of `pos` for the side `WHITE` says), in
/// their order.
///
/// A point's digit is `d = 2 × own checkers + hit` for White, `31 − (2 × own + hit)` for
/// Black (see `KeyUnits`). A hit happens only where a single opposing checker stood, and
/// a point with own checkers had no opposing ones, so the point's value is the start's
/// opposing value (0 or less for White, 0 or more for Black) plus `own + hit` for White,
/// minus it for Black. For White `own + hit` is `d / 2` rounded up; for Black it is 16
/// minus that, so both add `d / 2` rounded up, to the opposing value less 16 for Black.
/// The hits go to the opponent's bar: the odd digits for White, the even ones for Black
/// (where no blot stood, Black's digits are odd). The mover's bar and checkers off are
/// the key's last two digits.
fn decode_all<const WHITE: bool, K: ExactSizeIterator<Item = u128>>(
    pos: &Position,
    keys: K,
) -> Vec<Position> {
    // The opposing checkers per point, as three biased little-endian words: the
    // negative bytes for White (the sign bit spread over the byte), the others for Black.
    let bytes = pos.board.map(|v| v.to_ne_bytes()[0]);
    let start = [0, 8, 16].map(|at| {
        let mut le = [0u8; 8];
        le.copy_from_slice(&bytes[at..at + 8]);
        let w = u64::from_le_bytes(le);
        let negative = ((w >> 7) & ONES) * 0xFF;
        if WHITE {
            (w & negative) ^ BIAS
        } else {
            ((w & !negative) ^ BIAS) - 16 * ONES
        }
    });
    let [start0, start1, start2] = start;
    let opponent = if WHITE { Side::Black } else { Side::White };
    let opponent_bar = pos.bar.get(opponent);
    let opponent_off = pos.off.get(opponent);
    // Board indices 8c..8c+8 are the 40 bits from bit 88 − 40c, index 8c highest.
    keys.map(move |key| {
        let (w0, h0) = points((key >> 88) as u64, start0);
        let (w1, h1) = points((key >> 48) as u64, start1);
        let (w2, h2) = points((key >> 8) as u64, start2);
        let mut bytes = [0u8; 24];
        bytes[..8].copy_from_slice(&w0.to_le_bytes());
        bytes[8..16].copy_from_slice(&w1.to_le_bytes());
        bytes[16..].copy_from_slice(&w2.to_le_bytes());
        let board = bytes.map(|b| i8::from_ne_bytes([b]));
        // Each byte of the low bits is at most 3: their sum fits the top byte.
        let odd = ((h0 + h1 + h2).wrapping_mul(ONES) >> 56) as u8;
        let hits = if WHITE { odd } else { 24 - odd };
        let own_bar = (key >> 4) as u8 & 15;
        let own_off = key as u8 & 15;
        let opponent_bar = opponent_bar.wrapping_add(hits);
        let (bar, off) = if WHITE {
            (
                Tally {
                    white: own_bar,
                    black: opponent_bar,
                },
                Tally {
                    white: own_off,
                    black: opponent_off,
                },
            )
        } else {
            (
                Tally {
                    white: opponent_bar,
                    black: own_bar,
                },
                Tally {
                    white: opponent_off,
                    black: own_off,
                },
            )
        };
        Position { board, bar, off }
    })
    .collect()
}

/// Eight points' values from their digits (the low 40 bits of `digits`, the first
/// point's highest) and `start` (see [`decode_all`], one byte a point): the values as
/// one little-endian word, and a word with the low bit of each digit in its byte.
#[inline(always)]
fn points(digits: u64, start: u64) -> (u64, u64) {
    let d = spread(digits & EIGHT_DIGITS as u64).swap_bytes();
    // Half of each digit, rounded up: the odd bit cleared, halved (nothing crosses into
    // the byte below), and added back.
    let odd = d & ONES;
    let half_up = ((d - odd) >> 1) + odd;
    ((start + half_up) ^ BIAS, odd)
}

/// Eight 5-bit digits (digit `k` at bits `5k..5k+5`) spread one to a byte (byte `k`).
#[inline(always)]
fn spread(x: u64) -> u64 {
    // Each step moves the upper half of every field up; one mask a step, so that the
    // constants stay in registers across a loop.
    const TEN: u64 = 0x0000_03FF_0000_03FF;
    const FIVE: u64 = 0x001F_001F_001F_001F;
    let x = (x & 0xF_FFFF) | ((x >> 20) << 32);
    let x = (x & TEN) | (((x >> 10) & TEN) << 16);
    (x & FIVE) | (((x >> 5) & FIVE) << 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sort_keys_sorts_whatever_the_order_it_is_given() {
        // In order, reversed (the insertion sort runs out of moves and hands over), and
        // shuffled, for either side, doubles or not (White's doubles only in order).
        let mut rng = crate::playout::SplitMix64(3);
        for n in [0, 1, 2, 13, 100, 378] {
            let ascending: Vec<u128> = (0..n).map(|i| (i as u128) << 70 | 7).collect();
            let mut shuffled = ascending.clone();
            for i in (1..shuffled.len()).rev() {
                shuffled.swap(i, rng.below(i + 1));
            }
            let descending: Vec<u128> = ascending.iter().rev().copied().collect();
            for given in [&ascending, &descending, &shuffled] {
                for side in Side::BOTH {
                    for doubles in [false, true] {
                        if side == Side::White && doubles && given != &ascending {
                            // White's doubles come sorted (see `sort_keys`).
                            continue;
                        }
                        let mut keys = given.clone();
                        sort_keys(&mut keys, side, doubles);
                        assert_eq!(keys, ascending, "{n} {side:?} {doubles}");
                    }
                }
            }
        }
    }
}
