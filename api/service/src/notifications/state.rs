//! The notifier's settings and its state in this process (what [`crate::worp::Worp`]
//! holds; the work is in the sibling modules).

use std::collections::HashSet;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use uuid::Uuid;

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
    pub(crate) mailer: Option<super::mail::Mailer>,
    /// The players who can be reached, refreshed now and then (`tail.rs`).
    pub(crate) reachable: Mutex<Reachable>,
}

impl Notifier {
    /// The notifier with `settings`; an error names what in `WORP_SMTP_URL` or
    /// `WORP_MAIL_FROM` is wrong.
    pub fn new(settings: NotifySettings) -> Result<Notifier, String> {
        let mailer = match &settings.smtp_url {
            Some(url) => Some(super::mail::Mailer::new(
                url,
                &settings.from,
                &settings.public_url,
            )?),
            None => None,
        };
        Ok(Notifier {
            settings,
            mailer,
            reachable: Mutex::new(Reachable::default()),
        })
    }
}

impl Default for Notifier {
    fn default() -> Self {
        Notifier {
            settings: NotifySettings::default(),
            mailer: None,
            reachable: Mutex::new(Reachable::default()),
        }
    }
}

/// The players who can be reached by some channel, as last read.
#[derive(Debug, Default)]
pub(crate) struct Reachable {
    pub(crate) players: HashSet<Uuid>,
    pub(crate) read_at: Option<Instant>,
}

impl Notifier {
    /// Reads the reachable players again on next use (one was added here).
    pub(crate) fn forget_reachable(&self) {
        let mut r = self.reachable.lock().unwrap_or_else(|e| e.into_inner());
        r.read_at = None;
    }
}
