//! Black's doubles searched front first, so that their results come in order and need no
//! sorting, each written as the position itself rather than as a key to decode: the
//! search adds each step's change to the position's points and counts, held as four
//! words ([`super::words`]).
//!
//! The generator takes a double's steps rearmost checker first, which for Black finds
//! results in no useful order. When four or more checkers stand outside the home board
//! (the bar's included), no step can bear off. Checkers on the bar enter first, alike in
//! every way; after them, the result of the steps of `d` is fixed by how many checkers
//! leave each slot, `u(s)`. Such counts can be played exactly when every slot left lands
//! on an open point and no slot gives more checkers than it has or receives: `u(s) ≤
//! own(s) + u(s + d)` (played rearmost first, each step then finds its checker; a blot is
//! hit by the first checker landing on it).
//!
//! Where two such counts first differ, at the lowest slot `s`, the one that moves more
//! from `s` puts more checkers on `s − d`, the most significant digit where their results
//! differ (Black's digit falls as its checkers grow), and so has the smaller key. So the
//! sources are chosen one step at a time from the front, never behind the one before, a
//! slot taken again before the next: the results come out ascending, each once.

use super::board::{open_slots, Board};
use super::words::{add, position, words, Words, HITS, STEPS as STEP_WORDS};
use super::{MoveGen, OutcomeWays, BAR};
use crate::backgammon::{Position, Side};

/// The steps of a double.
const STEPS: u8 = 4;

impl MoveGen<OutcomeWays> {
    /// Black's results of the double `d` (1..=6) from `pos`, ascending, each once: if
    /// fewer than four of its checkers are on the bar, four or more are outside the home
    /// board (the bar's included), and four steps can be played. `None` otherwise: the
    /// generator's own search then finds the ways, with fewer steps or bearing off.
    #[inline(never)]
    pub(crate) fn black_doubles_in_order(
        &mut self,
        pos: &Position,
        d: usize,
    ) -> Option<&[Position]> {
        let bar = pos.bar.black;
        if bar >= STEPS || !(1..=6).contains(&d) {
            return None;
        }
        let (board, blocked, _) = Board::keyless(pos, Side::Black);
        let open = open_slots(blocked)[d];
        if board.outside < STEPS || (bar > 0 && open & (1 << BAR) == 0) {
            return None;
        }
        // Black's slot s is board index s − 1; its checkers are the negative values.
        let mut own = [0u8; 32];
        for (n, &v) in own[1..].iter_mut().zip(&pos.board) {
            *n = v.min(0).unsigned_abs();
        }
        let (mut occupied, mut blots) = (board.occupied & !(1 << BAR), board.blots);
        let mut start = *pos;
        if bar > 0 {
            // Every way begins by entering the checkers on the bar, hitting a blot there.
            let entry = BAR - d;
            if blots & (1 << entry) != 0 {
                blots &= !(1 << entry);
                start.board[entry - 1] = 0;
                start.bar.white += 1;
            }
            start.board[entry - 1] -= bar as i8;
            start.bar.black = 0;
            own[entry] += bar;
            occupied |= 1 << entry;
        }
        // The slots a checker may leave: those landing on an open point, holding a
        // checker or up to three steps in front of one.
        let reached = occupied | occupied >> d | occupied >> (2 * d) | occupied >> (3 * d);
        let slots = open & reached & !(1 << BAR);
        // From the rear: how many checkers can be on each slot to leave it (its own and
        // those the slots behind can send it), from which slots on the slots can still
        // take `r` steps (`viable[r]`; four at most matter), and the fewest steps that
        // bring a checker to a slot and take it on (`need`; `fits[r]`, where `r` do).
        let mut reach = [0u8; 32];
        let mut need = [STEPS + 1; 32];
        let mut viable = [0u32; 5];
        let mut fits = [0u32; 5];
        let (mut left, mut most) = (slots, 0u8);
        while left != 0 {
            let s = 31 - left.leading_zeros() as usize;
            left &= !(1 << s);
            let (sent, fewest) = if slots & (1 << (s + d)) != 0 {
                (reach[s + d], need[s + d] + 1)
            } else {
                (0, STEPS + 1)
            };
            reach[s] = own[s].saturating_add(sent).min(STEPS);
            need[s] = if own[s] > 0 { 1 } else { fewest.min(STEPS + 1) };
            most = most.saturating_add(reach[s]).min(STEPS);
            for v in &mut viable[1..=usize::from(most)] {
                *v |= 1 << s;
            }
            for f in fits.iter_mut().skip(usize::from(need[s])) {
                *f |= 1 << s;
            }
        }
        self.leaves.positions.clear();
        let black = Side::Black as usize;
        let mut search = FrontFirst {
            slots,
            reach,
            held: slots & occupied,
            viable: std::array::from_fn(|r| viable[r] & fits[r]),
            own,
            d,
            again: &STEP_WORDS[black][d],
            first: [[0; 4]; 26],
            out: &mut self.leaves.positions,
            owed: [0; 32],
            owing: 0,
        };
        // What the first step from each slot changes: with the hit of a blot it lands on.
        let mut left = slots;
        while left != 0 {
            let s = left.trailing_zeros() as usize;
            left &= left - 1;
            let blot = u64::from((blots >> (s - d)) & 1).wrapping_neg();
            search.first[s] = add(search.again[s], HITS[black][s - d].map(|w| w & blot));
        }
        // After the entries, from no slot yet (slot 0 holds none).
        let at = words(&start);
        match bar {
            0 => search.step::<0>(0, 0, at),
            1 => search.step::<1>(0, 0, at),
            2 => search.step::<2>(0, 0, at),
            _ => search.step::<3>(0, 0, at),
        }
        (!self.leaves.positions.is_empty()).then_some(&self.leaves.positions[..])
    }
}

/// One search of [`MoveGen::black_doubles_in_order`]: its sources chosen one step at a
/// time, never behind the one before (slot `c`, left `k` times so far), so that the
/// sorted sources come in ascending order, a slot taken again before the next.
struct FrontFirst<'a> {
    /// The slots a checker may leave (see [`MoveGen::black_doubles_in_order`]).
    slots: u32,
    /// Per slot, the most checkers that can leave it (four at most).
    reach: [u8; 32],
    /// Those of `slots` that hold checkers before the move.
    held: u32,
    /// The slots from which on the slots can still take `r` steps, for `r` in 1..=4, and
    /// to which `r` steps can bring a checker and take it on.
    viable: [u32; 5],
    /// Black's checkers per slot before the move.
    own: [u8; 32],
    /// The number of the double.
    d: usize,
    /// Per slot, what a step from it changes in a position's [`Words`] when the slot was
    /// left before (Black's row of [`STEP_WORDS`] for `d`).
    again: &'static [Words; 26],
    /// Per slot, what the first step from it changes: with the hit of a blot it lands on.
    first: [Words; 26],
    /// The positions found, ascending.
    out: &'a mut Vec<Position>,
    /// Per slot, the checkers that must still leave it: those the slot `d` in front of it
    /// took beyond its own, which only this slot can have sent.
    owed: [u8; 32],
    /// The slots with checkers owed.
    owing: u32,
}

impl FrontFirst<'_> {
    /// The ways after `DEPTH` steps, the last `k` of them from slot `c`, the result so
    /// far `at`.
    #[inline(always)]
    fn step<const DEPTH: usize>(&mut self, c: usize, k: u8, at: Words) {
        let d = self.d;
        let r = usize::from(STEPS) - DEPTH;
        if r == 1 {
            self.last_step(c, k, at);
            return;
        }
        if DEPTH > 0 && k < self.reach[c] && self.viable[r] & (1 << c) != 0 {
            // The same slot once more.
            self.next::<DEPTH>(c, k + 1, add(at, self.again[c]));
        }
        // Slot `c` done: it must have paid what it owed, and what it took beyond its
        // own the slot `d` behind it owes, before any slot after that is taken.
        let mut candidates = self.slots & self.viable[r];
        let (mut owing, more) = (self.owing, k.saturating_sub(self.own[c]));
        if DEPTH > 0 {
            if k < self.owed[c] {
                return;
            }
            owing &= !(1 << c);
            if more > 0 {
                owing |= 1 << (c + d);
            }
            candidates &= !((2u32 << c) - 1);
        }
        if owing != 0 {
            // Nothing beyond the first slot that owes.
            candidates &= (2u32 << owing.trailing_zeros()) - 1;
        }
        if candidates == 0 {
            return;
        }
        let saved = self.owing;
        self.owing = owing;
        if more > 0 {
            self.owed[c + d] += more;
        }
        while candidates != 0 {
            let s = candidates.trailing_zeros() as usize;
            candidates &= candidates - 1;
            self.next::<DEPTH>(s, 1, add(at, self.first[s]));
        }
        if more > 0 {
            self.owed[c + d] -= more;
        }
        self.owing = saved;
    }

    /// The fourth step, after three, the last `k` of them from slot `c` (`at` so far):
    /// each way found is recorded. The step leaves a slot that still holds a checker of
    /// its own, and after it every slot has given what it owed.
    #[inline(always)]
    fn last_step(&mut self, c: usize, k: u8, at: Words) {
        let d = self.d;
        let (own, owed) = (self.own[c], self.owed[c]);
        let others = self.owing & !(1 << c);
        if k < own && k + 1 >= owed && others == 0 {
            // From `c` once more.
            self.out.push(position(add(at, self.again[c])));
        }
        if k < owed {
            return;
        }
        // From a slot after `c`: the one that owes a checker, if one does (and no
        // more than one), else any that holds one.
        let owes = if k > own {
            others | 1 << (c + d)
        } else {
            others
        };
        let mut candidates = self.held & !((2u32 << c) - 1);
        if owes != 0 {
            let x = owes.trailing_zeros() as usize;
            let due = self.owed[x] + if x == c + d { k - own } else { 0 };
            if owes & (owes - 1) != 0 || due != 1 {
                return;
            }
            candidates &= 1 << x;
        }
        while candidates != 0 {
            let s = candidates.trailing_zeros() as usize;
            candidates &= candidates - 1;
            self.out.push(position(add(at, self.first[s])));
        }
    }

    /// [`FrontFirst::step`] one step deeper.
    #[inline(always)]
    fn next<const DEPTH: usize>(&mut self, c: usize, k: u8, at: Words) {
        match DEPTH {
            0 => self.step::<1>(c, k, at),
            1 => self.step::<2>(c, k, at),
            2 => self.step::<3>(c, k, at),
            _ => self.step::<4>(c, k, at),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::sorted_results;
    use super::*;
    use crate::backgammon::tests::corpus_and_walk_positions;

    /// On every corpus position and a random walk through games, for every double:
    /// where the search front first applies, its positions are the generator's results,
    /// sorted, strictly ascending; it applies where it should.
    #[test]
    fn black_doubles_front_first_are_the_generators_results_in_order() {
        let positions = corpus_and_walk_positions(5, 20_000);
        let mut generator = MoveGen::default();
        let mut front_first = MoveGen::<OutcomeWays>::default();
        let (mut applied, mut ways) = (0, 0);
        for pos in &positions {
            for d in 1..=6u8 {
                let leaves = generator.generate(pos, Side::Black, [d, d]);
                let four = leaves.first().is_some_and(|l| l.dice_used() == 4);
                let want = sorted_results(&mut generator, pos, Side::Black, [d, d]);
                let outside = pos.bar.black
                    + pos.board[6..]
                        .iter()
                        .map(|v| v.min(&0).unsigned_abs())
                        .sum::<u8>();
                let applies = pos.bar.black < 4 && outside >= 4 && four;
                match front_first.black_doubles_in_order(pos, usize::from(d)) {
                    Some(positions) => {
                        assert!(applies, "{pos:?} {d}");
                        assert!(positions.windows(2).all(|w| w[0] < w[1]), "{pos:?} {d}");
                        assert_eq!(positions, &want[..], "{pos:?} {d}");
                        applied += 1;
                        ways += positions.len();
                    }
                    None => assert!(!applies, "{pos:?} {d}"),
                }
            }
        }
        assert!(
            applied > 20_000 && ways > 500_000,
            "{applied} searches, {ways} ways"
        );
    }
}
