//! The bots' levels: GNU Backgammon's own named settings (`set player … gnubg` in its
//! manual, "eval.c" presets), named as gnubg names them.

use serde::{Deserialize, Serialize};

/// How hard a gnubg bot thinks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// 0-ply with deterministic noise of 0.060.
    Beginner,
    /// 0-ply with deterministic noise of 0.040.
    Intermediate,
    /// 0-ply without noise.
    Expert,
    /// 2-ply, pruned, without noise.
    WorldClass,
}

impl Level {
    /// Plies of look-ahead.
    pub fn plies(self) -> u8 {
        match self {
            Level::WorldClass => 2,
            _ => 0,
        }
    }

    /// The noise added to each evaluation (deterministic: the same position, the same
    /// noise).
    pub fn noise(self) -> f64 {
        match self {
            Level::Beginner => 0.060,
            Level::Intermediate => 0.040,
            Level::Expert | Level::WorldClass => 0.0,
        }
    }
}
