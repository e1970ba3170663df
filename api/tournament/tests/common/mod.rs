//! Builders shared by the tests: rules, players, rounds played with given results.
#![allow(dead_code)]

use worp_tournament::{
    pair_next_round, Event, Format, Outcome, PlayerId, Round, Rules, Tournament,
};

pub fn p(n: u128) -> PlayerId {
    PlayerId::from_u128(n)
}

pub fn rules(format: Format, table_size: u32) -> Rules {
    Rules {
        format,
        table_size,
        min_players: 2,
        max_players: 64,
        sided: false,
        draws: false,
        late_registration_rounds: 0,
    }
}

pub fn swiss(rounds: u32) -> Rules {
    rules(Format::Swiss { rounds }, 2)
}

/// A tournament of `rules` with players 1..=n, rated so that player 1 is the top seed.
pub fn with_players(rules: Rules, n: u128) -> (Tournament, Vec<Event>) {
    let mut events = vec![Event::Created { rules }];
    for i in 1..=n {
        events.push(Event::Registered {
            player: p(i),
            rating: 2000 - i as i32,
        });
    }
    let t = Tournament::from_events(&events).expect("a valid tournament");
    (t, events)
}

/// Apply `event`, panicking with the refusal, and keep it.
pub fn apply(t: &mut Tournament, events: &mut Vec<Event>, event: Event) {
    if let Err(e) = t.apply(&event) {
        panic!("{event:?} refused: {e}");
    }
    events.push(event);
}

/// Pair the next round and apply it.
pub fn pair(t: &mut Tournament, events: &mut Vec<Event>) -> Round {
    let round = pair_next_round(t).expect("a round to pair");
    apply(t, events, Event::RoundPaired(round.clone()));
    round
}

/// Record every table of `round` as `result(seats)` decides.
pub fn record(
    t: &mut Tournament,
    events: &mut Vec<Event>,
    round: &Round,
    mut result: impl FnMut(&[PlayerId]) -> Outcome,
) {
    for table in &round.tables {
        let outcome = result(&table.seats);
        apply(
            t,
            events,
            Event::ResultRecorded {
                round: round.number,
                table: table.number,
                outcome,
            },
        );
    }
}

/// The lower player number (the higher seed) wins every table of two; places by seed.
pub fn seed_wins(seats: &[PlayerId]) -> Outcome {
    let mut order = seats.to_vec();
    order.sort();
    if order.len() == 2 {
        Outcome::Winner { player: order[0] }
    } else {
        Outcome::Places { order }
    }
}

/// Pairs of a round as (first seat, second seat).
pub fn pairs(round: &Round) -> Vec<(PlayerId, PlayerId)> {
    round
        .tables
        .iter()
        .map(|t| (t.seats[0], t.seats[1]))
        .collect()
}
