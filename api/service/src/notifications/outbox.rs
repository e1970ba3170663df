//! Routing a notice into the outbox by its player's choices: a mail of its own (notices
//! of one game joining the mail still waiting, and at most one mail per game in each
//! coalescing window), the day's digest, a push, or nothing (a muted game, a kind
//! turned off). Quiet hours hold mails and pushes back till they end.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;
use worp_domain::table::Table;
use worp_store::notifications::{Queued, TakenNotice};
use worp_store::PlayerNotice;

use super::preferences::{EmailChoice, Preferences};
use crate::refusal::Refusal;
use crate::worp::Worp;

/// One notice as the outbox keeps it: what it is about, not what it will say (that is
/// written when it is sent, from the game as it is then).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Item {
    pub kind: String,
    pub game_id: Uuid,
    pub version: i64,
    /// The seat the notice is about (the seat to move, the seat reserved, the author).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<u8>,
    /// Clock reminders: the time left, in minutes, when it was due.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minutes_left: Option<i64>,
}

impl Item {
    pub fn of_notice(n: &PlayerNotice, after: &Table) -> Item {
        let seat = match n.kind.as_str() {
            "your_turn" => after.to_move().map(|s| s.0),
            "message" => after.last_message_seat,
            "round_started" => after.seats_of(n.player_id).first().map(|s| s.0),
            "invited" | "invitation_declined" => after
                .seats
                .iter()
                .position(|s| s.invited == Some(n.player_id))
                .and_then(|i| u8::try_from(i).ok()),
            _ => None,
        };
        Item {
            kind: n.kind.clone(),
            game_id: n.game_id,
            version: n.version,
            seat,
            minutes_left: None,
        }
    }

    /// The item as a line of the outbox's text.
    fn line(&self) -> Result<String, Refusal> {
        let mut text =
            serde_json::to_string(self).map_err(|e| Refusal::unwritable("a notice", e))?;
        text.push('\n');
        Ok(text)
    }

    /// The items of an outbox row's text (lines that do not parse are skipped: none
    /// should).
    pub fn parse_lines(text: &str) -> Vec<Item> {
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }
}

impl Worp {
    /// The notice (`player`, `game`, `version`, `kind`) with the rows it puts in the
    /// outbox when it is first taken.
    pub(super) async fn route(
        &self,
        player: Uuid,
        game: Uuid,
        version: i64,
        kind: &str,
        item: Item,
    ) -> Result<TakenNotice, Refusal> {
        let mut taken = TakenNotice {
            player_id: player,
            game_id: game,
            version,
            kind: kind.to_owned(),
            queue: Vec::new(),
        };
        let preferences = self.preferences(player).await?;
        let Some(channels) = preferences.channels(kind) else {
            return Ok(taken);
        };
        if self.store.muted_games(player).await?.contains(&game) {
            return Ok(taken);
        }
        let now = self.now();
        let line = item.line()?;
        let topic = game.to_string();
        let mailable = self.mailable_address(player).await?.is_some();
        if mailable {
            match channels.email {
                EmailChoice::Now => {
                    let due = self
                        .coalesced(player, "email", &topic, &preferences, now)
                        .await?;
                    taken
                        .queue
                        .push(queued(player, "email", &topic, &line, due, now));
                }
                EmailChoice::Digest => {
                    let last = self.store.last_sent(player, "digest", "digest").await?;
                    let due = preferences.next_digest(now, last);
                    taken
                        .queue
                        .push(queued(player, "digest", "digest", &line, due, now));
                }
                EmailChoice::Off => {}
            }
        }
        if channels.push && self.has_push(player).await? {
            let due = self
                .coalesced(player, "push", &topic, &preferences, now)
                .await?;
            taken
                .queue
                .push(queued(player, "push", &topic, &line, due, now));
        }
        Ok(taken)
    }

    /// When a new row of `channel` about `topic` is due: now, or a coalescing window
    /// after the last one sent, and after the quiet hours.
    async fn coalesced(
        &self,
        player: Uuid,
        channel: &str,
        topic: &str,
        preferences: &Preferences,
        now: DateTime<Utc>,
    ) -> Result<DateTime<Utc>, Refusal> {
        let last = self.store.last_sent(player, channel, topic).await?;
        let due = last.map_or(now, |l| (l + self.notifier.settings.coalesce).max(now));
        Ok(preferences.after_quiet_hours(due))
    }
}

fn queued(
    player: Uuid,
    channel: &str,
    topic: &str,
    line: &str,
    due_at: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Queued {
    Queued {
        player_id: player,
        channel: channel.to_owned(),
        topic: topic.to_owned(),
        item: line.to_owned(),
        due_at,
        created_at: now,
    }
}
