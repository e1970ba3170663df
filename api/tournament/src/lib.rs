//! Worp's tournaments: round robins, Swiss and knockouts for every game, as an event
//! stream and a fold of it. Pure like the engine: no I/O, no clock, no randomness.
//!
//! A tournament is its events ([`Event`]): created, registered, withdrawn, round paired,
//! result recorded, finished. [`Tournament::apply`] folds one in or refuses it
//! ([`Refusal`]) with nothing changed. [`pair_next_round`] pairs the next round from the
//! state, deterministically; [`check_round`] audits a round against the state it was
//! paired from; [`standings`] ranks the players. The rules chosen are in
//! `docs/tournaments.md`, each named as the test that checks it.
//!
//! ```
//! use worp_tournament::{pair_next_round, standings, Event, Format, Outcome, PlayerId, Rules, Tournament};
//!
//! let rules = Rules {
//!     format: Format::Swiss { rounds: 3 },
//!     table_size: 2,
//!     min_players: 2,
//!     max_players: 16,
//!     sided: false,
//!     draws: false,
//!     late_registration_rounds: 0,
//! };
//! let mut tournament = Tournament::new();
//! tournament.apply(&Event::Created { rules })?;
//! for n in 1..=4 {
//!     let player = PlayerId::from_u128(n);
//!     tournament.apply(&Event::Registered { player, rating: 1500 })?;
//! }
//! // The server stores each event it applies; the round is deterministic from the state.
//! let round = pair_next_round(&tournament)?;
//! tournament.apply(&Event::RoundPaired(round.clone()))?;
//! for table in &round.tables {
//!     let outcome = Outcome::Winner { player: table.seats[0] };
//!     tournament.apply(&Event::ResultRecorded { round: 1, table: table.number, outcome })?;
//! }
//! assert!(tournament.next_round_ready());
//! assert_eq!(standings(&tournament)[0].half_points, 2);
//! # Ok::<(), worp_tournament::Refusal>(())
//! ```

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
