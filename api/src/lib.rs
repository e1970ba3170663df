//! Worp's server: HTTP, persistence, dice and time around the pure rules engine.
//!
//! Read in this order: `events` (what is stored), `table` (a game folded from its
//! events), `service` (what players can do), `store` (PostgreSQL and SQLite), `routes`
//! (the HTTP surface), `startup` (wiring). ARCHITECTURE.md has the map.

pub mod admission;
pub mod audit;
pub mod auth;
pub mod bots;
pub mod cache;
pub mod checkpoints;
pub mod cli;
pub mod clock;
pub mod configuration;
pub mod dice;
pub mod events;
pub mod export;
pub mod lifecycle;
pub mod live;
pub mod openapi;
pub mod problem;
pub mod ratelimit;
pub mod ratings;
pub mod routes;
pub mod service;
pub mod startup;
pub mod store;
pub mod table;
pub mod telemetry;
pub mod timeouts;
pub mod webhooks;
