//! Vacations: the rows that count a player's yearly allowance and tell the sweep when each
//! ends. What they do to clocks is in the games' logs (`vacation_started`,
//! `vacation_ended`) and the service's (`worp_service::vacation`).

use chrono::{DateTime, Utc};
use uuid::Uuid;
use worp_domain::records::Vacation;

use super::{bounded, postgres, sqlite, Store, StoreError};

impl Store {
    /// `player`'s vacations that started at `since` or later, and the current one.
    pub async fn vacations_of(
        &self,
        player: Uuid,
        since: DateTime<Utc>,
    ) -> Result<Vec<Vacation>, StoreError> {
        on_backend!(self.vacations_of(player, since))
    }

    /// `player`'s current vacation, if any.
    pub async fn current_vacation(&self, player: Uuid) -> Result<Option<Vacation>, StoreError> {
        on_backend!(self.current_vacation(player))
    }

    /// Stores `v` as its player's current vacation; `false` if they have one already.
    pub async fn start_vacation(&self, v: &Vacation) -> Result<bool, StoreError> {
        on_backend!(self.start_vacation(v))
    }

    /// Ends `player`'s vacation that started at `started_at`; whether it was current.
    pub async fn end_vacation(
        &self,
        player: Uuid,
        started_at: DateTime<Utc>,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        on_backend!(self.end_vacation(player, started_at, at))
    }

    /// The current vacations whose `until` has come by `now`, at most `limit`.
    pub async fn due_vacations(
        &self,
        now: DateTime<Utc>,
        limit: i64,
    ) -> Result<Vec<Vacation>, StoreError> {
        on_backend!(self.due_vacations(now, limit))
    }

    /// The games not finished where `player` holds or is invited to a seat.
    pub async fn unfinished_games_of(&self, player: Uuid) -> Result<Vec<Uuid>, StoreError> {
        on_backend!(self.unfinished_games_of(player))
    }
}
