//! The full-move generator: every distinct position a roll can lead to.
//!
//! It works on the board as the side to move sees it: slot `d` (1..=24) is the point `d`
//! pips from bearing off, slot 0 holds the checkers borne off and slot 25 the bar. The
//! search copies a small fixed-size board per step (no allocation) and keys each result
//! by a `u128` ([`KeyUnits`]): own checkers and hit blots per point, the bar and the
//! checkers off. They determine the whole resulting position, so equal keys mean equal
//! positions; and the keys of one position's results order as the positions do, so
//! [`Position::outcomes`] sorts keys, not positions.

use super::moves::{FILLER, STEP_TABLE};
use super::{Move, Position, Side, Steps};

/// Slot of the checkers borne off.
pub(super) const OFF: usize = 0;
/// Slot of the bar.
pub(super) const BAR: usize = 25;

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
pub(crate) struct KeyUnits {
    /// The key of an empty board with nothing on the bar or off.
    empty: u128,
    /// What one more own checker on the slot adds (wrapping: subtracts for Black's
    /// points).
    add: [u128; 26],
    /// What hitting a blot on the slot adds.
    hit: [u128; 26],
}

/// The units of White's keys (index 0) and Black's (index 1).
static KEY_UNITS: [KeyUnits; 2] = [key_units(true), key_units(false)];

const fn key_units(white: bool) -> KeyUnits {
    let mut units = KeyUnits {
        empty: 0,
        add: [0; 26],
        hit: [0; 26],
    };
    units.add[OFF] = 1;
    units.add[BAR] = 1 << 4;
    let mut slot = 1;
    while slot <= 24 {
        // White's slot s is board index 24 − s, Black's index s − 1; index i's digit
        // starts at bit 123 − 5i.
        let shift = if white { 5 * slot + 3 } else { 128 - 5 * slot };
        let one = 1u128 << shift;
        if white {
            units.add[slot] = 2 * one;
            units.hit[slot] = one;
        } else {
            units.empty |= 31 * one;
            units.add[slot] = (2 * one).wrapping_neg();
            units.hit[slot] = one.wrapping_neg();
        }
        slot += 1;
    }
    units
}

/// The board from the side to move's view.
#[derive(Clone, Copy)]
struct Board {
    /// Own checkers per slot (0 off, 1..=24 points, 25 bar).
    own: [u8; 26],
    /// Bit `t` set when a single opposing checker (a blot) stands on slot `t`.
    blots: u32,
    /// Bit `s` set when `own[s] > 0`, for s in 1..=25.
    occupied: u32,
    /// Own checkers outside the home board (slots 7..=25).
    outside: u8,
    /// How a step changes the key.
    units: &'static KeyUnits,
}

impl Board {
    /// The board of `side` in `pos`, the key of `pos`, and the slots the opponent holds
    /// with two or more checkers. Inlined into each search (the generator's and that of
    /// [`Position::outcomes`]): called from two, it was not, which slowed the generator
    /// by 4 %.
    #[inline(always)]
    fn new(pos: &Position, side: Side) -> (Board, u128, u32) {
        let mut b = Board {
            own: [0; 26],
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
            if let Some(o) = b.own.get_mut(slot) {
                *o = v.max(0) as u8;
            }
            blocked |= u32::from(v <= -2) << slot;
            b.blots |= u32::from(v == -1) << slot;
        }
        b.own[BAR] = pos.bar.get(side);
        b.own[OFF] = pos.off.get(side);
        let mut key = b.units.empty;
        for (&n, &unit) in b.own.iter().zip(&b.units.add) {
            key = key.wrapping_add(unit.wrapping_mul(u128::from(n & 15)));
        }
        for (s, &n) in b.own.iter().enumerate().skip(1) {
            b.occupied |= u32::from(n > 0) << s;
        }
        b.outside = b.own[7..].iter().fold(0u8, |a, &n| a.wrapping_add(n));
        (b, key, blocked)
    }

    /// Moves a checker from `s` by `d` pips; returns the destination slot.
    #[inline(always)]
    fn play(&mut self, s: usize, d: usize, key: &mut u128) -> usize {
        let t = s.saturating_sub(d);
        self.own[s] = self.own[s].wrapping_sub(1);
        if self.own[s] == 0 {
            self.occupied &= !(1 << s);
        }
        self.own[t] = self.own[t].wrapping_add(1);
        *key = key
            .wrapping_sub(self.units.add[s])
            .wrapping_add(self.units.add[t]);
        self.occupied |= (1 << t) & !1;
        if self.blots & (1 << t) != 0 {
            self.blots &= !(1 << t);
            *key = key.wrapping_add(self.units.hit[t]);
        }
        if s >= 7 && t < 7 {
            self.outside = self.outside.wrapping_sub(1);
        }
        t
    }

    /// The slots from which a checker may move `d` pips, as a bit set; `open` is the set of
    /// slots from which `d` pips land on a point not held by the opponent
    /// ([`open_slots`]).
    #[inline(always)]
    fn legal(&self, d: usize, open: u32) -> u32 {
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
    fn key_after(&self, s: usize, d: usize, key: u128) -> (usize, u128) {
        let t = s.saturating_sub(d);
        let mut key = key
            .wrapping_sub(self.units.add[s])
            .wrapping_add(self.units.add[t]);
        if self.blots & (1 << t) != 0 {
            key = key.wrapping_add(self.units.hit[t]);
        }
        (t, key)
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

/// For each number `d` (index 1..=6), the slots `s > d` (up to the bar) from which a
/// step of `d` lands on a point the opponent does not hold (`blocked`). Hits never close
/// a point, so this holds for the whole move.
fn open_slots(blocked: u32) -> [u32; 7] {
    let mut open = [0u32; 7];
    for (d, o) in open.iter_mut().enumerate().skip(1) {
        let above = ((1u32 << 26) - 1) & !((2u32 << d) - 1);
        *o = above & !(blocked << d);
    }
    open
}

/// The slot (distance from bearing off) of board index `i` for `side`.
fn slot_of_index(side: Side, i: usize) -> usize {
    match side {
        Side::White => 24usize.saturating_sub(i),
        Side::Black => i + 1,
    }
}

/// The board index of slot `slot` (1..=24) for `side`: the inverse of [`slot_of_index`]
/// (out of range for other slots).
#[cfg(test)]
fn index_of_slot(side: Side, slot: usize) -> usize {
    match side {
        Side::White => 24usize.wrapping_sub(slot),
        Side::Black => slot.wrapping_sub(1),
    }
}

/// One way to play the roll, with the key of its result.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Leaf {
    /// The key of the resulting position (see the module doc).
    pub key: u128,
    /// The steps as (from slot, to slot).
    steps: [(u8, u8); 4],
    /// How many steps.
    len: u8,
}

impl Leaf {
    /// Whether these are exactly the steps (from slot, to slot) of this way.
    pub fn has_steps(&self, steps: &[(u8, u8)]) -> bool {
        self.steps.get(..usize::from(self.len)) == Some(steps)
    }

    /// How many numbers of the roll it uses.
    pub fn dice_used(&self) -> usize {
        usize::from(self.len)
    }

    /// The position after these steps of `side` from `pos`: a checker landing on a single
    /// opposing checker sends it to the bar: the position the key describes. (The tests'
    /// reference: `Position::outcomes` reads the positions from the keys instead.)
    #[cfg(test)]
    pub fn apply(&self, mut pos: Position, side: Side) -> Position {
        let sign = side.sign();
        for &(s, t) in self.steps.iter().take(usize::from(self.len)) {
            let (s, t) = (usize::from(s), usize::from(t));
            if s == BAR {
                let n = pos.bar.get_mut(side);
                *n = n.wrapping_sub(1);
            } else if let Some(v) = pos.board.get_mut(index_of_slot(side, s)) {
                *v = v.wrapping_sub(sign);
            }
            if t == OFF {
                let n = pos.off.get_mut(side);
                *n = n.wrapping_add(1);
            } else if let Some(v) = pos.board.get_mut(index_of_slot(side, t)) {
                if *v == -sign {
                    *v = 0;
                    let n = pos.bar.get_mut(side.opponent());
                    *n = n.wrapping_add(1);
                }
                *v = v.wrapping_add(sign);
            }
        }
        pos
    }

    /// The steps as a [`Move`] of `side`.
    pub fn as_move(&self, side: Side) -> Move {
        let table = &STEP_TABLE[side as usize];
        let mut items = [FILLER; 4];
        for (item, &(s, t)) in items
            .iter_mut()
            .zip(&self.steps)
            .take(usize::from(self.len))
        {
            *item = table[usize::from(s).min(25)][usize::from(t).min(25)];
        }
        Move::Checkers(Steps::from_array(items, self.len))
    }
}

/// Where the generator keeps the ways it finds, one per result: [`Leaf`]s with their
/// steps for the game, or only what [`Position::outcomes`] needs ([`OutcomeWays`]).
pub(crate) trait Ways: Default {
    /// Whether the generator drops a way to a result already found (through its key
    /// set). Without, the same result can be recorded more than once.
    const DEDUP: bool = true;
    /// Forgets every way.
    fn clear(&mut self);
    /// How many ways.
    fn len(&self) -> usize;
    /// The key of way `i`.
    fn key(&self, i: usize) -> Option<u128>;
    /// Whether way `i` has this key.
    #[inline(always)]
    fn has_key(&self, i: usize, key: u128) -> bool {
        self.key(i) == Some(key)
    }
    /// Records a way: its result's key and its `len` steps (from slot, to slot).
    fn push(&mut self, key: u128, steps: [(u8, u8); 4], len: u8);
    /// Whether two numbers' sources are to be tried frontmost first (rearmost first
    /// otherwise).
    #[inline(always)]
    fn frontmost_first(&self) -> bool {
        false
    }
}

impl Ways for Vec<Leaf> {
    #[inline(always)]
    fn clear(&mut self) {
        Vec::clear(self);
    }
    #[inline(always)]
    fn len(&self) -> usize {
        Vec::len(self)
    }
    #[inline(always)]
    fn key(&self, i: usize) -> Option<u128> {
        self.get(i).map(|l| l.key)
    }
    #[inline(always)]
    fn has_key(&self, i: usize, key: u128) -> bool {
        self.get(i).is_some_and(|l| l.key == key)
    }
    #[inline(always)]
    fn push(&mut self, key: u128, steps: [(u8, u8); 4], len: u8) {
        Vec::push(self, Leaf { key, steps, len });
    }
}

/// The ways as [`Position::outcomes`] needs them: the keys alone, and for Black's doubles
/// an order of them computed from the steps (see [`OutcomeWays::ranked`]).
#[derive(Default)]
pub(crate) struct OutcomeWays {
    /// The keys, in the order found.
    pub keys: Vec<u128>,
    /// When [`OutcomeWays::rank`]: per way, its sources as a number ordered as its
    /// result's key is, times 4,096, plus the way's index.
    pub ranks: Vec<u32>,
    /// Whether to rank the ways (set before a search of Black's doubles).
    pub rank: bool,
    /// Whether some ranked way bore a checker off (its rank then does not order it).
    pub bore_off: bool,
    /// Whether to try two numbers' sources frontmost first (set before a search of
    /// Black's two numbers: see `sort_keys` in [`super::outcomes`]).
    pub frontmost_first: bool,
}

/// Ways ranked per [`OutcomeWays::ranks`] at most (indices take 12 bits).
pub(crate) const MAX_RANKED: usize = 1 << 12;

impl OutcomeWays {
    /// The ranks, if every way was ranked and they order the keys: for Black's doubles
    /// without bearing off (see [`OutcomeWays::push`]).
    pub fn ranked(&mut self) -> Option<&mut [u32]> {
        (self.rank && !self.bore_off && self.keys.len() <= MAX_RANKED)
            .then_some(&mut self.ranks[..])
    }
}

impl Ways for OutcomeWays {
    /// `Position::outcomes` sorts the keys, and drops equal ones next to each other.
    const DEDUP: bool = false;
    #[inline(always)]
    fn clear(&mut self) {
        self.keys.clear();
        self.ranks.clear();
        self.bore_off = false;
    }
    #[inline(always)]
    fn len(&self) -> usize {
        self.keys.len()
    }
    #[inline(always)]
    fn key(&self, i: usize) -> Option<u128> {
        self.keys.get(i).copied()
    }
    /// For Black's doubles, the rank: a way's sources `s0 ≥ s1 ≥ …` (the order the search
    /// takes them) as 5-bit digits, the last (smallest) most significant. Each source `s`
    /// lands on slot `s − d` (Black's board index `s − d − 1`): a checker more on the
    /// lowest slot where two results differ makes the smaller key (Black's digit is 31
    /// less twice its checkers, less the hit). A way's results are then fixed by its
    /// sources, and the first (smallest) source where two ways' sorted sources differ is
    /// the one whose landing slot is the lowest slot where their results differ, with one
    /// more checker for the way that has that source: so ranks order as keys do. Not
    /// when a checker bears off (it lands on no slot): such searches are sorted by key.
    ///
    /// A double's search finds no result twice, ranked or not: it takes each multiset of
    /// sources once (in non-increasing order), and different multisets make different
    /// results (a checker from each source `s` to `s − d`: the highest source where two
    /// differ loses one checker more in one of them, which nothing else in either
    /// brings back).
    #[inline(always)]
    fn push(&mut self, key: u128, steps: [(u8, u8); 4], len: u8) {
        if self.rank {
            let mut rank = 0u32;
            for (i, &(s, t)) in steps.iter().enumerate().take(usize::from(len)) {
                rank |= u32::from(s) << (5 * i);
                self.bore_off |= t == OFF as u8;
            }
            self.ranks
                .push(rank << 12 | (self.keys.len() as u32 & (MAX_RANKED as u32 - 1)));
        }
        self.keys.push(key);
    }
    #[inline(always)]
    fn frontmost_first(&self) -> bool {
        self.frontmost_first
    }
}

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
        self.leaves.frontmost_first = side == Side::Black && dice[0] != dice[1];
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
        let (board, key, blocked) = Board::new(pos, side);
        self.open = open_slots(blocked);
        if a == b {
            self.larger = 0;
            let mut steps = [(0u8, 0u8); 4];
            self.doubles(&board, key, usize::from(a), 0, BAR, &mut steps);
        } else {
            let (hi, lo) = if a > b { (a, b) } else { (b, a) };
            self.larger = hi;
            if W::DEDUP {
                self.two_numbers(&board, key, usize::from(hi), usize::from(lo), false);
                self.two_numbers(&board, key, usize::from(lo), usize::from(hi), true);
            } else {
                self.two_numbers_outcomes(&board, key, usize::from(hi), usize::from(lo));
            }
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
    /// of a non-double can be played, the larger ranks higher.
    fn push(&mut self, key: u128, steps: [(u8, u8); 4], len: u8, die: u8) {
        let rank = 2 * len + u8::from(len == 1 && die == self.larger);
        if rank < self.best {
            return;
        }
        if rank > self.best {
            self.best = rank;
            self.reset();
        }
        if !W::DEDUP {
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
    fn two_numbers(&mut self, board: &Board, key: u128, d1: usize, d2: usize, second_pass: bool) {
        let open1 = self.open.get(d1).copied().unwrap_or(0);
        let open2 = self.open.get(d2).copied().unwrap_or(0);
        let mut first = board.legal(d1, open1);
        while first != 0 {
            let s1 = 31 - first.leading_zeros() as usize;
            first &= !(1 << s1);
            let mut b1 = *board;
            let mut k1 = key;
            let t1 = b1.play(s1, d1, &mut k1);
            let mut second = b1.legal(d2, open2);
            if second == 0 {
                self.push(
                    k1,
                    [(s1 as u8, t1 as u8), (0, 0), (0, 0), (0, 0)],
                    1,
                    d1 as u8,
                );
                continue;
            }
            if second_pass && s1 != BAR && s1 > d1 {
                // Only the same checker going on, or a checker bearing off.
                second &= (1 << t1) | ((2u32 << d2) - 1);
            }
            while second != 0 {
                let s2 = 31 - second.leading_zeros() as usize;
                second &= !(1 << s2);
                let (t2, k2) = b1.key_after(s2, d2, k1);
                let steps = [(s1 as u8, t1 as u8), (s2 as u8, t2 as u8), (0, 0), (0, 0)];
                self.push(k2, steps, 2, d1 as u8);
            }
        }
    }

    /// Two numbers for [`Position::outcomes`] (no key set): both orders of the numbers
    /// taken from each first source in turn, so that the ways come nearly in the order
    /// of their keys. The search order (`front`) is rearmost first for White, whose
    /// rearmost point is the key's most significant digit, frontmost first for Black.
    ///
    /// Two plain steps (from a point, to a point) by different checkers give the same
    /// result in either order, and both orders are legal (no bar, no bearing off; hits
    /// only open points): each such pair is taken once, from the source the search takes
    /// first. So are two checkers from one point, larger number first, as in
    /// [`MoveGen::two_numbers`]. The same checker going on both ways to the same point,
    /// hitting nothing on the way, is taken once, larger number first. Anything else is
    /// taken in either order, and any result found twice is dropped once sorted.
    fn two_numbers_outcomes(&mut self, board: &Board, key: u128, hi: usize, lo: usize) {
        let open_hi = self.open.get(hi).copied().unwrap_or(0);
        let open_lo = self.open.get(lo).copied().unwrap_or(0);
        let first_hi = board.legal(hi, open_hi);
        let first_lo = board.legal(lo, open_lo);
        let front = self.leaves.frontmost_first();
        let mut first = first_hi | first_lo;
        while first != 0 {
            let s1 = if front {
                first.trailing_zeros() as usize
            } else {
                31 - first.leading_zeros() as usize
            };
            first &= !(1 << s1);
            if first_hi & (1 << s1) != 0 {
                self.first_step(board, key, s1, hi, lo, false, open_lo, front);
            }
            if first_lo & (1 << s1) != 0 {
                self.first_step(board, key, s1, lo, hi, true, open_hi, front);
            }
        }
    }

    /// The ways of [`MoveGen::two_numbers_outcomes`] that play `d1` from `s1` first
    /// (`smaller_first` when `d1` is the smaller number); `open2` is [`open_slots`] of
    /// `d2`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn first_step(
        &mut self,
        board: &Board,
        key: u128,
        s1: usize,
        d1: usize,
        d2: usize,
        smaller_first: bool,
        open2: u32,
        front: bool,
    ) {
        let mut b1 = *board;
        let mut k1 = key;
        let t1 = b1.play(s1, d1, &mut k1);
        let mut second = b1.legal(d2, open2);
        if second == 0 {
            self.push(
                k1,
                [(s1 as u8, t1 as u8), (0, 0), (0, 0), (0, 0)],
                1,
                d1 as u8,
            );
            return;
        }
        if s1 != BAR && s1 > d1 {
            // A plain first step: other checkers' plain steps only from the sources the
            // search takes after `s1` (and `s1` itself, larger number first), besides
            // the same checker going on and checkers bearing off.
            let after = if front {
                !((2u32 << s1) - 1)
            } else {
                (1u32 << s1) - 1
            } | if smaller_first { 0 } else { 1u32 << s1 };
            second &= after | (1 << t1) | ((2u32 << d2) - 1);
            if smaller_first
                && s1 > d2
                && t1 > d2
                && open2 & (1 << s1) != 0
                && board.blots & ((1 << (s1 - d2)) | (1 << t1)) == 0
            {
                // The same checker, larger number first, reaches the same point
                // without a hit.
                second &= !(1 << t1);
            }
        }
        while second != 0 {
            let s2 = if front {
                second.trailing_zeros() as usize
            } else {
                31 - second.leading_zeros() as usize
            };
            second &= !(1 << s2);
            let (t2, k2) = b1.key_after(s2, d2, k1);
            let steps = [(s1 as u8, t1 as u8), (s2 as u8, t2 as u8), (0, 0), (0, 0)];
            self.push(k2, steps, 2, d1 as u8);
        }
    }

    /// Doubles: four steps of `d`, taken from non-increasing slots (every result is
    /// reachable in that order), so that the same steps are not tried in every order.
    fn doubles(
        &mut self,
        board: &Board,
        key: u128,
        d: usize,
        depth: usize,
        highest: usize,
        steps: &mut [(u8, u8); 4],
    ) {
        let open = self.open.get(d).copied().unwrap_or(0);
        let mut sources = board.legal(d, open) & ((2u32 << highest) - 1);
        let any = sources != 0;
        while sources != 0 {
            let s = 31 - sources.leading_zeros() as usize;
            sources &= !(1 << s);
            if depth + 1 == 4 {
                let (t, k) = board.key_after(s, d, key);
                if let Some(slot) = steps.get_mut(depth) {
                    *slot = (s as u8, t as u8);
                }
                self.push(k, *steps, 4, d as u8);
            } else {
                let mut b = *board;
                let mut k = key;
                let t = b.play(s, d, &mut k);
                if let Some(slot) = steps.get_mut(depth) {
                    *slot = (s as u8, t as u8);
                }
                self.doubles(&b, k, d, depth + 1, s, steps);
            }
        }
        if !any && depth > 0 {
            self.push(key, *steps, depth as u8, d as u8);
        }
    }
}

/// Spreads a key over the table.
#[inline(always)]
fn hash(key: u128) -> usize {
    let folded = (key as u64) ^ ((key >> 64) as u64).rotate_left(29);
    (folded.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize
}
