//! Swiss pairings for tables of two: the main criteria of the FIDE Dutch system
//! (Handbook C.04.3), computed as one minimum-cost perfect matching, as bbpPairings does.
//!
//! The players of the round are ranked by points, then rating, then registration. With
//! an odd count a "bye" vertex joins them. Every two vertices may be paired; a pairing's
//! cost is a sum of criteria, each weighing more than all those after it together (the
//! tests that check each in `tests/formats.rs`):
//! 1. a bye to a player who had one, unless all had one
//!    (`swiss_bye_to_the_lowest_ranked_once`);
//! 2. each earlier meeting of the two (`swiss_no_rematch`,
//!    `swiss_rematch_only_when_unavoidable`);
//! 3. sided games: both must have the same seat (each had it twice running, or twice
//!    more often than the other) (`swiss_seat_balance`);
//! 4. the square of each pair's score difference, so that a big float costs more than
//!    several small ones and the top score groups pair within themselves first; for the
//!    bye, its receiver's points squared, so that it goes to the lowest score group
//!    (`swiss_score_groups`, `swiss_floaters_few_and_small`);
//! 5. each pair from different score groups (a floater);
//! 6. sided games: both prefer the same seat (`swiss_seat_balance`);
//! 7. in a score group of g, the i-th should meet the (i + g/2)-th: the distance from
//!    that; a floater should meet the top of the lower group; the bye goes to the
//!    lowest-ranked (`swiss_top_half_meets_bottom_half`);
//! 8. then, between pairings as good, fewer pairs from the same half of their group (S1
//!    with S1, S2 with S2): the Dutch system's transpositions before exchanges
//!    (`swiss_seats_by_transposition_not_exchange`).
//!
//! Seats (`swiss_seat_balance`): a player's preference is absolute after the same seat
//! twice running or twice more often than the other, strong after one more, mild (the
//! other seat than last time) otherwise. The stronger preference is granted; between
//! equals, the higher-ranked player's; without any (round 1), the higher-ranked takes
//! the first seat at the first, third, … table and the second at the others (FIDE's
//! alternation of the initial colour). Games without sides seat the higher-ranked
//! player first.

use std::collections::BTreeMap;

use crate::events::{Round, Table};
use crate::history::History;
use crate::matching;
use crate::player::PlayerId;
use crate::state::Tournament;

/// Where each criterion's count starts, in bits: each field is wide enough for its
/// largest total over one round (at most 128 pairs: `rules::MAX_PLAYERS`; differences
/// below 2^8: `rules::MAX_SWISS_ROUNDS`), so no criterion outweighs one before it.
const SAME_HALF: u32 = 0; // ≤ 128 < 2^8
const DISTANCE: u32 = 8; // ≤ 128 · 255 < 2^15
const SEAT_PREFERENCE: u32 = 23; // ≤ 128
const FLOATER: u32 = 31; // ≤ 128
const FLOAT_SIZE: u32 = 39; // squares: ≤ 128 · 128² < 2^22
const SEAT_THREE: u32 = 61; // ≤ 128
const REMATCH: u32 = 69; // ≤ 128 · 64 < 2^14
const SECOND_BYE: u32 = 83; // ≤ 1

fn weigh(criterion: u32, value: u64) -> i128 {
    (value as i128) << criterion
}

/// A seat preference: the seat (0 first, 1 second) and how strong, 3 absolute … 1 mild.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preference {
    pub seat: usize,
    pub strength: u8,
}

/// The seat `seats` (in round order) make a player want.
pub fn preference(seats: &[usize]) -> Option<Preference> {
    let firsts = seats.iter().filter(|s| **s == 0).count() as i64;
    let difference = firsts - (seats.len() as i64 - firsts);
    let other = |s: usize| 1 - s.min(1);
    match seats {
        [.., a, b] if a == b => Some(Preference {
            seat: other(*b),
            strength: 3,
        }),
        _ if difference.abs() >= 2 => Some(Preference {
            seat: usize::from(difference > 0),
            strength: 3,
        }),
        _ if difference != 0 => Some(Preference {
            seat: usize::from(difference > 0),
            strength: 2,
        }),
        [.., last] => Some(Preference {
            seat: other(*last),
            strength: 1,
        }),
        [] => None,
    }
}

/// A ranked player's facts that the pairing weighs.
struct Ranked {
    player: PlayerId,
    half_points: u32,
    byes: u32,
    preference: Option<Preference>,
    /// Its place within its score group, and the group's size.
    in_group: usize,
    group_size: usize,
}

/// The players of round `round`, ranked: points, rating, registration.
pub fn ranked_players(tournament: &Tournament, history: &History, round: u32) -> Vec<PlayerId> {
    let mut players = tournament.seeded_players(round);
    // Stable: within equal points the seed order stays.
    players.sort_by_key(|p| std::cmp::Reverse(history.half_points(*p)));
    players
}

fn seats_of(history: &History, player: PlayerId) -> Vec<usize> {
    history
        .record(player)
        .map(|r| r.seats.iter().map(|(_, s)| *s).collect())
        .unwrap_or_default()
}

fn rank(tournament: &Tournament, history: &History, round: u32, sided: bool) -> Vec<Ranked> {
    let players = ranked_players(tournament, history, round);
    let points: Vec<u32> = players.iter().map(|p| history.half_points(*p)).collect();
    players
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let start = points.iter().position(|x| *x == points[i]).unwrap_or(i);
            let size = points.iter().filter(|x| **x == points[i]).count();
            Ranked {
                player: *p,
                half_points: points[i],
                byes: history.byes(*p),
                preference: if sided {
                    preference(&seats_of(history, *p))
                } else {
                    None
                },
                in_group: i - start,
                group_size: size,
            }
        })
        .collect()
}

/// How often each two of `players` have met: row-major, `n × n`.
fn meetings(history: &History, players: &[PlayerId]) -> Vec<u32> {
    let n = players.len();
    let index: BTreeMap<PlayerId, usize> =
        players.iter().enumerate().map(|(i, p)| (*p, i)).collect();
    let mut met = vec![0; n * n];
    for (a, b, times) in history.all_meetings() {
        if let (Some(i), Some(j)) = (index.get(&a), index.get(&b)) {
            met[i * n + j] = times;
            met[j * n + i] = times;
        }
    }
    met
}

/// The cost of pairing `a` with `b` (`a` ranked above `b`).
fn pair_cost(meetings: u32, a: &Ranked, b: &Ranked) -> i128 {
    let mut cost = weigh(REMATCH, meetings.into());
    if let (Some(pa), Some(pb)) = (a.preference, b.preference) {
        if pa.seat == pb.seat {
            cost += weigh(SEAT_PREFERENCE, 1);
            if pa.strength == 3 && pb.strength == 3 {
                cost += weigh(SEAT_THREE, 1);
            }
        }
    }
    let difference = a.half_points.abs_diff(b.half_points);
    if difference > 0 {
        cost += weigh(FLOATER, 1) + weigh(FLOAT_SIZE, u64::from(difference).pow(2));
        cost += weigh(DISTANCE, b.in_group as u64);
    } else {
        let half = a.group_size / 2;
        if (a.in_group < half) == (b.in_group < half) {
            cost += weigh(SAME_HALF, 1);
        }
        let ideal = a.in_group + half;
        cost += weigh(DISTANCE, b.in_group.abs_diff(ideal) as u64);
    }
    cost
}

/// The cost of giving `a` the bye, the `from_bottom`-th lowest-ranked player.
fn bye_cost(a: &Ranked, anyone_without_bye: bool, from_bottom: usize) -> i128 {
    let mut cost =
        weigh(FLOAT_SIZE, u64::from(a.half_points).pow(2)) + weigh(DISTANCE, from_bottom as u64);
    if a.byes > 0 && anyone_without_bye {
        cost += weigh(SECOND_BYE, 1);
    }
    cost
}

/// The seats of `a` (ranked higher) and `b` at the `table`-th table (0-based) of the
/// round: first seat first.
pub fn seat_pair(
    a: PlayerId,
    pa: Option<Preference>,
    b: PlayerId,
    pb: Option<Preference>,
    table: usize,
) -> [PlayerId; 2] {
    let a_first = match (pa, pb) {
        (Some(x), Some(y)) if x.seat != y.seat => x.seat == 0,
        (Some(x), Some(y)) if y.strength > x.strength => y.seat == 1,
        (Some(x), _) => x.seat == 0,
        (None, Some(y)) => y.seat == 1,
        (None, None) => table % 2 == 0,
    };
    if a_first {
        [a, b]
    } else {
        [b, a]
    }
}

/// Round `round` by the rules above (`sided`: balance the seats).
pub fn pair(tournament: &Tournament, history: &History, round: u32, sided: bool) -> Round {
    let ranked = rank(tournament, history, round, sided);
    let n = ranked.len();
    let players: Vec<PlayerId> = ranked.iter().map(|r| r.player).collect();
    let met = meetings(history, &players);
    let vertices = n + n % 2;
    let anyone_without_bye = ranked.iter().any(|r| r.byes == 0);
    let mates = matching::min_cost_perfect(vertices, |i, j| match (ranked.get(i), ranked.get(j)) {
        (Some(a), Some(b)) => pair_cost(met[i * n + j], a, b),
        (Some(a), None) => bye_cost(a, anyone_without_bye, n - 1 - i),
        _ => 0,
    });
    let mut tables = Vec::new();
    let mut byes = Vec::new();
    for (i, a) in ranked.iter().enumerate() {
        let m = mates.get(i).copied().unwrap_or(n);
        if m < i {
            continue;
        }
        match ranked.get(m) {
            Some(b) if !sided => tables.push([a.player, b.player]),
            Some(b) => tables.push(seat_pair(
                a.player,
                a.preference,
                b.player,
                b.preference,
                tables.len(),
            )),
            None => byes.push(a.player),
        }
    }
    Round {
        number: round,
        tables: tables
            .into_iter()
            .enumerate()
            .map(|(i, seats)| Table {
                number: i as u32 + 1,
                seats: seats.to_vec(),
            })
            .collect(),
        byes,
    }
}

/// Whether round `round` could be paired with no rematch (and, with an odd count, the
/// bye to a player without one, if any): the hard criterion, by matching existence.
pub fn rematch_avoidable(tournament: &Tournament, history: &History, round: u32) -> bool {
    let players = ranked_players(tournament, history, round);
    let n = players.len();
    let met = meetings(history, &players);
    let anyone_without_bye = players.iter().any(|p| history.byes(*p) == 0);
    matching::has_perfect_matching(n + n % 2, |i, j| match (players.get(i), players.get(j)) {
        (Some(_), Some(_)) => met[i * n + j] == 0,
        (Some(a), None) => history.byes(*a) == 0 || !anyone_without_bye,
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seat_preferences_follow_the_history() {
        assert_eq!(preference(&[]), None);
        assert_eq!(
            preference(&[0]),
            Some(Preference {
                seat: 1,
                strength: 2
            })
        );
        assert_eq!(
            preference(&[0, 0]),
            Some(Preference {
                seat: 1,
                strength: 3
            })
        );
        assert_eq!(
            preference(&[0, 1]),
            Some(Preference {
                seat: 0,
                strength: 1
            })
        );
        assert_eq!(
            preference(&[1, 0, 0]),
            Some(Preference {
                seat: 1,
                strength: 3
            })
        );
        assert_eq!(
            preference(&[1, 0, 1, 0]),
            Some(Preference {
                seat: 1,
                strength: 1
            })
        );
    }

    #[test]
    fn the_stronger_seat_preference_is_granted() {
        let (a, b) = (PlayerId::from_u128(1), PlayerId::from_u128(2));
        let abs_second = Some(Preference {
            seat: 1,
            strength: 3,
        });
        let mild_second = Some(Preference {
            seat: 1,
            strength: 1,
        });
        assert_eq!(seat_pair(a, mild_second, b, abs_second, 0), [a, b]);
        assert_eq!(seat_pair(a, abs_second, b, mild_second, 0), [b, a]);
        // Without preferences (round 1) the first seats alternate by table.
        assert_eq!(seat_pair(a, None, b, None, 0), [a, b]);
        assert_eq!(seat_pair(a, None, b, None, 1), [b, a]);
    }
}
