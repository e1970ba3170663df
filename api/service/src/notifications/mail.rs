//! Sending mail through SMTP with `lettre`: the transport from `WORP_SMTP_URL`, and each
//! message with its headers (a stable `Message-ID`, RFC 8058's one-click unsubscribe,
//! `Auto-Submitted`). A refusal is told apart as lettre reads the server's reply:
//! permanent (5xx: the address is disabled) or not (retried).

use lettre::message::header::{ContentType, HeaderName, HeaderValue};
use lettre::message::Mailbox;
use lettre::transport::smtp::AsyncSmtpTransport;
use lettre::{AsyncTransport, Message, Tokio1Executor};

/// The SMTP transport and the sender's address.
pub(crate) struct Mailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
    /// The host of `WORP_PUBLIC_URL`, the right side of every `Message-ID`.
    host: String,
}

impl std::fmt::Debug for Mailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mailer")
            .field("from", &self.from.to_string())
            .finish()
    }
}

/// One mail to send.
#[derive(Debug, Clone)]
pub(crate) struct Mail {
    pub to: String,
    pub subject: String,
    pub body: String,
    /// Unique per outbox row: a receiver that gets it twice (the sender stopped between
    /// the server's acceptance and recording it) can tell.
    pub id: uuid::Uuid,
    /// The one-click unsubscribe URL (notices; not confirmations).
    pub unsubscribe: Option<String>,
}

/// Why a mail was not sent.
#[derive(Debug, thiserror::Error)]
pub(crate) enum MailFailure {
    /// The server refused it for good (a 5xx reply), or the mail cannot be made.
    #[error("refused for good: {0}")]
    Permanent(String),
    /// Worth trying again later (4xx, no connection, a time-out).
    #[error("{0}")]
    Transient(String),
}

impl Mailer {
    /// The mailer for `url` (see [`super::NotifySettings::smtp_url`]) sending as `from`.
    pub fn new(url: &str, from: &str, public_url: &str) -> Result<Mailer, String> {
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
            .map_err(|e| format!("WORP_SMTP_URL: {e}"))?
            .timeout(Some(std::time::Duration::from_secs(30)))
            .build();
        let from: Mailbox = from
            .parse()
            .map_err(|e| format!("WORP_MAIL_FROM {from:?}: {e}"))?;
        let host = url::Url::parse(public_url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned))
            .unwrap_or_else(|| "localhost".into());
        Ok(Mailer {
            transport,
            from,
            host,
        })
    }

    pub async fn send(&self, mail: &Mail) -> Result<(), MailFailure> {
        let to: Mailbox = mail
            .to
            .parse()
            .map_err(|e| MailFailure::Permanent(format!("the address {:?}: {e}", mail.to)))?;
        let mut builder = Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(&mail.subject)
            .message_id(Some(format!("<{}@{}>", mail.id, self.host)))
            .header(ContentType::TEXT_PLAIN)
            .raw_header(header("Auto-Submitted", "auto-generated".into()));
        if let Some(url) = &mail.unsubscribe {
            builder = builder
                .raw_header(header("List-Unsubscribe", format!("<{url}>")))
                .raw_header(header(
                    "List-Unsubscribe-Post",
                    "List-Unsubscribe=One-Click".into(),
                ));
        }
        let message = builder
            .body(mail.body.clone())
            .map_err(|e| MailFailure::Permanent(format!("the mail cannot be made: {e}")))?;
        match self.transport.send(message).await {
            Ok(_) => Ok(()),
            Err(e) if e.is_permanent() => Err(MailFailure::Permanent(e.to_string())),
            Err(e) => Err(MailFailure::Transient(e.to_string())),
        }
    }
}

fn header(name: &'static str, value: String) -> HeaderValue {
    HeaderValue::new(HeaderName::new_from_ascii_str(name), value)
}
