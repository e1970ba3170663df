//! What players can do, and what the server reads back for them.
//!
//! Every change of a game loads the game's table (from the cache, then the events after
//! it), checks the request, makes the new events in a [`draft`] (with the rolls the
//! server owes and the moves bots play after them), and appends them in one atomic
//! change that names the version it was judged on. Refusals are [`Refusal`]s; the HTTP
//! edge (`problem.rs`) alone turns them into statuses.
//!
//! - [`games`]: creating, moving, resigning, time-outs; [`seats`]: taking a seat,
//!   accepting or declining an invitation; `changes`: how each of them is drafted,
//!   appended, cached and published.
//! - [`players`]: registering, tokens, webhooks; [`push`]: Web Push to players' devices; [`accounts`]: credentials beside the
//!   first token (scoped tokens, sessions, passwords, OAuth).
//! - [`reads`]: tables, listings, event pages, exports, the read-model rebuild;
//!   `stored_checkpoints`: where a fold starts from the game's stored checkpoint, and
//!   how checkpoints are stored.
//! - [`read_model`]: the `games` row, listing entry and notices a change stores.
//! - [`text`]: the checks of the strings and JSON that are stored.
//! - [`vacation`]: a player's yearly vacation days, which pause their clocks.
//! - [`bots`]: the runner of bots that think (expectimax, GNU Backgammon's levels).

pub mod accounts;
pub mod analysis;
pub mod audit;
mod background;
pub mod bots;
pub mod cache;
mod changes;
pub mod checkpoints;
mod draft;
pub mod export;
pub mod games;
mod limits;
pub mod live;
pub mod messages;
mod name_book;
pub mod names;
pub mod notifications;
pub mod players;
pub mod push;
pub mod ratings;
pub mod read_model;
mod readiness;
pub mod reads;
mod refusal;
pub mod seats;
mod stored_checkpoints;
pub mod text;
pub mod tournaments;
pub mod vacation;
pub mod views;
pub mod webhooks;
mod worp;

pub use changes::{Idempotency, Played};
pub use games::{CreateGame, SeatRequest, DAYS_PER_MOVE};
pub use limits::OpenGames;
pub use names::{NameBook, PlayerProfile};
pub use players::{token_hash, MAX_NAME};
pub use ratings::LEADERBOARD_MAX_DEVIATION;
pub use read_model::{game_row, notices, GameSummary, NoticePayload};
pub use refusal::Refusal;
pub use text::MAX_CLIENT_SEED;
pub use worp::Worp;
pub use worp_domain::clock::{Clock, SystemClock};
