//! Swiss pairings for tables of more than two (Mens-erger-je-niet, Ludo, Ali Baba):
//! players grouped by score into tables.
//!
//! - `groups_table_sizes`: ⌈n/k⌉ tables (k the table size), as even as possible, the
//!   larger ones first; never a table of one.
//! - `groups_by_score`: the players, ranked by points, rating and registration, fill the
//!   tables in order (the top scorers together); then, table by table and player by
//!   player, two players of different tables swap whenever that lowers the cost: each
//!   earlier meeting of two players at one table weighs more than any score spread
//!   (`groups_few_repeat_meetings`), then the sum of the score differences within each
//!   table. The first improving swap is taken and the search starts over, until none
//!   improves: deterministic, and a local optimum, not always the global one.
//! - `groups_seat_rotation`: at each table the player who has sat furthest back so far
//!   (the highest sum of seat numbers) takes the first seat; ties by rank.

use crate::events::{Round, Table};
use crate::history::History;
use crate::player::PlayerId;
use crate::state::Tournament;
use crate::swiss::ranked_players;

/// An earlier meeting weighs more than any score spread (at most 64 rounds of 2·5 half
/// points, 15 pairs at a table).
const REPEAT: u64 = 1 << 20;
/// A bound on the improving swaps, for the largest fields.
const MAX_SWAPS: usize = 10_000;

/// The sizes of the tables for `players` at tables of up to `k`: larger ones first.
pub fn table_sizes(players: usize, k: usize) -> Vec<usize> {
    if players < 2 {
        return Vec::new();
    }
    let count = players.div_ceil(k);
    let (base, larger) = (players / count, players % count);
    (0..count).map(|i| base + usize::from(i < larger)).collect()
}

fn table_cost(history: &History, members: &[PlayerId]) -> u64 {
    let mut cost = 0;
    for (i, a) in members.iter().enumerate() {
        for b in &members[i + 1..] {
            cost += REPEAT * u64::from(history.meetings(*a, *b));
            cost += u64::from(history.half_points(*a).abs_diff(history.half_points(*b)));
        }
    }
    cost
}

fn with_swapped(members: &[PlayerId], out: PlayerId, into: PlayerId) -> Vec<PlayerId> {
    members
        .iter()
        .map(|p| if *p == out { into } else { *p })
        .collect()
}

/// Swap two players of different tables when that lowers the cost; `false` if no swap
/// does.
fn improve(history: &History, tables: &mut [Vec<PlayerId>]) -> bool {
    for t in 0..tables.len() {
        for u in t + 1..tables.len() {
            let before = table_cost(history, &tables[t]) + table_cost(history, &tables[u]);
            for a in tables[t].clone() {
                for b in tables[u].clone() {
                    let new_t = with_swapped(&tables[t], a, b);
                    let new_u = with_swapped(&tables[u], b, a);
                    if table_cost(history, &new_t) + table_cost(history, &new_u) < before {
                        tables[t] = new_t;
                        tables[u] = new_u;
                        return true;
                    }
                }
            }
        }
    }
    false
}

/// The seat order of a table's `members` (given by rank).
fn seat_order(history: &History, members: &[PlayerId]) -> Vec<PlayerId> {
    let mut seated: Vec<(usize, PlayerId)> = members.iter().copied().enumerate().collect();
    let back = |p: PlayerId| -> usize {
        history
            .record(p)
            .map_or(0, |r| r.seats.iter().map(|(_, s)| *s).sum())
    };
    seated.sort_by_key(|(rank, p)| (std::cmp::Reverse(back(*p)), *rank));
    seated.into_iter().map(|(_, p)| p).collect()
}

/// Round `round` at tables of up to `k`, by the rules above.
pub fn pair(tournament: &Tournament, history: &History, round: u32, k: usize) -> Round {
    let ranked = ranked_players(tournament, history, round);
    let rank_of = |p: &PlayerId| ranked.iter().position(|x| x == p).unwrap_or(usize::MAX);
    let mut tables: Vec<Vec<PlayerId>> = Vec::new();
    let mut rest = ranked.as_slice();
    for size in table_sizes(ranked.len(), k) {
        let (table, after) = rest.split_at(size.min(rest.len()));
        tables.push(table.to_vec());
        rest = after;
    }
    let mut swaps = 0;
    while swaps < MAX_SWAPS && improve(history, &mut tables) {
        swaps += 1;
    }
    Round {
        number: round,
        tables: tables
            .iter_mut()
            .enumerate()
            .map(|(i, members)| {
                members.sort_by_key(rank_of);
                Table {
                    number: i as u32 + 1,
                    seats: seat_order(history, members),
                }
            })
            .collect(),
        // A single player left is the only bye.
        byes: if ranked.len() == 1 {
            ranked
        } else {
            Vec::new()
        },
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
