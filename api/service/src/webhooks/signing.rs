//! Signing deliveries like Stripe and GitHub do: `Worp-Signature: t=<unix>,v1=<hex>`
//! where the hex is HMAC-SHA256(webhook secret, "<unix>.<body>").

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The signature header value for `body` sent at `timestamp`.
pub fn signature(secret: &str, timestamp: i64, body: &[u8]) -> String {
    let mut mac = match Hmac::<Sha256>::new_from_slice(secret.as_bytes()) {
        Ok(m) => m,
        Err(_) => return String::new(),
    };
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    format!(
        "t={timestamp},v1={}",
        hex::encode(mac.finalize().into_bytes())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_is_hmac_of_timestamp_dot_body() {
        // Same construction as Stripe: HMAC-SHA256(secret, "t.body").
        let sig = signature("whsec", 1700000000, b"{}");
        assert!(sig.starts_with("t=1700000000,v1="));
        assert_eq!(sig.len(), "t=1700000000,v1=".len() + 64);
        assert_ne!(sig, signature("whsec", 1700000001, b"{}"));
        assert_ne!(sig, signature("other", 1700000000, b"{}"));
    }
}
