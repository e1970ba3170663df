//! [`Position::outcomes`]: the generator's ways, sorted as the corpus sorts positions.
//!
//! Sorting positions (28 bytes compared field by field) cost more than generating them.
//! The generator's keys already order as the resulting positions do (see `KeyUnits` in
//! [`super::movegen`]), so the ways are sorted by key, and only then each way's steps
//! (at most four) are replayed on the position's bytes.

use std::cell::RefCell;

use super::movegen::{Leaf, MoveGen, BAR, OFF};
use super::{Position, Side, Tally};

thread_local! {
    /// The generator [`outcomes`] reuses from call to call on this thread.
    static MOVEGEN: RefCell<MoveGen> = RefCell::new(MoveGen::default());
}

/// [`Position::outcomes`], on this thread's generator (a fresh one if it is in use or
/// gone, never in practice).
pub(super) fn outcomes(pos: &Position, side: Side, dice: [u8; 2]) -> Vec<Position> {
    MOVEGEN
        .try_with(|cell| match cell.try_borrow_mut() {
            Ok(mut movegen) => sorted(&mut movegen, pos, side, dice),
            Err(_) => sorted(&mut MoveGen::default(), pos, side, dice),
        })
        .unwrap_or_else(|_| sorted(&mut MoveGen::default(), pos, side, dice))
}

fn sorted(movegen: &mut MoveGen, pos: &Position, side: Side, dice: [u8; 2]) -> Vec<Position> {
    if movegen.generate(pos, side, dice).is_empty() {
        return vec![*pos];
    }
    let leaves = movegen.sort_leaves();
    match side {
        Side::White => replay::<true>(pos, leaves),
        Side::Black => replay::<false>(pos, leaves),
    }
}

/// The bytes of a position (the 24 points, then the bar and the checkers off, White's
/// and Black's) as four little-endian words, each byte plus 128 (`^ 0x80`): a step adds
/// or takes one from a byte without a carry into the next, and works on whole words kept
/// in registers (bytes written to memory and read back as words stall the processor).
type Words = [u64; 4];
const WHITE_BAR: usize = 24;
const BLACK_BAR: usize = 25;
const WHITE_OFF: usize = 26;
const BLACK_OFF: usize = 27;
const BIAS: u64 = 0x8080_8080_8080_8080;

/// What one checker of a side adds to the words, per slot (0 off, 1..=24 points, 25 the
/// bar): whole words, so that the words stay in registers.
type SlotWords = [Words; 26];

static SLOT_WORDS: [SlotWords; 2] = [slot_words(true), slot_words(false)];

/// What one checker more on byte `byte` adds (`up`) or takes (not `up`).
const fn one_at(byte: usize, up: bool) -> Words {
    let mut w = [0u64; 4];
    let unit = 1u64 << (8 * (byte % 8));
    w[byte / 8] = if up { unit } else { unit.wrapping_neg() };
    w
}

const fn slot_words(white: bool) -> SlotWords {
    let mut t = [[0u64; 4]; 26];
    let mut slot = 0;
    while slot <= BAR {
        // White's slot s is point 25 − s (index 24 − s), Black's point s (index s − 1).
        t[slot] = match slot {
            OFF => one_at(if white { WHITE_OFF } else { BLACK_OFF }, true),
            BAR => one_at(if white { WHITE_BAR } else { BLACK_BAR }, true),
            _ if white => one_at(24 - slot, true),
            _ => one_at(slot - 1, false),
        };
        slot += 1;
    }
    t
}

#[inline(always)]
fn add(w: &mut Words, d: &Words) {
    for (w, d) in w.iter_mut().zip(d) {
        *w = w.wrapping_add(*d);
    }
}

#[inline(always)]
fn sub(w: &mut Words, d: &Words) {
    for (w, d) in w.iter_mut().zip(d) {
        *w = w.wrapping_sub(*d);
    }
}

/// The position after each of `leaves`, in their order: their steps replayed on the
/// bytes of `pos` (a checker landing on a single opposing checker sends it to the bar).
fn replay<const WHITE: bool>(pos: &Position, leaves: &[Leaf]) -> Vec<Position> {
    let side = if WHITE { Side::White } else { Side::Black };
    let t = &SLOT_WORDS[side as usize];
    // The opponent's bar, one more.
    let bar = one_at(if WHITE { BLACK_BAR } else { WHITE_BAR }, true);
    let mut bytes = [0u8; 32];
    // The slots of opposing blots: the first landing there hits.
    let mut blots = 0u32;
    for (i, (b, &v)) in bytes.iter_mut().zip(&pos.board).enumerate() {
        *b = v.to_ne_bytes()[0];
        let slot = if WHITE { 24 - i } else { i + 1 };
        blots |= u32::from(v == -side.sign()) << slot;
    }
    bytes[WHITE_BAR] = pos.bar.white;
    bytes[BLACK_BAR] = pos.bar.black;
    bytes[WHITE_OFF] = pos.off.white;
    bytes[BLACK_OFF] = pos.off.black;
    let mut start: Words = [0; 4];
    for (w, chunk) in start.iter_mut().zip(bytes.chunks_exact(8)) {
        let mut le = [0u8; 8];
        le.copy_from_slice(chunk);
        *w = u64::from_le_bytes(le) ^ BIAS;
    }
    leaves
        .iter()
        .map(|leaf| {
            let mut w = start;
            let mut unhit = blots;
            for &(s, to) in leaf.steps() {
                let (s, to) = (usize::from(s).min(BAR), usize::from(to).min(BAR));
                sub(&mut w, &t[s]);
                if unhit >> to & 1 == 1 {
                    // The blot goes to the bar: its byte becomes 0, then this checker's.
                    unhit &= !(1 << to);
                    add(&mut w, &t[to]);
                    add(&mut w, &bar);
                }
                add(&mut w, &t[to]);
            }
            let mut out = [0u8; 32];
            for (chunk, word) in out.chunks_exact_mut(8).zip(w) {
                chunk.copy_from_slice(&(word ^ BIAS).to_le_bytes());
            }
            let mut board = [0i8; 24];
            for (v, &b) in board.iter_mut().zip(&out) {
                *v = i8::from_ne_bytes([b]);
            }
            Position {
                board,
                bar: Tally {
                    white: out[WHITE_BAR],
                    black: out[BLACK_BAR],
                },
                off: Tally {
                    white: out[WHITE_OFF],
                    black: out[BLACK_OFF],
                },
            }
        })
        .collect()
}
