//! The standings: a pure fold of the tournament's events, so the same events give the
//! same standings.
//!
//! Players are ranked by points, then these tie-breaks in this order:
//! 1. `buchholz`: the sum of the points of every opponent met (byes add nothing);
//! 2. `sonneborn_berger`: for each opponent met, their points times this player's result
//!    against them (1 for finishing ahead, ½ for a draw, 0 behind);
//! 3. tables of two: `direct_encounter`, the points scored against the other players
//!    still tied after 1 and 2; tables of more: `first_places`, the games won.
//!
//! Players equal on all of these share a rank. A player withdrawn before the first round
//! is not in the standings; one withdrawn later keeps the results played.

use std::collections::{BTreeMap, BTreeSet};

use crate::history::History;
use crate::player::PlayerId;
use crate::state::Tournament;

/// One line of the standings. Points are in half points; Sonneborn-Berger in quarter
/// points (half points times half points).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standing {
    /// 1 for the first; shared when all tie-breaks are equal.
    pub rank: u32,
    pub player: PlayerId,
    pub half_points: u32,
    pub buchholz: u32,
    pub sonneborn_berger: u64,
    pub direct_encounter: u32,
    pub first_places: u32,
    pub games: u32,
    pub byes: u32,
    pub withdrawn: bool,
}

impl Standing {
    fn key(&self, two_player: bool) -> (u32, u32, u64, u32) {
        let last = if two_player {
            self.direct_encounter
        } else {
            self.first_places
        };
        (self.half_points, self.buchholz, self.sonneborn_berger, last)
    }
}

/// The standings of `tournament`, best first.
pub fn standings(tournament: &Tournament) -> Vec<Standing> {
    let history = History::of(tournament);
    let two_player = tournament.rules().is_none_or(|r| r.is_two_player());
    let mut lines: Vec<Standing> = tournament
        .entrants()
        .iter()
        .filter(|e| !e.left_before_start())
        .map(|e| {
            let record = history.record(e.player).cloned().unwrap_or_default();
            let opponents = record.games.iter().flat_map(|g| g.opponents.iter());
            Standing {
                rank: 0,
                player: e.player,
                half_points: record.half_points,
                buchholz: opponents
                    .clone()
                    .map(|(o, _)| history.half_points(*o))
                    .sum(),
                sonneborn_berger: opponents
                    .map(|(o, result)| u64::from(*result) * u64::from(history.half_points(*o)))
                    .sum(),
                direct_encounter: 0,
                first_places: record.games.iter().filter(|g| g.first_place).count() as u32,
                games: record.games.len() as u32,
                byes: record.byes,
                withdrawn: e.withdrawn_after.is_some(),
            }
        })
        .collect();
    if two_player {
        direct_encounters(&history, &mut lines);
    }
    // Stable: players tied on everything stay in registration order.
    lines.sort_by_key(|l| std::cmp::Reverse(l.key(two_player)));
    for i in 0..lines.len() {
        lines[i].rank = if i > 0 && lines[i].key(two_player) == lines[i - 1].key(two_player) {
            lines[i - 1].rank
        } else {
            i as u32 + 1
        };
    }
    lines
}

/// Each player's points against the others tied with them on points, Buchholz and
/// Sonneborn-Berger.
fn direct_encounters(history: &History, lines: &mut [Standing]) {
    let key = |l: &Standing| (l.half_points, l.buchholz, l.sonneborn_berger);
    let mut groups: BTreeMap<(u32, u32, u64), BTreeSet<PlayerId>> = BTreeMap::new();
    for line in lines.iter() {
        groups.entry(key(line)).or_default().insert(line.player);
    }
    for line in lines.iter_mut() {
        let Some(tied) = groups.get(&key(line)).filter(|t| t.len() > 1) else {
            continue;
        };
        line.direct_encounter = history.record(line.player).map_or(0, |r| {
            r.games
                .iter()
                .flat_map(|g| g.opponents.iter())
                .filter(|(o, _)| tied.contains(o))
                .map(|(_, result)| *result)
                .sum()
        });
    }
}
