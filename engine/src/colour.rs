//! The colours of boards whose seats play colours (Mens-erger-je-niet, Ludo).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A colour of the board, numbered round the board from 0; where each colour starts is
/// the board's (see the game's rules).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(transparent)]
#[schema(value_type = u8)]
pub struct Colour(pub u8);

impl Colour {
    /// The colour as an index into per-colour arrays.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

impl std::fmt::Display for Colour {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::Colour;

    #[test]
    fn a_colour_is_written_as_its_number() {
        assert_eq!(serde_json::to_string(&Colour(5)).expect("json"), "5");
        assert_eq!(
            serde_json::from_str::<Colour>("3").expect("read"),
            Colour(3)
        );
        assert_eq!(Colour(2).to_string(), "2");
        assert_eq!(Colour(2).index(), 2);
    }
}
