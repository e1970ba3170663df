//! Swiss pairings for tables of more than two (Mens-erger-je-niet, Ludo, Ali Baba):
//! players grouped by score into tables.
//!
//! - `groups_table_sizes_are_as_even_as_possible`: ⌈n/k⌉ tables (k the table size),
//!   as even as possible, the larger ones first; never a table of one.
//! - `groups_by_score`: the players, ranked by points, rating and registration, fill the
//!   tables in order (the top scorers together); then, table by table and player by
//!   player, two players of different tables swap whenever that lowers the cost: each
//!   earlier meeting of two players at one table weighs more than any score spread
//!   (`groups_few_repeat_meetings`), then the sum of the score differences within each
//!   table. Passes over all such pairs, in rank order, swap whenever that helps, until a
//!   pass swaps none: deterministic, and a local optimum, not always the global one.
//! - `groups_seat_rotation`: at each table the player who has sat furthest back so far
//!   (the highest sum of seat numbers) takes the first seat; ties by rank.

use std::collections::BTreeMap;

use crate::events::{Round, Table};
use crate::history::History;
use crate::player::PlayerId;
use crate::state::Tournament;
use crate::swiss::ranked_players;

/// An earlier meeting weighs more than any score spread (at most 64 rounds of 2·5 half
/// points, 15 pairs at a table).
const REPEAT: u64 = 1 << 20;
/// A bound on the passes of swaps, for the largest fields.
const MAX_PASSES: usize = 100;

/// The sizes of the tables for `players` at tables of up to `k`: larger ones first.
pub fn table_sizes(players: usize, k: usize) -> Vec<usize> {
    if players < 2 {
        return Vec::new();
    }
    let count = players.div_ceil(k);
    let (base, larger) = (players / count, players % count);
    (0..count).map(|i| base + usize::from(i < larger)).collect()
}

/// The cost of two players at one table, by their places in the ranking.
struct Costs {
    n: usize,
    pair: Vec<u64>,
}

impl Costs {
    fn new(history: &History, ranked: &[PlayerId]) -> Self {
        let n = ranked.len();
        let points: Vec<u32> = ranked.iter().map(|p| history.half_points(*p)).collect();
        let mut pair = vec![0; n * n];
        for i in 0..n {
            for j in 0..n {
                pair[i * n + j] = u64::from(points[i].abs_diff(points[j]));
            }
        }
        let index: BTreeMap<PlayerId, usize> =
            ranked.iter().enumerate().map(|(i, p)| (*p, i)).collect();
        for (a, b, met) in history.all_meetings() {
            if let (Some(i), Some(j)) = (index.get(&a), index.get(&b)) {
                pair[i * n + j] += REPEAT * u64::from(met);
                pair[j * n + i] += REPEAT * u64::from(met);
            }
        }
        Costs { n, pair }
    }

    fn of(&self, a: usize, b: usize) -> u64 {
        self.pair[a * self.n + b]
    }

    /// What `a` costs at `table` (not counting itself), `without` set aside.
    fn at(&self, a: usize, table: &[usize], without: usize) -> u64 {
        table
            .iter()
            .filter(|x| **x != a && **x != without)
            .map(|x| self.of(a, *x))
            .sum()
    }
}

/// One pass over every two players of different tables, swapping them whenever that
/// lowers the cost; `false` if no swap did.
fn improve(costs: &Costs, tables: &mut [Vec<usize>]) -> bool {
    let mut improved = false;
    for t in 0..tables.len() {
        for u in t + 1..tables.len() {
            for i in 0..tables[t].len() {
                for j in 0..tables[u].len() {
                    let (a, b) = (tables[t][i], tables[u][j]);
                    let now = costs.at(a, &tables[t], a) + costs.at(b, &tables[u], b);
                    let swapped = costs.at(b, &tables[t], a) + costs.at(a, &tables[u], b);
                    if swapped < now {
                        tables[t][i] = b;
                        tables[u][j] = a;
                        improved = true;
                    }
                }
            }
        }
    }
    improved
}

/// The seat order of a table's `members` (given by rank).
fn seat_order(history: &History, members: &[PlayerId]) -> Vec<PlayerId> {
    let back = |p: PlayerId| -> usize {
        history
            .record(p)
            .map_or(0, |r| r.seats.iter().map(|(_, s)| *s).sum())
    };
    let mut seated: Vec<(usize, usize, PlayerId)> = members
        .iter()
        .enumerate()
        .map(|(rank, p)| (back(*p), rank, *p))
        .collect();
    seated.sort_by_key(|(back, rank, _)| (std::cmp::Reverse(*back), *rank));
    seated.into_iter().map(|(_, _, p)| p).collect()
}

/// Round `round` at tables of up to `k`, by the rules above.
pub fn pair(tournament: &Tournament, history: &History, round: u32, k: usize) -> Round {
    let ranked = ranked_players(tournament, history, round);
    let costs = Costs::new(history, &ranked);
    let mut tables: Vec<Vec<usize>> = Vec::new();
    let mut next = 0;
    for size in table_sizes(ranked.len(), k) {
        tables.push((next..next + size).collect());
        next += size;
    }
    let mut passes = 0;
    while passes < MAX_PASSES && improve(&costs, &mut tables) {
        passes += 1;
    }
    Round {
        number: round,
        tables: tables
            .iter_mut()
            .enumerate()
            .map(|(i, members)| {
                members.sort();
                let members: Vec<PlayerId> = members.iter().map(|m| ranked[*m]).collect();
                Table {
                    number: i as u32 + 1,
                    seats: seat_order(history, &members),
                }
            })
            .collect(),
        byes: Vec::new(),
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_table_sizes_are_as_even_as_possible() {
        assert_eq!(table_sizes(7, 4), vec![4, 3]);
        assert_eq!(table_sizes(2, 6), vec![2]);
        assert_eq!(table_sizes(13, 6), vec![5, 4, 4]);
        assert_eq!(table_sizes(12, 3), vec![3, 3, 3, 3]);
        assert_eq!(table_sizes(1, 4), Vec::<usize>::new());
        for n in 2..=64 {
            for k in 3..=6 {
                let sizes = table_sizes(n, k);
                assert_eq!(sizes.iter().sum::<usize>(), n);
                assert!(
                    sizes.iter().all(|s| (2..=k).contains(s)),
                    "{n} at {k}: {sizes:?}"
                );
            }
        }
    }
}
