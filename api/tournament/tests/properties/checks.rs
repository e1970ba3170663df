//! What the property tests check of each round and of the end, from outside the
//! pairing code, with what they remember of the rounds played.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use worp_tournament::groups::table_sizes;
use worp_tournament::matching::has_perfect_matching;
use worp_tournament::{Format, Outcome, PlayerId, Round, Rules, Tournament};

/// What the test itself remembers of the rounds, to check them without the crate.
#[derive(Default)]
pub struct Seen {
    meetings: BTreeMap<(PlayerId, PlayerId), u32>,
    /// Per cycle of a round robin: the pairs met.
    cycle_pairs: BTreeMap<u32, BTreeSet<(PlayerId, PlayerId)>>,
    byes: BTreeMap<PlayerId, u32>,
    seats: BTreeMap<PlayerId, Vec<usize>>,
    /// Knockout: players who lost a table.
    out: BTreeSet<PlayerId>,
    /// Knockout: who may play the next round (winners and byes of the last).
    advancing: Option<BTreeSet<PlayerId>>,
}

pub fn key(a: PlayerId, b: PlayerId) -> (PlayerId, PlayerId) {
    (a.min(b), a.max(b))
}

/// The seat `seats` make a player need, if absolute (the rule of `swiss.rs`).
fn absolute(seats: &[usize]) -> Option<usize> {
    let firsts = seats.iter().filter(|s| **s == 0).count() as i64;
    let difference = 2 * firsts - seats.len() as i64;
    match seats {
        [.., a, b] if a == b => Some(1 - b),
        _ if difference >= 2 => Some(1),
        _ if difference <= -2 => Some(0),
        _ => None,
    }
}

/// The round as the rules require, checked from outside the pairing code.
pub fn check_rules(
    t: &Tournament,
    rules: &Rules,
    round: &Round,
    seen: &Seen,
) -> Result<(), TestCaseError> {
    // `check_round` itself runs when the round is applied (`Tournament::apply`).
    let playing: BTreeSet<PlayerId> = t.seeded_players(round.number).into_iter().collect();
    let mut once = BTreeSet::new();
    for player in round.players() {
        prop_assert!(playing.contains(&player), "{} does not play", player);
        prop_assert!(once.insert(player), "{} twice", player);
    }
    let k = rules.table_size as usize;
    for table in &round.tables {
        prop_assert!((2..=k).contains(&table.seats.len()));
    }
    match rules.format {
        Format::Knockout { .. } => {
            if let Some(advancing) = &seen.advancing {
                prop_assert!(once.is_subset(advancing), "only winners advance");
            }
            prop_assert!(once.is_disjoint(&seen.out), "a player out plays again");
        }
        _ => prop_assert_eq!(&once, &playing, "every player is paired"),
    }
    if let Format::Swiss { .. } = rules.format {
        if k > 2 {
            prop_assert!(round.byes.is_empty());
            let mut sizes: Vec<usize> = round.tables.iter().map(|t| t.seats.len()).collect();
            sizes.sort_by(|a, b| b.cmp(a));
            prop_assert_eq!(sizes, table_sizes(playing.len(), k));
        } else {
            check_swiss_pairs(rules, round, &playing, seen)?;
        }
    }
    Ok(())
}

fn check_swiss_pairs(
    rules: &Rules,
    round: &Round,
    playing: &BTreeSet<PlayerId>,
    seen: &Seen,
) -> Result<(), TestCaseError> {
    let byes = |p: &PlayerId| seen.byes.get(p).copied().unwrap_or(0);
    prop_assert_eq!(round.byes.len(), playing.len() % 2);
    let anyone_without = playing.iter().any(|p| byes(p) == 0);
    for b in &round.byes {
        prop_assert!(byes(b) == 0 || !anyone_without, "a second bye for {}", b);
    }
    let met = |a: &PlayerId, b: &PlayerId| seen.meetings.contains_key(&key(*a, *b));
    if round.tables.iter().any(|t| met(&t.seats[0], &t.seats[1])) {
        let list: Vec<PlayerId> = playing.iter().copied().collect();
        let n = list.len();
        let avoidable = has_perfect_matching(n + n % 2, |i, j| match (list.get(i), list.get(j)) {
            (Some(a), Some(b)) => !met(a, b),
            (Some(a), None) => byes(a) == 0 || !anyone_without,
            _ => false,
        });
        prop_assert!(!avoidable, "an avoidable rematch in round {}", round.number);
    }
    if rules.sided {
        let none = Vec::new();
        for table in &round.tables {
            for (seat, player) in table.seats.iter().enumerate() {
                let mine = seen.seats.get(player).unwrap_or(&none);
                if let [.., a, b] = mine[..] {
                    if a == seat && b == seat {
                        let other = seen.seats.get(&table.seats[1 - seat]).unwrap_or(&none);
                        // Only if the other needed the other seat as much.
                        prop_assert_eq!(
                            absolute(other),
                            Some(1 - seat),
                            "a third seat {} in a row for {}",
                            seat,
                            player
                        );
                    }
                }
            }
        }
    }
    Ok(())
}

pub fn remember(
    rules: &Rules,
    round: &Round,
    results: &BTreeMap<u32, Outcome>,
    seen: &mut Seen,
    cycle: u32,
) {
    for table in &round.tables {
        for (i, a) in table.seats.iter().enumerate() {
            seen.seats.entry(*a).or_default().push(i);
            for b in &table.seats[i + 1..] {
                *seen.meetings.entry(key(*a, *b)).or_default() += 1;
                seen.cycle_pairs
                    .entry(cycle)
                    .or_default()
                    .insert(key(*a, *b));
            }
        }
    }
    for b in &round.byes {
        *seen.byes.entry(*b).or_default() += 1;
    }
    if let Format::Knockout { .. } = rules.format {
        let mut advancing: BTreeSet<PlayerId> = round.byes.iter().copied().collect();
        for table in &round.tables {
            let winner = match &results[&table.number] {
                Outcome::Winner { player } => *player,
                Outcome::Places { order } => order[0],
                Outcome::Draw => continue,
            };
            advancing.insert(winner);
            seen.out
                .extend(table.seats.iter().filter(|p| **p != winner));
        }
        seen.advancing = Some(advancing);
    }
}

pub fn check_end(rules: &Rules, t: &Tournament, seen: &Seen) -> Result<(), TestCaseError> {
    match rules.format {
        Format::RoundRobin { cycles } => {
            let stayed: Vec<PlayerId> = t
                .entrants()
                .iter()
                .filter(|e| e.withdrawn_after.is_none())
                .map(|e| e.player)
                .collect();
            for (i, a) in stayed.iter().enumerate() {
                for b in &stayed[i + 1..] {
                    let met = seen.meetings.get(&key(*a, *b)).copied().unwrap_or(0);
                    prop_assert_eq!(met, cycles, "{} and {} meet once per cycle", a, b);
                }
            }
            let per_cycle: usize = seen.cycle_pairs.values().map(BTreeSet::len).sum();
            let total: u32 = seen.meetings.values().sum();
            prop_assert_eq!(per_cycle, total as usize, "a pair met twice in a cycle");
        }
        Format::Knockout { .. } => {
            let left: Vec<PlayerId> = seen
                .advancing
                .iter()
                .flatten()
                .filter(|p| t.entrant(**p).is_some_and(|e| e.withdrawn_after.is_none()))
                .copied()
                .collect();
            prop_assert!(left.len() <= 1, "one winner at most: {:?}", left);
            prop_assert_eq!(t.champion(), left.first().copied());
            if t.entrants().iter().all(|e| e.withdrawn_after.is_none()) {
                prop_assert!(t.champion().is_some(), "without withdrawals, one winner");
                let field = t.seeded_players(1).len();
                let k = rules.table_size as usize;
                prop_assert_eq!(
                    t.rounds_paired(),
                    worp_tournament::knockout::total_rounds(k, field)
                );
            }
        }
        Format::Swiss { rounds } => {
            prop_assert!(
                t.rounds_paired() == rounds || t.seeded_players(t.rounds_paired() + 1).len() < 2
            );
        }
    }
    Ok(())
}
