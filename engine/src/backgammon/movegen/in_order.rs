//! Results kept ascending as a search finds them nearly in order (two numbers': see
//! [`super::two_numbers`]): each put after the last, or moved back to its place, a twin
//! dropped there. The results are ordered words ([`super::words`]), which compare as
//! their positions do.

use super::words::{after, order, same, Words};

/// The results found so far, in a buffer whose length is the room made for them.
pub(super) struct InOrder<'a> {
    /// How many results have been moved to keep them sorted; [`OUT_OF_ORDER`] once more
    /// than eight a result were.
    budget: usize,
    /// [`order`] of the last result (0s when there is none: any position's is higher).
    last: [u128; 2],
    /// How many results `out` holds.
    held: usize,
    /// The results, the first `held`: ascending and each once, unless `budget` ran out.
    /// Its length is the room for them ([`InOrder::room`]).
    out: &'a mut Vec<Words>,
}

/// [`InOrder::budget`] once results came too far out of order to keep them sorted.
const OUT_OF_ORDER: usize = usize::MAX;

impl<'a> InOrder<'a> {
    /// No results yet, in `out`'s room.
    pub(super) fn new(out: &'a mut Vec<Words>) -> InOrder<'a> {
        InOrder {
            budget: 0,
            last: [0; 2],
            held: 0,
            out,
        }
    }

    /// Forgets every result.
    #[inline(always)]
    pub(super) fn clear(&mut self) {
        self.budget = 0;
        self.last = [0; 2];
        self.held = 0;
    }

    /// Makes room for `more` results beyond those held, before they are computed, so
    /// that each is written where it goes as soon as it is: with a call to grow in
    /// between (`Vec::push`), the compiler kept the result in memory and read it back in
    /// halves the CPU could not forward from the stores just made.
    #[inline(always)]
    pub(super) fn room(&mut self, more: usize) {
        if self.held + more > self.out.len() {
            self.grow(more);
        }
    }

    /// [`InOrder::room`] when there is not enough: at least doubles it.
    #[inline(never)]
    fn grow(&mut self, more: usize) {
        let size = (self.held + more).max(2 * self.out.len()).max(64);
        self.out.resize(size, [0; 4]);
    }

    /// Adds a result, where [`InOrder::room`] was made.
    #[inline(always)]
    pub(super) fn put(&mut self, at: Words) {
        let order = order(&at);
        let [o0, o1] = order;
        let [l0, l1] = self.last;
        if (o0 > l0) | ((o0 == l0) & (o1 > l1)) {
            if let Some(slot) = self.out.get_mut(self.held) {
                *slot = at;
                self.held += 1;
            }
            self.last = order;
        } else {
            // Four words rather than an array, which would be passed in memory.
            let [w0, w1, w2, w3] = at;
            self.insert(w0, w1, w2, w3);
        }
    }

    /// Puts a result that is not above the last one found in its place, unless it is
    /// there already. The search finds its results nearly in order (about one in 17 out
    /// of order or found twice, on the corpus and self-play): a result is mostly put in
    /// place a step or two back. Should they come less ordered than that, the moves would
    /// grow with the square of their number: past eight a result, the rest are appended,
    /// and all sorted at the end.
    #[inline(never)]
    fn insert(&mut self, w0: u64, w1: u64, w2: u64, w3: u64) {
        let at = [w0, w1, w2, w3];
        let held = self.held;
        let Some(out) = self.out.get_mut(..=held) else {
            return;
        };
        if self.budget == OUT_OF_ORDER {
            out[held] = at;
            self.held += 1;
            return;
        }
        let mut j = held;
        while j > 0 && after(&out[j - 1], &at) {
            j -= 1;
        }
        if j > 0 && same(&out[j - 1], &at) {
            return;
        }
        out.copy_within(j..held, j + 1);
        out[j] = at;
        self.held += 1;
        self.budget += held - j;
        if self.budget > 8 * self.held {
            self.budget = OUT_OF_ORDER;
        }
    }

    /// How many results there are, the first of the buffer, once sorted and their twins
    /// dropped if they came too far out of order to be kept so as they were found.
    pub(super) fn finish(self) -> usize {
        let found = &mut self.out[..self.held];
        if self.budget != OUT_OF_ORDER {
            return found.len();
        }
        found.sort_unstable_by_key(order);
        let mut kept = 0;
        for i in 0..found.len() {
            if kept == 0 || !same(&found[kept - 1], &found[i]) {
                found[kept] = found[i];
                kept += 1;
            }
        }
        kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Results put in any order come out ascending, each once: in order, reversed (the
    /// insertion runs out of moves and hands over to the sort), shuffled, each twice.
    #[test]
    fn results_come_out_ascending_whatever_order_they_are_found_in() {
        let mut rng = crate::playout::SplitMix64(3);
        for n in [0, 1, 2, 13, 100, 378] {
            let mut ascending: Vec<Words> = (0..n)
                .map(|i: u64| [7, i >> 3, i & 7, i.wrapping_mul(0x9E37_79B9)])
                .collect();
            ascending.sort_unstable_by_key(order);
            let mut shuffled = ascending.clone();
            for i in (1..shuffled.len()).rev() {
                shuffled.swap(i, rng.below(i + 1));
            }
            let descending: Vec<Words> = ascending.iter().rev().copied().collect();
            let twice: Vec<Words> = shuffled.iter().flat_map(|&w| [w, w]).collect();
            for given in [&ascending, &descending, &shuffled, &twice] {
                let mut out = Vec::new();
                let mut results = InOrder::new(&mut out);
                for &at in given {
                    results.room(1);
                    results.put(at);
                }
                let held = results.finish();
                assert_eq!(out[..held], ascending, "{n}");
            }
        }
    }
}
