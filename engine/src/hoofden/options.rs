//! The creation options of Hoofden.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use utoipa::ToSchema;

/// How pawns move.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Movement {
    /// The basic game: one square diagonally forward; a yellow head also backward.
    #[default]
    Basic,
    /// The variant: blue exactly 1 square diagonally forward; green 2, red 3, yellow 4
    /// single diagonal steps in any of the four directions, over empty squares only.
    ByHead,
}

/// The creation options of Hoofden.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
#[schema(as = HoofdenOptions)]
pub struct Options {
    /// How pawns move: `basic` (default: one square diagonally forward, a yellow head also
    /// backward) or `by_head` (the variant: the head's colour gives the number of steps).
    pub movement: Movement,
    /// When true, a player with at least one move ending on an opposing pawn must play
    /// one of those moves (his choice which). Default false: attacking is optional.
    #[serde(deserialize_with = "forced_attack")]
    pub forced_attack: bool,
}

impl<'de> Deserialize<'de> for Movement {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)
            .map_err(|e| D::Error::custom(format!("movement must be a string ({e})")))?;
        match name.as_str() {
            "basic" => Ok(Movement::Basic),
            "by_head" => Ok(Movement::ByHead),
            other => Err(D::Error::custom(format!(
                "movement must be \"basic\" or \"by_head\", not {other:?}"
            ))),
        }
    }
}

fn forced_attack<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    bool::deserialize(deserializer)
        .map_err(|e| D::Error::custom(format!("forced_attack must be true or false ({e})")))
}
