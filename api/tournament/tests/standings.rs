//! The standings' rules: points, then Buchholz, Sonneborn-Berger, direct encounter or
//! first places; shared ranks; a pure fold.

mod common;

use common::*;
use worp_tournament::{standings, Event, Format, Outcome, PlayerId, Tournament};

/// A four-player round robin with draws, each table's result given as the first seat's
/// half points (2 win, 1 draw, 0 loss), in the Berger order 1-4, 2-3 | 4-3, 1-2 | 2-4, 3-1.
fn round_robin_of_four(results: [u32; 6]) -> (Tournament, Vec<Event>) {
    let mut r = rules(Format::RoundRobin { cycles: 1 }, 2);
    r.draws = true;
    let (mut t, mut events) = with_players(r, 4);
    let mut results = results.into_iter();
    for _ in 0..3 {
        let round = pair(&mut t, &mut events);
        record(
            &mut t,
            &mut events,
            &round,
            |seats: &[PlayerId]| match results.next() {
                Some(2) => Outcome::Winner { player: seats[0] },
                Some(0) => Outcome::Winner { player: seats[1] },
                _ => Outcome::Draw,
            },
        );
    }
    (t, events)
}

fn line(t: &Tournament, n: u128) -> worp_tournament::Standing {
    standings(t).into_iter().find(|s| s.player == p(n)).unwrap()
}

#[test]
fn points_win_draw_loss() {
    let (t, _) = round_robin_of_four([2, 1, 2, 1, 2, 2]);
    // 1: W D L = 1½; 2: D D W = 2; 3: D L W = 1½; 4: L W L = 1.
    let points: Vec<_> = (1..=4).map(|n| line(&t, n).half_points).collect();
    assert_eq!(points, vec![3, 4, 3, 2]);
}

#[test]
fn buchholz_then_sonneborn_berger() {
    let (t, _) = round_robin_of_four([2, 1, 2, 1, 2, 2]);
    let (one, three) = (line(&t, 1), line(&t, 3));
    assert_eq!((one.buchholz, three.buchholz), (9, 9));
    // 1 beat 4 (1 pt), drew 2 (2 pts): 2·2 + 1·4 = 8 quarter points; 3 drew 2, beat 1.
    assert_eq!((one.sonneborn_berger, three.sonneborn_berger), (8, 10));
    let order: Vec<_> = standings(&t).iter().map(|s| (s.rank, s.player)).collect();
    assert_eq!(order, vec![(1, p(2)), (2, p(3)), (3, p(1)), (4, p(4))]);
}

#[test]
fn direct_encounter() {
    // 1 and 4 tie on points (1½), Buchholz (4½) and Sonneborn-Berger; 4 beat 1.
    let (t, _) = round_robin_of_four([0, 0, 0, 2, 1, 1]);
    let (one, four) = (line(&t, 1), line(&t, 4));
    assert_eq!(
        (one.half_points, one.buchholz, one.sonneborn_berger),
        (four.half_points, four.buchholz, four.sonneborn_berger)
    );
    assert_eq!((one.direct_encounter, four.direct_encounter), (0, 2));
    assert_eq!((four.rank, one.rank), (2, 3));
}

#[test]
fn shared_rank_when_all_equal() {
    let (mut t, mut events) = with_players(rules(Format::RoundRobin { cycles: 2 }, 2), 2);
    let one = pair(&mut t, &mut events);
    record(&mut t, &mut events, &one, seed_wins);
    let two = pair(&mut t, &mut events);
    record(&mut t, &mut events, &two, |_| Outcome::Winner {
        player: p(2),
    });
    let ranks: Vec<_> = standings(&t).iter().map(|s| s.rank).collect();
    assert_eq!(ranks, vec![1, 1]);
}

#[test]
fn first_places_for_multi_player_tables() {
    // Two rounds at tables of three: 1 and 2 end on equal points, Buchholz and
    // Sonneborn-Berger; 2 won a table, 1 did not.
    let (mut t, mut events) = with_players(rules(Format::Swiss { rounds: 2 }, 3), 3);
    let one = pair(&mut t, &mut events);
    record(&mut t, &mut events, &one, |_| Outcome::Places {
        order: vec![p(2), p(3), p(1)],
    });
    let two = pair(&mut t, &mut events);
    record(&mut t, &mut events, &two, |_| Outcome::Places {
        order: vec![p(3), p(1), p(2)],
    });
    let (a, b) = (line(&t, 1), line(&t, 2));
    assert_eq!((a.half_points, b.half_points), (2, 4));
    assert_eq!((a.first_places, b.first_places), (0, 1));
    let three = line(&t, 3);
    assert_eq!(
        (three.half_points, three.first_places, three.rank),
        (6, 1, 1)
    );
}

#[test]
fn standings_are_a_pure_fold() {
    let (t, events) = round_robin_of_four([2, 1, 2, 1, 2, 2]);
    let again = Tournament::from_events(&events).unwrap();
    assert_eq!(again, t);
    assert_eq!(standings(&again), standings(&t));
}

#[test]
fn multi_player_draw_shares_the_points() {
    let mut r = rules(Format::Swiss { rounds: 1 }, 4);
    r.draws = true;
    let (mut t, mut events) = with_players(r, 4);
    let one = pair(&mut t, &mut events);
    record(&mut t, &mut events, &one, |_| Outcome::Draw);
    // (4 - 1) / 2 = 1½ points each, a shared first place.
    for s in standings(&t) {
        assert_eq!((s.half_points, s.rank, s.first_places), (3, 1, 0));
    }
}

#[test]
fn a_bye_adds_nothing_to_buchholz() {
    let (mut t, mut events) = with_players(swiss(1), 3);
    let one = pair(&mut t, &mut events);
    record(&mut t, &mut events, &one, seed_wins);
    let bye = line(&t, 3);
    assert_eq!(
        (bye.half_points, bye.buchholz, bye.sonneborn_berger),
        (2, 0, 0)
    );
    // 1 beat 2: 1's Buchholz is 2's points, 0.
    assert_eq!((line(&t, 1).buchholz, line(&t, 2).buchholz), (0, 2));
}
