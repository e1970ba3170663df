//! Clock reminders: when the clock of the player to move has a threshold's time left
//! (`WORP_CLOCK_REMINDERS`, 24 hours and 1 hour by default), a notice through their
//! channels, once per deadline and threshold (`notices_taken` keys it by the deadline,
//! so a clock paused by a vacation and restarted reminds again). Where several
//! thresholds are passed at once, only the smallest is said.

use super::outbox::Item;
use crate::refusal::Refusal;
use crate::worp::Worp;

/// How many games one sweep looks at.
const GAMES_PER_SWEEP: i64 = 500;

impl Worp {
    /// Takes the clock reminders that are due into the outbox.
    pub(crate) async fn remind_clocks(&self) -> Result<(), Refusal> {
        let mut thresholds = self.notifier.settings.reminders.clone();
        thresholds.sort();
        let Some(widest) = thresholds.last().copied() else {
            return Ok(());
        };
        let now = self.now();
        let due = self
            .store
            .deadlines_between(now, now + widest, GAMES_PER_SWEEP)
            .await?;
        if due.is_empty() {
            return Ok(());
        }
        let reachable = self.reachable_players().await?;
        let mut taken = Vec::new();
        for (game, player, deadline) in due {
            if !reachable.contains(&player) {
                continue;
            }
            let left = deadline - now;
            let Some(threshold) = thresholds.iter().find(|t| left <= **t) else {
                continue;
            };
            let kind = format!("clock_reminder_{}m", threshold.num_minutes());
            let version = deadline.timestamp();
            if self
                .store
                .notice_taken(player, game, version, &kind)
                .await?
            {
                continue;
            }
            let item = Item {
                kind: "clock_reminder".into(),
                game_id: game,
                version,
                seat: None,
                minutes_left: Some(threshold.num_minutes()),
            };
            let mut notice = self
                .route(player, game, version, "clock_reminder", item)
                .await?;
            notice.kind = kind;
            taken.push(notice);
            // The wider thresholds are passed too: mark them, so they are not said later.
            for wider in thresholds.iter().filter(|t| *t > threshold) {
                taken.push(worp_store::notifications::TakenNotice {
                    player_id: player,
                    game_id: game,
                    version,
                    kind: format!("clock_reminder_{}m", wider.num_minutes()),
                    queue: Vec::new(),
                });
            }
        }
        if !taken.is_empty() {
            self.store.take_notices(&taken, now).await?;
        }
        Ok(())
    }
}
