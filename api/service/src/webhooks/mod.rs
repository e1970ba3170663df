//! Telling players' own services that it is their turn or a game ended: signed JSON
//! POSTs from the webhook outbox, whose rows are written in the same transaction as the
//! events (a restart loses none). The log of attempts is readable over the API.

pub mod address;
pub mod delivery;
pub mod signing;

pub use address::{parse_allow, Refused};
pub use delivery::{client, deliver_due, run, WebhookSettings, MAX_ATTEMPTS};
pub use signing::signature;
