//! GNU Backgammon behind Worp's backgammon bots (and, in `analysis`, its post-mortem of
//! a finished match).
//!
//! `gnubg` runs as a small pool of worker processes (`gnubg -t -q -p worker.py`), each
//! answering one JSON request a line over stdin and stdout: the state as its GNUBG ID,
//! what is asked, and how hard to think. Worp keeps the judgement: a bot's choice is
//! one of the engine's legal moves, found by the position gnubg's answer leads to; an
//! answer that matches none is an error, never a move.

pub mod analysis;
mod choice;
mod level;
mod pool;
mod worker;

pub use analysis::{analyse, MatchAnalysis};
pub use choice::choose;
pub use level::Level;
pub use pool::{Pool, PoolSettings};
pub use worker::Worker;

/// What can go wrong between Worp and a gnubg worker.
#[derive(Debug, thiserror::Error)]
pub enum GnubgError {
    /// `gnubg` is not installed where Worp looks (`WORP_GNUBG` or the `PATH`).
    #[error("GNU Backgammon is not installed ({0})")]
    Missing(String),
    /// The worker could not be started or written to.
    #[error("the gnubg worker failed: {0}")]
    Io(#[from] std::io::Error),
    /// The worker did not answer in time; it was stopped.
    #[error("the gnubg worker did not answer within {0:?}")]
    Timeout(std::time::Duration),
    /// The worker's process ended.
    #[error("the gnubg worker exited")]
    Exited,
    /// The worker's script refused the question (the worker itself is well).
    #[error("the gnubg worker refused: {0}")]
    Answer(String),
    /// The worker wrote what is not an answer: it is replaced.
    #[error("the gnubg worker wrote garbage: {0}")]
    Garbled(String),
    /// Every worker is busy and the queue is full.
    #[error("every gnubg worker is busy and {0} decisions are waiting")]
    Busy(usize),
    /// The game's state could not be read or judged by the engine.
    #[error(transparent)]
    Engine(#[from] worp_engine::EngineError),
}
