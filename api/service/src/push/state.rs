//! What the service keeps for Web Push ([`PushState`], a field of `Worp`): the settings,
//! the VAPID key once read or made, the HTTP client once built. Apart from the modules
//! that use it, so that `Worp` names it without importing them.

use base64::Engine;
use web_push::{PartialVapidSignatureBuilder, VapidSignatureBuilder};

/// Web Push as this process has it.
#[derive(Debug, Default)]
pub(crate) struct PushState {
    /// `WORP_VAPID_PRIVATE_KEY`, if set.
    pub(crate) private_key: Option<String>,
    /// The VAPID claims' `sub`.
    pub(crate) subject: String,
    pub(crate) key: tokio::sync::OnceCell<VapidKey>,
    pub(crate) client: std::sync::OnceLock<reqwest::Client>,
}

/// The key pair, ready to sign.
#[derive(Clone)]
pub(crate) struct VapidKey {
    /// Signs for one subscription at a time (cloned for each).
    pub(crate) signer: PartialVapidSignatureBuilder,
    /// The public key: an uncompressed P-256 point (65 bytes), base64url.
    pub(crate) public: String,
}

impl std::fmt::Debug for VapidKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VapidKey")
            .field("public", &self.public)
            .finish_non_exhaustive()
    }
}

pub(crate) fn base64url(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// Reads a private key: the P-256 scalar, base64url.
pub(crate) fn vapid_key(private: &str) -> Result<VapidKey, String> {
    let refused = || "not a P-256 private key (32 bytes, base64url without padding)".to_owned();
    let private = private.trim();
    // Of another length, the key would make `web-push`'s parser panic, not refuse it.
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(private)
        .map_err(|_| refused())?;
    if bytes.len() != 32 {
        return Err(refused());
    }
    let signer = VapidSignatureBuilder::from_base64_no_sub(private).map_err(|_| refused())?;
    let public = base64url(&signer.get_public_key());
    Ok(VapidKey { signer, public })
}
