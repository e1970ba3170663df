//! The rules a tournament is created with: format, table size, limits, registration.

use serde::{Deserialize, Serialize};

/// The most players a tournament takes: the Swiss pairing is an O(n³) matching and its
/// weights are sized for this (`swiss.rs`).
pub const MAX_PLAYERS: u32 = 256;
/// The most rounds of a Swiss tournament (the matching's weights are sized for this).
pub const MAX_SWISS_ROUNDS: u32 = 64;
/// The most players at one table: Ludo and Mens-erger-je-niet seat up to six.
pub const MAX_TABLE_SIZE: u32 = 6;

/// How the rounds are paired.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Format {
    /// Everyone meets everyone by Berger tables, once (`cycles: 1`) or twice with the seats
    /// swapped (`cycles: 2`). Tables of two only.
    RoundRobin { cycles: u32 },
    /// A fixed number of rounds paired by score (`swiss.rs`, `groups.rs`).
    Swiss { rounds: u32 },
    /// A seeded bracket; each table's winner advances. `match_points`: for backgammon,
    /// each pairing is a match to this many points (the server's to play; the crate only
    /// needs the winner).
    Knockout {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        match_points: Option<u32>,
    },
}

/// Everything fixed at creation; changeable until the first round is paired.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rules {
    pub format: Format,
    /// Players per table: 2 for two-player games, up to the variant's player count
    /// (given by the caller) for Mens-erger-je-niet, Ludo and Ali Baba.
    pub table_size: u32,
    pub min_players: u32,
    pub max_players: u32,
    /// The game has sides whose order matters (a first and a second seat): seats are
    /// balanced like colours in chess.
    #[serde(default)]
    pub sided: bool,
    /// The game can end in a draw (Hoofden): a draw result is accepted.
    #[serde(default)]
    pub draws: bool,
    /// Swiss only: a player may register while fewer than this many rounds are paired,
    /// and joins with 0 points. 0: no late registration.
    #[serde(default)]
    pub late_registration_rounds: u32,
}

impl Rules {
    /// Why these rules cannot make a tournament, if they cannot.
    pub fn invalid(&self) -> Option<&'static str> {
        if !(2..=MAX_TABLE_SIZE).contains(&self.table_size) {
            return Some("table size must be 2 to 6");
        }
        if self.min_players < 2 {
            return Some("a tournament needs at least two players");
        }
        if self.max_players < self.min_players || self.max_players > MAX_PLAYERS {
            return Some("max_players must be at least min_players and at most 256");
        }
        match self.format {
            Format::RoundRobin { cycles } => {
                if self.table_size != 2 {
                    return Some("a round robin is for tables of two");
                }
                if !(1..=2).contains(&cycles) {
                    return Some("a round robin has one or two cycles");
                }
            }
            Format::Swiss { rounds } => {
                if !(1..=MAX_SWISS_ROUNDS).contains(&rounds) {
                    return Some("a Swiss tournament has 1 to 64 rounds");
                }
            }
            Format::Knockout { match_points } => {
                if self.draws {
                    return Some("a knockout needs a winner at every table: no draws");
                }
                if match_points == Some(0) {
                    return Some("a match is to at least one point");
                }
            }
        }
        if self.late_registration_rounds > 0 && !matches!(self.format, Format::Swiss { .. }) {
            return Some("late registration is for Swiss tournaments only");
        }
        None
    }

    pub fn is_two_player(&self) -> bool {
        self.table_size == 2
    }
}
