//! Each player's tournament so far, read from the rounds and their results: points,
//! opponents, seats, byes. Pairings and standings are computed from it.
//!
//! Points are counted in half points (`u32`): at a table of `s` players the finisher in
//! place `p` (0 for first) gets `s - 1 - p` points, so a win at a table of two is one
//! point and a loss none; a draw gives everyone at the table `(s - 1) / 2` points (½ at
//! a table of two). A bye is worth one point.

use std::collections::BTreeMap;

use crate::events::{Outcome, Table};
use crate::player::PlayerId;
use crate::state::Tournament;

/// A bye's worth in half points: a win at a table of two.
pub const BYE_HALF_POINTS: u32 = 2;

/// One finished game of a player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    pub round: u32,
    /// 0 for the first seat.
    pub seat: usize,
    pub table_size: usize,
    /// Each opponent with this player's result against them in half points: 2 for
    /// finishing ahead, 1 for a draw, 0 for finishing behind.
    pub opponents: Vec<(PlayerId, u32)>,
    pub half_points: u32,
    pub first_place: bool,
}

/// A player's record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    pub half_points: u32,
    pub byes: u32,
    pub games: Vec<Game>,
    /// For each round the player was seated in (result or not): the round and the seat.
    pub seats: Vec<(u32, usize)>,
}

/// Every player's record, and how often each two players have met.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct History {
    pub records: BTreeMap<PlayerId, Record>,
    meetings: BTreeMap<(PlayerId, PlayerId), u32>,
}

fn key(a: PlayerId, b: PlayerId) -> (PlayerId, PlayerId) {
    if a < b {
        (a, b)
    } else {
        (b, a)
    }
}

impl History {
    pub fn of(tournament: &Tournament) -> Self {
        let mut history = History::default();
        for e in &tournament.entrants {
            history.records.insert(e.player, Record::default());
        }
        for record in &tournament.rounds {
            let number = record.round.number;
            for player in &record.round.byes {
                let r = history.records.entry(*player).or_default();
                r.byes += 1;
                r.half_points += BYE_HALF_POINTS;
            }
            for table in &record.round.tables {
                history.seat(number, table);
                if let Some(outcome) = record.results.get(&table.number) {
                    history.score(number, table, outcome);
                }
            }
        }
        history
    }

    fn seat(&mut self, round: u32, table: &Table) {
        for (i, a) in table.seats.iter().enumerate() {
            self.records.entry(*a).or_default().seats.push((round, i));
            for b in &table.seats[i + 1..] {
                *self.meetings.entry(key(*a, *b)).or_default() += 1;
            }
        }
    }

    fn score(&mut self, round: u32, table: &Table, outcome: &Outcome) {
        let size = table.seats.len();
        for (seat, player) in table.seats.iter().enumerate() {
            let opponents = table
                .seats
                .iter()
                .filter(|o| *o != player)
                .map(|o| (*o, pairwise(outcome, *player, *o)))
                .collect();
            let game = Game {
                round,
                seat,
                table_size: size,
                opponents,
                half_points: half_points(outcome, size, *player),
                first_place: first(outcome) == Some(*player),
            };
            let r = self.records.entry(*player).or_default();
            r.half_points += game.half_points;
            r.games.push(game);
        }
    }

    /// How many times `a` and `b` have sat at one table.
    pub fn meetings(&self, a: PlayerId, b: PlayerId) -> u32 {
        self.meetings.get(&key(a, b)).copied().unwrap_or(0)
    }

    /// Every two players who have met, with how often.
    pub fn all_meetings(&self) -> impl Iterator<Item = (PlayerId, PlayerId, u32)> + '_ {
        self.meetings.iter().map(|((a, b), n)| (*a, *b, *n))
    }

    pub fn half_points(&self, player: PlayerId) -> u32 {
        self.records.get(&player).map_or(0, |r| r.half_points)
    }

    pub fn byes(&self, player: PlayerId) -> u32 {
        self.records.get(&player).map_or(0, |r| r.byes)
    }

    pub fn record(&self, player: PlayerId) -> Option<&Record> {
        self.records.get(&player)
    }
}

/// The place (0 first) of `player` in `outcome`, `None` for a draw.
fn place(outcome: &Outcome, player: PlayerId) -> Option<usize> {
    match outcome {
        Outcome::Winner { player: w } => Some(usize::from(*w != player)),
        Outcome::Draw => None,
        Outcome::Places { order } => order.iter().position(|p| *p == player),
    }
}

fn first(outcome: &Outcome) -> Option<PlayerId> {
    match outcome {
        Outcome::Winner { player } => Some(*player),
        Outcome::Draw => None,
        Outcome::Places { order } => order.first().copied(),
    }
}

/// The half points of `player` at a table of `size` that ended in `outcome`. Places
/// given for the first `k` only (a game that ends at its first winner) leave the others
/// sharing places `k` to `size - 1`: `size - 1 - k` half points each.
pub fn half_points(outcome: &Outcome, size: usize, player: PlayerId) -> u32 {
    let size = size as u32;
    match (place(outcome, player), outcome) {
        (Some(p), _) => 2 * size.saturating_sub(1 + p as u32),
        (None, Outcome::Places { order }) => size.saturating_sub(1 + order.len() as u32),
        (None, _) => size.saturating_sub(1),
    }
}

/// `a`'s result against `b` at one table, in half points: a placed player is ahead of
/// one not placed; two not placed (or a draw) share.
pub fn pairwise(outcome: &Outcome, a: PlayerId, b: PlayerId) -> u32 {
    match (place(outcome, a), place(outcome, b)) {
        (Some(pa), Some(pb)) if pa < pb => 2,
        (Some(_), Some(_)) => 0,
        (Some(_), None) => 2,
        (None, Some(_)) => 0,
        (None, None) => 1,
    }
}

/// The player who finished first at a table, if any.
pub fn winner(outcome: &Outcome) -> Option<PlayerId> {
    first(outcome)
}
