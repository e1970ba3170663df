//! The full-move generator: every distinct position a roll can lead to.
//!
//! It works on the board as the side to move sees it: slot `d` (1..=24) is the point `d`
//! pips from bearing off, slot 0 holds the checkers borne off and slot 25 the bar. The
//! search steps on one small fixed-size board and takes each step back (no allocation,
//! no copy), and keys each result
//! by a `u128` ([`board::KeyUnits`]): own checkers and hit blots per point, the bar and the
//! checkers off. They determine the whole resulting position, so equal keys mean equal
//! positions; and the keys of one position's results order as the positions do, so
//! [`Position::outcomes`] sorts keys, not positions.

mod board;
mod front_first;
mod in_order;
mod two_numbers;
mod ways;
mod white_doubles;
mod words;

use super::{Position, Side};
use board::{open_slots, Board};
use ways::{Leaf, Ways};
pub(crate) use ways::{OutcomeWays, MAX_RANKED};

/// Slot of the checkers borne off.
pub(super) const OFF: usize = 0;
/// Slot of the bar.
pub(super) const BAR: usize = 25;

/// The generator, with its reusable buffers: the ways found so far (one per result) and
/// an open-addressing set of their keys, cleared in O(1) by bumping a stamp.
#[derive(Clone)]
pub(crate) struct MoveGen<W = Vec<Leaf>> {
    leaves: W,
    /// `stamp << 32 | index into leaves`; an entry with another stamp is empty.
    table: Vec<u64>,
    stamp: u32,
    /// The rank of the kept ways (see [`MoveGen::push`]).
    best: u8,
    /// The larger number of a non-double roll (0 for doubles).
    larger: u8,
    /// [`open_slots`] of the position being searched.
    open: [u32; 7],
}

impl std::fmt::Debug for MoveGen<Vec<Leaf>> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MoveGen")
            .field("ways", &self.leaves.len())
            .finish_non_exhaustive()
    }
}

impl<W: Ways> Default for MoveGen<W> {
    fn default() -> Self {
        MoveGen {
            leaves: W::default(),
            table: vec![0; 512],
            stamp: 0,
            best: 0,
            larger: 0,
            open: [0; 7],
        }
    }
}

impl MoveGen {
    /// Every distinct result of playing `dice` (each 1..=6) for `side` in `pos`, one
    /// [`Leaf`] per result, in the order the search finds them (larger number first,
    /// rearmost checker first); empty when the roll cannot be used.
    pub fn generate(&mut self, pos: &Position, side: Side, dice: [u8; 2]) -> &[Leaf] {
        self.search(pos, side, dice);
        &self.leaves
    }

    /// The ways found by the last [`MoveGen::generate`].
    pub fn leaves(&self) -> &[Leaf] {
        &self.leaves
    }

    /// Forgets the ways found.
    pub fn clear(&mut self) {
        self.leaves.clear();
    }
}

impl MoveGen<OutcomeWays> {
    /// The ways of [`MoveGen::generate`], kept as [`OutcomeWays`] (ranked for Black's
    /// doubles).
    pub fn outcome_ways(&mut self, pos: &Position, side: Side, dice: [u8; 2]) -> &mut OutcomeWays {
        self.leaves.rank = side == Side::Black && dice[0] == dice[1];
        self.search(pos, side, dice);
        &mut self.leaves
    }
}

impl<W: Ways> MoveGen<W> {
    /// The search of [`MoveGen::generate`], its ways left in `self.leaves`.
    #[inline(always)]
    fn search(&mut self, pos: &Position, side: Side, dice: [u8; 2]) {
        self.reset();
        self.best = 0;
        let [a, b] = dice;
        if !(1..=6).contains(&a) || !(1..=6).contains(&b) {
            return;
        }
        let (mut board, key, blocked) = Board::new(pos, side);
        self.open = open_slots(blocked);
        if a == b {
            self.larger = 0;
            self.doubles::<0>(&mut board, key, usize::from(a), BAR, 0);
        } else {
            let (hi, lo) = if a > b { (a, b) } else { (b, a) };
            self.larger = hi;
            self.two_numbers(&mut board, key, usize::from(hi), usize::from(lo), false);
            self.two_numbers(&mut board, key, usize::from(lo), usize::from(hi), true);
        }
    }

    /// Forgets every way found so far.
    fn reset(&mut self) {
        self.leaves.clear();
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.table.fill(0);
            self.stamp = 1;
        }
    }

    /// Records a way to play the roll, unless a way to the same result is known or the
    /// rules prefer other ways: more numbers played rank higher, and when only one number
    /// of a non-double can be played, the larger ranks higher. `unique` when the search
    /// finds no result twice (doubles: see `OutcomeWays::push`): no key set then.
    #[inline(always)]
    fn push(&mut self, key: u128, steps: [(u8, u8); 4], len: u8, die: u8, unique: bool) {
        let rank = 2 * len + u8::from(len == 1 && die == self.larger);
        if rank < self.best {
            return;
        }
        if rank > self.best {
            self.best = rank;
            self.reset();
        }
        if !W::DEDUP || unique {
            self.leaves.push(key, steps, len);
            return;
        }
        let mask = self.table.len() - 1;
        let mut h = hash(key) & mask;
        let stamp = u64::from(self.stamp) << 32;
        loop {
            let e = self.table[h];
            if e >> 32 != stamp >> 32 {
                break;
            }
            if self.leaves.has_key(e as u32 as usize, key) {
                return;
            }
            h = (h + 1) & mask;
        }
        self.table[h] = stamp | self.leaves.len() as u64;
        self.leaves.push(key, steps, len);
        if self.leaves.len() * 2 > self.table.len() {
            self.grow();
        }
    }

    /// Doubles the key set and re-enters the known keys.
    fn grow(&mut self) {
        let size = self.table.len() * 2;
        self.table = vec![0; size];
        let mask = size - 1;
        let stamp = u64::from(self.stamp) << 32;
        for i in 0..self.leaves.len() {
            let key = self.leaves.key(i).unwrap_or(0);
            let mut h = hash(key) & mask;
            while self.table[h] >> 32 == stamp >> 32 {
                h = (h + 1) & mask;
            }
            self.table[h] = stamp | i as u64;
        }
    }

    /// The ways to play `d1` then `d2`. In the second pass (`d1` the smaller number) a
    /// plain step of `d1` followed by a plain step of `d2` by another checker is skipped:
    /// the first pass already played the same two steps the other way round, which is
    /// legal too (no bar, no bearing off involved; hits only open points).
    ///
    /// Only some ways need the key set. One number played: each source gives its own
    /// result. Two, with nothing on the bar and no checker able to bear off (two or more
    /// outside the home board), in the first pass: unless the second step starts where
    /// the first ended (`s2 == t1`) or ends where it started (`t2 == s1`), the steps take
    /// checkers from two points and put them on two others, and only the same two steps
    /// do that (the second pass does not take them the other way round): a unique result.
    /// The others (and every way of the second pass) take one checker from `s` to
    /// `s − d1 − d2` in effect, which other ways can do too: they go through the key set.
    fn two_numbers(
        &mut self,
        board: &mut Board,
        key: u128,
        d1: usize,
        d2: usize,
        second_pass: bool,
    ) {
        let plain = !second_pass && board.occupied & (1 << BAR) == 0 && board.outside >= 2;
        let open1 = self.open.get(d1).copied().unwrap_or(0);
        let open2 = self.open.get(d2).copied().unwrap_or(0);
        let mut first = board.legal(d1, open1);
        while first != 0 {
            let s1 = 31 - first.leading_zeros() as usize;
            first &= !(1 << s1);
            let marks = board.marks();
            let mut k1 = key;
            let t1 = board.play(s1, d1, &mut k1);
            let mut second = board.legal(d2, open2);
            if second == 0 {
                self.push(
                    k1,
                    [(s1 as u8, t1 as u8), (0, 0), (0, 0), (0, 0)],
                    1,
                    d1 as u8,
                    true,
                );
            }
            if second_pass && s1 != BAR && s1 > d1 {
                // Only the same checker going on, or a checker bearing off.
                second &= (1 << t1) | ((2u32 << d2) - 1);
            }
            while second != 0 {
                let s2 = 31 - second.leading_zeros() as usize;
                second &= !(1 << s2);
                let (t2, k2) = board.key_after(s2, d2, k1);
                let steps = [(s1 as u8, t1 as u8), (s2 as u8, t2 as u8), (0, 0), (0, 0)];
                let unique = plain && s2 != t1 && t2 != s1;
                self.push(k2, steps, 2, d1 as u8, unique);
            }
            board.undo(marks);
        }
    }

    /// Doubles: four steps of `d`, taken from non-increasing slots (every result is
    /// reachable in that order), so that the same steps are not tried in every order.
    /// `steps` holds the `DEPTH` steps so far, step i's slots in bytes 2i (from) and
    /// 2i + 1 (to). One copy per depth, all inlined into the search: four nested loops
    /// rather than a recursive call per checker moved.
    #[inline(always)]
    fn doubles<const DEPTH: usize>(
        &mut self,
        board: &mut Board,
        key: u128,
        d: usize,
        highest: usize,
        steps: u64,
    ) {
        let open = self.open.get(d).copied().unwrap_or(0);
        let mut sources = board.legal(d, open) & ((2u32 << highest) - 1);
        if sources == 0 {
            if DEPTH > 0 {
                self.push(key, unpack(steps), DEPTH as u8, d as u8, true);
            }
            return;
        }
        while sources != 0 {
            let s = 31 - sources.leading_zeros() as usize;
            sources &= !(1 << s);
            let step = |t: usize| steps | ((s | t << 8) as u64) << (16 * DEPTH);
            if DEPTH == 3 {
                let (t, k) = board.key_after(s, d, key);
                self.push(k, unpack(step(t)), 4, d as u8, true);
                continue;
            }
            let marks = board.marks();
            let mut k = key;
            let t = board.play(s, d, &mut k);
            match DEPTH {
                0 => self.doubles::<1>(board, k, d, s, step(t)),
                1 => self.doubles::<2>(board, k, d, s, step(t)),
                _ => self.doubles::<3>(board, k, d, s, step(t)),
            }
            board.undo(marks);
        }
    }
}

/// The steps of [`MoveGen::doubles`]' word, as (from slot, to slot).
#[inline(always)]
fn unpack(steps: u64) -> [(u8, u8); 4] {
    let b = steps.to_le_bytes();
    [(b[0], b[1]), (b[2], b[3]), (b[4], b[5]), (b[6], b[7])]
}

/// Spreads a key over the table.
#[inline(always)]
fn hash(key: u128) -> usize {
    let folded = (key as u64) ^ ((key >> 64) as u64).rotate_left(29);
    (folded.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize
}

/// The results of the generator's ways for `side` with `dice` from `pos`, each applied
/// step by step ([`Leaf::apply`]), sorted: the reference the searches of
/// `Position::outcomes` are tested against.
#[cfg(test)]
fn sorted_results(
    generator: &mut MoveGen,
    pos: &Position,
    side: Side,
    dice: [u8; 2],
) -> Vec<Position> {
    let mut results: Vec<Position> = generator
        .generate(pos, side, dice)
        .iter()
        .map(|l| l.apply(*pos, side))
        .collect();
    results.sort_unstable();
    results
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generator's ways lead to distinct results (most skip the key set: see
    /// [`MoveGen::push`]'s callers), exactly as many as `Position::outcomes` finds: on
    /// every corpus position and a random walk through games, all 36 rolls, either side.
    #[test]
    fn every_way_leads_to_another_result() {
        let positions = crate::backgammon::tests::corpus_and_walk_positions(21, 3_000);
        let mut movegen = MoveGen::default();
        for pos in &positions {
            for side in Side::BOTH {
                for dice in (1..=6).flat_map(|a| (1..=6).map(move |b| [a, b])) {
                    let mut keys: Vec<u128> = movegen
                        .generate(pos, side, dice)
                        .iter()
                        .map(|l| l.key)
                        .collect();
                    keys.sort_unstable();
                    keys.dedup();
                    let ways = movegen.leaves().len();
                    assert_eq!(keys.len(), ways, "{pos:?} {side:?} {dice:?}");
                    let outcomes = pos.outcomes(side, dice).len();
                    assert_eq!(ways.max(1), outcomes, "{pos:?} {side:?} {dice:?}");
                }
            }
        }
    }
}
