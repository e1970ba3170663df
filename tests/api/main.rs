//! Integration tests: the real server, on a real PostgreSQL and on SQLite, over HTTP.

mod helpers;

mod audit;
mod checkpoints;
mod correspondence;
mod edge;
mod errors;
mod faults;
mod group_commit;
mod hostile;
mod integrity;
mod interchange;
mod invitations;
mod layout;
mod load;
mod openapi;
mod play;
mod races;
mod settings;
mod sixth_game;
mod store;
mod webhooks;
