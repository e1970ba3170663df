//! The creation options.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::bridge::Bridge;
use crate::EngineError;

/// The options of a game of Ali Baba.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
#[schema(as = AliBabaOptions)]
pub struct Options {
    /// The number of planks of the bridge, 1 to 20 (default 6). Positions are 0 (near
    /// bank), 1..=planks (the planks) and planks + 1 (far bank).
    #[schema(minimum = 1, maximum = 20, default = 6)]
    pub planks: u8,
}

impl Default for Options {
    fn default() -> Self {
        Options { planks: 6 }
    }
}

impl Options {
    /// The bridge these options describe, or why they describe none.
    pub fn bridge(&self) -> Result<Bridge, EngineError> {
        Bridge::new(self.planks).ok_or_else(|| {
            EngineError::options(format!(
                "planks must be between {} and {}, not {}",
                Bridge::MIN_PLANKS,
                Bridge::MAX_PLANKS,
                self.planks
            ))
        })
    }
}
