//! Where the time comes from: one injectable clock, so tests can move it. Nothing in the
//! server reads the time but through a [`Clock`].

use chrono::{DateTime, Utc};

/// The source of the current time.
pub trait Clock: Send + Sync + std::fmt::Debug {
    fn now(&self) -> DateTime<Utc>;
}

/// The system's clock.
#[derive(Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}
