//! Integration tests: the real server, on a real PostgreSQL and on SQLite, over HTTP.

mod helpers;

mod audit;
mod errors;
mod faults;
mod openapi;
mod play;
mod races;
mod store;
