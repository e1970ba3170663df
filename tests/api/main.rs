//! Integration tests: the real server, on a real PostgreSQL and on SQLite, over HTTP.

mod helpers;
// GNU Backgammon run on scripts (shared with the engine's gnubg test): the match and
// interchange tests feed it `.mat` files.
#[path = "../../engine/tests/support/gnubg_walk.rs"]
mod gnubg_walk;

mod accounts;
mod answers;
mod audit;
mod bots;
mod buffers;
mod checkpoints;
mod correspondence;
mod cube_match;
mod deploy;
mod edge;
mod errors;
mod failover;
mod faults;
mod group_commit;
mod hostile;
mod integrity;
mod interchange;
mod invitations;
mod layout;
mod leaving;
mod limits;
mod listing;
mod load;
mod messages;
mod metrics;
mod names;
mod notifications;
mod oauth;
mod openapi;
mod passkeys;
mod play;
mod process;
mod profiles;
mod push;
mod races;
mod ratings;
mod scopes;
mod settings;
mod shutdown;
mod smtp;

mod sixth_game;
mod sqlite_commit;
mod store;
mod stored_checkpoints;
mod telemetry;
mod tournament_rhythm;
mod tournaments;
mod vacation;
mod webhooks;
