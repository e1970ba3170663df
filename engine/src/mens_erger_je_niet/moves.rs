//! A move, and where a roll takes a pawn (the home row with counting back).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::board::{Side, PAWNS};
use super::colour::{Circle, Colour, Pawn, Place};

/// One move: a pawn of the colour to move goes by the roll to `to`. Submit it exactly as
/// listed among the legal moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Move {
    /// The colour that moves (the colour whose turn it is).
    pub colour: Colour,
    /// Which of its pawns, 0 to 3.
    pub pawn: Pawn,
    /// Where the pawn ends.
    pub to: Place,
}

/// Where a roll of `roll` takes a pawn standing on `from`, by counting alone: on along
/// the track, into the home circles a-d, and back from d when it overshoots (target
/// t > 43 lands on 86 − t on the four-colour side, t > 51 on 102 − t on the six-colour
/// side). `None` from B, or when counting back would end below a.
pub fn destination(side: Side, colour: Colour, from: Place, roll: u8) -> Option<Place> {
    let track = side.track_fields();
    let progress = match from {
        Place::Waiting => return None,
        Place::Track { step, .. } => step,
        Place::Home { circle } => track + circle.number(),
    };
    let last = track + 3;
    let mut target = progress + roll;
    if target > last {
        // Counting back from d; it may not end below a.
        target = (2 * last).checked_sub(target).filter(|&t| t >= track)?;
    }
    if target < track {
        return Some(Place::Track {
            step: target,
            field: side.field(colour, target),
        });
    }
    Circle::from_number(target - track).map(|circle| Place::Home { circle })
}

/// Where pawn `from` of a colour whose pawns stand on `pawns` may legally go with `roll`:
/// any track field (a pawn there is captured), or a free home circle higher than the one
/// it stands on.
pub fn legal_destination(
    side: Side,
    colour: Colour,
    pawns: &[Place; PAWNS],
    from: Place,
    roll: u8,
) -> Option<Place> {
    let to = destination(side, colour, from, roll)?;
    if let Place::Home { circle } = to {
        if let Place::Home { circle: start } = from {
            if circle <= start {
                return None;
            }
        }
        if pawns.contains(&to) {
            return None;
        }
    }
    Some(to)
}

/// Whether some roll of the die could move one of these pawns (for three tries: a pawn on
/// the track always can; a home-row pawn can if a higher free circle is in reach).
pub fn any_roll_moves(side: Side, colour: Colour, pawns: &[Place; PAWNS]) -> bool {
    pawns.iter().any(|&from| match from {
        Place::Waiting => false,
        Place::Track { .. } => true,
        Place::Home { .. } => {
            (1..=6).any(|roll| legal_destination(side, colour, pawns, from, roll).is_some())
        }
    })
}
