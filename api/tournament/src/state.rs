//! `Tournament`: the state folded from the events (`fold.rs` applies them), and the
//! questions every format asks of it: who plays in a round, in which seeding order.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::events::{Outcome, Round};
use crate::player::PlayerId;
use crate::rules::Rules;

/// A registered player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entrant {
    pub player: PlayerId,
    pub rating: i32,
    /// How many rounds were paired when the player registered: they play from the next.
    pub joined_after: u32,
    /// How many rounds were paired when the player withdrew: they play no later round.
    pub withdrawn_after: Option<u32>,
}

impl Entrant {
    /// Whether the player is paired in round `round` (1-based).
    pub fn plays_in(&self, round: u32) -> bool {
        round > self.joined_after && self.withdrawn_after.is_none_or(|w| round <= w)
    }

    /// Withdrawn before the first round: never part of the tournament.
    pub fn left_before_start(&self) -> bool {
        self.withdrawn_after == Some(0)
    }
}

/// A paired round and the results recorded so far.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundRecord {
    pub round: Round,
    /// By table number.
    pub results: BTreeMap<u32, Outcome>,
}

impl RoundRecord {
    pub fn results_in(&self) -> bool {
        self.round.tables.len() == self.results.len()
    }
}

/// A tournament: the fold of its events.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tournament {
    pub(crate) rules: Option<Rules>,
    /// In registration order.
    pub(crate) entrants: Vec<Entrant>,
    /// Shared, so that a clone of the tournament (a cache's, or a check that a refused
    /// event changed nothing) copies no finished round.
    pub(crate) rounds: Vec<Arc<RoundRecord>>,
    pub(crate) finished: bool,
}

impl Tournament {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn rules(&self) -> Option<&Rules> {
        self.rules.as_ref()
    }

    pub fn entrants(&self) -> &[Entrant] {
        &self.entrants
    }

    pub fn rounds(&self) -> &[Arc<RoundRecord>] {
        &self.rounds
    }

    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// The first round has been paired.
    pub fn has_started(&self) -> bool {
        !self.rounds.is_empty()
    }

    /// How many rounds are paired.
    pub fn rounds_paired(&self) -> u32 {
        self.rounds.len() as u32
    }

    /// Every table of the latest round has its result (true before the first round).
    pub fn results_in(&self) -> bool {
        self.rounds.last().is_none_or(|r| r.results_in())
    }

    pub fn entrant(&self, player: PlayerId) -> Option<&Entrant> {
        self.entrants.iter().find(|e| e.player == player)
    }

    /// The players of round `round`, by seed: rating, highest first, then registration.
    pub fn seeded_players(&self, round: u32) -> Vec<PlayerId> {
        let mut playing: Vec<(usize, &Entrant)> = self
            .entrants
            .iter()
            .enumerate()
            .filter(|(_, e)| e.plays_in(round))
            .collect();
        playing.sort_by_key(|(i, e)| (std::cmp::Reverse(e.rating), *i));
        playing.into_iter().map(|(_, e)| e.player).collect()
    }

    /// How many players play round `round` (1-based).
    pub fn players_in(&self, round: u32) -> usize {
        self.entrants.iter().filter(|e| e.plays_in(round)).count()
    }

    /// Registered and not withdrawn.
    pub fn active_count(&self) -> usize {
        self.entrants
            .iter()
            .filter(|e| e.withdrawn_after.is_none())
            .count()
    }

    /// The registration index of a player (its pairing number less one), for ties.
    pub fn registration_index(&self, player: PlayerId) -> usize {
        self.entrants
            .iter()
            .position(|e| e.player == player)
            .unwrap_or(usize::MAX)
    }
}
