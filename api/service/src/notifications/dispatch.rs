//! Sending what is due in the outbox. Each row is claimed for one attempt (a lease in
//! the row: two processes never both send it, and a process that dies mid-send leaves
//! it to be claimed again once the lease runs out), sent, and recorded only while the
//! claim holds. A failure worth retrying waits twice as long each time, up to an hour,
//! [`MAX_ATTEMPTS`] times.

use chrono::{DateTime, Duration, Utc};
use uuid::Uuid;
use worp_store::notifications::Outgoing;

use super::mail::{Mail, MailFailure};
use super::outbox::Item;
use super::texts::Said;
use crate::refusal::Refusal;
use crate::worp::Worp;

/// How many attempts before a row is given up.
pub const MAX_ATTEMPTS: i32 = 8;
/// How long a claim lasts: longer than any one send may take.
const LEASE: Duration = Duration::minutes(2);
/// How many due rows one look at the outbox takes.
const ROWS_PER_LOOK: i64 = 50;

/// How one attempt went.
pub(super) enum Outcome {
    Sent,
    /// Nothing to send any more (the notices no longer stand, the address went).
    Dropped(String),
    Retry(String),
    /// Given up: the address refused it for good.
    Failed(String),
}

/// The newest line of an outbox row's items that reads as a `T`.
fn newest_item<T: serde::de::DeserializeOwned>(items: &str) -> Option<T> {
    items
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str::<T>(l).ok())
}

impl Worp {
    /// Sends the rows of the outbox that are due.
    pub(crate) async fn send_due(&self) -> Result<(), Refusal> {
        let now = self.now();
        for row in self.store.due_notifications(now, ROWS_PER_LOOK).await? {
            let lease = now + LEASE;
            if !self.store.claim_notification(row.id, now, lease).await? {
                continue; // Another process has it.
            }
            let attempts = row.attempts + 1;
            let outcome = match self.send_row(&row).await {
                Ok(o) => o,
                Err(e @ Refusal::Unavailable(_)) => Outcome::Retry(e.to_string()),
                Err(e) => Outcome::Failed(e.to_string()),
            };
            let done = self.now();
            let (status, due, error) = match &outcome {
                Outcome::Sent => ("sent", row.due_at, None),
                Outcome::Dropped(why) => ("dropped", row.due_at, Some(why.as_str())),
                Outcome::Failed(why) => ("failed", row.due_at, Some(why.as_str())),
                Outcome::Retry(why) if attempts >= MAX_ATTEMPTS => {
                    ("failed", row.due_at, Some(why.as_str()))
                }
                Outcome::Retry(why) => {
                    ("pending", done + self.backoff(attempts), Some(why.as_str()))
                }
            };
            if let Some(why) = error {
                tracing::info!(id = %row.id, channel = %row.channel, attempts, status, "notification: {why}");
            }
            worp_telemetry::metrics::notification(&row.channel, status);
            self.store
                .finish_notification(row.id, lease, status, due, error, done)
                .await?;
        }
        Ok(())
    }

    /// The wait after attempt `attempts` failed.
    fn backoff(&self, attempts: i32) -> Duration {
        let doublings = u32::try_from(attempts.clamp(1, 8) - 1).unwrap_or(0);
        (self.notifier.settings.backoff * 2i32.pow(doublings)).min(Duration::hours(1))
    }

    async fn send_row(&self, row: &Outgoing) -> Result<Outcome, Refusal> {
        match row.channel.as_str() {
            "confirm" => self.send_confirmation(row).await,
            "reset" => self.send_reset(row).await,
            "email" | "digest" => self.send_notices_by_mail(row).await,
            "push" => self.push_notices(row).await,
            other => Ok(Outcome::Dropped(format!("no channel {other:?}"))),
        }
    }

    /// The notices of `row` that still stand, in words.
    pub(super) async fn said(&self, row: &Outgoing) -> Result<Vec<Said>, Refusal> {
        let mut said: Vec<Said> = Vec::new();
        for item in Item::parse_lines(&row.items) {
            if let Some(s) = self.say(row.player_id, &item).await? {
                if !said.contains(&s) {
                    said.push(s);
                }
            }
        }
        Ok(said)
    }

    async fn send_confirmation(&self, row: &Outgoing) -> Result<Outcome, Refusal> {
        #[derive(serde::Deserialize)]
        struct Confirmation {
            address: String,
            secret: String,
        }
        let Some(c) = newest_item::<Confirmation>(&row.items) else {
            return Ok(Outcome::Dropped("no confirmation in the row".into()));
        };
        let current = self.store.email_address(row.player_id).await?;
        if !current.is_some_and(|a| a.address == c.address && a.confirmed_at.is_none()) {
            return Ok(Outcome::Dropped(
                "the address changed or was confirmed".into(),
            ));
        }
        let link = format!(
            "{}/v1/email/confirm?token={}",
            self.notifier.settings.public_url.trim_end_matches('/'),
            c.secret
        );
        let body = format!(
            "Someone, probably you, gave this address to Worp to hear about their games.\n\n\
             To confirm it, open this link within 24 hours and press Confirm:\n{link}\n\n\
             If it was not you, ignore this mail: nothing more will be sent to you.\n"
        );
        let mail = Mail {
            to: c.address.clone(),
            subject: "Confirm your e-mail address for Worp".into(),
            body,
            id: row.id,
            unsubscribe: None,
        };
        self.mail(row.player_id, &c.address, &mail).await
    }

    async fn send_reset(&self, row: &Outgoing) -> Result<Outcome, Refusal> {
        #[derive(serde::Deserialize)]
        struct Reset {
            secret: String,
        }
        let Some(reset) = newest_item::<Reset>(&row.items) else {
            return Ok(Outcome::Dropped("no reset in the row".into()));
        };
        let Some(address) = self.mailable_address(row.player_id).await? else {
            return Ok(Outcome::Dropped("no confirmed address".into()));
        };
        let name = self
            .store
            .player(row.player_id)
            .await?
            .map(|p| p.name)
            .unwrap_or_default();
        let link = format!(
            "{}/v1/password-reset?token={}",
            self.notifier.settings.public_url.trim_end_matches('/'),
            reset.secret
        );
        let body = format!(
            "Someone asked to reset the password of {name}'s account on Worp.\n\n\
             To choose a new password, open this link within an hour:\n{link}\n\n\
             Every session of the account is signed out when the password changes. If you \
             did not ask for this, ignore this mail: nothing changes.\n"
        );
        let mail = Mail {
            to: address.address.clone(),
            subject: "Reset your Worp password".into(),
            body,
            id: row.id,
            unsubscribe: None,
        };
        self.mail(row.player_id, &address.address, &mail).await
    }

    async fn send_notices_by_mail(&self, row: &Outgoing) -> Result<Outcome, Refusal> {
        let Some(address) = self.mailable_address(row.player_id).await? else {
            return Ok(Outcome::Dropped("no confirmed address".into()));
        };
        let said = self.said(row).await?;
        if said.is_empty() {
            return Ok(Outcome::Dropped("nothing that still stands".into()));
        }
        let mut kinds: Vec<&str> = said
            .iter()
            .filter_map(|s| super::preferences::preference_kind(&s.kind))
            .collect();
        kinds.sort_unstable();
        kinds.dedup();
        let base = self.notifier.settings.public_url.trim_end_matches('/');
        let unsubscribe = format!(
            "{base}/v1/email/unsubscribe?key={}&kinds={}",
            address.unsubscribe_key,
            kinds.join(",")
        );
        let digest = row.channel == "digest";
        let subject = match (digest, said.as_slice()) {
            (false, [one]) => one.line.clone(),
            (false, [first, ..]) => format!("{} (and {} more)", first.line, said.len() - 1),
            (true, _) | (false, []) => format!("Your day on Worp: {} news", said.len()),
        };
        let mut body = String::new();
        for s in &said {
            body.push_str(&format!("{}\n{}\n\n", s.line, s.url));
        }
        body.push_str(&format!(
            "--\nYou get this mail because you asked Worp for it. Choose what you hear, \
             and how: {base}/#/account\nStop these mails: {unsubscribe}\n"
        ));
        let mail = Mail {
            to: address.address.clone(),
            subject,
            body,
            id: row.id,
            unsubscribe: Some(unsubscribe),
        };
        self.mail(row.player_id, &address.address, &mail).await
    }

    /// Sends `mail` to `player`'s `address`; a permanent refusal disables the address.
    async fn mail(&self, player: Uuid, address: &str, mail: &Mail) -> Result<Outcome, Refusal> {
        let Some(mailer) = &self.notifier.mailer else {
            return Ok(Outcome::Retry(
                "this server sends no mail (WORP_SMTP_URL)".into(),
            ));
        };
        match mailer.send(mail).await {
            Ok(()) => Ok(Outcome::Sent),
            Err(MailFailure::Transient(why)) => Ok(Outcome::Retry(why)),
            Err(MailFailure::Permanent(why)) => {
                self.store
                    .disable_email_address(player, address, &why, self.now())
                    .await?;
                self.notifier.forget_reachable();
                Ok(Outcome::Failed(why))
            }
        }
    }

    /// `player`'s rows of the outbox, newest first: channel, status, when due, attempts
    /// (what the tests look at).
    #[doc(hidden)]
    pub async fn outbox_of(
        &self,
        player: Uuid,
    ) -> Result<Vec<(String, String, DateTime<Utc>, i32)>, Refusal> {
        Ok(self
            .store
            .notifications_of(player, 100)
            .await?
            .into_iter()
            .map(|r| (r.channel, r.status, r.due_at, r.attempts))
            .collect())
    }
}
