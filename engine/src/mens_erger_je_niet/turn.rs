//! How the turn passes: a colour's opening (a pawn put on A, the roll bound to it),
//! three tries when the option applies, another roll after a 6, then the next colour in
//! board order; and a pawn entering from B onto A, capturing what stands there.

use super::{moves, Colour, ColourStatus, MensErgerJeNiet, Pawn, Place, Stage};
use crate::GameResult;

impl MensErgerJeNiet {
    /// The next colour in board order after `colour` that still takes turns.
    fn next_colour(&self, colour: Colour) -> Option<Colour> {
        let n = self.colours.len();
        (1..=n)
            .map(|k| &self.colours[(colour.index() + k) % n])
            .find(|c| c.status == ColourStatus::Playing)
            .map(|c| c.colour)
    }

    /// Starts `colour`'s turn: its opening (a pawn put on A, the roll bound to it) or an
    /// ordinary turn (with three tries when the option applies).
    pub(super) fn begin_turn(&mut self, colour: Colour) {
        if !self.colour(colour).opened {
            self.colour_mut(colour).opened = true;
            let pawn = self.enter(colour);
            self.stage = Stage::Roll {
                colour,
                bound: pawn,
                opening: true,
                tries_left: 1,
            };
            return;
        }
        let stuck = self.options.three_tries
            && !moves::any_roll_moves(self.side, colour, &self.colour(colour).pawns);
        self.stage = Stage::Roll {
            colour,
            bound: None,
            opening: false,
            tries_left: if stuck { 3 } else { 1 },
        };
    }

    /// Passes the turn on from `colour`.
    pub(super) fn end_turn(&mut self, colour: Colour) {
        match self.next_colour(colour) {
            Some(next) => self.begin_turn(next),
            // Unreachable: a seat whose colours are all finished has won.
            None => {
                self.stage = Stage::Finished {
                    result: GameResult::draw(),
                }
            }
        }
    }

    /// Puts a pawn of `colour` from B on its A, capturing whatever stands there. A pawn of
    /// the same colour on A is captured by an identical pawn, so it simply stays. Returns
    /// the pawn on A, or `None` when B is empty.
    pub(super) fn enter(&mut self, colour: Colour) -> Option<Pawn> {
        let field = self.side.field_a(colour);
        let own = &self.colour(colour).pawns;
        if let Some(i) = own.iter().position(|p| p.track_field() == Some(field)) {
            if own.iter().any(|p| p.is_waiting()) {
                return Some(Pawn(i as u8));
            }
        }
        let i = own.iter().position(|p| p.is_waiting())?;
        self.capture_on(field);
        self.colour_mut(colour).pawns[i] = Place::Track { step: 0, field };
        Some(Pawn(i as u8))
    }

    /// Sends whatever pawn stands on track `field` back to its B.
    pub(super) fn capture_on(&mut self, field: u8) {
        for c in &mut self.colours {
            for p in &mut c.pawns {
                if p.track_field() == Some(field) {
                    *p = Place::Waiting;
                    return;
                }
            }
        }
    }

    /// After a move or a lost roll: another roll after a 6, else the turn passes.
    pub(super) fn roll_again_or_pass(&mut self, colour: Colour, roll: u8) {
        if roll == 6 {
            self.stage = Stage::Roll {
                colour,
                bound: None,
                opening: false,
                tries_left: 1,
            };
        } else {
            self.end_turn(colour);
        }
    }
}
