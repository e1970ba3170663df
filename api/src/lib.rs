//! The `worp` binary: settings read from the environment, the wiring of the server's
//! crates into one application, and the command line.
//!
//! The server is five crates, each allowed to see only those below it (their
//! `Cargo.toml`s say which):
//! `worp-domain` (events, the table folded from them, ratings, clocks, dice, bots) and
//! `worp-telemetry` at the bottom; `worp-store` (PostgreSQL and SQLite); `worp-service`
//! (what players can do); `worp-http` (routes and the web client). Only this crate sees
//! them all. ARCHITECTURE.md has the map.
//!
//! The lower crates' modules are re-exported under the names they have always had, for
//! the integration tests and `worp-load`.

pub mod cli;
pub mod configuration;
mod duel;
pub mod startup;

pub use worp_domain::{bots, clock, dice, events, ratings, table};
pub use worp_http::{admission, auth, lifecycle, openapi, problem, ratelimit, routes, timeouts};
pub use worp_service as service;
pub use worp_service::{audit, cache, checkpoints, export, live, notifications, webhooks};
pub use worp_store as store;
pub use worp_telemetry as telemetry;
