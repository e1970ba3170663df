//! The clock of a game with `days_per_move`: when the seat to move runs out of time, and
//! how a vacation pauses it. Everything here is folded from the events alone, so a replay
//! gives the same deadline after every event (`worp audit` explains every one).
//!
//! The mover's clock starts with the last event that changed the board or the turn (a
//! message or a vacation's start or end does not restart it). While the seat to move is on
//! vacation its clock is paused: its deadline is the vacation's `until` plus the time it
//! had left when the vacation started (all of `days_per_move` when the turn came to it
//! during the vacation); once `vacation_ended` is recorded, that time runs from the event.
//! A vacation started after the seat's time had run out pauses nothing.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{invalid, ReplayError, Status, Table};

/// The vacation of a seat's player, as its `vacation_started` event said.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SeatVacation {
    /// When the `vacation_started` event was recorded.
    pub since: DateTime<Utc>,
    /// When the vacation ends at the latest.
    pub until: DateTime<Utc>,
}

/// The clock of the seat to move: running since `from`, with `spent_micros` of its time
/// already used before a pause.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveClock {
    pub from: DateTime<Utc>,
    pub spent_micros: i64,
}

impl MoveClock {
    /// A clock that starts at `at` with all its time left.
    pub fn starting(at: DateTime<Utc>) -> MoveClock {
        MoveClock {
            from: at,
            spent_micros: 0,
        }
    }

    fn spent(&self) -> Duration {
        Duration::microseconds(self.spent_micros)
    }

    /// The time spent when a vacation that started at `since` paused the clock.
    fn spent_before(&self, since: DateTime<Utc>) -> Duration {
        self.spent() + (since - self.from).max(Duration::zero())
    }
}

impl Table {
    /// The time each seat has for a move, if the game has a clock.
    fn allowed(&self) -> Option<Duration> {
        self.days_per_move.map(|d| Duration::days(i64::from(d)))
    }

    /// The vacation that pauses the clock of the seat to move now, if one does (it began
    /// before the seat's time ran out).
    fn pausing(&self) -> Option<SeatVacation> {
        let allowed = self.allowed()?;
        let seat = self.to_move()?;
        let v = self.seats.get(seat.index())?.vacation?;
        (self.clock.spent_before(v.since) < allowed).then_some(v)
    }

    /// Whether the clock of the seat to move is paused by its player's vacation: no
    /// time-out fires while it is.
    pub fn clock_paused(&self) -> bool {
        self.pausing().is_some()
    }

    /// When the seat to move runs out of time (people only; bots never do).
    pub fn deadline(&self) -> Option<DateTime<Utc>> {
        let allowed = self.allowed()?;
        let seat = self.to_move()?;
        if self.seats.get(seat.index())?.bot.is_some() {
            return None;
        }
        Some(match self.pausing() {
            Some(v) => v.until + (allowed - self.clock.spent_before(v.since)),
            None => self.clock.from + (allowed - self.clock.spent()),
        })
    }

    /// `vacation_started` for `seat` until `until`, recorded at `at`.
    pub(super) fn vacation_started(
        &mut self,
        seq: i64,
        seat: u8,
        until: DateTime<Utc>,
        at: DateTime<Utc>,
    ) -> Result<(), ReplayError> {
        if self.status() == Status::Finished {
            return Err(invalid(seq, "a vacation in a finished game"));
        }
        if self.days_per_move.is_none() {
            return Err(invalid(seq, "a vacation in a game without a clock"));
        }
        if until <= at {
            return Err(invalid(seq, "a vacation that ends before it starts"));
        }
        let s = self
            .seats
            .get_mut(usize::from(seat))
            .ok_or_else(|| invalid(seq, "no such seat"))?;
        if s.player_id.is_none() || s.retired {
            return Err(invalid(
                seq,
                "a vacation of a seat without a player in the game",
            ));
        }
        if s.vacation.is_some() {
            return Err(invalid(seq, "the seat is on vacation already"));
        }
        s.vacation = Some(SeatVacation { since: at, until });
        Ok(())
    }

    /// `vacation_ended` for `seat`, recorded at `at`: a paused clock runs again from `at`.
    pub(super) fn vacation_ended(
        &mut self,
        seq: i64,
        seat: u8,
        at: DateTime<Utc>,
    ) -> Result<(), ReplayError> {
        let v = self
            .seats
            .get(usize::from(seat))
            .and_then(|s| s.vacation)
            .ok_or_else(|| invalid(seq, "the end of a vacation that did not start"))?;
        if self.to_move().is_some_and(|s| s.0 == seat) && self.clock_paused() {
            self.clock = MoveClock {
                from: at,
                spent_micros: self
                    .clock
                    .spent_before(v.since)
                    .num_microseconds()
                    .unwrap_or(i64::MAX),
            };
        }
        if let Some(s) = self.seats.get_mut(usize::from(seat)) {
            s.vacation = None;
        }
        Ok(())
    }
}
