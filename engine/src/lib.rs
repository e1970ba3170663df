//! The rules engine of Worp.
//!
//! Every game is a deterministic state machine behind one small interface, [`Game`]:
//! it says what it awaits ([`Awaiting`]: dice, a move by a seat, or nothing because it
//! is finished), and it takes dice values and moves. The engine does no I/O, reads no
//! clock and draws no random numbers: dice values come from the caller, so the same
//! inputs always replay to the same state.
//!
//! [`variant`] registers every game behind a type-erased interface ([`AnyGame`]) that the
//! HTTP layer and the command line use; adding a game means one module and one line there
//! (or, for a game defined outside this crate, one call of [`register`]). What a game can
//! do beyond being played ([`capability`]) is asked of its registry entry, not its name.

pub mod ali_baba;
pub mod backgammon;
pub mod capability;
pub mod colour;
pub mod error;
pub mod game;
pub mod hoofden;
pub mod json;
pub mod ludo;
pub mod mens_erger_je_niet;
pub mod playout;
pub mod replay;
pub mod rolloff;
pub mod search;
mod seat;
mod step;
pub mod variant;

pub use capability::{Capabilities, Capability, CapabilityError, MatchHeader};
pub use error::EngineError;
pub use game::{Awaiting, Die, EndReason, Ending, Game, GameResult};
pub use seat::Seat;
pub use variant::{builtin_variants, register, variant, variants, AnyGame, RegisterError, Variant};

/// The version of the rules this engine implements. Every stored event records it; a
/// change that would make a past game replay differently must raise it.
pub const RULES_VERSION: u32 = 1;
