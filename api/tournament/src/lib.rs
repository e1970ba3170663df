//! Worp's tournaments: round robins, Swiss and knockouts for every game, as an event
//! stream and a fold of it. Pure like the engine: no I/O, no clock, no randomness.
//!
//! A tournament is its events ([`Event`]): created, registered, withdrawn, round paired,
//! result recorded, finished. [`Tournament::apply`] folds one in or refuses it
//! ([`Refusal`]) with nothing changed. [`pair_next_round`] pairs the next round from the
//! state, deterministically; [`check_round`] audits a round against the state it was
//! paired from; [`standings`] ranks the players. The rules chosen are in
//! `docs/tournaments.md`, each named as the test that checks it.

pub mod events;
mod fold;
pub mod groups;
pub mod history;
pub mod knockout;
pub mod matching;
pub mod pairing;
pub mod player;
pub mod refusal;
pub mod round_robin;
pub mod rules;
pub mod standings;
pub mod state;
pub mod swiss;

pub use events::{Event, Outcome, Round, Table};
pub use pairing::{check_round, pair_next_round};
pub use player::PlayerId;
pub use refusal::{PairingViolation, Refusal};
pub use rules::{Format, Rules};
pub use standings::{standings, Standing};
pub use state::{Entrant, RoundRecord, Tournament};
