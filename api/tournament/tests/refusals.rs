//! The fold's rules: what is refused, and that a refused event changes nothing.

mod common;

use common::*;
use worp_tournament::{
    check_round, pair_next_round, Event, Format, Outcome, PairingViolation, Refusal, Round, Table,
    Tournament,
};

/// Apply `event`, expecting `refusal`, and check that nothing changed.
fn refused(t: &mut Tournament, event: Event, refusal: Refusal) {
    let before = t.clone();
    assert_eq!(t.apply(&event), Err(refusal));
    assert_eq!(*t, before, "a refused event changed the tournament");
}

#[test]
fn refuses_events_before_creation_and_a_second_creation() {
    let mut t = Tournament::new();
    refused(
        &mut t,
        Event::Registered {
            player: p(1),
            rating: 0,
        },
        Refusal::NotCreated,
    );
    t.apply(&Event::Created { rules: swiss(3) }).unwrap();
    refused(
        &mut t,
        Event::Created { rules: swiss(4) },
        Refusal::AlreadyCreated,
    );
}

#[test]
fn refuses_invalid_rules() {
    let mut t = Tournament::new();
    let rr_of_four = rules(Format::RoundRobin { cycles: 1 }, 4);
    refused(
        &mut t,
        Event::Created { rules: rr_of_four },
        Refusal::InvalidRules("a round robin is for tables of two"),
    );
    let mut late_ko = rules(
        Format::Knockout {
            match_points: Some(7),
        },
        2,
    );
    late_ko.late_registration_rounds = 2;
    assert!(matches!(
        t.apply(&Event::Created { rules: late_ko }),
        Err(Refusal::InvalidRules(_))
    ));
    let mut seven = swiss(3);
    seven.table_size = 7;
    assert!(matches!(
        t.apply(&Event::Created { rules: seven }),
        Err(Refusal::InvalidRules(_))
    ));
}

#[test]
fn refuses_joining_twice() {
    let (mut t, mut events) = with_players(swiss(3), 4);
    refused(
        &mut t,
        Event::Registered {
            player: p(2),
            rating: 1,
        },
        Refusal::AlreadyRegistered(p(2)),
    );
    apply(
        &mut t,
        &mut events,
        Event::Withdrawn {
            player: p(2),
            after_round: 0,
        },
    );
    refused(
        &mut t,
        Event::Registered {
            player: p(2),
            rating: 1,
        },
        Refusal::AlreadyRegistered(p(2)),
    );
}

#[test]
fn refuses_a_full_tournament() {
    let mut r = swiss(3);
    r.max_players = 4;
    let (mut t, mut events) = with_players(r, 4);
    refused(
        &mut t,
        Event::Registered {
            player: p(5),
            rating: 1,
        },
        Refusal::Full,
    );
    // A withdrawn player frees the place.
    apply(
        &mut t,
        &mut events,
        Event::Withdrawn {
            player: p(1),
            after_round: 0,
        },
    );
    apply(
        &mut t,
        &mut events,
        Event::Registered {
            player: p(5),
            rating: 1,
        },
    );
}

#[test]
fn refuses_joining_after_the_start() {
    let (mut t, mut events) = with_players(swiss(3), 4);
    pair(&mut t, &mut events);
    refused(
        &mut t,
        Event::Registered {
            player: p(9),
            rating: 1,
        },
        Refusal::RegistrationClosed,
    );
    let (mut ko, mut events) = with_players(rules(Format::Knockout { match_points: None }, 2), 4);
    pair(&mut ko, &mut events);
    refused(
        &mut ko,
        Event::Registered {
            player: p(9),
            rating: 1,
        },
        Refusal::RegistrationClosed,
    );
}

#[test]
fn late_registration_joins_with_zero_points() {
    let mut r = swiss(4);
    r.late_registration_rounds = 2;
    let (mut t, mut events) = with_players(r, 4);
    let one = pair(&mut t, &mut events);
    apply(
        &mut t,
        &mut events,
        Event::Registered {
            player: p(5),
            rating: 3000,
        },
    );
    record(&mut t, &mut events, &one, seed_wins);
    let two = pair(&mut t, &mut events);
    assert!(
        two.players().any(|x| x == p(5)),
        "the late player plays round 2"
    );
    let late = worp_tournament::standings(&t)
        .into_iter()
        .find(|s| s.player == p(5))
        .unwrap();
    assert_eq!(late.half_points, 0, "no points for the missed round");
    record(&mut t, &mut events, &two, seed_wins);
    pair(&mut t, &mut events);
    refused(
        &mut t,
        Event::Registered {
            player: p(6),
            rating: 1,
        },
        Refusal::RegistrationClosed,
    );
}

#[test]
fn refuses_changing_rules_after_the_start() {
    let (mut t, mut events) = with_players(swiss(3), 4);
    apply(&mut t, &mut events, Event::RulesChanged { rules: swiss(2) });
    assert_eq!(t.rules(), Some(&swiss(2)));
    let mut small = swiss(2);
    small.max_players = 3;
    refused(
        &mut t,
        Event::RulesChanged { rules: small },
        Refusal::InvalidRules("fewer places than registered players"),
    );
    pair(&mut t, &mut events);
    refused(
        &mut t,
        Event::RulesChanged { rules: swiss(5) },
        Refusal::RulesAfterStart,
    );
}

#[test]
fn refuses_the_next_round_before_all_results() {
    let (mut t, mut events) = with_players(swiss(3), 4);
    let one = pair(&mut t, &mut events);
    assert!(!t.next_round_ready());
    assert_eq!(
        pair_next_round(&t),
        Err(Refusal::RoundNotComplete { round: 1 })
    );
    let early = Round {
        number: 2,
        ..one.clone()
    };
    refused(
        &mut t,
        Event::RoundPaired(early),
        Refusal::RoundNotComplete { round: 1 },
    );
    record(&mut t, &mut events, &one, seed_wins);
    assert!(t.next_round_ready());
}

#[test]
fn refuses_a_result_recorded_twice() {
    let (mut t, mut events) = with_players(swiss(3), 4);
    let one = pair(&mut t, &mut events);
    let result = Event::ResultRecorded {
        round: 1,
        table: 1,
        outcome: seed_wins(&one.tables[0].seats),
    };
    apply(&mut t, &mut events, result.clone());
    refused(
        &mut t,
        result,
        Refusal::ResultRecordedTwice { round: 1, table: 1 },
    );
}

#[test]
fn refuses_a_result_for_a_table_not_in_the_tournament() {
    let (mut t, mut events) = with_players(swiss(3), 4);
    pair(&mut t, &mut events);
    let outcome = Outcome::Winner { player: p(1) };
    for (round, table) in [(1, 3), (2, 1), (0, 1)] {
        refused(
            &mut t,
            Event::ResultRecorded {
                round,
                table,
                outcome: outcome.clone(),
            },
            Refusal::UnknownTable { round, table },
        );
    }
}

#[test]
fn refuses_a_result_that_does_not_name_the_table() {
    let (mut t, mut events) = with_players(swiss(3), 4);
    let one = pair(&mut t, &mut events);
    let stranger = one.tables[1].seats[0];
    let event = Event::ResultRecorded {
        round: 1,
        table: 1,
        outcome: Outcome::Winner { player: stranger },
    };
    assert!(matches!(
        t.clone().apply(&event),
        Err(Refusal::ResultDoesNotFit(_))
    ));
    refused(
        &mut t,
        Event::ResultRecorded {
            round: 1,
            table: 1,
            outcome: Outcome::Places {
                order: vec![stranger],
            },
        },
        Refusal::ResultDoesNotFit(
            "the places must name seated players, each once, the first at least",
        ),
    );
}

#[test]
fn refuses_a_draw_where_the_game_has_none() {
    let (mut t, mut events) = with_players(swiss(3), 4);
    pair(&mut t, &mut events);
    refused(
        &mut t,
        Event::ResultRecorded {
            round: 1,
            table: 1,
            outcome: Outcome::Draw,
        },
        Refusal::DrawNotAllowed,
    );
    let mut hoofden = swiss(3);
    hoofden.draws = true;
    let (mut t, mut events) = with_players(hoofden, 4);
    pair(&mut t, &mut events);
    apply(
        &mut t,
        &mut events,
        Event::ResultRecorded {
            round: 1,
            table: 1,
            outcome: Outcome::Draw,
        },
    );
}

#[test]
fn refuses_a_round_paired_against_the_rules() {
    let (mut t, mut events) = with_players(swiss(3), 4);
    let good = pair_next_round(&t).unwrap();
    let mut swapped = good.clone();
    swapped.tables[0].seats.swap(0, 1);
    let mut stranger = good.clone();
    stranger.tables[0].seats[0] = p(99);
    let mut twice = good.clone();
    twice.tables[1].seats[0] = twice.tables[0].seats[0];
    let mut short = good.clone();
    short.tables.pop();
    let wrong_number = Round {
        number: 2,
        ..good.clone()
    };
    for (round, violation) in [
        (swapped, PairingViolation::NotTheRulesPairing),
        (stranger, PairingViolation::NotAPlayer(p(99))),
        (
            twice.clone(),
            PairingViolation::Twice(twice.tables[0].seats[0]),
        ),
        (
            short,
            PairingViolation::Missing(good.tables[1].seats[0].min(good.tables[1].seats[1])),
        ),
        (
            wrong_number,
            PairingViolation::WrongNumber {
                given: 2,
                expected: 1,
            },
        ),
    ] {
        assert_eq!(check_round(&t, &round), Err(violation.clone()));
        refused(
            &mut t,
            Event::RoundPaired(round),
            Refusal::Pairing(violation),
        );
    }
    apply(&mut t, &mut events, Event::RoundPaired(good));
}

#[test]
fn refuses_a_round_of_too_few_players() {
    let mut r = swiss(3);
    r.min_players = 3;
    let (t, _) = with_players(r, 2);
    assert_eq!(pair_next_round(&t), Err(Refusal::NotEnoughPlayers));
}

#[test]
fn withdrawn_player_is_not_paired_again() {
    let (mut t, mut events) = with_players(swiss(3), 5);
    let one = pair(&mut t, &mut events);
    let leaver = one.tables[0].seats[0];
    refused(
        &mut t,
        Event::Withdrawn {
            player: leaver,
            after_round: 0,
        },
        Refusal::WrongRound {
            given: 0,
            current: 1,
        },
    );
    apply(
        &mut t,
        &mut events,
        Event::Withdrawn {
            player: leaver,
            after_round: 1,
        },
    );
    refused(
        &mut t,
        Event::Withdrawn {
            player: leaver,
            after_round: 1,
        },
        Refusal::AlreadyWithdrawn(leaver),
    );
    refused(
        &mut t,
        Event::Withdrawn {
            player: p(77),
            after_round: 1,
        },
        Refusal::NotRegistered(p(77)),
    );
    // The game already paired stays: its result (a forfeit is a loss) is still recorded.
    assert!(!t.next_round_ready());
    record(&mut t, &mut events, &one, |seats| {
        let other = if seats[0] == leaver {
            seats[1]
        } else {
            seats[0]
        };
        if seats.contains(&leaver) {
            Outcome::Winner { player: other }
        } else {
            seed_wins(seats)
        }
    });
    let two = pair(&mut t, &mut events);
    assert!(two.players().all(|x| x != leaver));
    assert_eq!(two.players().count(), 4);
    let line = worp_tournament::standings(&t)
        .into_iter()
        .find(|s| s.player == leaver)
        .unwrap();
    assert!(line.withdrawn);
    assert_eq!(line.games, 1, "the withdrawn player keeps the game played");
}

#[test]
fn withdrawn_before_the_start_is_not_in_the_standings() {
    let (mut t, mut events) = with_players(swiss(3), 4);
    apply(
        &mut t,
        &mut events,
        Event::Withdrawn {
            player: p(4),
            after_round: 0,
        },
    );
    assert_eq!(worp_tournament::standings(&t).len(), 3);
    let one = pair(&mut t, &mut events);
    assert_eq!(one.byes, vec![p(3)]);
}

#[test]
fn a_time_out_is_a_loss() {
    let (mut t, mut events) = with_players(swiss(1), 2);
    let one = pair(&mut t, &mut events);
    // The server records a time-out as the other player's win.
    let loser = one.tables[0].seats[0];
    let winner = one.tables[0].seats[1];
    apply(
        &mut t,
        &mut events,
        Event::ResultRecorded {
            round: 1,
            table: 1,
            outcome: Outcome::Winner { player: winner },
        },
    );
    let s = worp_tournament::standings(&t);
    assert_eq!(
        (s[0].player, s[0].half_points, s[1].player, s[1].half_points),
        (winner, 2, loser, 0)
    );
}

#[test]
fn refuses_finishing_before_complete_and_everything_after() {
    let (mut t, mut events) = with_players(swiss(1), 2);
    refused(&mut t, Event::Finished, Refusal::NotComplete);
    let one = pair(&mut t, &mut events);
    refused(&mut t, Event::Finished, Refusal::NotComplete);
    record(&mut t, &mut events, &one, seed_wins);
    assert!(t.is_complete());
    assert_eq!(pair_next_round(&t), Err(Refusal::Complete));
    apply(&mut t, &mut events, Event::Finished);
    refused(&mut t, Event::Finished, Refusal::Finished);
    refused(
        &mut t,
        Event::Registered {
            player: p(9),
            rating: 0,
        },
        Refusal::Finished,
    );
}

#[test]
fn events_are_tagged_json() {
    let event = Event::RoundPaired(Round {
        number: 1,
        tables: vec![Table {
            number: 1,
            seats: vec![p(1), p(2)],
        }],
        byes: vec![p(3)],
    });
    let json = serde_json::to_value(&event).unwrap();
    assert_eq!(json["type"], "round_paired");
    assert_eq!(json["tables"][0]["seats"][1], p(2).to_string());
    let back: Event = serde_json::from_value(json).unwrap();
    assert_eq!(back, event);
    let created = serde_json::to_value(Event::Created { rules: swiss(5) }).unwrap();
    assert_eq!(created["type"], "created");
    assert_eq!(created["rules"]["format"]["kind"], "swiss");
    let result = serde_json::to_value(Event::ResultRecorded {
        round: 1,
        table: 1,
        outcome: Outcome::Places {
            order: vec![p(2), p(1)],
        },
    })
    .unwrap();
    assert_eq!(result["outcome"]["kind"], "places");
}
