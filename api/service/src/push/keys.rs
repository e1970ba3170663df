//! The server's VAPID key pair (RFC 8292): a P-256 key whose public half browsers
//! subscribe with (`applicationServerKey`) and whose private half signs every message's
//! `Authorization: vapid t=<JWT>, k=<public key>`.
//!
//! Made once, on first need, and kept in the store (`vapid_keys`): the first of two
//! processes to keep one wins and both use it. `WORP_VAPID_PRIVATE_KEY` replaces it.

use jwt_simple::prelude::ES256KeyPair;

use super::state::{base64url, vapid_key, PushState, VapidKey};
use super::PushSettings;
use crate::refusal::Refusal;
use crate::worp::Worp;

/// A new private key, base64url.
fn new_private_key() -> String {
    base64url(&ES256KeyPair::generate().to_bytes())
}

/// The subject of the VAPID claims: `subject`, or `mailto:noreply@<host>` of the
/// server's public URL.
pub(crate) fn subject(subject: Option<&str>, public_url: &str) -> Result<String, String> {
    match subject {
        Some(s) => {
            let s = s.trim();
            let url = url::Url::parse(s).map_err(|e| format!("{s:?}: {e}"))?;
            if matches!(url.scheme(), "mailto" | "https") {
                Ok(s.to_owned())
            } else {
                Err(format!("{s:?} is neither a mailto: nor an https: URI"))
            }
        }
        None => {
            let host = url::Url::parse(public_url)
                .ok()
                .and_then(|u| u.host_str().map(str::to_owned))
                .unwrap_or_else(|| "localhost".into());
            Ok(format!("mailto:noreply@{host}"))
        }
    }
}

impl Worp {
    /// With Web Push set up by `settings`, for the site at `public_url` (the default
    /// subject's host). A private key given is checked now.
    pub fn with_push(mut self, settings: &PushSettings, public_url: &str) -> Result<Worp, String> {
        if let Some(private) = &settings.vapid_private_key {
            vapid_key(private).map_err(|e| format!("WORP_VAPID_PRIVATE_KEY: {e}"))?;
        }
        let subject = subject(settings.subject.as_deref(), public_url)
            .map_err(|e| format!("WORP_VAPID_SUBJECT: {e}"))?;
        self.push = PushState {
            private_key: settings.vapid_private_key.clone(),
            subject,
            ..PushState::default()
        };
        Ok(self)
    }

    /// The VAPID key: the one configured, else the one kept in the store (made now if
    /// there is none).
    pub(crate) async fn vapid(&self) -> Result<&VapidKey, Refusal> {
        self.push
            .key
            .get_or_try_init(|| async {
                let private = match &self.push.private_key {
                    Some(p) => p.clone(),
                    None => match self.store.vapid_key().await? {
                        Some(p) => p,
                        None => {
                            let made = new_private_key();
                            self.store.keep_vapid_key(&made, self.now()).await?
                        }
                    },
                };
                vapid_key(&private).map_err(|e| {
                    tracing::error!("the VAPID key: {e}");
                    Refusal::Internal(format!("the server's VAPID key: {e}"))
                })
            })
            .await
    }

    /// The public key browsers subscribe with (`applicationServerKey`): an uncompressed
    /// P-256 point, base64url.
    pub async fn push_public_key(&self) -> Result<String, Refusal> {
        Ok(self.vapid().await?.public.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_subject_is_a_mailto_or_https_uri_by_default_at_the_public_host() {
        assert_eq!(
            subject(None, "https://worp.example:8443/"),
            Ok("mailto:noreply@worp.example".into())
        );
        assert_eq!(
            subject(Some(" https://worp.example/contact "), "http://localhost"),
            Ok("https://worp.example/contact".into())
        );
        assert!(subject(Some("http://worp.example"), "http://localhost").is_err());
        assert!(subject(Some("nobody"), "http://localhost").is_err());
    }

    #[test]
    fn a_new_key_reads_back_with_an_uncompressed_public_point() {
        let made = new_private_key();
        let key = vapid_key(&made).expect("a key");
        let point = base64::Engine::decode(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD,
            &key.public,
        )
        .expect("base64url");
        assert_eq!((point.len(), point[0]), (65, 4));
        assert_eq!(vapid_key(&made).expect("again").public, key.public);
        assert!(vapid_key("AAAA").is_err());
        assert!(vapid_key(&made[..40]).is_err());
        assert!(vapid_key(&format!("{made}AAAA")).is_err());
        // Zero is no private key, however long.
        assert!(vapid_key(&"A".repeat(43)).is_err());
    }
}
