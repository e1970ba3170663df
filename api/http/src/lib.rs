//! Worp's HTTP surface: the [`routes`], the edge of every error ([`problem`]), who may
//! connect ([`admission`]) and how often ([`ratelimit`]), bearer tokens ([`auth`]),
//! deadlines ([`timeouts`]), draining at shutdown ([`lifecycle`]) and the OpenAPI
//! document ([`openapi`]). It sees the service and the domain, never the store: its
//! `Cargo.toml` does not name `worp-store`, so this does not build:
//!
//! ```compile_fail,E0433
//! fn route(store: &worp_store::Store) {}
//! ```
//!
//! nor does reaching the store through the service's state:
//!
//! ```compile_fail,E0616
//! async fn route(worp: &worp_service::Worp) {
//!     let _ = worp.store.game_ids().await;
//! }
//! ```
//!
//! while the service's own operations are there:
//!
//! ```
//! fn route(worp: &worp_service::Worp) -> usize {
//!     worp.cache().capacity()
//! }
//! ```

pub mod admission;
pub mod auth;
pub mod body;
pub mod lifecycle;
pub mod openapi;
pub mod problem;
pub mod ratelimit;
pub mod routes;
pub mod timeouts;
