//! Two numbers written as positions, for `Position::outcomes`. The search is the
//! generator's, with the position itself carried as words ([`super::words`]): each step
//! adds its change, and each result is kept as its ordered words, which compare as
//! positions do. The search takes its steps in an order near that of the results, so
//! each result is put in its place as it is found, mostly after the last, and one found
//! twice is dropped there ([`InOrder`]). Nothing is decoded from a key:
//! the words are the result.

use super::board::{open_slots_of, Board};
use super::in_order::InOrder;
use super::words::{ordered_position, ordered_words, stepped, Words};
use super::words::{ORDERED_HITS, ORDERED_STEPS};
use super::{MoveGen, OutcomeWays, BAR};
use crate::backgammon::{Position, Side};

impl MoveGen<OutcomeWays> {
    /// The results of the two different numbers `dice` (each 1..=6) for `side` from
    /// `pos`, ascending, each once; empty when the roll cannot be used (or is not two
    /// different numbers).
    #[inline(never)]
    pub(crate) fn two_numbers_in_order(
        &mut self,
        pos: &Position,
        side: Side,
        dice: [u8; 2],
    ) -> Vec<Position> {
        let found = &mut self.leaves.words;
        let [a, b] = dice.map(usize::from);
        if !(1..=6).contains(&a) || !(1..=6).contains(&b) || a == b {
            return Vec::new();
        }
        let (hi, lo) = if a > b { (a, b) } else { (b, a) };
        let (mut board, blocked, singles) = Board::keyless(pos, side);
        let (open_hi, open_lo) = (open_slots_of(blocked, hi), open_slots_of(blocked, lo));
        let first_hi = board.legal(hi, open_hi);
        let first_lo = board.legal(lo, open_lo);
        let mut search = TwoNumbers {
            steps: &ORDERED_STEPS[side as usize],
            hits: &ORDERED_HITS[side as usize],
            larger: hi,
            singles,
            best: 0,
            results: InOrder::new(found),
        };
        let at = ordered_words(pos);
        match side {
            Side::White => {
                search.rearmost_first(
                    &mut board,
                    at,
                    (hi, first_hi, open_hi),
                    (lo, first_lo, open_lo),
                );
            }
            Side::Black => {
                let hi = (hi, first_hi, open_hi);
                let lo = (lo, first_lo, open_lo);
                if pos.bar.black == 1 {
                    search.entering(&mut board, at, hi, lo);
                } else {
                    search.by_landing(&mut board, at, hi, lo);
                }
            }
        }
        let held = search.results.finish();
        found[..held]
            .iter()
            .map(|&at| ordered_position(at))
            .collect()
    }
}

/// One search of [`MoveGen::two_numbers_in_order`].
struct TwoNumbers<'a> {
    /// The side's rows of [`ORDERED_STEPS`], one per number.
    steps: &'static [[Words; 26]; 7],
    /// The side's row of [`ORDERED_HITS`].
    hits: &'static [Words; 26],
    /// The larger number.
    larger: usize,
    /// The slots holding a single checker of the side's own before the move
    /// ([`Board::play_once`]).
    singles: u32,
    /// The rank of the results kept (see [`TwoNumbers::push`]).
    best: u8,
    /// The results found, kept in order.
    results: InOrder<'a>,
}

impl TwoNumbers<'_> {
    /// White's ways: both orders of the numbers taken from each first source in turn,
    /// rearmost first (White's rearmost point is its results' most significant).
    ///
    /// Two plain steps (from a point, to a point) by different checkers give the same
    /// result in either order, and both orders are legal (no bar, no bearing off; hits
    /// only open points): each such pair is taken once, from the first step the search
    /// takes first. So are two checkers from one point, larger number first. The same
    /// checker going on both ways to the same point, hitting nothing on the way, is taken
    /// once, larger number first. Anything else is taken in either order, and a result
    /// found twice is dropped where it goes ([`InOrder`]).
    #[inline(always)]
    fn rearmost_first(
        &mut self,
        board: &mut Board,
        at: Words,
        (hi, first_hi, open_hi): (usize, u32, u32),
        (lo, first_lo, open_lo): (usize, u32, u32),
    ) {
        let mut first = first_hi | first_lo;
        while first != 0 {
            let s1 = 31 - first.leading_zeros() as usize;
            first &= !(1 << s1);
            if first_hi & (1 << s1) != 0 {
                self.first_step(board, at, s1, (hi, lo), (false, open_lo, false));
            }
            if first_lo & (1 << s1) != 0 {
                self.first_step(board, at, s1, (lo, hi), (true, open_hi, false));
            }
        }
    }

    /// Black's ways: the first steps taken in the order of the slots they land on,
    /// lowest first (the larger number first where both land on one slot), a first step
    /// that bears off from `s` after those landing on `s`. Black's results are led by its
    /// lowest slot, where a checker more makes the smaller result: the ways then come
    /// nearly in order. Each pair of plain steps by different checkers is taken from the
    /// step that lands lower ([`TwoNumbers::second_step`]).
    #[inline(always)]
    fn by_landing(
        &mut self,
        board: &mut Board,
        at: Words,
        (hi, first_hi, open_hi): (usize, u32, u32),
        (lo, first_lo, open_lo): (usize, u32, u32),
    ) {
        let lands_hi = (first_hi >> hi) & !1;
        let lands_lo = (first_lo >> lo) & !1;
        let off_hi = first_hi & ((2u32 << hi) - 1);
        let off_lo = first_lo & ((2u32 << lo) - 1);
        // One checker going on with both numbers, to `t` from `t + hi + lo`: larger
        // number first (by way of `t + lo`), or smaller first (by way of `t + hi`).
        let plain = |first: u32| first & !(1 << BAR);
        let on_hi = (plain(first_hi) >> (hi + lo)) & (open_lo >> lo) & !1;
        let on_lo = (plain(first_lo) >> (hi + lo)) & (open_hi >> hi) & !1;
        let mut slots = lands_hi | lands_lo | off_hi | off_lo | on_hi | on_lo;
        while slots != 0 {
            let t = slots.trailing_zeros() as usize;
            slots &= slots - 1;
            if (on_hi | on_lo) & (1 << t) != 0 {
                self.going_on(board, at, t, (hi, lo), (on_hi, on_lo));
            }
            if lands_hi & (1 << t) != 0 {
                self.first_step(board, at, t + hi, (hi, lo), (false, open_lo, true));
            }
            if lands_lo & (1 << t) != 0 {
                self.first_step(board, at, t + lo, (lo, hi), (true, open_hi, true));
            }
            if off_hi & (1 << t) != 0 {
                self.first_step(board, at, t, (hi, lo), (false, open_lo, true));
            }
            if off_lo & (1 << t) != 0 {
                self.first_step(board, at, t, (lo, hi), (true, open_hi, true));
            }
        }
    }

    /// Black's ways with one checker on the bar: it enters with one number, and then the
    /// other number moves a checker. The results are led by where the second step lands:
    /// both entries' second steps are taken together, by the slot they land on, lowest
    /// first. (No checker can bear off: the one entered stands outside the home board.)
    #[inline(always)]
    fn entering(
        &mut self,
        board: &mut Board,
        at: Words,
        (hi, first_hi, open_hi): (usize, u32, u32),
        (lo, first_lo, open_lo): (usize, u32, u32),
    ) {
        self.results.room(2 * (BAR + 2));
        let entered_hi = first_hi & (1 << BAR) != 0;
        let entered_lo = first_lo & (1 << BAR) != 0;
        let [(at_hi, then_lo, blots_hi), (at_lo, then_hi, blots_lo)] =
            [(hi, lo, open_lo, entered_hi), (lo, hi, open_hi, entered_lo)].map(
                |(d1, d2, open2, entered)| {
                    if !entered {
                        return (at, 0, 0);
                    }
                    let marks = board.marks();
                    let at1 = stepped(at, (&self.steps[d1], self.hits), BAR, BAR - d1, board.blots);
                    board.play_once(BAR, d1, self.singles);
                    let second = (board.legal(d2, open2), board.blots);
                    board.undo(marks);
                    (at1, second.0, second.1)
                },
            );
        if entered_hi && then_lo == 0 {
            self.push(at_hi, 1, hi);
        }
        if entered_lo && then_hi == 0 {
            self.push(at_lo, 1, lo);
        }
        let (lands_lo, lands_hi) = (then_lo >> lo, then_hi >> hi);
        let mut slots = lands_lo | lands_hi;
        while slots != 0 {
            let t = slots.trailing_zeros() as usize;
            slots &= slots - 1;
            if lands_lo & (1 << t) != 0 {
                let tables = (&self.steps[lo], self.hits);
                self.push(stepped(at_hi, tables, t + lo, t, blots_hi), 2, hi);
            }
            if lands_hi & (1 << t) != 0 {
                let tables = (&self.steps[hi], self.hits);
                self.push(stepped(at_lo, tables, t + hi, t, blots_lo), 2, lo);
            }
        }
    }

    /// Black's ways that take one checker on with both numbers to `t` (from `t + hi +
    /// lo`; `on_hi`, `on_lo` the slots so reached larger number first, smaller first),
    /// as one step landing on `t` (see [`TwoNumbers::second_step`]), in order. By way of a
    /// blot, each order hits it: a result of its own, the smaller the lower the blot.
    /// Otherwise either gives the one result a checker from the point between gives with
    /// the other checker refilling it (taken from its own first step), if one stands
    /// there.
    #[inline(always)]
    fn going_on(
        &mut self,
        board: &Board,
        at: Words,
        t: usize,
        (hi, lo): (usize, usize),
        (on_hi, on_lo): (u32, u32),
    ) {
        self.results.room(3);
        let (s, blots, occupied) = (t + hi + lo, board.blots, board.occupied);
        // Larger number first passes `t + lo`, smaller first `t + hi`.
        let via = [(on_hi, t + lo), (on_lo, t + hi)].map(|(on, between)| {
            let legal = on & (1 << t) != 0;
            (
                legal,
                legal && blots & (1 << between) != 0,
                occupied & (1 << between) != 0,
            )
        });
        let [(hi_legal, hi_hits, hi_refilled), (lo_legal, lo_hits, lo_refilled)] = via;
        if hi_hits {
            self.push(self.both_steps(at, s, (hi, lo), blots), 2, hi);
        }
        if lo_hits {
            self.push(self.both_steps(at, s, (lo, hi), blots), 2, lo);
        }
        let refilled = (hi_legal && hi_refilled) || (lo_legal && lo_refilled);
        if !refilled {
            if hi_legal && !hi_hits {
                self.push(self.both_steps(at, s, (hi, lo), blots), 2, hi);
            } else if lo_legal && !lo_hits {
                self.push(self.both_steps(at, s, (lo, hi), blots), 2, lo);
            }
        }
    }

    /// `at` after one checker moves `d1` from `s`, then `d2`, hitting where `blots` has
    /// the slots it stops on.
    #[inline(always)]
    fn both_steps(&self, at: Words, s: usize, (d1, d2): (usize, usize), blots: u32) -> Words {
        let at = stepped(at, (&self.steps[d1], self.hits), s, s - d1, blots);
        stepped(at, (&self.steps[d2], self.hits), s - d1, s - d1 - d2, blots)
    }

    /// The ways that play `d1` from `s1` first, then `d2` (`smaller_first` when `d1` is
    /// the smaller number; `open2` is [`open_slots_of`] `d2`; `front` for Black's order).
    #[inline(always)]
    fn first_step(
        &mut self,
        board: &mut Board,
        at: Words,
        s1: usize,
        (d1, d2): (usize, usize),
        (smaller_first, open2, front): (bool, u32, bool),
    ) {
        // A result for each source of the second number (one a slot) or this one alone.
        self.results.room(BAR + 2);
        let marks = board.marks();
        let t1 = s1.saturating_sub(d1);
        let at1 = stepped(at, (&self.steps[d1], self.hits), s1, t1, board.blots);
        board.play_once(s1, d1, self.singles);
        let second = board.legal(d2, open2);
        if second == 0 {
            self.push(at1, 1, d1);
        } else {
            let order = (smaller_first, open2, front);
            self.second_step(board, at1, (s1, t1), (d1, d2), (second, marks.blots), order);
        }
        board.undo(marks);
    }

    /// The second steps of [`TwoNumbers::first_step`]: `second` the sources of `d2` on
    /// the board after the first step `(s1, t1)` of `d1`; `blots` those before it.
    #[inline(always)]
    fn second_step(
        &mut self,
        board: &Board,
        at1: Words,
        (s1, t1): (usize, usize),
        (d1, d2): (usize, usize),
        (second, blots): (u32, u32),
        (smaller_first, open2, front): (bool, u32, bool),
    ) {
        let order = (smaller_first, open2, front);
        let mut second = second_sources((s1, t1), (d1, d2), (second, blots), order);
        let tables = (&self.steps[d2], self.hits);
        while second != 0 {
            let s2 = if front {
                second.trailing_zeros() as usize
            } else {
                31 - second.leading_zeros() as usize
            };
            second &= !(1 << s2);
            let at2 = stepped(at1, tables, s2, s2.saturating_sub(d2), board.blots);
            self.push(at2, 2, d1);
        }
    }

    /// Records a result of `len` steps, the first of `die`, unless the rules prefer
    /// others: more numbers played rank higher, and when only one number can be played,
    /// the larger ranks higher. Forgets the results that rank lower.
    #[inline(always)]
    fn push(&mut self, at: Words, len: u8, die: usize) {
        let rank = 2 * len + u8::from(len == 1 && die == self.larger);
        if rank < self.best {
            return;
        }
        if rank > self.best {
            self.best = rank;
            self.results.clear();
        }
        self.results.put(at);
    }
}

/// The sources of the second step the search takes after the first step `(s1, t1)` of
/// `d1` (`second` those of `d2` on the board after it; `blots` those before it).
#[inline(always)]
fn second_sources(
    (s1, t1): (usize, usize),
    (d1, d2): (usize, usize),
    (mut second, blots): (u32, u32),
    (smaller_first, open2, front): (bool, u32, bool),
) -> u32 {
    if s1 != BAR && s1 > d1 {
        // A plain first step: other checkers' plain steps only where the search
        // takes them as first steps after this one, besides the same checker going
        // on and checkers bearing off. White's go by source: those after `s1` (and
        // `s1` itself, larger number first). Black's go by where they land: those
        // landing above `t1` (or on it, larger number first), from `t1 + d2`.
        let after = if front {
            !((2u32 << (t1 + d2)) - 1) | if smaller_first { 0 } else { 1u32 << (t1 + d2) }
        } else {
            ((1u32 << s1) - 1) | if smaller_first { 0 } else { 1u32 << s1 }
        };
        // The same checker going on: White's here, Black's as one step to where it
        // lands ([`TwoNumbers::going_on`]), but for bearing off.
        let on = if front { 0 } else { 1 << t1 };
        second &= after | on | ((2u32 << d2) - 1);
        if !front
            && smaller_first
            && s1 > d2
            && t1 > d2
            && open2 & (1 << s1) != 0
            && blots & ((1 << (s1 - d2)) | (1 << t1)) == 0
        {
            // The same checker, larger number first, reaches the same point
            // without a hit.
            second &= !(1 << t1);
        }
    }
    second
}

#[cfg(test)]
mod tests {
    use super::super::sorted_results;
    use super::*;
    use crate::backgammon::tests::corpus_and_walk_positions;

    /// On every corpus position and a random walk through games, for every roll of two
    /// numbers, either side: the positions are the generator's results, sorted, strictly
    /// ascending.
    #[test]
    fn two_numbers_are_the_generators_results_in_order() {
        let positions = corpus_and_walk_positions(17, 10_000);
        let mut generator = MoveGen::default();
        let mut in_order = MoveGen::<OutcomeWays>::default();
        let mut ways = 0;
        for pos in &positions {
            for side in Side::BOTH {
                for dice in (1..=6).flat_map(|a| (a + 1..=6).map(move |b| [a, b])) {
                    let want = sorted_results(&mut generator, pos, side, dice);
                    let found = in_order.two_numbers_in_order(pos, side, dice);
                    assert!(
                        found.windows(2).all(|w| w[0] < w[1]),
                        "{pos:?} {side:?} {dice:?}"
                    );
                    assert_eq!(found, want, "{pos:?} {side:?} {dice:?}");
                    ways += found.len();
                }
            }
        }
        assert!(ways > 1_000_000, "{ways} ways");
    }
}
