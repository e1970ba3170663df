//! The creation options.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{colour, Colour, DieKind};
use crate::EngineError;

/// The most pawns a seat plays with.
pub const MAX_PAWNS: u8 = 4;

/// How a game of Ludo is set up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
#[schema(as = LudoOptions)]
pub struct Options {
    /// The die: `special` (default; faces 1, 2, globe, 4, star, 6, where the globe is
    /// value 3 and the star value 5) or `plain` (an ordinary d6 with a home column).
    pub die: DieKind,
    /// Pawns per seat, 1..=4 (default 4); fewer pawns make a shorter game.
    #[schema(minimum = 1, maximum = 4)]
    pub pawns: u8,
    /// The colour (0..=3) of each seat, one per seat, all distinct. Absent or `null`: 2
    /// seats play 0 and 2 (opposite), 3 seats 0, 1, 2, 4 seats 0..=3. The game fills it
    /// in.
    #[schema(value_type = Option<Vec<u8>>)]
    pub colours: Option<Vec<Colour>>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            die: DieKind::Special,
            pawns: MAX_PAWNS,
            colours: None,
        }
    }
}

impl Options {
    /// Checks the options for `seats` seats and returns the colour of each seat.
    pub fn validate(&self, seats: u8) -> Result<Vec<Colour>, EngineError> {
        if !(1..=MAX_PAWNS).contains(&self.pawns) {
            return Err(EngineError::options(format!(
                "pawns: each seat plays 1 to {MAX_PAWNS} pawns, not {}",
                self.pawns
            )));
        }
        let colours = match &self.colours {
            None => colour::default_colours(seats),
            Some(colours) => colours.clone(),
        };
        if colours.len() != usize::from(seats) {
            return Err(EngineError::options(format!(
                "colours: one colour per seat is needed ({seats} seats), not {}",
                colours.len()
            )));
        }
        if let Some(bad) = colours.iter().find(|c| !colour::is_on_board(**c)) {
            return Err(EngineError::options(format!(
                "colours: the colours are 0 to {}, not {}",
                colour::COLOURS - 1,
                bad.0
            )));
        }
        for (i, c) in colours.iter().enumerate() {
            if colours.iter().skip(i + 1).any(|d| d == c) {
                return Err(EngineError::options(format!(
                    "colours: colour {} is given to more than one seat",
                    c.0
                )));
            }
        }
        Ok(colours)
    }
}
