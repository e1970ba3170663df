//! What a game can do beyond being played: optional exchange formats and tools that a
//! game declares in [`Game::CAPABILITIES`](crate::Game::CAPABILITIES) and callers reach
//! through its registry entry ([`Variant::match_file`](crate::Variant::match_file),
//! [`Variant::analyze_line`](crate::Variant::analyze_line)), so that nothing outside the
//! game asks for it by name.

use serde_json::Value;

use crate::step::Step;
use crate::EngineError;

/// What a match file says beside the moves: the names and date, and the options the
/// game was created with (backgammon: the match length and the cube).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MatchHeader {
    /// The players' names, by seat.
    pub players: Vec<String>,
    /// `YYYY.MM.DD`, if known.
    pub date: Option<String>,
    /// The game's creation options as stored (`null`: the defaults).
    pub options: Value,
}

/// Writes the game played by `steps` (as in a replay record) as a match file.
pub type MatchFileFn = fn(&[Step], &MatchHeader) -> Result<String, EngineError>;

/// Answers one line of input to the game's analyzer with one JSON value.
pub type AnalyzeLineFn = fn(&str) -> Value;

/// The optional capabilities of a game: `None` where it has none.
#[derive(Clone, Copy, Default)]
pub struct Capabilities {
    /// A match file other programs import (backgammon: Jellyfish `.mat`).
    pub match_file: Option<MatchFileFn>,
    /// A line-by-line position analyzer (`worp analyze <variant>`).
    pub analyze_line: Option<AnalyzeLineFn>,
}

impl Capabilities {
    /// No capabilities: the default of every game.
    pub const NONE: Capabilities = Capabilities {
        match_file: None,
        analyze_line: None,
    };

    /// Whether `capability` is there.
    pub fn has(&self, capability: Capability) -> bool {
        match capability {
            Capability::MatchFile => self.match_file.is_some(),
            Capability::AnalyzeLine => self.analyze_line.is_some(),
        }
    }
}

impl std::fmt::Debug for Capabilities {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Capabilities")
            .field("match_file", &self.match_file.is_some())
            .field("analyze_line", &self.analyze_line.is_some())
            .finish()
    }
}

/// One optional capability, as errors name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Capability {
    /// [`Capabilities::match_file`].
    MatchFile,
    /// [`Capabilities::analyze_line`].
    AnalyzeLine,
}

impl std::fmt::Display for Capability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Capability::MatchFile => "match files",
            Capability::AnalyzeLine => "position analysis",
        })
    }
}

/// Why a capability gave no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CapabilityError {
    /// The game does not declare this capability.
    #[error("{variant} does not support {capability}")]
    Unsupported {
        /// The game's registered name.
        variant: &'static str,
        /// What was asked for.
        capability: Capability,
    },
    /// The game has it, and refused the input.
    #[error(transparent)]
    Engine(#[from] EngineError),
}
