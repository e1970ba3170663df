//! The four colours of the board.

pub use crate::colour::Colour;

/// The number of colours on the board: 0..=3, in board order.
pub(super) const COLOURS: u8 = 4;

/// Whether `colour` names a colour of the board.
pub(super) fn is_on_board(colour: Colour) -> bool {
    colour.0 < COLOURS
}

/// The default colours for a number of seats **(decision of RULES.md)**: 2 seats play
/// opposite colours 0 and 2, 3 seats 0, 1, 2, 4 seats 0..=3.
pub(super) fn default_colours(seats: u8) -> Vec<Colour> {
    match seats {
        2 => vec![Colour(0), Colour(2)],
        n => (0..n.min(COLOURS)).map(Colour).collect(),
    }
}
