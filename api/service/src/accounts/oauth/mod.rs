//! OAuth 2.0 for third-party front-ends: public clients that need not register, as on
//! lichess. The authorization code grant with PKCE, S256 only (RFC 6749 §4.1, RFC 7636),
//! following RFC 9700: redirect URIs matched exactly, codes single-use and short-lived
//! (a replayed code revokes what it bought), access tokens short-lived, refresh tokens
//! rotated on every use (presenting one twice revokes the whole grant), revocation
//! (RFC 7009). The client is known by its `client_id` and its redirect's origin, both
//! shown on the consent screen. As no redirect URI is registered, a faulty request is
//! never redirected (`request.rs`). The issuer is `WORP_PUBLIC_URL`, never a request's
//! `Host` (`issuer.rs`).

mod issuer;
mod request;

use chrono::Duration;
use serde::Serialize;
use url::Url;
use utoipa::ToSchema;
use uuid::Uuid;
use worp_domain::access::{Credential, CredentialKind, OauthCode, OauthGrant, Scope, Scopes};
use worp_store::accounts::{Exchange, RefreshOutcome};
use worp_store::Player;

pub use issuer::Issuer;
pub use request::{check_authorization, s256, Authorization, AuthorizeParams};
use request::{origin, redirect_with, unreserved};

use super::{new_prefixed_secret, new_secret_and_hash};
use crate::players::token_hash;
use crate::refusal::Refusal;
use crate::worp::Worp;

/// The prefix of authorisation codes, which are not tokens.
pub const CODE_PREFIX: &str = "worp_oac_";
/// How long an authorisation code may wait to be exchanged.
pub const CODE_LIFETIME: Duration = Duration::minutes(2);
/// How long an access token works.
pub const ACCESS_LIFETIME: Duration = Duration::hours(1);
/// How long a refresh token works, from when it was issued.
pub const REFRESH_LIFETIME: Duration = Duration::days(30);
/// The longest `client_id`, `state` and redirect URI accepted.
pub const MAX_CLIENT_ID: usize = 200;
pub const MAX_STATE: usize = 1000;
pub const MAX_REDIRECT_URI: usize = 2048;
/// The most apps a player may have authorised at once; authorising one more forgets
/// the oldest.
pub const MAX_GRANTS: usize = 100;

/// A refusal in OAuth's own terms (RFC 6749 §4.1.2.1, §5.2): what clients parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{error}: {description}")]
pub struct OauthError {
    /// `invalid_request`, `invalid_grant`, `invalid_scope`, `unsupported_grant_type`, ...
    pub error: &'static str,
    pub description: String,
}

impl OauthError {
    pub(crate) fn new(error: &'static str, description: impl Into<String>) -> OauthError {
        OauthError {
            error,
            description: description.into(),
        }
    }
}

/// Why an OAuth request failed: by the protocol, or as any request may.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OauthFailure {
    #[error(transparent)]
    Protocol(#[from] OauthError),
    #[error(transparent)]
    Refusal(#[from] Refusal),
}

impl From<worp_store::StoreError> for OauthFailure {
    fn from(e: worp_store::StoreError) -> Self {
        OauthFailure::Refusal(e.into())
    }
}
/// What the consent screen shows.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ConsentView {
    pub client_id: String,
    /// The origin the player's browser will be sent back to.
    pub redirect_origin: String,
    pub redirect_uri: String,
    pub scopes: Vec<ScopeView>,
}

/// A scope and what it allows.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ScopeView {
    #[schema(value_type = Scope)]
    pub scope: &'static str,
    pub description: &'static str,
}

/// A token response (RFC 6749 §5.1).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TokenResponse {
    pub access_token: String,
    /// `Bearer`.
    pub token_type: &'static str,
    /// Seconds the access token works.
    pub expires_in: i64,
    pub refresh_token: String,
    /// Space-separated scopes granted.
    pub scope: String,
}

/// An app a player authorised.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AppView {
    pub id: Uuid,
    pub client_id: String,
    pub redirect_origin: String,
    #[schema(value_type = Vec<Scope>)]
    pub scopes: Vec<&'static str>,
    pub created_at: chrono::DateTime<chrono::Utc>,
}
/// An OAuth credential of `grant`.
fn oauth_credential(
    grant: &OauthGrant,
    kind: CredentialKind,
    scopes: Scopes,
    hash: Vec<u8>,
    now: chrono::DateTime<chrono::Utc>,
    lifetime: Duration,
) -> Credential {
    Credential {
        id: Uuid::new_v4(),
        player_id: grant.player_id,
        secret_hash: hash,
        kind,
        name: grant.client_id.clone(),
        scopes,
        created_at: now,
        last_used_at: None,
        expires_at: Some(now + lifetime),
        grant_id: Some(grant.id),
        used_at: None,
    }
}

impl Worp {
    /// The player consents (or not) to `auth`, a request that passed every check and
    /// whose redirect's origin they were shown: where to send their browser, with a code
    /// or with `access_denied`.
    pub async fn authorize(
        &self,
        player: &Player,
        auth: &Authorization,
        approve: bool,
    ) -> Result<String, Refusal> {
        if !approve {
            return Ok(auth.error_redirect(&OauthError::new(
                "access_denied",
                "the player did not authorise the app",
            )));
        }
        let (code, code_hash) = new_prefixed_secret(CODE_PREFIX)?;
        self.store
            .create_oauth_code(&OauthCode {
                code_hash,
                player_id: player.id,
                client_id: auth.client_id.clone(),
                redirect_uri: auth.redirect_uri.clone(),
                scopes: auth.scopes,
                code_challenge: auth.code_challenge.clone(),
                expires_at: self.now() + CODE_LIFETIME,
                grant_id: None,
            })
            .await?;
        Ok(redirect_with(
            &auth.redirect_uri,
            &[("code", &code)],
            auth.state.as_deref(),
        ))
    }

    /// A grant's new access and refresh tokens (with their secrets), not yet stored.
    fn new_tokens(
        &self,
        grant: &OauthGrant,
        scopes: Scopes,
    ) -> Result<(Credential, String, Credential, String), Refusal> {
        let now = self.now();
        let (access, access_hash) = new_secret_and_hash(CredentialKind::OauthAccess)?;
        let (refresh, refresh_hash) = new_secret_and_hash(CredentialKind::OauthRefresh)?;
        let a = oauth_credential(
            grant,
            CredentialKind::OauthAccess,
            scopes,
            access_hash,
            now,
            ACCESS_LIFETIME,
        );
        let r = oauth_credential(
            grant,
            CredentialKind::OauthRefresh,
            scopes,
            refresh_hash,
            now,
            REFRESH_LIFETIME,
        );
        Ok((a, access, r, refresh))
    }

    /// `grant_type=authorization_code` (RFC 6749 §4.1.3, RFC 7636 §4.5).
    pub async fn exchange_code(
        &self,
        code: &str,
        client_id: &str,
        redirect_uri: &str,
        verifier: &str,
    ) -> Result<TokenResponse, OauthFailure> {
        let invalid = |why: &str| OauthError::new("invalid_grant", why);
        let hash = token_hash(code);
        let stored = self
            .store
            .oauth_code(&hash)
            .await?
            .ok_or_else(|| invalid("unknown or expired code"))?;
        if stored.grant_id.is_none() {
            if self.now() >= stored.expires_at {
                return Err(invalid("unknown or expired code").into());
            }
            if stored.client_id != client_id {
                return Err(invalid("the code was issued to another client_id").into());
            }
            if stored.redirect_uri != redirect_uri {
                return Err(
                    invalid("redirect_uri differs from the authorisation request's").into(),
                );
            }
            if !unreserved(verifier, 43, 128) {
                return Err(OauthError::new(
                    "invalid_request",
                    "code_verifier must be 43 to 128 unreserved characters",
                )
                .into());
            }
            if s256(verifier) != stored.code_challenge {
                return Err(invalid("code_verifier does not match the code_challenge").into());
            }
        }
        let grant = OauthGrant {
            id: Uuid::new_v4(),
            player_id: stored.player_id,
            client_id: stored.client_id.clone(),
            redirect_uri: stored.redirect_uri.clone(),
            scopes: stored.scopes,
            created_at: self.now(),
        };
        let (a, access, r, refresh) = self.new_tokens(&grant, stored.scopes)?;
        match self
            .store
            .exchange_oauth_code(&hash, &grant, &a, &r)
            .await?
        {
            Exchange::Granted => {
                self.forget_oldest_grants(stored.player_id).await?;
                Ok(token_response(access, refresh, stored.scopes))
            }
            Exchange::Replayed { revoked } => {
                tracing::warn!(
                    client_id = %stored.client_id,
                    revoked,
                    "an authorisation code was presented twice; its grant is revoked"
                );
                Err(invalid("the code was used before; the tokens it bought are revoked").into())
            }
        }
    }

    /// Keeps a player's grants within [`MAX_GRANTS`].
    async fn forget_oldest_grants(&self, player: Uuid) -> Result<(), Refusal> {
        let grants = self.store.oauth_grants_of(player).await?;
        if grants.len() > MAX_GRANTS {
            for g in &grants[..grants.len() - MAX_GRANTS] {
                self.store.revoke_oauth_grant(player, g.id).await?;
            }
        }
        Ok(())
    }

    /// `grant_type=refresh_token` (RFC 6749 §6): the token is used up and replaced.
    pub async fn refresh(
        &self,
        refresh_token: &str,
        client_id: &str,
        scope: Option<&str>,
    ) -> Result<TokenResponse, OauthFailure> {
        let invalid =
            || OauthError::new("invalid_grant", "unknown, expired or revoked refresh token");
        if CredentialKind::of_secret(refresh_token) != CredentialKind::OauthRefresh {
            return Err(invalid().into());
        }
        let (old, _) = self
            .store
            .credential_by_hash(&token_hash(refresh_token))
            .await?
            .ok_or_else(invalid)?;
        if !old.live_at(self.now()) || old.kind != CredentialKind::OauthRefresh {
            return Err(invalid().into());
        }
        if old.name != client_id {
            return Err(OauthError::new(
                "invalid_grant",
                "the refresh token was issued to another client_id",
            )
            .into());
        }
        let scopes = match scope {
            Some(s) => {
                let s = Scopes::from_spaced(s)
                    .map_err(|e| OauthError::new("invalid_scope", e.to_string()))?;
                if s.is_empty() || !old.scopes.covers(s) {
                    return Err(OauthError::new(
                        "invalid_scope",
                        format!("scope must be within what was granted: {}", old.scopes),
                    )
                    .into());
                }
                s
            }
            None => old.scopes,
        };
        let grant = OauthGrant {
            id: old.grant_id.ok_or_else(invalid)?,
            player_id: old.player_id,
            client_id: old.name.clone(),
            redirect_uri: String::new(),
            scopes,
            created_at: old.created_at,
        };
        let (a, access, r, refresh) = self.new_tokens(&grant, scopes)?;
        match self
            .store
            .rotate_refresh_token(&old, self.now(), &a, &r)
            .await?
        {
            RefreshOutcome::Rotated => Ok(token_response(access, refresh, scopes)),
            RefreshOutcome::Reused => {
                tracing::warn!(client_id = %old.name, "a refresh token was presented twice; its grant is revoked");
                Err(OauthError::new(
                    "invalid_grant",
                    "the refresh token was used before; every token of this grant is revoked",
                )
                .into())
            }
        }
    }

    /// Revokes the OAuth token `token` with its whole grant, or the personal token or
    /// session it is (RFC 7009 §2.1; an unknown token is no error).
    pub async fn revoke_token(&self, token: &str, client_id: Option<&str>) -> Result<(), Refusal> {
        let Some((c, _)) = self.store.credential_by_hash(&token_hash(token)).await? else {
            return Ok(());
        };
        match (c.kind, c.grant_id) {
            (CredentialKind::OauthAccess | CredentialKind::OauthRefresh, Some(grant)) => {
                if client_id.is_some_and(|id| id != c.name) {
                    return Ok(());
                }
                self.store.revoke_oauth_grant(c.player_id, grant).await?;
            }
            _ => {
                self.store
                    .delete_credential(c.player_id, c.kind, c.id)
                    .await?;
            }
        }
        Ok(())
    }

    /// The apps `player` authorised.
    pub async fn apps(&self, player: &Player) -> Result<Vec<AppView>, Refusal> {
        Ok(self
            .store
            .oauth_grants_of(player.id)
            .await?
            .into_iter()
            .map(|g| AppView {
                id: g.id,
                redirect_origin: Url::parse(&g.redirect_uri)
                    .map(|u| origin(&u))
                    .unwrap_or_default(),
                client_id: g.client_id,
                scopes: g.scopes.names(),
                created_at: g.created_at,
            })
            .collect())
    }

    /// Revokes app `id` of `player` and every token it holds.
    pub async fn revoke_app(&self, player: &Player, id: Uuid) -> Result<(), Refusal> {
        if self.store.revoke_oauth_grant(player.id, id).await? {
            Ok(())
        } else {
            Err(Refusal::NotFound("no such app of yours".into()))
        }
    }
}

fn token_response(access: String, refresh: String, scopes: Scopes) -> TokenResponse {
    TokenResponse {
        access_token: access,
        token_type: "Bearer",
        expires_in: ACCESS_LIFETIME.num_seconds(),
        refresh_token: refresh,
        scope: scopes.to_string(),
    }
}
