//! The decisions of RULES.md §2b: the doubling cube (roll or double, take or pass) and
//! resignations (offer, accept or decline), played as moves.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::Side;
use crate::Ending;

/// A decision, listed among the legal moves only when the rules await it.
///
/// JSON: `"roll"`, `"double"`, `"take"`, `"pass"`, `{"resign": "single"}` (or
/// `"gammon"`, `"backgammon"`), `"accept"`, `"decline"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = BackgammonDecision)]
pub enum Decision {
    /// Before rolling: roll without doubling.
    Roll,
    /// Before rolling: offer the cube at twice its value.
    Double,
    /// Answer to a double: the cube doubles and the taker owns it; the doubler rolls.
    Take,
    /// Answer to a double: the game ends, the doubler wins the cube's value before the
    /// double, as a single.
    Pass,
    /// Before rolling or with a move pending: offer to resign this much.
    Resign(Level),
    /// Answer to a resignation: the game ends with the offered score × the cube.
    Accept,
    /// Answer to a resignation: play goes on where it was.
    Decline,
}

/// The decision as its JSON text (`"double"`, `{"resign":"gammon"}`), for messages;
/// `tests_2b::decisions_are_displayed_as_their_json` pins the two together.
impl std::fmt::Display for Decision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = match self {
            Decision::Roll => "roll",
            Decision::Double => "double",
            Decision::Take => "take",
            Decision::Pass => "pass",
            Decision::Accept => "accept",
            Decision::Decline => "decline",
            Decision::Resign(level) => {
                let level = match level {
                    Level::Single => "single",
                    Level::Gammon => "gammon",
                    Level::Backgammon => "backgammon",
                };
                return write!(f, "{{\"resign\":\"{level}\"}}");
            }
        };
        write!(f, "\"{name}\"")
    }
}

/// What a resignation gives away: a single (1), a gammon (2) or a backgammon (3), each
/// times the cube's value.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
#[schema(as = BackgammonLevel)]
pub enum Level {
    /// One point (times the cube).
    Single,
    /// Two points (times the cube).
    Gammon,
    /// Three points (times the cube).
    Backgammon,
}

impl Level {
    /// Every level, lowest first.
    pub const ALL: [Level; 3] = [Level::Single, Level::Gammon, Level::Backgammon];

    /// 1, 2 or 3.
    pub fn multiplier(self) -> u16 {
        match self {
            Level::Single => 1,
            Level::Gammon => 2,
            Level::Backgammon => 3,
        }
    }

    /// How a game won at this level ends.
    pub fn ending(self) -> Ending {
        match self {
            Level::Single => Ending::Won,
            Level::Gammon => Ending::Gammon,
            Level::Backgammon => Ending::Backgammon,
        }
    }

    /// GNU Backgammon's number of a resignation (1 single, 2 gammon, 3 backgammon).
    pub fn gnubg(self) -> u8 {
        self.multiplier() as u8
    }
}

/// What an offer is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = BackgammonOfferKind)]
pub enum OfferKind {
    /// A double: the opponent must take or pass.
    Double,
    /// A resignation of this much: the opponent accepts or declines.
    Resign(Level),
}

/// An offer awaiting the opponent's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = BackgammonOffer)]
pub struct Offer {
    /// A double, or a resignation and its size.
    pub kind: OfferKind,
    /// Who offered it (the player on roll).
    pub by: Side,
}

impl Offer {
    /// The name notices give an offer awaiting an answer (`double`, `resignation`).
    pub fn question(&self) -> &'static str {
        match self.kind {
            OfferKind::Double => "double",
            OfferKind::Resign(_) => "resignation",
        }
    }
}
