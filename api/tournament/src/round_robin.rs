//! Round robins by Berger tables (FIDE Handbook C.05, Annex 1).
//!
//! The players of round 1, by seed, take the numbers 1…n; with an odd count number n+1 is
//! a dummy, and meeting it is a bye. With N numbers (even), round r of a cycle pairs
//! N with the p for which 2p ≡ r+1 (mod N−1) and every other a with the b for which
//! a+b ≡ r+1 (mod N−1): FIDE's tables, with the same colours (seats): N has the first
//! seat in even rounds; of a and b (a < b) a has it when b−a is odd. Board 1 is N's
//! game, board i the game of number p+i−1 (mod N−1). A double round robin plays the
//! cycle twice, the seats swapped in the second.
//!
//! A withdrawn player's later games are not played: the opponent has a bye that round.

use crate::events::{Round, Table};
use crate::player::PlayerId;
use crate::state::Tournament;

/// The numbers of a round robin of `players`: even (a dummy added to an odd count).
fn numbers(players: usize) -> usize {
    players + players % 2
}

/// How many rounds a round robin of `players` in `cycles` cycles has.
pub fn total_rounds(players: usize, cycles: u32) -> u32 {
    (numbers(players).saturating_sub(1) as u32) * cycles
}

/// Round `round` (1-based, within one cycle) of the Berger table for `n` numbers (even):
/// the pairs of numbers (1-based) in board order, first seat first.
pub fn berger_round(n: usize, round: usize) -> Vec<(usize, usize)> {
    let m = n - 1;
    let res = |x: usize| (x + m - 1) % m + 1; // 1..=m
    let target = res(round + 1);
    let p = (1..=m).find(|p| res(2 * p) == target).unwrap_or(1);
    let mut pairs = Vec::with_capacity(n / 2);
    pairs.push(if round % 2 == 1 { (p, n) } else { (n, p) });
    for i in 1..n / 2 {
        let a = res(p + i);
        let b = res(target + m - a % m);
        let (lo, hi) = (a.min(b), a.max(b));
        pairs.push(if (hi - lo) % 2 == 1 {
            (lo, hi)
        } else {
            (hi, lo)
        });
    }
    pairs
}

/// The players of the round robin, numbered by seed: those who play round 1.
pub fn field(tournament: &Tournament) -> Vec<PlayerId> {
    tournament.seeded_players(1)
}

/// Round `round` of the round robin (1-based, across cycles), or `None` past the last.
pub fn pair(tournament: &Tournament, round: u32, cycles: u32) -> Option<Round> {
    let field = field(tournament);
    let n = numbers(field.len());
    if round == 0 || round > total_rounds(field.len(), cycles) || n < 2 {
        return None;
    }
    let per_cycle = n - 1;
    let index = (round as usize - 1) % per_cycle + 1;
    let swapped = (round as usize - 1) / per_cycle % 2 == 1;
    let plays = |number: usize| -> Option<PlayerId> {
        let player = *field.get(number - 1)?;
        let entrant = tournament.entrant(player)?;
        entrant.plays_in(round).then_some(player)
    };
    let mut tables = Vec::new();
    let mut byes = Vec::new();
    for (first, second) in berger_round(n, index) {
        let (first, second) = if swapped {
            (second, first)
        } else {
            (first, second)
        };
        match (plays(first), plays(second)) {
            (Some(a), Some(b)) => tables.push(Table {
                number: tables.len() as u32 + 1,
                seats: vec![a, b],
            }),
            (Some(a), None) | (None, Some(a)) => byes.push(a),
            (None, None) => {}
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
    fn berger_tables_are_fides_for_six() {
        // FIDE C.05 Annex 1, 5 or 6 players.
        let fide = [
            vec![(1, 6), (2, 5), (3, 4)],
            vec![(6, 4), (5, 3), (1, 2)],
            vec![(2, 6), (3, 1), (4, 5)],
            vec![(6, 5), (1, 4), (2, 3)],
            vec![(3, 6), (4, 2), (5, 1)],
        ];
        for (r, expected) in fide.iter().enumerate() {
            assert_eq!(&berger_round(6, r + 1), expected, "round {}", r + 1);
        }
    }

    #[test]
    fn berger_tables_are_fides_for_four_and_eight() {
        let four = [
            vec![(1, 4), (2, 3)],
            vec![(4, 3), (1, 2)],
            vec![(2, 4), (3, 1)],
        ];
        for (r, expected) in four.iter().enumerate() {
            assert_eq!(&berger_round(4, r + 1), expected);
        }
        // FIDE's table for 7 or 8 players, rounds 1 and 2.
        assert_eq!(berger_round(8, 1), vec![(1, 8), (2, 7), (3, 6), (4, 5)]);
        assert_eq!(berger_round(8, 2), vec![(8, 5), (6, 4), (7, 3), (1, 2)]);
    }

    #[test]
    fn every_pair_meets_once_per_cycle() {
        for n in (2..=20).step_by(2) {
            let mut met = std::collections::BTreeSet::new();
            for r in 1..n {
                for (a, b) in berger_round(n, r) {
                    assert!(met.insert((a.min(b), a.max(b))), "n {n} round {r}");
                }
            }
            assert_eq!(met.len(), n * (n - 1) / 2);
        }
    }
}
