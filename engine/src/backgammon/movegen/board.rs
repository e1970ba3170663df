//! The board as the side to move sees it, stepped through by the search, and the units
//! by which a step changes the key of its result (see [`super`]).

use super::{BAR, OFF};
use crate::backgammon::{Position, Side};

/// What a checker changes in a key, per slot, for one side.
///
/// Layout, most significant first: one 5-bit digit per board index 0..=23 (point 1
/// first, as [`Position`]'s derived order compares), then the mover's bar (4 bits), then
/// the mover's checkers off (4 bits). A point's digit is `2 × own checkers + hit` (`hit`
/// is 1 once an opposing blot there was hit): for White that orders as the board values
/// do (an unhit blot −1 < hit and left 0 < own 1, 2, …; elsewhere the opponent's value
/// never changes). Black's own checkers are negative, so its digit is 31 minus that. The
/// opponent's bar follows from the hits (so from the board) and its checkers off never
/// change: among the results of one position and roll, keys order as positions do.
pub(super) struct KeyUnits {
    /// The key of an empty board with nothing on the bar or off (for `Board::by_points`).
    #[cfg(test)]
    empty: u128,
    /// What one more own checker on the slot adds (wrapping: subtracts for Black's
    /// points).
    add: [u128; 26],
    /// What hitting a blot on the slot adds.
    pub(super) hit: [u128; 26],
    /// What a step of `d` pips from slot `s` adds, `step[d][s]`, but for a hit: one
    /// checker less on `s`, one more where it lands (off below slot `d`).
    pub(super) step: [[u128; 26]; 7],
    /// Per slot, where its count shows in a key: `(shift, mask, lone)`, the bits
    /// `(key >> shift) & mask` equal `lone` when exactly one own checker stands there.
    lone: [(u32, u32, u32); 26],
}

/// The units of White's keys (index 0) and Black's (index 1).
static KEY_UNITS: [KeyUnits; 2] = [key_units(true), key_units(false)];

const fn key_units(white: bool) -> KeyUnits {
    let mut units = KeyUnits {
        #[cfg(test)]
        empty: 0,
        add: [0; 26],
        hit: [0; 26],
        step: [[0; 26]; 7],
        lone: [(0, 0, 0); 26],
    };
    // The bar's count is a plain 4-bit digit, for either side.
    units.lone[BAR] = (4, 15, 1);
    units.add[OFF] = 1;
    units.add[BAR] = 1 << 4;
    let mut slot = 1;
    while slot <= 24 {
        // White's slot s is board index 24 − s, Black's index s − 1; index i's digit
        // starts at bit 123 − 5i.
        let shift = if white { 5 * slot + 3 } else { 128 - 5 * slot };
        let one = 1u128 << shift;
        // The digit less its hit bit: 2 for one own checker (White), 31 − 3 for Black.
        units.lone[slot] = (shift as u32, 0x1E, if white { 2 } else { 28 });
        if white {
            units.add[slot] = 2 * one;
            units.hit[slot] = one;
        } else {
            #[cfg(test)]
            {
                units.empty |= 31 * one;
            }
            units.add[slot] = (2 * one).wrapping_neg();
            units.hit[slot] = one.wrapping_neg();
        }
        slot += 1;
    }
    let mut d = 1;
    while d <= 6 {
        let mut s = 1;
        while s <= BAR {
            let t = s.saturating_sub(d);
            units.step[d][s] = units.add[t].wrapping_sub(units.add[s]);
            s += 1;
        }
        d += 1;
    }
    units
}

/// The sets and the count of a [`Board`] that a step changes (see [`Board::undo`]).
#[derive(Clone, Copy)]
pub(super) struct Marks {
    /// The blots before the step.
    pub(super) blots: u32,
    occupied: u32,
    outside: u8,
}

/// The board from the side to move's view.
///
/// It keeps no counts: the key has them (see [`KeyUnits`]), and a step only asks whether
/// its checker was the last on its point. Counts kept in bytes were written and read back
/// a byte at a time on every step and its undoing.
pub(super) struct Board {
    /// Bit `t` set when a single opposing checker (a blot) stands on slot `t`.
    pub(super) blots: u32,
    /// Bit `s` set when `own[s] > 0`, for s in 1..=25.
    pub(super) occupied: u32,
    /// Own checkers outside the home board (slots 7..=25).
    pub(super) outside: u8,
    /// How a step changes the key.
    pub(super) units: &'static KeyUnits,
}

impl Board {
    /// The board of `side` in `pos`, the key of `pos`, and the slots the opponent holds
    /// with two or more checkers. Inlined into each search (the generator's and that of
    /// [`Position::outcomes`]): called from two, it was not, which slowed the generator
    /// by 4 %.
    ///
    /// Eight points at a time, one to a byte of a word ([`SlotWords`]): a point at a time,
    /// with a branch per side and a 128-bit multiply per slot for the key, it took a
    /// quarter of the generator's time. `Board::by_points` (tests) is that reference.
    #[inline(always)]
    pub(super) fn new(pos: &Position, side: Side) -> (Board, u128, u32) {
        let w = SlotWords::new(pos, side);
        let bar = pos.bar.get(side);
        let off = pos.off.get(side);
        let (board, blocked) = Board::of_words(&w, bar, side);
        let mut key = u128::from(bar & 15) << 4 | u128::from(off & 15);
        for (c, &mine) in w.own.iter().enumerate() {
            // Digits of at most 15 checkers (as the per-slot units take them).
            let doubled = (mine & (15 * ONES)) << 1;
            key |= match side {
                // Slots 8c+1..=8c+8 from bit 8 + 40c up, the first lowest.
                Side::White => u128::from(pack(doubled)) << (8 + 40 * c),
                // The same slots from bit 88 − 40c up, the first highest.
                Side::Black => {
                    u128::from(pack((31 * ONES - doubled).swap_bytes())) << (88 - 40 * c)
                }
            };
        }
        (board, key, blocked)
    }

    /// [`Board::new`] without the key, for a search that plays one step on the board and
    /// no more ([`Board::play_once`]): the board, the slots the opponent holds with two or
    /// more checkers, and those holding a single checker of the side's own (the bar's
    /// among them).
    #[inline(always)]
    pub(super) fn keyless(pos: &Position, side: Side) -> (Board, u32, u32) {
        let w = SlotWords::new(pos, side);
        let bar = pos.bar.get(side);
        let (board, blocked) = Board::of_words(&w, bar, side);
        let mut singles = u32::from(bar == 1) << BAR;
        for (c, &mine) in w.own.iter().enumerate() {
            singles |= bits(at_least(mine, 1) & !at_least(mine, 2)) << (8 * c + 1);
        }
        (board, blocked, singles)
    }

    /// The board of `w` with `bar` checkers on the bar, and the slots the opponent holds.
    #[inline(always)]
    fn of_words(w: &SlotWords, bar: u8, side: Side) -> (Board, u32) {
        let (mut blocked, mut blots, mut occupied) = (0u32, 0u32, 0u32);
        for c in 0..3 {
            let (opp, mine) = (w.opp[c], w.own[c]);
            blocked |= bits(at_least(opp, 2)) << (8 * c + 1);
            blots |= bits(at_least(opp, 1) & !at_least(opp, 2)) << (8 * c + 1);
            occupied |= bits(at_least(mine, 1)) << (8 * c + 1);
        }
        occupied |= u32::from(bar > 0) << BAR;
        // Slots 7..=24 (the first word's top two bytes on), then the bar.
        let outside = (w.own[0] & !((1 << 48) - 1))
            .wrapping_add(w.own[1])
            .wrapping_add(w.own[2])
            .wrapping_mul(ONES)
            >> 56;
        let outside = (outside as u8).wrapping_add(bar);
        let board = Board {
            blots,
            occupied,
            outside,
            units: &KEY_UNITS[side as usize],
        };
        (board, blocked)
    }

    /// [`Board::new`] a point at a time: the reference its words are tested against.
    #[cfg(test)]
    pub(super) fn by_points(pos: &Position, side: Side) -> (Board, u128, u32) {
        let mut own = [0u8; 26];
        let mut b = Board {
            blots: 0,
            occupied: 0,
            outside: 0,
            units: &KEY_UNITS[side as usize],
        };
        let mut blocked = 0u32;
        let flip = i16::from(side.sign());
        for (i, &v) in pos.board.iter().enumerate() {
            let slot = slot_of_index(side, i);
            let v = i16::from(v) * flip;
            if let Some(o) = own.get_mut(slot) {
                *o = v.max(0) as u8;
            }
            blocked |= u32::from(v <= -2) << slot;
            b.blots |= u32::from(v == -1) << slot;
        }
        own[BAR] = pos.bar.get(side);
        own[OFF] = pos.off.get(side);
        let mut key = b.units.empty;
        for (&n, &unit) in own.iter().zip(&b.units.add) {
            key = key.wrapping_add(unit.wrapping_mul(u128::from(n & 15)));
        }
        for (s, &n) in own.iter().enumerate().skip(1) {
            b.occupied |= u32::from(n > 0) << s;
        }
        b.outside = own[7..].iter().fold(0u8, |a, &n| a.wrapping_add(n));
        (b, key, blocked)
    }

    /// What [`Board::play`] changes besides the counts, for [`Board::undo`].
    #[inline(always)]
    pub(super) fn marks(&self) -> Marks {
        Marks {
            blots: self.blots,
            occupied: self.occupied,
            outside: self.outside,
        }
    }

    /// Takes back a [`Board::play`], `marks` taken before it. The search steps and takes
    /// back on one board rather than copying it per step (when the board kept its counts
    /// in bytes, a copy read them in wide loads just after a step had written them a byte
    /// at a time, which the CPU cannot forward from the stores).
    #[inline(always)]
    pub(super) fn undo(&mut self, marks: Marks) {
        Marks {
            blots: self.blots,
            occupied: self.occupied,
            outside: self.outside,
        } = marks;
    }

    /// Moves a checker from `s` by `d` pips; returns the destination slot.
    #[inline(always)]
    pub(super) fn play(&mut self, s: usize, d: usize, key: &mut u128) -> usize {
        let t = s.saturating_sub(d);
        let (shift, mask, lone) = self.units.lone.get(s).copied().unwrap_or((0, 0, 1));
        let last = (*key >> (shift & 127)) as u32 & mask == lone;
        self.occupied &= !(u32::from(last) << s);
        self.occupied |= (1 << t) & !1;
        *key = self.key_after(s, d, *key).1;
        self.blots &= !(1 << t);
        if s >= 7 && t < 7 {
            self.outside = self.outside.wrapping_sub(1);
        }
        t
    }

    /// [`Board::play`] on a board from [`Board::keyless`], its `singles`: the slots that
    /// held one checker of the side's own before any step (only the first step of a
    /// search can use them). Returns the destination slot.
    #[inline(always)]
    pub(super) fn play_once(&mut self, s: usize, d: usize, singles: u32) -> usize {
        let t = s.saturating_sub(d);
        self.occupied &= !(singles & (1 << s));
        self.occupied |= (1 << t) & !1;
        self.blots &= !(1 << t);
        if s >= 7 && t < 7 {
            self.outside = self.outside.wrapping_sub(1);
        }
        t
    }

    /// The slots from which a checker may move `d` pips, as a bit set; `open` is the set of
    /// slots from which `d` pips land on a point not held by the opponent
    /// ([`open_slots`]).
    #[inline(always)]
    pub(super) fn legal(&self, d: usize, open: u32) -> u32 {
        let mut m = self.sources() & open;
        if self.outside == 0 && self.occupied != 0 {
            // Bearing off: the exact number, or a larger one from the rearmost point.
            m |= self.occupied & (1 << d);
            let rearmost = 31 - self.occupied.leading_zeros() as usize;
            if rearmost < d {
                m |= 1 << rearmost;
            }
        }
        m
    }

    /// The destination and the key after moving a checker from `s` by `d` pips, without
    /// changing the board.
    #[inline(always)]
    pub(super) fn key_after(&self, s: usize, d: usize, key: u128) -> (usize, u128) {
        let t = s.saturating_sub(d);
        let step = self.units.step.get(d).and_then(|row| row.get(s));
        let key = key.wrapping_add(step.copied().unwrap_or(0));
        // The hit's units where a blot stands, none elsewhere: without a branch (hits
        // come as they come).
        let blot = u128::from((self.blots >> t) & 1);
        (t, key.wrapping_add(self.units.hit[t] & blot.wrapping_neg()))
    }

    /// The slots a checker may start from, as a bit set: only the bar while checkers
    /// are on it.
    #[inline(always)]
    fn sources(&self) -> u32 {
        if self.occupied & (1 << BAR) != 0 {
            1 << BAR
        } else {
            self.occupied
        }
    }
}

/// One in every byte.
const ONES: u64 = 0x0101_0101_0101_0101;

/// The 24 points from the side to move's view, eight slots a word, one a byte (slot
/// 8c + 1 in the low byte of word c): its own checkers and the opponent's.
struct SlotWords {
    own: [u64; 3],
    opp: [u64; 3],
}

impl SlotWords {
    #[inline(always)]
    fn new(pos: &Position, side: Side) -> SlotWords {
        let bytes = pos.board.map(|v| v.to_ne_bytes()[0]);
        let word = |at: usize| {
            let mut le = [0u8; 8];
            le.copy_from_slice(&bytes[at..at + 8]);
            u64::from_le_bytes(le)
        };
        // White's slot s is board index 24 − s, Black's index s − 1.
        let words = match side {
            Side::White => [
                word(16).swap_bytes(),
                word(8).swap_bytes(),
                word(0).swap_bytes(),
            ],
            Side::Black => [word(0), word(8), word(16)],
        };
        let mut w = SlotWords {
            own: [0; 3],
            opp: [0; 3],
        };
        for (c, v) in words.into_iter().enumerate() {
            // Each negative byte's magnitude (its complement plus one: no carry), and
            // the positive bytes.
            let negative = ((v >> 7) & ONES).wrapping_mul(0xFF);
            let minus = ((v & negative) ^ negative) + (negative & ONES);
            let plus = v & !negative;
            (w.own[c], w.opp[c]) = match side {
                Side::White => (plus, minus),
                Side::Black => (minus, plus),
            };
        }
        w
    }
}

/// The top bit of each byte of `counts` (each at most 128) set when it is at least `n`
/// (1 or 2): nothing carries into the next byte.
#[inline(always)]
fn at_least(counts: u64, n: u64) -> u64 {
    counts.wrapping_add((128 - n) * ONES) & (ONES << 7)
}

/// The top bits of the eight bytes of `flags` as bits 0..8 (byte k's as bit k).
#[inline(always)]
fn bits(flags: u64) -> u32 {
    ((flags >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
}

/// Eight 5-bit digits, one to a byte (byte k), packed together (digit k at bits
/// 5k..5k+5): the inverse of the spread in `Position::outcomes`' decode.
#[inline(always)]
fn pack(x: u64) -> u64 {
    let x = (x & 0x001F_001F_001F_001F) | ((x >> 3) & 0x03E0_03E0_03E0_03E0);
    let x = (x & 0x0000_03FF_0000_03FF) | ((x >> 6) & 0x000F_FC00_000F_FC00);
    (x & 0xF_FFFF) | ((x >> 12) & 0xFF_FFF0_0000)
}

/// For each number `d` (index 1..=6), the slots `s > d` (up to the bar) from which a
/// step of `d` lands on a point the opponent does not hold (`blocked`). Hits never close
/// a point, so this holds for the whole move.
pub(super) fn open_slots(blocked: u32) -> [u32; 7] {
    let mut open = [0u32; 7];
    for (d, o) in open.iter_mut().enumerate().skip(1) {
        *o = open_slots_of(blocked, d);
    }
    open
}

/// [`open_slots`] of the one number `d` (1..=6).
#[inline(always)]
pub(super) fn open_slots_of(blocked: u32, d: usize) -> u32 {
    let above = ((1u32 << 26) - 1) & !((2u32 << d) - 1);
    above & !(blocked << d)
}

/// The slot (distance from bearing off) of board index `i` for `side`.
#[cfg(test)]
fn slot_of_index(side: Side, i: usize) -> usize {
    match side {
        Side::White => 24usize.saturating_sub(i),
        Side::Black => i + 1,
    }
}

/// The board index of slot `slot` (1..=24) for `side`: the inverse of [`slot_of_index`]
/// (out of range for other slots).
#[cfg(test)]
pub(super) fn index_of_slot(side: Side, slot: usize) -> usize {
    match side {
        Side::White => 24usize.wrapping_sub(slot),
        Side::Black => slot.wrapping_sub(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backgammon::Tally;

    /// The words' board against the reference's, field by field.
    fn same(pos: &Position) {
        for side in Side::BOTH {
            let (w, wk, wb) = Board::new(pos, side);
            let (p, pk, pb) = Board::by_points(pos, side);
            let what = format!("{pos:?} {side:?}");
            assert_eq!(w.blots, p.blots, "{what}");
            assert_eq!(w.occupied, p.occupied, "{what}");
            assert_eq!(w.outside, p.outside, "{what}");
            assert_eq!(wk, pk, "{what}");
            assert_eq!(wb, pb, "{what}");
            // Without the key: the same board, and the slots with a single checker.
            let (k, kb, singles) = Board::keyless(pos, side);
            let board = (k.blots, k.occupied, k.outside, kb);
            assert_eq!(board, (p.blots, p.occupied, p.outside, pb), "{what}");
            let single = |slot: usize| match slot {
                BAR => pos.bar.get(side) == 1,
                _ => pos.board[index_of_slot(side, slot)] == side.sign(),
            };
            let want = (1..=BAR)
                .filter(|&s| single(s))
                .fold(0u32, |m, s| m | 1 << s);
            assert_eq!(singles, want, "{what}");
        }
    }

    #[test]
    fn words_make_the_board_the_points_make() {
        for pos in &crate::backgammon::tests::corpus_positions() {
            same(pos);
        }
        // Random boards of up to 15 checkers a point and side, bars and offs.
        let mut rng = crate::playout::SplitMix64(5);
        for _ in 0..200_000 {
            let mut pos = Position {
                board: [0; 24],
                bar: Tally::default(),
                off: Tally::default(),
            };
            for v in pos.board.iter_mut() {
                *v = match rng.below(4) {
                    0 => 0,
                    1 => rng.below(16) as i8,
                    2 => -(rng.below(16) as i8),
                    _ => [1, -1, 2, -2][rng.below(4)],
                };
            }
            pos.bar = Tally {
                white: rng.below(16) as u8,
                black: rng.below(16) as u8,
            };
            pos.off = Tally {
                white: rng.below(16) as u8,
                black: rng.below(16) as u8,
            };
            same(&pos);
        }
    }

    #[test]
    fn pack_packs_eight_digits() {
        let mut rng = crate::playout::SplitMix64(9);
        for _ in 0..100_000 {
            let bytes = rng.next_u64() & (31 * ONES);
            let want = (0..8).fold(0, |w, k| w | ((bytes >> (8 * k)) & 31) << (5 * k));
            assert_eq!(pack(bytes), want, "{bytes:#x}");
        }
    }
}
