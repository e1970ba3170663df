//! Random tournaments played to the end: 10,000 cases over the four tests below (sizes
//! 2-64, random results, withdrawals and late registrations, every format, tables of
//! 2 to 6). Each round is checked against the rules from outside the pairing code; every
//! refused event must leave the state unchanged; the events fold again to the same
//! tournament and standings.

mod checks;
#[path = "../common/mod.rs"]
mod common;

use std::collections::BTreeMap;

use checks::{check_end, check_rules, remember, Seen};
use common::p;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use worp_tournament::{
    pair_next_round, standings, Event, Format, Outcome, PlayerId, Rules, Tournament,
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
