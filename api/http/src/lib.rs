//! Worp's HTTP surface: the [`routes`], the edge of every error ([`problem`]), who may
//! connect ([`admission`]) and how often ([`ratelimit`]), bearer tokens ([`auth`]),
//! deadlines ([`timeouts`]), draining at shutdown ([`lifecycle`]) and the OpenAPI
//! document ([`openapi`]). It sees the service and the domain, never the store: its
//! `Cargo.toml` does not name `worp-store`.

pub mod admission;
pub mod auth;
pub mod lifecycle;
pub mod openapi;
pub mod problem;
pub mod ratelimit;
pub mod routes;
pub mod timeouts;
