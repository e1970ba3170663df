//! Random tournaments played to the end: 10,000 cases over the four tests below (sizes
//! 2-64, random results, withdrawals and late registrations, every format, tables of
//! 2 to 6). Each round is checked against the rules from outside the pairing code; every
//! refused event must leave the state unchanged; the events fold again to the same
//! tournament and standings.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::p;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use worp_tournament::groups::table_sizes;
use worp_tournament::matching::has_perfect_matching;
use worp_tournament::{
    check_round, pair_next_round, standings, Event, Format, Outcome, PlayerId, Round, Rules,
    Tournament,
};

const CASES_PER_TEST: u32 = 2_500;

/// splitmix64: the tests' only randomness, from proptest's seed.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }
}

/// What the test itself remembers of the rounds, to check them without the crate.
#[derive(Default)]
struct Seen {
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

fn key(a: PlayerId, b: PlayerId) -> (PlayerId, PlayerId) {
    (a.min(b), a.max(b))
}

/// Apply an event that may be refused; a refusal must change nothing.
fn attempt(
    t: &mut Tournament,
    events: &mut Vec<Event>,
    event: Event,
) -> Result<bool, TestCaseError> {
    let before = t.clone();
    match t.apply(&event) {
        Ok(()) => {
            events.push(event);
            Ok(true)
        }
        Err(_) => {
            prop_assert_eq!(&*t, &before, "a refused event changed the tournament");
            Ok(false)
        }
    }
}

/// Apply an event that must be refused.
fn refuse(t: &mut Tournament, event: Event) -> Result<(), TestCaseError> {
    let before = t.clone();
    prop_assert!(t.apply(&event).is_err(), "{:?} was accepted", event);
    prop_assert_eq!(&*t, &before, "a refused event changed the tournament");
    Ok(())
}

fn must(t: &mut Tournament, events: &mut Vec<Event>, event: Event) -> Result<(), TestCaseError> {
    let applied = t.apply(&event);
    prop_assert!(applied.is_ok(), "{:?} refused: {:?}", event, applied);
    events.push(event);
    Ok(())
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
fn check_rules(
    t: &Tournament,
    rules: &Rules,
    round: &Round,
    seen: &Seen,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(check_round(t, round), Ok(()));
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

fn remember(
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

fn outcome(rng: &mut Rng, rules: &Rules, seats: &[PlayerId], leaving: Option<PlayerId>) -> Outcome {
    let mut order = seats.to_vec();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i + 1));
    }
    if let Some(l) = leaving.filter(|l| seats.contains(l)) {
        // A forfeit: the leaving player finishes last.
        order.retain(|p| *p != l);
        order.push(l);
    } else if rules.draws && !matches!(rules.format, Format::Knockout { .. }) && rng.chance(5) {
        return Outcome::Draw;
    }
    if order.len() == 2 && rng.chance(2) {
        Outcome::Winner { player: order[0] }
    } else {
        Outcome::Places { order }
    }
}

/// Play a tournament of `rules` with `players` to its end, checking every step.
fn play(rules: Rules, players: u32, seed: u64) -> Result<(), TestCaseError> {
    let mut rng = Rng(seed);
    let mut t = Tournament::new();
    let mut events = Vec::new();
    must(
        &mut t,
        &mut events,
        Event::Created {
            rules: rules.clone(),
        },
    )?;
    for i in 1..=players {
        let rating = 1000 + rng.below(50) as i32;
        must(
            &mut t,
            &mut events,
            Event::Registered {
                player: p(i.into()),
                rating,
            },
        )?;
    }
    refuse(
        &mut t,
        Event::Registered {
            player: p(1),
            rating: 0,
        },
    )?;
    refuse(&mut t, Event::Finished)?;
    let mut seen = Seen::default();
    let mut next_id = u128::from(players) + 1;
    let mut per_cycle = 1;
    while !t.is_complete() {
        prop_assert!(t.rounds_paired() < 400, "the tournament does not end");
        let number = t.rounds_paired() + 1;
        // Withdrawals before the pairing (never all but one before the start).
        if rng.chance(6) && (number > 1 || t.active_count() > 2) {
            let active: Vec<PlayerId> = t
                .entrants()
                .iter()
                .filter(|e| e.withdrawn_after.is_none())
                .map(|e| e.player)
                .collect();
            let leaver = active[rng.below(active.len())];
            refuse(
                &mut t,
                Event::Withdrawn {
                    player: leaver,
                    after_round: number,
                },
            )?;
            must(
                &mut t,
                &mut events,
                Event::Withdrawn {
                    player: leaver,
                    after_round: number - 1,
                },
            )?;
            if t.is_complete() {
                break;
            }
        }
        if number > 1 && rng.chance(3) {
            let player = p(next_id);
            next_id += 1;
            let room = t.active_count() < rules.max_players as usize;
            let accepted = attempt(
                &mut t,
                &mut events,
                Event::Registered {
                    player,
                    rating: 1000,
                },
            )?;
            let late = matches!(rules.format, Format::Swiss { .. })
                && number <= rules.late_registration_rounds;
            prop_assert_eq!(accepted, late && room);
        }
        if number == 1 {
            let field = t.seeded_players(1).len() as u32;
            per_cycle = (field + field % 2).saturating_sub(1).max(1);
        }
        let round = match pair_next_round(&t) {
            Ok(round) => round,
            Err(e) => return Err(TestCaseError::fail(format!("no round {number}: {e}"))),
        };
        check_rules(&t, &rules, &round, &seen)?;
        if let Some(table) = round.tables.first().filter(|_| rng.chance(4)) {
            let mut mutated = round.clone();
            mutated.tables[0].seats.reverse();
            if table.seats.len() > 2 || rules.sided || mutated != round {
                let _ = attempt(&mut t, &mut events, Event::RoundPaired(mutated))?;
                prop_assert_eq!(
                    t.rounds_paired(),
                    number - 1,
                    "a changed round was accepted"
                );
            }
        }
        must(&mut t, &mut events, Event::RoundPaired(round.clone()))?;
        if rng.chance(4) {
            refuse(
                &mut t,
                Event::RulesChanged {
                    rules: rules.clone(),
                },
            )?;
        }
        let leaving = match round.tables.get(rng.below(round.tables.len() + 3)) {
            Some(table) if rng.chance(4) => {
                let leaver = table.seats[0];
                must(
                    &mut t,
                    &mut events,
                    Event::Withdrawn {
                        player: leaver,
                        after_round: number,
                    },
                )?;
                Some(leaver)
            }
            _ => None,
        };
        let mut results = BTreeMap::new();
        let mut order: Vec<_> = round.tables.iter().collect();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        // One table's result is recorded twice.
        let again = round
            .tables
            .get(rng.below(round.tables.len()))
            .map_or(0, |t| t.number);
        for table in order {
            let outcome = outcome(&mut rng, &rules, &table.seats, leaving);
            let event = Event::ResultRecorded {
                round: number,
                table: table.number,
                outcome: outcome.clone(),
            };
            must(&mut t, &mut events, event.clone())?;
            if table.number == again {
                refuse(&mut t, event)?;
            }
            results.insert(table.number, outcome);
        }
        if rng.chance(4) {
            refuse(
                &mut t,
                Event::ResultRecorded {
                    round: number,
                    table: 999,
                    outcome: Outcome::Draw,
                },
            )?;
        }
        remember(
            &rules,
            &round,
            &results,
            &mut seen,
            (number - 1) / per_cycle,
        );
    }
    check_end(&rules, &t, &seen)?;
    must(&mut t, &mut events, Event::Finished)?;
    let again = Tournament::from_events(&events);
    prop_assert_eq!(
        again.as_ref(),
        Ok(&t),
        "the events fold to another tournament"
    );
    prop_assert_eq!(
        standings(&t),
        standings(&Tournament::from_events(&events).unwrap_or_default())
    );
    Ok(())
}

fn check_end(rules: &Rules, t: &Tournament, seen: &Seen) -> Result<(), TestCaseError> {
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
        }
        Format::Swiss { rounds } => {
            prop_assert!(
                t.rounds_paired() == rounds || t.seeded_players(t.rounds_paired() + 1).len() < 2
            );
        }
    }
    Ok(())
}

fn base(format: Format, table_size: u32, sided: bool, draws: bool, late: u32) -> Rules {
    Rules {
        format,
        table_size,
        min_players: 2,
        max_players: 64,
        sided,
        draws,
        late_registration_rounds: late,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES_PER_TEST, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn round_robins_are_complete(players in 2u32..=64, cycles in 1u32..=2, draws: bool, sided: bool, seed: u64) {
        play(base(Format::RoundRobin { cycles }, 2, sided, draws, 0), players, seed)?;
    }

    #[test]
    fn swiss_pairings_follow_the_rules(players in 2u32..=64, rounds in 1u32..=9, draws: bool, sided: bool, late in 0u32..=3, seed: u64) {
        play(base(Format::Swiss { rounds }, 2, sided, draws, late), players, seed)?;
    }

    #[test]
    fn swiss_tables_of_three_to_six_follow_the_rules(players in 2u32..=64, table_size in 3u32..=6, rounds in 1u32..=7, draws: bool, late in 0u32..=3, seed: u64) {
        play(base(Format::Swiss { rounds }, table_size, false, draws, late), players, seed)?;
    }

    #[test]
    fn brackets_are_consistent(players in 2u32..=64, table_size in 2u32..=6, seed: u64) {
        play(base(Format::Knockout { match_points: Some(7) }, table_size, false, false, 0), players, seed)?;
    }
}
