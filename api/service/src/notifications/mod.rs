//! Notifications for players who are away: e-mail (through SMTP, `mail.rs`) and Web
//! Push, chosen per kind of notice by each player (`preferences.rs`).
//!
//! The event log is the truth here too. The notifier (`tail.rs`) follows the log of all
//! games by position, turns each change into the notices its players hear (the same
//! [`crate::read_model::notices`] webhooks and streams carry), and takes each notice
//! into the outbox once (`notices_taken`, whichever process read it, however often).
//! The outbox (`outbox.rs`) routes a notice by the player's choices: e-mail now, the
//! day's digest, push, or nothing; notices of one game coalesce into the row still
//! waiting, and quiet hours hold a row back. The sender (`dispatch.rs`) claims due rows
//! for one attempt each, sends them, and retries with backoff; a permanent refusal of an
//! address disables it. Clock reminders (`reminders.rs`) are notices too, taken once per
//! deadline and threshold. Addresses are confirmed through a single-use link
//! (`addresses.rs`) before anything else is sent to them.

mod addresses;
mod dispatch;
mod mail;
mod outbox;
pub mod preferences;
mod pushes;
mod reminders;
mod resets;
pub mod state;
mod tail;
mod texts;

use std::sync::Arc;

pub use addresses::EmailView;
pub use preferences::Preferences;
pub use state::{Notifier, NotifySettings};

use crate::worp::Worp;

impl Worp {
    /// With notifications sent as `notifier` says.
    pub fn with_notifier(mut self, notifier: Notifier) -> Worp {
        self.notifier = Arc::new(notifier);
        self
    }

    /// Starts the notifier's work: following the log, sending what is due, and the clock
    /// reminders, each every `poll`.
    pub(crate) fn start_notifications(self: &Arc<Self>) {
        let w = self.clone();
        tokio::spawn(async move {
            let mut tail = tail::Tail::default();
            let mut tick = tokio::time::interval(w.notifier.settings.poll);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                if let Err(e) = w.follow_log(&mut tail).await {
                    tracing::warn!("the notifier could not read the log: {e}");
                }
                if let Err(e) = w.remind_clocks().await {
                    tracing::warn!("the clock reminders failed: {e}");
                }
                if let Err(e) = w.send_due().await {
                    tracing::warn!("the notification outbox could not be read: {e}");
                }
            }
        });
    }
}
