//! OAuth 2.0 for third-party front-ends: public clients that need not register, as on
//! lichess. The authorization code grant with PKCE, S256 only (RFC 6749 §4.1, RFC 7636),
//! following RFC 9700: redirect URIs matched exactly, codes single-use and short-lived
//! (a replayed code revokes what it bought), access tokens short-lived, refresh tokens
//! rotated on every use (presenting one twice revokes the whole grant), revocation
//! (RFC 7009). The client is known by its `client_id` and its redirect's origin, both
//! shown on the consent screen.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use chrono::Duration;
use serde::Serialize;
use sha2::{Digest, Sha256};
use url::Url;
use utoipa::ToSchema;
use uuid::Uuid;
use worp_domain::access::{Credential, CredentialKind, OauthCode, OauthGrant, Scope, Scopes};
use worp_store::accounts::{Exchange, RefreshOutcome};
use worp_store::Player;

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
    fn new(error: &'static str, description: impl Into<String>) -> OauthError {
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

/// The parameters of an authorisation request, as the client sent them.
#[derive(Debug, Clone, Default, serde::Deserialize, ToSchema, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AuthorizeParams {
    /// `code`.
    pub response_type: Option<String>,
    /// Any name the front-end goes by (no registration); shown on the consent screen.
    pub client_id: Option<String>,
    /// Where the player's browser is sent back: `https`, or `http` on a loopback address.
    pub redirect_uri: Option<String>,
    /// Space-separated scopes.
    pub scope: Option<String>,
    /// Echoed back on the redirect.
    pub state: Option<String>,
    /// BASE64URL(SHA-256(code_verifier)).
    pub code_challenge: Option<String>,
    /// `S256`.
    pub code_challenge_method: Option<String>,
}

/// An authorisation request whose redirect URI is acceptable: from here on, errors go
/// back to the client through it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authorization {
    pub client_id: String,
    pub redirect_uri: String,
    pub state: Option<String>,
    pub request: Result<(Scopes, String), OauthError>,
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

/// The origin of a URL (`https://example.org:8443`).
fn origin(url: &Url) -> String {
    url.origin().ascii_serialization()
}

/// Whether `uri` may be a redirect URI: absolute, no fragment, `https`, or `http` to a
/// loopback address (native apps, RFC 8252 §7.3).
fn checked_redirect(uri: &str) -> Result<Url, String> {
    if uri.len() > MAX_REDIRECT_URI {
        return Err(format!(
            "redirect_uri is longer than {MAX_REDIRECT_URI} bytes"
        ));
    }
    let url = Url::parse(uri).map_err(|e| format!("redirect_uri is not an absolute URL: {e}"))?;
    if url.fragment().is_some() {
        return Err("redirect_uri must not have a fragment".into());
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("redirect_uri must not carry credentials".into());
    }
    let loopback = match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(a)) => a.is_loopback(),
        Some(url::Host::Ipv6(a)) => a.is_loopback(),
        None => return Err("redirect_uri must name a host".into()),
    };
    match url.scheme() {
        "https" => Ok(url),
        "http" if loopback => Ok(url),
        _ => Err("redirect_uri must be https, or http to a loopback address".into()),
    }
}

/// Whether `s` is made of RFC 7636's unreserved characters only, `min` to `max` of them.
fn unreserved(s: &str, min: usize, max: usize) -> bool {
    (min..=max).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}

/// BASE64URL(SHA-256(verifier)), as S256 computes it.
pub fn s256(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// Checks an authorisation request. An error about the client or its redirect URI is
/// shown to the player and never redirected (RFC 6749 §4.1.2.1); any other is carried in
/// [`Authorization::request`], to go back to the client.
pub fn check_authorization(p: &AuthorizeParams) -> Result<Authorization, OauthError> {
    let client_id = p.client_id.as_deref().unwrap_or("").trim();
    if client_id.is_empty()
        || client_id.len() > MAX_CLIENT_ID
        || client_id.chars().any(char::is_control)
    {
        return Err(OauthError::new(
            "invalid_request",
            format!("client_id must be 1 to {MAX_CLIENT_ID} printable characters"),
        ));
    }
    let redirect_uri = p.redirect_uri.as_deref().unwrap_or("");
    checked_redirect(redirect_uri).map_err(|e| OauthError::new("invalid_request", e))?;
    let request = (|| {
        if let Some(state) = &p.state {
            if state.len() > MAX_STATE {
                return Err(OauthError::new(
                    "invalid_request",
                    format!("state is longer than {MAX_STATE} bytes"),
                ));
            }
        }
        if p.response_type.as_deref() != Some("code") {
            return Err(OauthError::new(
                "unsupported_response_type",
                "response_type must be code",
            ));
        }
        if p.code_challenge_method.as_deref() != Some("S256") {
            return Err(OauthError::new(
                "invalid_request",
                "code_challenge_method must be S256 (PKCE is required; plain is not accepted)",
            ));
        }
        let challenge = p.code_challenge.as_deref().unwrap_or("");
        if challenge.len() != 43 || !unreserved(challenge, 43, 43) || challenge.contains(['.', '~'])
        {
            return Err(OauthError::new(
                "invalid_request",
                "code_challenge must be BASE64URL(SHA-256(code_verifier)): 43 characters",
            ));
        }
        let scopes = Scopes::from_spaced(p.scope.as_deref().unwrap_or(""))
            .map_err(|e| OauthError::new("invalid_scope", e.to_string()))?;
        if scopes.is_empty() {
            return Err(OauthError::new(
                "invalid_scope",
                format!("scope must name at least one of: {}", Scopes::ALL),
            ));
        }
        Ok((scopes, challenge.to_owned()))
    })();
    Ok(Authorization {
        client_id: client_id.to_owned(),
        redirect_uri: redirect_uri.to_owned(),
        state: p.state.clone(),
        request,
    })
}

/// `redirect_uri` with `pairs` added to its query (and `state`, when there is one).
fn redirect_with(redirect_uri: &str, pairs: &[(&str, &str)], state: Option<&str>) -> String {
    match Url::parse(redirect_uri) {
        Ok(mut url) => {
            {
                let mut q = url.query_pairs_mut();
                for (k, v) in pairs {
                    q.append_pair(k, v);
                }
                if let Some(s) = state {
                    q.append_pair("state", s);
                }
            }
            url.into()
        }
        Err(_) => redirect_uri.to_owned(),
    }
}

impl Authorization {
    /// The consent screen's content.
    pub fn consent(&self) -> Result<ConsentView, OauthError> {
        let (scopes, _) = self.request.clone()?;
        let url = Url::parse(&self.redirect_uri)
            .map_err(|e| OauthError::new("invalid_request", e.to_string()))?;
        Ok(ConsentView {
            client_id: self.client_id.clone(),
            redirect_origin: origin(&url),
            redirect_uri: self.redirect_uri.clone(),
            scopes: scopes
                .iter()
                .map(|s| ScopeView {
                    scope: s.as_str(),
                    description: s.description(),
                })
                .collect(),
        })
    }

    /// Where to send the browser with `error` (a refused request, or consent denied).
    pub fn error_redirect(&self, error: &OauthError) -> String {
        redirect_with(
            &self.redirect_uri,
            &[
                ("error", error.error),
                ("error_description", &error.description),
            ],
            self.state.as_deref(),
        )
    }
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
    /// The player consents (or not) to `auth`: where to send their browser, with a code
    /// or with `access_denied`.
    pub async fn authorize(
        &self,
        player: &Player,
        auth: &Authorization,
        approve: bool,
    ) -> Result<String, Refusal> {
        let (scopes, challenge) = match &auth.request {
            Ok(r) => r.clone(),
            Err(e) => return Ok(auth.error_redirect(e)),
        };
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
                scopes,
                code_challenge: challenge,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> AuthorizeParams {
        AuthorizeParams {
            response_type: Some("code".into()),
            client_id: Some("example.org front-end".into()),
            redirect_uri: Some("https://example.org/callback".into()),
            scope: Some("game:read game:play".into()),
            state: Some("xyz".into()),
            code_challenge: Some(s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")),
            code_challenge_method: Some("S256".into()),
        }
    }

    #[test]
    fn rfc_7636_appendix_b_s256() {
        assert_eq!(
            s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn a_good_request_passes_and_keeps_its_state() {
        let a = check_authorization(&params()).unwrap();
        let (scopes, _) = a.request.clone().unwrap();
        assert!(scopes.allows(Scope::GamePlay) && !scopes.allows(Scope::ChatWrite));
        assert_eq!(a.consent().unwrap().redirect_origin, "https://example.org");
        assert!(a
            .error_redirect(&OauthError::new("access_denied", "no"))
            .ends_with("&state=xyz"));
    }

    #[test]
    fn bad_redirects_are_never_followed() {
        for uri in [
            "",
            "/relative",
            "http://example.org/cb",
            "https://example.org/cb#frag",
            "https://user:pw@example.org/cb",
            "javascript:alert(1)",
        ] {
            let p = AuthorizeParams {
                redirect_uri: Some(uri.into()),
                ..params()
            };
            assert!(check_authorization(&p).is_err(), "{uri}");
        }
        for uri in [
            "http://127.0.0.1:8123/cb",
            "http://localhost/cb",
            "http://[::1]:9/cb",
        ] {
            let p = AuthorizeParams {
                redirect_uri: Some(uri.into()),
                ..params()
            };
            assert!(check_authorization(&p).is_ok(), "{uri}");
        }
    }

    #[test]
    fn plain_pkce_missing_pkce_and_unknown_scopes_go_back_to_the_client() {
        let cases = [
            AuthorizeParams {
                code_challenge_method: Some("plain".into()),
                ..params()
            },
            AuthorizeParams {
                code_challenge_method: None,
                ..params()
            },
            AuthorizeParams {
                code_challenge: None,
                ..params()
            },
            AuthorizeParams {
                scope: Some("game:read admin".into()),
                ..params()
            },
            AuthorizeParams {
                scope: None,
                ..params()
            },
            AuthorizeParams {
                response_type: Some("token".into()),
                ..params()
            },
        ];
        for p in cases {
            let a = check_authorization(&p).unwrap();
            assert!(a.request.is_err(), "{p:?}");
        }
    }
}
