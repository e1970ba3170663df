//! What each player wants to hear, and how: per kind of notice, e-mail now, in the
//! day's digest or not at all, and push or not; quiet hours and the digest's hour in
//! their own time zone; games they muted.

use chrono::{DateTime, Datelike, Duration, NaiveTime, TimeZone, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::refusal::Refusal;
use crate::worp::Worp;

/// How a kind of notice reaches the player by e-mail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EmailChoice {
    /// A mail of its own (notices of one game within a few minutes share one).
    Now,
    /// A line in the daily digest.
    Digest,
    Off,
}

/// The channels of one kind of notice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Channels {
    pub email: EmailChoice,
    /// Whether it is pushed to the player's devices.
    pub push: bool,
}

/// A span of the day, in the player's time zone, without pushes or mails (the digest
/// excepted): what falls in it waits for its end. `start` after `end` spans midnight.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct QuietHours {
    /// `HH:MM`.
    #[schema(example = "22:00")]
    pub start: String,
    /// `HH:MM`.
    #[schema(example = "07:30")]
    pub end: String,
}

/// A player's notification preferences.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Preferences {
    /// It is your turn in a game.
    pub your_turn: Channels,
    /// A challenge: you are invited to a game, a player declined yours, or your game of a
    /// tournament's round started.
    pub invited: Channels,
    /// A game of yours finished.
    pub game_finished: Channels,
    /// An opponent wrote in a game's chat.
    pub message: Channels,
    /// Your clock in a game is running out (`WORP_CLOCK_REMINDERS`: 24 and 1 hours left).
    pub clock_reminder: Channels,
    #[serde(default)]
    pub quiet_hours: Option<QuietHours>,
    /// An IANA time zone, e.g. `Europe/Amsterdam`.
    #[schema(example = "Europe/Amsterdam")]
    pub time_zone: String,
    /// The hour of the day (0-23, in `time_zone`) the digest goes out.
    pub digest_hour: u8,
}

impl Default for Preferences {
    /// Your turn, challenges and messages by push, everything in a daily digest by
    /// e-mail, clock reminders by e-mail at once.
    fn default() -> Self {
        let push_and_digest = Channels {
            email: EmailChoice::Digest,
            push: true,
        };
        Preferences {
            your_turn: push_and_digest,
            invited: push_and_digest,
            game_finished: Channels {
                email: EmailChoice::Digest,
                push: false,
            },
            message: push_and_digest,
            clock_reminder: Channels {
                email: EmailChoice::Now,
                push: true,
            },
            quiet_hours: None,
            time_zone: "UTC".into(),
            digest_hour: 8,
        }
    }
}

/// The kinds of notice a player chooses channels for, as `List-Unsubscribe` links name them.
pub const KINDS: [&str; 5] = [
    "your_turn",
    "invited",
    "game_finished",
    "message",
    "clock_reminder",
];

/// The preference a notice of `kind` (as notices name them) falls under.
pub fn preference_kind(kind: &str) -> Option<&'static str> {
    match kind {
        "your_turn" => Some("your_turn"),
        "invited" | "invitation_declined" | "round_started" => Some("invited"),
        "game_finished" => Some("game_finished"),
        "message" => Some("message"),
        "clock_reminder" => Some("clock_reminder"),
        _ => None,
    }
}

fn parse_time(t: &str) -> Result<NaiveTime, Refusal> {
    NaiveTime::parse_from_str(t, "%H:%M")
        .map_err(|_| Refusal::Invalid(format!("{t:?} is not a time of day as HH:MM")))
}

impl Preferences {
    pub fn channels(&self, kind: &str) -> Option<Channels> {
        Some(match preference_kind(kind)? {
            "your_turn" => self.your_turn,
            "invited" => self.invited,
            "game_finished" => self.game_finished,
            "message" => self.message,
            _ => self.clock_reminder,
        })
    }

    fn channels_mut(&mut self, kind: &str) -> Option<&mut Channels> {
        Some(match preference_kind(kind)? {
            "your_turn" => &mut self.your_turn,
            "invited" => &mut self.invited,
            "game_finished" => &mut self.game_finished,
            "message" => &mut self.message,
            _ => &mut self.clock_reminder,
        })
    }

    /// Stops e-mail of `kind` (a one-click unsubscribe).
    pub fn unsubscribe(&mut self, kind: &str) -> bool {
        match self.channels_mut(kind) {
            Some(c) => {
                c.email = EmailChoice::Off;
                true
            }
            None => false,
        }
    }

    /// Refuses what makes no sense, saying why.
    pub fn check(&self) -> Result<(), Refusal> {
        self.zone()?;
        if self.digest_hour > 23 {
            return Err(Refusal::Invalid("digest_hour must be 0 to 23".into()));
        }
        if let Some(q) = &self.quiet_hours {
            if parse_time(&q.start)? == parse_time(&q.end)? {
                return Err(Refusal::Invalid(
                    "quiet hours must start and end at different times".into(),
                ));
            }
        }
        Ok(())
    }

    fn zone(&self) -> Result<chrono_tz::Tz, Refusal> {
        self.time_zone
            .parse::<chrono_tz::Tz>()
            .map_err(|_| Refusal::Invalid(format!("{:?} is not an IANA time zone", self.time_zone)))
    }

    /// `at`, or the end of the quiet hours it falls in.
    pub fn after_quiet_hours(&self, at: DateTime<Utc>) -> DateTime<Utc> {
        let (Some(q), Ok(zone)) = (&self.quiet_hours, self.zone()) else {
            return at;
        };
        let (Ok(start), Ok(end)) = (parse_time(&q.start), parse_time(&q.end)) else {
            return at;
        };
        let local = at.with_timezone(&zone);
        let now = local.time();
        let quiet = if start < end {
            now >= start && now < end
        } else {
            now >= start || now < end
        };
        if !quiet {
            return at;
        }
        let mut day = local.date_naive();
        if now >= end {
            day = day.succ_opt().unwrap_or(day);
        }
        local_time(zone, day, end).map_or(at, |t| t.max(at))
    }

    /// The time the next digest goes out, the first `digest_hour` after `at` and at
    /// least a day after `last` (the one before).
    pub fn next_digest(&self, at: DateTime<Utc>, last: Option<DateTime<Utc>>) -> DateTime<Utc> {
        let zone = self.zone().unwrap_or(chrono_tz::UTC);
        let earliest = last.map_or(at, |l| (l + Duration::hours(23)).max(at));
        let hour = NaiveTime::from_hms_opt(u32::from(self.digest_hour.min(23)), 0, 0)
            .unwrap_or(NaiveTime::MIN);
        let mut day = earliest.with_timezone(&zone).date_naive();
        for _ in 0..3 {
            if let Some(t) = local_time(zone, day, hour).filter(|t| *t > earliest) {
                return t;
            }
            day = day.succ_opt().unwrap_or(day);
        }
        earliest + Duration::days(1)
    }
}

/// `time` on `day` in `zone`, as UTC (the earlier of two in a fold, the first time
/// after a gap).
fn local_time(
    zone: chrono_tz::Tz,
    day: chrono::NaiveDate,
    time: NaiveTime,
) -> Option<DateTime<Utc>> {
    let naive = day.and_time(time);
    match zone.from_local_datetime(&naive) {
        chrono::LocalResult::Single(t) => Some(t.with_timezone(&Utc)),
        chrono::LocalResult::Ambiguous(a, _) => Some(a.with_timezone(&Utc)),
        chrono::LocalResult::None => zone
            .from_local_datetime(&(naive + Duration::hours(1)))
            .earliest()
            .map(|t| t.with_timezone(&Utc)),
    }
    .filter(|t| t.year() > 0)
}

impl Worp {
    /// `player`'s preferences (the defaults until they set theirs).
    pub async fn preferences(&self, player: Uuid) -> Result<Preferences, Refusal> {
        let stored = self.store.notification_preferences(player).await?;
        Ok(stored
            .and_then(|s| serde_json::from_str(&s).ok())
            .unwrap_or_default())
    }

    /// Replaces `player`'s preferences.
    pub async fn set_preferences(
        &self,
        player: Uuid,
        preferences: &Preferences,
    ) -> Result<Preferences, Refusal> {
        preferences.check()?;
        let text = serde_json::to_string(preferences)
            .map_err(|e| Refusal::unwritable("notification preferences", e))?;
        self.store
            .set_notification_preferences(player, &text, self.now())
            .await?;
        Ok(preferences.clone())
    }

    /// Mutes or unmutes `game` for `player`: a muted game sends them nothing.
    pub async fn mute_game(&self, player: Uuid, game: Uuid, muted: bool) -> Result<(), Refusal> {
        if muted {
            let table = self.load(game).await?;
            let theirs = table
                .seats
                .iter()
                .any(|s| s.player_id == Some(player) || s.invited == Some(player));
            if !theirs {
                return Err(Refusal::NotYours(format!(
                    "game {game} is not one of yours"
                )));
            }
        }
        self.store.set_muted(player, game, muted).await?;
        Ok(())
    }

    /// The games `player` muted.
    pub async fn muted_games(&self, player: Uuid) -> Result<Vec<Uuid>, Refusal> {
        Ok(self.store.muted_games(player).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s)
            .expect("a time")
            .with_timezone(&Utc)
    }

    #[test]
    fn quiet_hours_across_midnight_hold_a_notice_till_their_end_in_the_players_zone() {
        let p = Preferences {
            quiet_hours: Some(QuietHours {
                start: "22:00".into(),
                end: "07:30".into(),
            }),
            time_zone: "Europe/Amsterdam".into(),
            ..Preferences::default()
        };
        // 23:00 in Amsterdam (UTC+1 in December): held till 07:30 the next morning.
        assert_eq!(
            p.after_quiet_hours(at("2026-12-06T22:00:00Z")),
            at("2026-12-07T06:30:00Z")
        );
        // 03:00 local: the same morning.
        assert_eq!(
            p.after_quiet_hours(at("2026-12-07T02:00:00Z")),
            at("2026-12-07T06:30:00Z")
        );
        // 12:00 local: not quiet.
        assert_eq!(
            p.after_quiet_hours(at("2026-12-07T11:00:00Z")),
            at("2026-12-07T11:00:00Z")
        );
    }

    #[test]
    fn quiet_hours_within_a_day() {
        let p = Preferences {
            quiet_hours: Some(QuietHours {
                start: "13:00".into(),
                end: "14:00".into(),
            }),
            ..Preferences::default()
        };
        assert_eq!(
            p.after_quiet_hours(at("2026-12-07T13:20:00Z")),
            at("2026-12-07T14:00:00Z")
        );
        assert_eq!(
            p.after_quiet_hours(at("2026-12-07T14:00:00Z")),
            at("2026-12-07T14:00:00Z")
        );
    }

    #[test]
    fn the_digest_goes_out_at_its_hour_at_most_once_a_day() {
        let p = Preferences {
            time_zone: "America/New_York".into(),
            digest_hour: 8,
            ..Preferences::default()
        };
        // 08:00 in New York is 13:00 UTC in December.
        assert_eq!(
            p.next_digest(at("2026-12-07T10:00:00Z"), None),
            at("2026-12-07T13:00:00Z")
        );
        assert_eq!(
            p.next_digest(at("2026-12-07T14:00:00Z"), None),
            at("2026-12-08T13:00:00Z")
        );
        // One went out an hour ago (off its hour): the next is the day after's.
        assert_eq!(
            p.next_digest(at("2026-12-07T11:00:00Z"), Some(at("2026-12-07T10:00:00Z"))),
            at("2026-12-08T13:00:00Z")
        );
    }

    #[test]
    fn bad_preferences_are_refused_with_a_reason() {
        let mut p = Preferences {
            time_zone: "Mars/Olympus".into(),
            ..Preferences::default()
        };
        assert!(p.check().is_err());
        p.time_zone = "UTC".into();
        p.digest_hour = 24;
        assert!(p.check().is_err());
        p.digest_hour = 8;
        p.quiet_hours = Some(QuietHours {
            start: "25:00".into(),
            end: "07:00".into(),
        });
        assert!(p.check().is_err());
        p.quiet_hours = None;
        assert!(p.check().is_ok());
    }

    #[test]
    fn unsubscribing_stops_only_that_kinds_mail() {
        let mut p = Preferences::default();
        assert!(p.unsubscribe("invitation_declined"));
        assert_eq!(p.invited.email, EmailChoice::Off);
        assert!(p.invited.push);
        assert_eq!(p.your_turn.email, EmailChoice::Digest);
        assert!(!p.unsubscribe("nonsense"));
    }
}
