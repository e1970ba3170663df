//! A fight: rounds of combat dice between an attacking and a defending pawn.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::head::Head;
use super::square::Square;

/// One round of a fight: the two rolls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Round {
    /// The attacker's roll.
    pub attacker: u8,
    /// The defender's roll.
    pub defender: u8,
}

/// A fight, in progress or just finished.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Fight {
    /// The attacking pawn's square; it stays there until it wins the square.
    pub attacker: Square,
    /// The attacked pawn's square.
    pub defender: Square,
    /// The attacker's head now (after a tie: lowered; when removed: its last head).
    pub attacker_head: Head,
    /// The defender's head now (after a tie: lowered; when removed: its last head).
    pub defender_head: Head,
    /// The attacker's roll of the round in progress, once made (the defender rolls next).
    pub attacker_roll: Option<u8>,
    /// The finished rounds, in order.
    pub rounds: Vec<Round>,
}

/// How a fight ended: the head of each pawn that is still on the board, `None` for a
/// pawn that was removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Survivors {
    /// The attacker's head, if it survived.
    pub attacker: Option<Head>,
    /// The defender's head, if it survived.
    pub defender: Option<Head>,
}

/// What a round decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A tie that removed neither pawn: both heads went down and the fight goes on.
    GoesOn,
    /// The fight is over.
    Over(Survivors),
}

impl Fight {
    /// A fight of the pawn on `attacker` against the pawn on `defender`.
    pub fn new(
        attacker: Square,
        attacker_head: Head,
        defender: Square,
        defender_head: Head,
    ) -> Self {
        Fight {
            attacker,
            defender,
            attacker_head,
            defender_head,
            attacker_roll: None,
            rounds: Vec::with_capacity(4),
        }
    }

    /// Settles the round with the defender's roll (the attacker's roll must be in).
    /// Higher wins: the loser is removed, the winner's head goes up one. A tie lowers
    /// both heads; a blue head going down is removed, and a survivor of that tie is not
    /// promoted.
    pub fn settle(&mut self, attacker: u8, defender: u8) -> Outcome {
        self.attacker_roll = None;
        self.rounds.push(Round { attacker, defender });
        if attacker > defender {
            self.attacker_head = self.attacker_head.up();
            return Outcome::Over(Survivors {
                attacker: Some(self.attacker_head),
                defender: None,
            });
        }
        if attacker < defender {
            self.defender_head = self.defender_head.up();
            return Outcome::Over(Survivors {
                attacker: None,
                defender: Some(self.defender_head),
            });
        }
        let (a, d) = (self.attacker_head.down(), self.defender_head.down());
        if let Some(a) = a {
            self.attacker_head = a;
        }
        if let Some(d) = d {
            self.defender_head = d;
        }
        match (a, d) {
            (Some(_), Some(_)) => Outcome::GoesOn,
            (attacker, defender) => Outcome::Over(Survivors { attacker, defender }),
        }
    }
}
