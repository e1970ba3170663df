//! What the search records per way to play a roll: a [`Leaf`] with its steps for the
//! game, or only the keys (ranked for Black's doubles) for `Position::outcomes`.

use super::OFF;
use crate::backgammon::moves::{FILLER, STEP_TABLE};
use crate::backgammon::{Move, Side, Steps};
#[cfg(test)]
use {super::board::index_of_slot, super::BAR, crate::backgammon::Position};

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
/// steps for the game, or only what `Position::outcomes` needs ([`OutcomeWays`]).
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

/// The ways as `Position::outcomes` needs them: the keys alone, and for Black's doubles
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
    /// The positions of doubles found in order (`MoveGen::white_doubles_in_order`,
    /// `MoveGen::black_doubles_in_order`).
    pub positions: Vec<crate::backgammon::Position>,
    /// The results of two numbers as they are found (`MoveGen::two_numbers_in_order`).
    pub(super) words: Vec<super::words::Words>,
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
}
