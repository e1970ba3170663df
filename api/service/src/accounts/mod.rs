//! Accounts that last: credentials beside a player's first token.
//!
//! - [`tokens`]: recognising any credential ([`Worp::authenticate`]), personal access
//!   tokens with scopes and expiry, and web sessions (sliding expiry, CSRF tokens).
//! - [`passwords`]: passwords (Argon2id, strength-checked), recovery codes, signing in
//!   with growing delays after failures.
//! - [`passkeys`]: WebAuthn credentials, registered and signed in with.
//! - [`leaving`]: everything held about a player, exported; deleting the account.
//! - [`oauth`]: OAuth 2.0 for public clients (authorization code with PKCE S256,
//!   rotating refresh tokens, revocation) and the apps a player authorised.
//!
//! Every secret is 32 random bytes, hex, behind a prefix that says its kind
//! ([`CredentialKind::prefix`]); the store keeps its SHA-256 only.
//!
//! [`Worp::authenticate`]: crate::Worp::authenticate

pub mod leaving;
pub mod oauth;
pub mod passkeys;
pub mod passwords;
pub mod tokens;

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;
use worp_domain::access::{Credential, CredentialKind, Scope};
use worp_domain::dice;

use crate::players::token_hash;
use crate::refusal::Refusal;

/// A new secret behind `prefix` (32 random bytes, hex), and its SHA-256.
pub(crate) fn new_prefixed_secret(prefix: &str) -> Result<(String, Vec<u8>), Refusal> {
    let bytes = dice::new_server_seed()
        .map_err(|e| Refusal::Internal(format!("no randomness available: {e}")))?;
    let secret = format!("{prefix}{}", hex::encode(bytes));
    let hash = token_hash(&secret);
    Ok((secret, hash))
}

/// A new secret of `kind`, and its SHA-256.
pub(crate) fn new_secret_and_hash(kind: CredentialKind) -> Result<(String, Vec<u8>), Refusal> {
    new_prefixed_secret(kind.prefix())
}

/// A credential as its owner sees it listed: never its secret.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CredentialView {
    pub id: Uuid,
    pub kind: CredentialKind,
    /// The token's note, or the session's device.
    pub name: String,
    #[schema(value_type = Vec<Scope>)]
    pub scopes: Vec<&'static str>,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
    /// When it stops working (`null`: never). A session's moves on with every use.
    pub expires_at: Option<DateTime<Utc>>,
    /// Whether the request listing it came with this very credential.
    pub current: bool,
}

impl CredentialView {
    pub fn of(c: &Credential, current: Option<Uuid>) -> CredentialView {
        CredentialView {
            id: c.id,
            kind: c.kind,
            name: c.name.clone(),
            scopes: c.scopes.names(),
            created_at: c.created_at,
            last_used_at: c.last_used_at,
            expires_at: c.expires_at,
            current: current == Some(c.id),
        }
    }
}
