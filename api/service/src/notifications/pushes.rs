//! The outbox's pushes: the notices of a row, in words, to each of the player's devices
//! (`crate::push` encrypts, signs and sends). A row counts as sent when one device took
//! it; it is tried again only when none did and some may later.

use uuid::Uuid;
use worp_store::notifications::Outgoing;

use super::dispatch::Outcome;
use crate::push::{PushFailure, PushMessage};
use crate::refusal::Refusal;
use crate::worp::Worp;

impl Worp {
    /// Whether `player` has a device to push to.
    pub(super) async fn has_push(&self, player: Uuid) -> Result<bool, Refusal> {
        Ok(!self.push_subscriptions_of(player).await?.is_empty())
    }

    /// Pushes the notices of `row` to each of its player's devices.
    pub(super) async fn push_notices(&self, row: &Outgoing) -> Result<Outcome, Refusal> {
        let said = self.said(row).await?;
        let Some(first) = said.first() else {
            return Ok(Outcome::Dropped("nothing that still stands".into()));
        };
        let devices = self.push_subscriptions_of(row.player_id).await?;
        if devices.is_empty() {
            return Ok(Outcome::Dropped("no device to push to".into()));
        }
        let title = match said.len() {
            1 => first.line.clone(),
            n => format!("{} (and {} more)", first.line, n - 1),
        };
        let body = if said.len() > 1 {
            said[1..]
                .iter()
                .map(|s| s.line.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        } else {
            "Open the game".to_owned()
        };
        let message = PushMessage {
            title,
            body,
            url: format!("/#/game/{}", first.game_id),
            tag: format!("game:{}", first.game_id),
            kind: first.kind.clone(),
        };
        let (mut sent, mut transient, mut permanent) = (0, None, None);
        for device in &devices {
            match self.push(device, &message).await {
                Ok(()) => sent += 1,
                Err(PushFailure::Gone) => {}
                Err(PushFailure::Transient(e)) => transient = Some(e),
                Err(PushFailure::Permanent(e)) => permanent = Some(e),
            }
        }
        if sent > 0 {
            return Ok(Outcome::Sent);
        }
        self.notifier.forget_reachable();
        Ok(match (transient, permanent) {
            (Some(e), _) => Outcome::Retry(e),
            (None, Some(e)) => Outcome::Failed(e),
            (None, None) => Outcome::Dropped("every device is gone".into()),
        })
    }
}
