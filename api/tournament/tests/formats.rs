//! One test per pairing rule of each format (docs/tournaments.md names them).

mod common;

use std::collections::BTreeSet;

use common::*;
use worp_tournament::{
    check_round, pair_next_round, Event, Format, Outcome, PairingViolation, PlayerId, Round, Table,
};

fn round_robin(cycles: u32) -> worp_tournament::Rules {
    rules(Format::RoundRobin { cycles }, 2)
}

fn knockout(table_size: u32) -> worp_tournament::Rules {
    rules(
        Format::Knockout {
            match_points: Some(7),
        },
        table_size,
    )
}

#[test]
fn round_robin_pairs_by_berger_tables() {
    // Seeds 1..4 are the Berger numbers: FIDE's table for four.
    let (mut t, mut events) = with_players(round_robin(1), 4);
    let expected = [
        vec![(p(1), p(4)), (p(2), p(3))],
        vec![(p(4), p(3)), (p(1), p(2))],
        vec![(p(2), p(4)), (p(3), p(1))],
    ];
    for want in expected {
        let round = pair(&mut t, &mut events);
        assert_eq!(pairs(&round), want);
        record(&mut t, &mut events, &round, seed_wins);
    }
    assert!(t.is_complete());
}

#[test]
fn round_robin_numbers_follow_the_ratings() {
    let mut events = vec![Event::Created {
        rules: round_robin(1),
    }];
    for (i, rating) in [(1, 1500), (2, 1900), (3, 1700), (4, 1900)] {
        events.push(Event::Registered {
            player: p(i),
            rating,
        });
    }
    let t = worp_tournament::Tournament::from_events(&events).unwrap();
    // Numbers: 2 (1900, registered first), 4, 3, 1.
    assert_eq!(
        pairs(&pair_next_round(&t).unwrap()),
        vec![(p(2), p(1)), (p(4), p(3))]
    );
}

#[test]
fn double_round_robin_swaps_seats() {
    let (mut t, mut events) = with_players(round_robin(2), 4);
    let mut rounds = Vec::new();
    while !t.is_complete() {
        let round = pair(&mut t, &mut events);
        record(&mut t, &mut events, &round, seed_wins);
        rounds.push(round);
    }
    assert_eq!(rounds.len(), 6);
    for r in 0..3 {
        let second: Vec<_> = pairs(&rounds[r]).into_iter().map(|(a, b)| (b, a)).collect();
        assert_eq!(pairs(&rounds[r + 3]), second);
    }
}

#[test]
fn odd_round_robin_gives_the_dummy_a_bye() {
    let (mut t, mut events) = with_players(round_robin(1), 5);
    let mut byes = Vec::new();
    let mut met = BTreeSet::new();
    while !t.is_complete() {
        let round = pair(&mut t, &mut events);
        assert_eq!(round.byes.len(), 1);
        byes.extend(round.byes.iter().copied());
        for (a, b) in pairs(&round) {
            assert!(met.insert((a.min(b), a.max(b))));
        }
        record(&mut t, &mut events, &round, seed_wins);
    }
    byes.sort();
    assert_eq!(
        byes,
        (1..=5).map(p).collect::<Vec<_>>(),
        "each player sits out once"
    );
    assert_eq!(met.len(), 10);
}

#[test]
fn round_robin_withdrawn_opponent_is_a_bye() {
    let (mut t, mut events) = with_players(round_robin(1), 4);
    let one = pair(&mut t, &mut events);
    record(&mut t, &mut events, &one, seed_wins);
    apply(
        &mut t,
        &mut events,
        Event::Withdrawn {
            player: p(3),
            after_round: 1,
        },
    );
    let two = pair(&mut t, &mut events);
    // Round 2 was 4-3, 1-2: player 4 sits out.
    assert_eq!(pairs(&two), vec![(p(1), p(2))]);
    assert_eq!(two.byes, vec![p(4)]);
}

#[test]
fn swiss_top_half_meets_bottom_half() {
    let (t, _) = with_players(swiss(3), 8);
    let one = pair_next_round(&t).unwrap();
    let mut met: Vec<_> = pairs(&one)
        .into_iter()
        .map(|(a, b)| (a.min(b), a.max(b)))
        .collect();
    met.sort();
    assert_eq!(
        met,
        vec![(p(1), p(5)), (p(2), p(6)), (p(3), p(7)), (p(4), p(8))]
    );
}

#[test]
fn swiss_score_groups() {
    let (mut t, mut events) = with_players(swiss(3), 8);
    let one = pair(&mut t, &mut events);
    record(&mut t, &mut events, &one, seed_wins);
    let two = pair(&mut t, &mut events);
    for (a, b) in pairs(&two) {
        let winners = [p(1), p(2), p(3), p(4)];
        assert_eq!(
            winners.contains(&a),
            winners.contains(&b),
            "winners meet winners"
        );
    }
}

#[test]
fn swiss_floaters_few_and_small() {
    // Round 1: 1-4, 2-5, 3-6, the higher seeds win. Round 2: the groups of three need
    // one floater: the lowest of the winners (3, who met 6) meets the top of the rest.
    let (mut t, mut events) = with_players(swiss(3), 6);
    let one = pair(&mut t, &mut events);
    record(&mut t, &mut events, &one, seed_wins);
    let two = pair(&mut t, &mut events);
    let mut met: Vec<_> = pairs(&two)
        .into_iter()
        .map(|(a, b)| (a.min(b), a.max(b)))
        .collect();
    met.sort();
    assert_eq!(met, vec![(p(1), p(2)), (p(3), p(4)), (p(5), p(6))]);
}

#[test]
fn swiss_floats_are_small_rather_than_few() {
    // Sixteen players, five rounds, the higher seed always wins: the leader floats one
    // group down rather than meeting the last player, so no pair is more than a point
    // apart.
    let mut r = swiss(5);
    r.sided = true;
    let (mut t, mut events) = with_players(r, 16);
    for _ in 0..5 {
        let round = pair(&mut t, &mut events);
        let s = worp_tournament::standings(&t);
        let points = |x: PlayerId| {
            s.iter()
                .find(|l| l.player == x)
                .map_or(0, |l| l.half_points)
        };
        for (a, b) in pairs(&round) {
            assert!(
                points(a).abs_diff(points(b)) <= 2,
                "round {}: {a} v {b}",
                round.number
            );
        }
        record(&mut t, &mut events, &round, seed_wins);
    }
}

#[test]
fn swiss_seats_by_transposition_not_exchange() {
    // Round 2 of sixteen, sided: the eight winners had seats 1st, 2nd, 1st, 2nd, … in
    // round 1. S1 (1-4) still meets S2 (5-8), with S2 transposed so that every pair
    // wants different seats: 1-6, 2-5, 3-8, 4-7; no S1 player meets another.
    let mut r = swiss(5);
    r.sided = true;
    let (mut t, mut events) = with_players(r, 16);
    let one = pair(&mut t, &mut events);
    record(&mut t, &mut events, &one, seed_wins);
    let two = pair(&mut t, &mut events);
    let top: Vec<_> = pairs(&two)
        .into_iter()
        .map(|(a, b)| (a.min(b), a.max(b)))
        .filter(|(a, _)| *a <= p(8))
        .collect();
    assert_eq!(
        top,
        vec![(p(1), p(6)), (p(2), p(5)), (p(3), p(8)), (p(4), p(7))]
    );
    // Each of them gets the seat it wants: the other one than in round 1.
    for (first, second) in pairs(&two).into_iter().filter(|(a, _)| *a <= p(8)) {
        assert!(
            first.0.as_u128() % 2 == 0,
            "{first} had the second seat in round 1"
        );
        assert!(
            second.0.as_u128() % 2 == 1,
            "{second} had the first seat in round 1"
        );
    }
}

#[test]
fn swiss_no_rematch() {
    let (mut t, mut events) = with_players(swiss(5), 6);
    let mut met = BTreeSet::new();
    for _ in 0..5 {
        let round = pair(&mut t, &mut events);
        for (a, b) in pairs(&round) {
            assert!(
                met.insert((a.min(b), a.max(b))),
                "a rematch in round {}",
                round.number
            );
        }
        record(&mut t, &mut events, &round, seed_wins);
    }
}

#[test]
fn swiss_rematch_only_when_unavoidable() {
    // Two players, three rounds: they must meet again.
    let (mut t, mut events) = with_players(swiss(3), 2);
    for _ in 0..3 {
        let round = pair(&mut t, &mut events);
        assert_eq!(round.tables.len(), 1);
        record(&mut t, &mut events, &round, seed_wins);
    }
    // And an avoidable one is refused by the audit.
    let (mut t, mut events) = with_players(swiss(3), 4);
    let one = pair(&mut t, &mut events);
    record(&mut t, &mut events, &one, seed_wins);
    let again = Round {
        number: 2,
        tables: one.tables.clone(),
        byes: vec![],
    };
    let (a, b) = (one.tables[0].seats[0], one.tables[0].seats[1]);
    assert_eq!(
        check_round(&t, &again),
        Err(PairingViolation::AvoidableRematch(a, b))
    );
}

#[test]
fn swiss_bye_to_the_lowest_ranked_once() {
    let (mut t, mut events) = with_players(swiss(5), 5);
    let mut had = BTreeSet::new();
    for _ in 0..5 {
        let round = pair(&mut t, &mut events);
        assert_eq!(round.byes.len(), 1);
        assert!(had.insert(round.byes[0]), "a second bye");
        if round.number == 1 {
            assert_eq!(round.byes, vec![p(5)], "the lowest-ranked");
        }
        record(&mut t, &mut events, &round, seed_wins);
    }
    // A second bye is refused while someone has had none.
    let (mut t, mut events) = with_players(swiss(3), 3);
    let one = pair(&mut t, &mut events);
    record(&mut t, &mut events, &one, seed_wins);
    let others: Vec<_> = (1..=3).map(p).filter(|x| *x != one.byes[0]).collect();
    let second = Round {
        number: 2,
        tables: vec![Table {
            number: 1,
            seats: others,
        }],
        byes: one.byes.clone(),
    };
    assert_eq!(
        check_round(&t, &second),
        Err(PairingViolation::SecondBye(one.byes[0]))
    );
}

#[test]
fn swiss_bye_is_worth_a_win() {
    let (mut t, mut events) = with_players(swiss(1), 3);
    let one = pair(&mut t, &mut events);
    record(&mut t, &mut events, &one, seed_wins);
    let s = worp_tournament::standings(&t);
    let bye = s.iter().find(|l| l.player == one.byes[0]).unwrap();
    assert_eq!((bye.half_points, bye.byes, bye.games), (2, 1, 0));
}

#[test]
fn swiss_seat_balance() {
    let mut r = swiss(6);
    r.sided = true;
    let (mut t, mut events) = with_players(r, 8);
    let mut seats: std::collections::BTreeMap<_, Vec<usize>> = Default::default();
    for _ in 0..6 {
        let round = pair(&mut t, &mut events);
        if round.number == 1 {
            // The first seats alternate by table, as FIDE alternates the initial colour.
            let first = vec![(p(1), p(5)), (p(6), p(2)), (p(3), p(7)), (p(8), p(4))];
            assert_eq!(pairs(&round), first);
        }
        for table in &round.tables {
            for (seat, player) in table.seats.iter().enumerate() {
                seats.entry(*player).or_default().push(seat);
            }
        }
        record(&mut t, &mut events, &round, seed_wins);
    }
    for (player, s) in seats {
        let firsts = s.iter().filter(|x| **x == 0).count();
        assert!(firsts.abs_diff(s.len() - firsts) <= 2, "{player}: {s:?}");
        assert!(
            !s.windows(3).any(|w| w[0] == w[1] && w[1] == w[2]),
            "{player}: {s:?}"
        );
    }
}

#[test]
fn groups_by_score() {
    let (mut t, mut events) = with_players(rules(Format::Swiss { rounds: 3 }, 4), 8);
    let one = pair(&mut t, &mut events);
    let mut tables: Vec<BTreeSet<_>> = one
        .tables
        .iter()
        .map(|t| t.seats.iter().copied().collect())
        .collect();
    tables.sort();
    assert_eq!(
        tables,
        vec![(1..=4).map(p).collect(), (5..=8).map(p).collect()]
    );
    record(&mut t, &mut events, &one, seed_wins);
    let two = pair(&mut t, &mut events);
    // Nobody meets the same three again; the winners of round one sit together.
    let top: BTreeSet<_> = two.tables[0].seats.iter().copied().collect();
    assert!(top.contains(&p(1)) && top.contains(&p(5)));
}

#[test]
fn groups_few_repeat_meetings() {
    let (mut t, mut events) = with_players(rules(Format::Swiss { rounds: 2 }, 3), 9);
    let one = pair(&mut t, &mut events);
    record(&mut t, &mut events, &one, seed_wins);
    let two = pair(&mut t, &mut events);
    for table in &two.tables {
        for a in &table.seats {
            for b in &table.seats {
                let before = one
                    .tables
                    .iter()
                    .any(|t| a != b && t.seats.contains(a) && t.seats.contains(b));
                assert!(!before, "{a} and {b} meet again");
            }
        }
    }
}

#[test]
fn groups_table_sizes_never_one() {
    let (t, _) = with_players(rules(Format::Swiss { rounds: 1 }, 6), 7);
    let one = pair_next_round(&t).unwrap();
    let sizes: Vec<_> = one.tables.iter().map(|t| t.seats.len()).collect();
    assert_eq!(sizes, vec![4, 3]);
    let mut uneven = one.clone();
    let moved = uneven.tables[1].seats.pop().unwrap();
    uneven.tables[0].seats.push(moved);
    assert_eq!(
        check_round(&t, &uneven),
        Err(PairingViolation::UnevenTables)
    );
}

#[test]
fn groups_seat_rotation() {
    let (mut t, mut events) = with_players(rules(Format::Swiss { rounds: 2 }, 4), 4);
    let one = pair(&mut t, &mut events);
    assert_eq!(one.tables[0].seats, (1..=4).map(p).collect::<Vec<_>>());
    record(&mut t, &mut events, &one, seed_wins);
    let two = pair(&mut t, &mut events);
    assert_eq!(
        two.tables[0].seats,
        (1..=4).rev().map(p).collect::<Vec<_>>()
    );
}

#[test]
fn multi_player_places_score_k_minus_one_down_to_zero() {
    let (mut t, mut events) = with_players(rules(Format::Swiss { rounds: 1 }, 4), 4);
    let one = pair(&mut t, &mut events);
    record(&mut t, &mut events, &one, seed_wins);
    let points: Vec<_> = worp_tournament::standings(&t)
        .iter()
        .map(|s| s.half_points)
        .collect();
    assert_eq!(points, vec![6, 4, 2, 0]);
}

/// A game that ends at its first winner places only the winner: the others share the
/// places left (1 point each at a table of four, as 2, 1 and 0 would average), tie with
/// each other in Sonneborn-Berger's pairwise results, and are behind the winner.
#[test]
fn multi_player_winner_only_leaves_the_others_sharing_the_places_left() {
    let (mut t, mut events) = with_players(rules(Format::Swiss { rounds: 1 }, 4), 4);
    let one = pair(&mut t, &mut events);
    record(&mut t, &mut events, &one, |seats| Outcome::Places {
        order: vec![seats[2]],
    });
    let standings = worp_tournament::standings(&t);
    let points: Vec<_> = standings.iter().map(|s| s.half_points).collect();
    assert_eq!(points, vec![6, 2, 2, 2]);
    assert_eq!(standings[0].player, one.tables[0].seats[2]);
    assert_eq!(standings[0].first_places, 1);
    assert!(standings[1..].iter().all(|s| s.rank == standings[1].rank));
}

#[test]
fn knockout_seeded_bracket() {
    let (mut t, mut events) = with_players(knockout(2), 8);
    let one = pair(&mut t, &mut events);
    assert_eq!(
        pairs(&one),
        vec![(p(1), p(8)), (p(4), p(5)), (p(2), p(7)), (p(3), p(6))]
    );
    // Upsets at table 2: 5 beats 4.
    record(&mut t, &mut events, &one, |s| {
        if s.contains(&p(5)) {
            Outcome::Winner { player: p(5) }
        } else {
            seed_wins(s)
        }
    });
    let two = pair(&mut t, &mut events);
    assert_eq!(pairs(&two), vec![(p(1), p(5)), (p(2), p(3))]);
    record(&mut t, &mut events, &two, seed_wins);
    let final_ = pair(&mut t, &mut events);
    assert_eq!(pairs(&final_), vec![(p(1), p(2))]);
    record(&mut t, &mut events, &final_, seed_wins);
    assert!(t.is_complete());
    assert_eq!(t.champion(), Some(p(1)));
    apply(&mut t, &mut events, Event::Finished);
}

#[test]
fn knockout_byes_to_top_seeds() {
    let (mut t, mut events) = with_players(knockout(2), 6);
    let one = pair(&mut t, &mut events);
    assert_eq!(one.byes, vec![p(1), p(2)]);
    assert_eq!(pairs(&one), vec![(p(4), p(5)), (p(3), p(6))]);
    record(&mut t, &mut events, &one, seed_wins);
    let two = pair(&mut t, &mut events);
    assert_eq!(pairs(&two), vec![(p(1), p(4)), (p(2), p(3))]);
}

#[test]
fn knockout_refuses_draws() {
    let mut r = knockout(2);
    r.draws = true;
    assert!(r.invalid().is_some());
    let (mut t, mut events) = with_players(knockout(2), 2);
    pair(&mut t, &mut events);
    let draw = Event::ResultRecorded {
        round: 1,
        table: 1,
        outcome: Outcome::Draw,
    };
    assert_eq!(
        t.apply(&draw),
        Err(worp_tournament::Refusal::DrawNotAllowed)
    );
}

#[test]
fn knockout_tables_of_four_winner_advances() {
    let (mut t, mut events) = with_players(knockout(4), 10);
    let one = pair(&mut t, &mut events);
    // 16 places, 10 players: four tables of the snake, none of one player.
    assert_eq!(one.tables.len(), 4);
    assert!(one.byes.is_empty());
    assert_eq!(one.tables[0].seats, vec![p(1), p(8), p(9)]);
    record(&mut t, &mut events, &one, seed_wins);
    let two = pair(&mut t, &mut events);
    assert_eq!(two.tables.len(), 1);
    let mut finalists = two.tables[0].seats.clone();
    finalists.sort();
    assert_eq!(finalists, (1..=4).map(p).collect::<Vec<_>>());
    record(&mut t, &mut events, &two, seed_wins);
    assert_eq!(t.champion(), Some(p(1)));
}

#[test]
fn knockout_withdrawn_players_place_is_a_bye() {
    let (mut t, mut events) = with_players(knockout(2), 8);
    let one = pair(&mut t, &mut events);
    record(&mut t, &mut events, &one, seed_wins);
    apply(
        &mut t,
        &mut events,
        Event::Withdrawn {
            player: p(4),
            after_round: 1,
        },
    );
    let two = pair_next_round(&t).unwrap();
    assert_eq!(pairs(&two), vec![(p(2), p(3))]);
    assert_eq!(two.byes, vec![p(1)]);
    let without_bye = Round {
        byes: vec![],
        ..two.clone()
    };
    assert!(check_round(&t, &without_bye).is_err());
    // The last opponent leaving decides the bracket.
    apply(&mut t, &mut events, Event::RoundPaired(two.clone()));
    record(&mut t, &mut events, &two, seed_wins);
    apply(
        &mut t,
        &mut events,
        Event::Withdrawn {
            player: p(2),
            after_round: 2,
        },
    );
    assert!(t.is_complete());
    assert_eq!(t.champion(), Some(p(1)));
}
