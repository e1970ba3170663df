//! White's doubles written as positions. The generator's search takes a double's steps
//! rearmost checker first, which for White finds the results in order: White's rearmost
//! point leads its results, and the search takes the multisets of sources in descending
//! order (`s0 ≥ s1 ≥ …` compared from `s0`); at the highest source where two differ, the
//! one with more checkers leaving has the smaller value there (nothing higher lands
//! there, a checker that leaves a point hits nothing there, and the bar's entries, first
//! in every way, are alike). This search is that one, with the position itself beside
//! the key ([`super::words`]): each step adds its change, and each result is written as
//! it is found, with no key to decode.

use super::board::{open_slots, Board};
use super::words::{add, position, words, Words, HITS, STEPS};
use super::{MoveGen, OutcomeWays, BAR};
use crate::backgammon::{Position, Side};

impl MoveGen<OutcomeWays> {
    /// White's results of the double `d` (1..=6) from `pos`, ascending, each once; empty
    /// when the roll cannot be used.
    #[inline(never)]
    pub(crate) fn white_doubles_in_order(&mut self, pos: &Position, d: usize) -> &[Position] {
        self.leaves.positions.clear();
        if !(1..=6).contains(&d) {
            return &[];
        }
        let (mut board, key, blocked) = Board::new(pos, Side::White);
        let mut search = RearFirst {
            d,
            open: open_slots(blocked)[d],
            most: 0,
            out: &mut self.leaves.positions,
        };
        search.step::<0>(&mut board, key, words(pos), BAR);
        &self.leaves.positions[..]
    }
}

/// White's index in [`STEPS`] and [`HITS`].
const WHITE: usize = Side::White as usize;

/// One search of [`MoveGen::white_doubles_in_order`].
struct RearFirst<'a> {
    /// The number of the double.
    d: usize,
    /// [`open_slots`] of `d`.
    open: u32,
    /// The most steps a result found so far takes: only results with the most are kept.
    most: u8,
    /// The positions found, ascending.
    out: &'a mut Vec<Position>,
}

impl RearFirst<'_> {
    /// The steps after `DEPTH` of them, from slots no higher than `highest` (as
    /// `MoveGen::doubles` takes them), the result so far keyed `key` and held in `at`.
    #[inline(always)]
    fn step<const DEPTH: usize>(
        &mut self,
        board: &mut Board,
        key: u128,
        at: Words,
        highest: usize,
    ) {
        let d = self.d;
        let mut sources = board.legal(d, self.open) & ((2u32 << highest) - 1);
        if sources == 0 {
            if DEPTH > 0 {
                self.push(at, DEPTH as u8);
            }
            return;
        }
        while sources != 0 {
            let s = 31 - sources.leading_zeros() as usize;
            sources &= !(1 << s);
            let t = s.saturating_sub(d);
            let blot = u64::from((board.blots >> t) & 1).wrapping_neg();
            let at = add(
                add(at, STEPS[WHITE][d][s]),
                HITS[WHITE][t].map(|w| w & blot),
            );
            if DEPTH == 3 {
                self.push(at, 4);
                continue;
            }
            let marks = board.marks();
            let mut k = key;
            board.play(s, d, &mut k);
            match DEPTH {
                0 => self.step::<1>(board, k, at, s),
                1 => self.step::<2>(board, k, at, s),
                _ => self.step::<3>(board, k, at, s),
            }
            board.undo(marks);
        }
    }

    /// Records a result of `steps` steps, unless others take more; forgets those that take
    /// fewer.
    #[inline(always)]
    fn push(&mut self, at: Words, steps: u8) {
        if steps < self.most {
            return;
        }
        if steps > self.most {
            self.most = steps;
            self.out.clear();
        }
        self.out.push(position(at));
    }
}

#[cfg(test)]
mod tests {
    use super::super::sorted_results;
    use super::*;
    use crate::backgammon::tests::corpus_and_walk_positions;

    /// On every corpus position and a random walk through games, for every double: the
    /// positions are the generator's results, sorted, strictly ascending.
    #[test]
    fn white_doubles_are_the_generators_results_in_order() {
        let positions = corpus_and_walk_positions(9, 20_000);
        let mut generator = MoveGen::default();
        let mut in_order = MoveGen::<OutcomeWays>::default();
        let mut ways = 0;
        for pos in &positions {
            for d in 1..=6u8 {
                let want = sorted_results(&mut generator, pos, Side::White, [d, d]);
                let found = in_order.white_doubles_in_order(pos, usize::from(d));
                assert!(found.windows(2).all(|w| w[0] < w[1]), "{pos:?} {d}");
                assert_eq!(found, &want[..], "{pos:?} {d}");
                ways += found.len();
            }
        }
        assert!(ways > 1_000_000, "{ways} ways");
    }
}
