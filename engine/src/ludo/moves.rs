//! Moves: what a pawn does with a roll, and the list of legal moves of a position.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::die::{DieKind, GLOBE, STAR};
use super::options::MAX_PAWNS;
use super::pawn::{PawnId, Place};
use super::player::Player;
use super::track::{Field, HOME_COUNT, LAST_TRACK_FIELD};

/// One move: a pawn and what it does with the roll. Pawns on the same place are
/// interchangeable, so a move names the lowest-numbered pawn of its group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
#[schema(as = LudoMove)]
pub enum Move {
    /// The pawn leaves the yard for its start globe (field 0): a globe with the special
    /// die, a 6 with the plain die. E.g. `{"action": "enter", "pawn": 0}`.
    Enter {
        /// The pawn (the lowest-numbered one in the yard).
        pawn: PawnId,
    },
    /// The pawn moves to a field counted from its own start globe: 0..=50 on the track,
    /// 51..=55 up the home column (plain die). E.g. `{"action": "move", "pawn": 1,
    /// "to": 21}`. Landing on two or more pawns of one opponent sends it to its yard.
    Move {
        /// The pawn (the lowest-numbered one on its field).
        pawn: PawnId,
        /// The field it moves to, counted from its own start globe.
        to: Field,
    },
    /// The pawn goes home: from 50 with a globe (special die), or by the exact count to
    /// 56 (plain die). E.g. `{"action": "home", "pawn": 3}`.
    Home {
        /// The pawn (the lowest-numbered one on its field).
        pawn: PawnId,
    },
}

impl Move {
    /// The pawn the move names.
    pub fn pawn(self) -> PawnId {
        match self {
            Move::Enter { pawn } | Move::Move { pawn, .. } | Move::Home { pawn } => pawn,
        }
    }
}

/// What a legal move does to the position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Effect {
    /// The moving pawn.
    pub pawn: PawnId,
    /// Where it ends: its target, or the yard when it landed on two or more pawns of one
    /// opponent.
    pub place: Place,
    /// The single opposing pawn it captured: its seat index and pawn.
    pub captured: Option<(usize, PawnId)>,
}

/// The legal moves of one position (at most one per pawn), with their effects.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MoveList {
    len: u8,
    entries: [Option<(Move, Effect)>; MAX_PAWNS as usize],
}

impl MoveList {
    /// No moves.
    pub fn clear(&mut self) {
        *self = MoveList::default();
    }

    fn push(&mut self, mv: Move, effect: Effect) {
        if let Some(slot) = self.entries.get_mut(usize::from(self.len)) {
            *slot = Some((mv, effect));
            self.len += 1;
        }
    }

    /// Whether there is no legal move.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The moves with their effects, in pawn order.
    pub fn iter(&self) -> impl Iterator<Item = (Move, Effect)> + '_ {
        self.entries.iter().flatten().copied()
    }

    /// The effect of `mv`, if it is one of the legal moves.
    pub fn find(&self, mv: &Move) -> Option<Effect> {
        self.iter().find(|(m, _)| m == mv).map(|(_, e)| e)
    }

    /// Every legal move of `players[seat]` with this roll, one per group of
    /// interchangeable pawns, in pawn order.
    pub fn generate(players: &[Player], seat: usize, die: DieKind, roll: u8) -> MoveList {
        let mut list = MoveList::default();
        let Some(me) = players.get(seat) else {
            return list;
        };
        for (pawn, place) in me.pawns.iter() {
            if me.pawns.first_on(place) != Some(pawn) {
                continue; // an interchangeable pawn already listed
            }
            let Some(target) = target(die, place, roll) else {
                continue;
            };
            let mv = if place == Place::Yard {
                Move::Enter { pawn }
            } else if target.0 >= HOME_COUNT {
                Move::Home { pawn }
            } else {
                Move::Move { pawn, to: target }
            };
            list.push(mv, landing(players, seat, pawn, target));
        }
        list
    }
}

/// How far `roll` takes a pawn standing on `place`, counted from its start globe (56 is
/// home), or `None` if that pawn cannot use the roll.
pub fn target(die: DieKind, place: Place, roll: u8) -> Option<Field> {
    let field = match place {
        Place::Yard => return die.enters(roll).then_some(Field::START),
        Place::Home => return None,
        Place::Track { field, .. } | Place::HomeColumn { field } => field,
    };
    match die {
        DieKind::Special => match roll {
            GLOBE if field == Field::LAST => Some(Field(HOME_COUNT)),
            GLOBE => field.next_globe(),
            STAR => field.next_star(),
            n => {
                let to = field.0 + n;
                (to <= LAST_TRACK_FIELD).then_some(Field(to))
            }
        },
        DieKind::Plain => {
            let to = field.0 + roll;
            (to <= HOME_COUNT).then_some(Field(to))
        }
    }
}

/// What happens when `pawn` of `players[seat]` arrives on `target`: a single opposing
/// pawn there is captured; two or more pawns of one opponent send the mover to its yard.
fn landing(players: &[Player], seat: usize, pawn: PawnId, target: Field) -> Effect {
    let Some(me) = players.get(seat) else {
        return Effect {
            pawn,
            place: Place::Yard,
            captured: None,
        };
    };
    let place = Place::counted(me.colour, target);
    let Some(track_field) = place.track_field() else {
        return Effect {
            pawn,
            place,
            captured: None,
        };
    };
    for (other, player) in players.iter().enumerate() {
        if other == seat {
            continue;
        }
        match player.count_on(track_field) {
            0 => {}
            1 => {
                let captured = player
                    .pawns
                    .iter()
                    .find(|(_, p)| p.track_field() == Some(track_field))
                    .map(|(id, _)| (other, id));
                return Effect {
                    pawn,
                    place,
                    captured,
                };
            }
            _ => {
                return Effect {
                    pawn,
                    place: Place::Yard,
                    captured: None,
                }
            }
        }
    }
    Effect {
        pawn,
        place,
        captured: None,
    }
}
