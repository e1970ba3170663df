//! Vacations: a player may take a yearly allowance of days (`WORP_VACATION_DAYS`, per
//! calendar year in UTC) during which the clocks of their correspondence games are
//! paused. Starting and ending one are events of each game it touches
//! (`vacation_started`, `vacation_ended`), appended as any change is, so a replay and
//! an audit explain every deadline (`worp_domain::table`'s `deadline.rs`); the
//! `vacations` rows count the allowance and tell the sweep when each one ends.

use std::sync::Arc;

use chrono::{DateTime, Datelike, Duration, TimeZone, Utc};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use super::refusal::Refusal;
use super::worp::Worp;
use worp_domain::events::Event;
use worp_domain::records::Vacation;
use worp_domain::table::{Status, Table};
use worp_store::Player;

/// How many times a game's vacation event is tried again after another change won the
/// race to the game.
const TRIES: usize = 5;

/// The most vacations one sweep ends.
const SWEEP_LIMIT: i64 = 100;

/// A player's vacations this year.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct VacationStatus {
    /// Days of vacation per calendar year (UTC).
    pub allowance_days: u32,
    /// Days taken this year: each vacation counts the whole days it began (the current
    /// one all the days it was taken for).
    pub used_days: u32,
    /// Days left this year.
    pub remaining_days: u32,
    /// The calendar year counted (UTC).
    pub year: i32,
    /// The vacation now, if the player is on one.
    pub current: Option<CurrentVacation>,
}

/// The vacation a player is on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct CurrentVacation {
    #[serde(serialize_with = "worp_domain::clock::rfc3339")]
    pub started_at: DateTime<Utc>,
    /// When it ends, unless the player ends it earlier.
    #[serde(serialize_with = "worp_domain::clock::rfc3339")]
    pub until: DateTime<Utc>,
}

/// The whole days `v` began: to its end, or to `until` when it was not ended earlier.
fn days_begun(v: &Vacation) -> u32 {
    let end = v.ended_at.map_or(v.until, |e| e.min(v.until));
    let micros = (end - v.started_at).num_microseconds().unwrap_or(i64::MAX);
    let day = Duration::days(1)
        .num_microseconds()
        .unwrap_or(86_400_000_000);
    u32::try_from(micros.max(1).saturating_add(day - 1) / day).unwrap_or(u32::MAX)
}

/// The start of `now`'s calendar year, UTC.
fn year_start(now: DateTime<Utc>) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(now.year(), 1, 1, 0, 0, 0)
        .single()
        .unwrap_or(now)
}

impl Worp {
    /// `player`'s vacations this year.
    pub async fn vacation(&self, player: &Player) -> Result<VacationStatus, Refusal> {
        let now = self.now();
        let since = year_start(now);
        let taken = self.store.vacations_of(player.id, since).await?;
        let used: u32 = taken
            .iter()
            .filter(|v| v.started_at >= since)
            .map(days_begun)
            .sum();
        Ok(VacationStatus {
            allowance_days: self.vacation_days,
            used_days: used,
            remaining_days: self.vacation_days.saturating_sub(used),
            year: now.year(),
            current: taken
                .iter()
                .find(|v| v.ended_at.is_none())
                .map(|v| CurrentVacation {
                    started_at: v.started_at,
                    until: v.until,
                }),
        })
    }

    /// Starts a vacation of `days` days for `player`: every unfinished game with a clock
    /// where they hold a seat that has not retired gets `vacation_started`.
    pub async fn start_vacation(
        &self,
        player: &Player,
        days: u32,
    ) -> Result<VacationStatus, Refusal> {
        let before = self.vacation(player).await?;
        if before.current.is_some() {
            return Err(Refusal::Conflict("you are on vacation already".into()));
        }
        if days == 0 || days > before.remaining_days {
            let left = match before.remaining_days {
                0 => "none are left this year".to_owned(),
                1 => "1 is left this year".to_owned(),
                n => format!("1 to {n} may be asked this year"),
            };
            return Err(Refusal::OutOfAllowance(format!(
                "{days} days of vacation asked; {left}"
            )));
        }
        let now = self.now();
        let v = Vacation {
            player_id: player.id,
            started_at: now,
            until: now + Duration::days(i64::from(days)),
            ended_at: None,
        };
        if !self.store.start_vacation(&v).await? {
            return Err(Refusal::Conflict("you are on vacation already".into()));
        }
        self.mark_games(player.id, |t, seat| {
            vacation_due(t, seat).then_some(Event::VacationStarted {
                seat,
                until: v.until,
            })
        })
        .await?;
        self.vacation(player).await
    }

    /// Ends `player`'s vacation now: each game it paused gets `vacation_ended`.
    pub async fn end_vacation(&self, player: &Player) -> Result<(), Refusal> {
        let Some(v) = self.store.current_vacation(player.id).await? else {
            return Err(Refusal::Conflict("you are not on vacation".into()));
        };
        self.finish_vacation(&v).await
    }

    /// Ends every vacation whose `until` has come; returns how many.
    pub async fn sweep_vacations(&self) -> Result<usize, Refusal> {
        let due = self.store.due_vacations(self.now(), SWEEP_LIMIT).await?;
        let mut n = 0;
        for v in &due {
            match self.finish_vacation(v).await {
                Ok(()) => n += 1,
                Err(e @ Refusal::Unavailable(_)) => return Err(e),
                Err(e) => tracing::error!("the vacation of {} could not end: {e}", v.player_id),
            }
        }
        Ok(n)
    }

    /// The `vacation_started` events that a change seating `player` in `seats` of a game
    /// with a clock (a new game, a seat taken) records with it, if they are on vacation.
    pub(super) async fn vacation_of_seats(
        &self,
        player: Uuid,
        seats: impl IntoIterator<Item = u8>,
        now: DateTime<Utc>,
    ) -> Result<Vec<Event>, Refusal> {
        let Some(v) = self.store.current_vacation(player).await? else {
            return Ok(Vec::new());
        };
        if v.until <= now {
            return Ok(Vec::new());
        }
        Ok(seats
            .into_iter()
            .map(|seat| Event::VacationStarted {
                seat,
                until: v.until,
            })
            .collect())
    }

    /// Records `vacation_ended` in each game `v` paused, then ends `v`'s row.
    async fn finish_vacation(&self, v: &Vacation) -> Result<(), Refusal> {
        self.mark_games(v.player_id, |t, seat| {
            let on = t
                .seats
                .get(usize::from(seat))
                .is_some_and(|s| s.vacation.is_some());
            (on && t.status() != Status::Finished).then_some(Event::VacationEnded { seat })
        })
        .await?;
        self.store
            .end_vacation(v.player_id, v.started_at, self.now())
            .await?;
        Ok(())
    }

    /// Records, in each unfinished game of `player`, the events `event` makes for the
    /// seats they hold (none: the game is left alone), trying again when another change
    /// was recorded first. A game that cannot be changed is logged and skipped; only a
    /// database that is away stops the walk.
    async fn mark_games(
        &self,
        player: Uuid,
        event: impl Fn(&Table, u8) -> Option<Event>,
    ) -> Result<(), Refusal> {
        for id in self.store.unfinished_games_of(player).await? {
            for _ in 0..TRIES {
                match self.mark_game(id, player, &event).await {
                    Ok(_) => break,
                    Err(Refusal::Conflict(_)) => continue,
                    Err(e @ Refusal::Unavailable(_)) => return Err(e),
                    Err(e) => {
                        tracing::error!("game {id}: no vacation event recorded: {e}");
                        break;
                    }
                }
            }
        }
        Ok(())
    }

    async fn mark_game(
        &self,
        id: Uuid,
        player: Uuid,
        event: &impl Fn(&Table, u8) -> Option<Event>,
    ) -> Result<Option<Arc<Table>>, Refusal> {
        let table = self.load(id).await?;
        let events: Vec<Event> = table
            .seats_of(player)
            .into_iter()
            .filter_map(|s| event(&table, s.0))
            .collect();
        if events.is_empty() {
            return Ok(None);
        }
        let now = self.now();
        self.change_all(&table, events, now).await.map(Some)
    }
}

/// Whether `seat` of `table` starts a vacation with its player: the game has a clock and
/// is not over, and the seat has not retired and is not on vacation already.
fn vacation_due(table: &Table, seat: u8) -> bool {
    table.days_per_move.is_some()
        && table.status() != Status::Finished
        && table
            .seats
            .get(usize::from(seat))
            .is_some_and(|s| s.player_id.is_some() && !s.retired && s.vacation.is_none())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(d: u32, h: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 3, d, h, 0, 0)
            .single()
            .expect("a time")
    }

    #[test]
    fn a_vacation_counts_the_whole_days_it_began() {
        let v = Vacation {
            player_id: Uuid::nil(),
            started_at: at(1, 12),
            until: at(8, 12),
            ended_at: None,
        };
        assert_eq!(days_begun(&v), 7);
        let early = Vacation {
            ended_at: Some(at(3, 13)),
            ..v
        };
        assert_eq!(days_begun(&early), 3);
        let swept_late = Vacation {
            ended_at: Some(at(9, 0)),
            ..v
        };
        assert_eq!(days_begun(&swept_late), 7);
        let at_once = Vacation {
            ended_at: Some(at(1, 12)),
            ..v
        };
        assert_eq!(days_begun(&at_once), 1);
    }
}
