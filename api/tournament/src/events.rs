//! The tournament's events: what is stored, one fact each. The tournament is their fold
//! (`fold.rs`).

use serde::{Deserialize, Serialize};

use crate::player::PlayerId;
use crate::rules::Rules;

/// One fact of a tournament's life.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    Created {
        rules: Rules,
    },
    /// The creator's new rules, before the first round only.
    RulesChanged {
        rules: Rules,
    },
    /// `rating` seeds the player (round robin numbers, knockout bracket, Swiss ranks).
    Registered {
        player: PlayerId,
        rating: i32,
    },
    /// `after_round`: how many rounds were paired when the player left (must be the
    /// current count): the player is not paired in any later round.
    Withdrawn {
        player: PlayerId,
        after_round: u32,
    },
    RoundPaired(Round),
    ResultRecorded {
        round: u32,
        table: u32,
        outcome: Outcome,
    },
    Finished,
}

/// A round's pairing: the tables, each with its seats in seat order, and the byes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Round {
    /// 1, 2, 3, …
    pub number: u32,
    pub tables: Vec<Table>,
    /// Players without a game this round, scored as a win (one point).
    #[serde(default)]
    pub byes: Vec<PlayerId>,
}

/// One game of a round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Table {
    /// The table's number within its round (for a knockout: its place in the bracket).
    pub number: u32,
    /// In seat order: the first seat first.
    pub seats: Vec<PlayerId>,
}

/// How a table's game ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    /// A table of two: the winner (a time-out or a forfeit is the other's loss).
    Winner { player: PlayerId },
    /// Everyone at the table shares the result (games with draws only).
    Draw,
    /// The seated players by place, first finisher first: every one of them, or the
    /// first few (a game that ends at its first winner), the rest sharing the places left.
    Places { order: Vec<PlayerId> },
}

impl Round {
    /// Every player of the round: seated ones in table order, then the byes.
    pub fn players(&self) -> impl Iterator<Item = PlayerId> + '_ {
        self.tables
            .iter()
            .flat_map(|t| t.seats.iter().copied())
            .chain(self.byes.iter().copied())
    }

    pub fn table(&self, number: u32) -> Option<&Table> {
        self.tables.iter().find(|t| t.number == number)
    }
}
