//! Knockouts: a seeded bracket in which each table's winner advances.
//!
//! The players of round 1, by seed, fill a bracket of S = k^R places (k the table size,
//! R the fewest rounds with k^R ≥ n). The places are in the standard seeding order,
//! generalised to tables of k by the snake: from the order for S/k places, each seed s
//! becomes the k seeds s, 2m+1−s, 2m+s, 4m+1−s, … (m = S/k), so for tables of two 1
//! meets N, and the top seeds meet in the final. Places past n are empty: a table left
//! with one player is a bye (for tables of two the byes go to the top seeds), a table
//! with none is skipped. Table g of a round is the g-th group of k places; its winner,
//! or its bye, takes place g of the next round. A withdrawn player's place is empty from
//! the next round on. The knockout is complete when at most one place is filled.

use crate::events::{Round, Table};
use crate::history::winner;
use crate::player::PlayerId;
use crate::state::Tournament;

/// The seeding order of a bracket of `k^rounds` places for tables of `k`: seed numbers
/// (1-based), consecutive groups of `k` sitting together.
pub fn seeding_order(k: usize, rounds: u32) -> Vec<usize> {
    let mut order = vec![1];
    for _ in 0..rounds {
        let m = order.len();
        let mut next = Vec::with_capacity(m * k);
        for &s in &order {
            for j in 0..k {
                next.push(if j % 2 == 0 {
                    j * m + s
                } else {
                    (j + 1) * m + 1 - s
                });
            }
        }
        order = next;
    }
    order
}

/// The fewest rounds of tables of `k` that bring `players` down to one.
pub fn total_rounds(k: usize, players: usize) -> u32 {
    let mut rounds = 0;
    let mut places = 1;
    while places < players {
        places *= k;
        rounds += 1;
    }
    rounds
}

/// The places of the bracket before round `round` (1-based): who sits in each, `None`
/// for an empty one. `None` if a round before it lacks a result.
fn places_before(tournament: &Tournament, k: usize, round: u32) -> Option<Vec<Option<PlayerId>>> {
    let field = tournament.seeded_players(1);
    let rounds = total_rounds(k, field.len());
    let mut places: Vec<Option<PlayerId>> = seeding_order(k, rounds)
        .into_iter()
        .map(|seed| field.get(seed - 1).copied())
        .collect();
    for played in 1..round {
        let record = tournament.rounds.get(played as usize - 1)?;
        let mut next = Vec::with_capacity(places.len() / k + 1);
        for (g, group) in places.chunks(k).enumerate() {
            let advancing = match record.round.table(g as u32 + 1) {
                Some(table) => winner(record.results.get(&table.number)?),
                None => group
                    .iter()
                    .flatten()
                    .copied()
                    .find(|p| record.round.byes.contains(p)),
            };
            next.push(advancing);
        }
        places = next;
    }
    Some(places)
}

/// The players still in the bracket once the latest round's results are in.
pub fn remaining(tournament: &Tournament, k: usize) -> Vec<PlayerId> {
    let next = tournament.rounds_paired() + 1;
    places_before(tournament, k, next)
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .filter(|p| tournament.entrant(*p).is_some_and(|e| e.plays_in(next)))
        .collect()
}

/// The knockout's winner, once it is complete.
pub fn champion(tournament: &Tournament, k: usize) -> Option<PlayerId> {
    match remaining(tournament, k).as_slice() {
        [one] if tournament.results_in() && tournament.has_started() => Some(*one),
        _ => None,
    }
}

/// Round `round` of the bracket, or `None` if the bracket is decided or a result is
/// missing.
pub fn pair(tournament: &Tournament, k: usize, round: u32) -> Option<Round> {
    let places = places_before(tournament, k, round)?;
    let plays = |p: &PlayerId| tournament.entrant(*p).is_some_and(|e| e.plays_in(round));
    if places.iter().flatten().filter(|p| plays(p)).count() < 2 {
        return None;
    }
    let mut tables = Vec::new();
    let mut byes = Vec::new();
    for (g, group) in places.chunks(k).enumerate() {
        let seats: Vec<PlayerId> = group
            .iter()
            .flatten()
            .copied()
            .filter(|p| plays(p))
            .collect();
        match seats.len() {
            0 => {}
            1 => byes.extend(seats),
            _ => tables.push(Table {
                number: g as u32 + 1,
                seats,
            }),
        }
    }
    Some(Round {
        number: round,
        tables,
        byes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeding_order_is_the_standard_one_for_two() {
        assert_eq!(seeding_order(2, 1), vec![1, 2]);
        assert_eq!(seeding_order(2, 2), vec![1, 4, 2, 3]);
        assert_eq!(seeding_order(2, 3), vec![1, 8, 4, 5, 2, 7, 3, 6]);
    }

    #[test]
    fn seeding_order_snakes_for_tables_of_four() {
        let order = seeding_order(4, 2);
        assert_eq!(&order[..4], &[1, 8, 9, 16]);
        let mut sorted = order.clone();
        sorted.sort();
        assert_eq!(sorted, (1..=16).collect::<Vec<_>>());
    }

    #[test]
    fn rounds_are_the_fewest_that_leave_one() {
        assert_eq!(total_rounds(2, 2), 1);
        assert_eq!(total_rounds(2, 5), 3);
        assert_eq!(total_rounds(2, 8), 3);
        assert_eq!(total_rounds(4, 5), 2);
        assert_eq!(total_rounds(6, 6), 1);
    }
}
