//! The creation options and who plays which colours.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::board::Side;
use super::colour::Colour;
use crate::EngineError;

/// The creation options of Mens-erger-je-niet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// The side of the board: 4 (four colours, 40 track fields) or 6 (six colours,
    /// 48 track fields). Default 4.
    #[schema(example = 4)]
    pub board: u8,
    /// The colours each seat plays, one list per seat in seat order, one or two colours
    /// each (two only when there are fewer seats than colours); colours are numbered
    /// round the board from 0. Absent: the default assignment (four-colour board:
    /// 2 seats 0 and 2, 3 seats 0, 1, 2, 4 seats 0..3; six-colour board: 2 seats 0 and 3,
    /// 3 seats 0, 2, 4, otherwise seat i plays colour i).
    #[schema(value_type = Option<Vec<Vec<u8>>>, example = json!([[0, 1], [2]]))]
    pub colours: Option<Vec<Vec<Colour>>>,
    /// Three tries: a colour with no pawn on the track and no home-row pawn any roll
    /// could move rolls up to three times for a 6 (not in the original text). Default off.
    pub three_tries: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            board: 4,
            colours: None,
            three_tries: false,
        }
    }
}

/// The checked reading of the options: the board side and each seat's colours.
#[derive(Debug, Clone)]
pub(super) struct Setup {
    pub side: Side,
    /// Per seat, its colours in increasing order.
    pub colours: Vec<Vec<Colour>>,
}

impl Options {
    /// Checks the options for `seats` seats.
    pub(super) fn setup(&self, seats: u8) -> Result<Setup, EngineError> {
        let side = Side::with_colours(self.board).ok_or_else(|| {
            EngineError::options(format!(
                "board: must be 4 or 6 (the number of colours of the board side), not {}",
                self.board
            ))
        })?;
        let n = side.colours();
        if seats > n {
            return Err(EngineError::options(format!(
                "board: {seats} seats need more colours than the {n}-colour board has"
            )));
        }
        let colours = match &self.colours {
            None => default_colours(side, seats),
            Some(list) => {
                check_colours(list, side, seats)?;
                list.iter()
                    .map(|own| {
                        let mut own = own.clone();
                        own.sort();
                        own
                    })
                    .collect()
            }
        };
        Ok(Setup { side, colours })
    }
}

fn check_colours(list: &[Vec<Colour>], side: Side, seats: u8) -> Result<(), EngineError> {
    let n = side.colours();
    if list.len() != usize::from(seats) {
        return Err(EngineError::options(format!(
            "colours: one list per seat is needed ({seats} seats), not {}",
            list.len()
        )));
    }
    let mut used = [false; 6];
    for (seat, own) in list.iter().enumerate() {
        match own.len() {
            0 => {
                return Err(EngineError::options(format!(
                    "colours: seat {seat} has no colour"
                )))
            }
            1 => {}
            2 if seats < n => {}
            2 => {
                return Err(EngineError::options(format!(
                    "colours: seat {seat} has two colours, but a seat may play two only \
                     when there are fewer seats than the board's {n} colours"
                )))
            }
            k => {
                return Err(EngineError::options(format!(
                    "colours: seat {seat} has {k} colours; a seat plays one or two"
                )))
            }
        }
        for colour in own {
            let slot = used
                .get_mut(colour.index())
                .filter(|_| colour.0 < n)
                .ok_or_else(|| {
                    EngineError::options(format!(
                        "colours: colour {colour} of seat {seat} is not on the {n}-colour \
                         board (colours 0 to {})",
                        n - 1
                    ))
                })?;
            if *slot {
                return Err(EngineError::options(format!(
                    "colours: colour {colour} is given more than once"
                )));
            }
            *slot = true;
        }
    }
    Ok(())
}

/// The default colours of each seat (RULES.md's decision table).
fn default_colours(side: Side, seats: u8) -> Vec<Vec<Colour>> {
    let numbers: &[u8] = match (side, seats) {
        (Side::FourColours, 2) => &[0, 2],
        (Side::FourColours, 3) => &[0, 1, 2],
        (Side::SixColours, 2) => &[0, 3],
        (Side::SixColours, 3) => &[0, 2, 4],
        _ => &[0, 1, 2, 3, 4, 5],
    };
    numbers
        .iter()
        .take(usize::from(seats))
        .map(|&c| vec![Colour(c)])
        .collect()
}
