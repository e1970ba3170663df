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
mod reminders;
mod resets;
mod tail;
mod texts;

use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use addresses::EmailView;
pub use preferences::Preferences;

use crate::worp::Worp;

/// How notifications are sent (`api/src/configuration.rs` reads them).
#[derive(Debug, Clone)]
pub struct NotifySettings {
    /// `WORP_SMTP_URL`: `smtps://user:pass@host:465` (implicit TLS),
    /// `smtp://user:pass@host:587?tls=required` (STARTTLS), or `smtp://host:port`
    /// (plain: loopback relays and tests only). None: no mail is sent.
    pub smtp_url: Option<String>,
    /// `WORP_MAIL_FROM`: the sender of every mail.
    pub from: String,
    /// `WORP_PUBLIC_URL`: where links in notices point.
    pub public_url: String,
    /// `WORP_NOTIFY_COALESCE_SECS`: the least time between two mails or pushes about one
    /// game; notices meanwhile join the one waiting.
    pub coalesce: chrono::Duration,
    /// `WORP_CLOCK_REMINDERS`: the time left on a clock at which a reminder goes out.
    pub reminders: Vec<chrono::Duration>,
    /// How often the log and the outbox are looked at.
    pub poll: Duration,
    /// The wait before the first retry of a failed send; it doubles each attempt.
    pub backoff: chrono::Duration,
}

impl Default for NotifySettings {
    fn default() -> Self {
        NotifySettings {
            smtp_url: None,
            from: "Worp <noreply@localhost>".into(),
            public_url: "http://localhost:8080".into(),
            coalesce: chrono::Duration::minutes(3),
            reminders: vec![chrono::Duration::hours(24), chrono::Duration::hours(1)],
            poll: Duration::from_secs(1),
            backoff: chrono::Duration::seconds(30),
        }
    }
}

/// The notifier's state in this process.
#[derive(Debug)]
pub struct Notifier {
    pub(crate) settings: NotifySettings,
    pub(crate) mailer: Option<mail::Mailer>,
    /// The players who can be reached, refreshed now and then (`tail.rs`).
    pub(crate) reachable: Mutex<tail::Reachable>,
}

impl Notifier {
    /// The notifier with `settings`; an error names what in `WORP_SMTP_URL` or
    /// `WORP_MAIL_FROM` is wrong.
    pub fn new(settings: NotifySettings) -> Result<Notifier, String> {
        let mailer = match &settings.smtp_url {
            Some(url) => Some(mail::Mailer::new(
                url,
                &settings.from,
                &settings.public_url,
            )?),
            None => None,
        };
        Ok(Notifier {
            settings,
            mailer,
            reachable: Mutex::new(tail::Reachable::default()),
        })
    }
}

impl Default for Notifier {
    fn default() -> Self {
        Notifier {
            settings: NotifySettings::default(),
            mailer: None,
            reachable: Mutex::new(tail::Reachable::default()),
        }
    }
}

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
