//! Who may do what: the scopes a credential grants, and the credentials the store keeps
//! beside a player's first token (personal access tokens, web sessions, OAuth grants
//! and their tokens, passwords and recovery codes). Every secret is stored as its
//! SHA-256 (passwords as Argon2id), never as itself.

use std::fmt;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// One thing a credential may be used for. A route needs at most one.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ToSchema,
)]
pub enum Scope {
    /// Private games, the inbox, private messages, the player's stream.
    #[serde(rename = "game:read")]
    GameRead,
    /// Seats, moves, resignations, cube decisions.
    #[serde(rename = "game:play")]
    GamePlay,
    /// Messages in a game's chat.
    #[serde(rename = "chat:write")]
    ChatWrite,
    /// Creating games and inviting players to them.
    #[serde(rename = "challenge:write")]
    ChallengeWrite,
    /// Webhooks and their deliveries.
    #[serde(rename = "webhook:write")]
    WebhookWrite,
    /// The account: its settings, sessions, tokens and authorised apps.
    #[serde(rename = "account:read")]
    AccountRead,
    /// Changing the account: settings, credentials, tokens, sessions, apps.
    #[serde(rename = "account:write")]
    AccountWrite,
}

impl Scope {
    /// Every scope, in the order they are listed.
    pub const ALL: [Scope; 7] = [
        Scope::GameRead,
        Scope::GamePlay,
        Scope::ChatWrite,
        Scope::ChallengeWrite,
        Scope::WebhookWrite,
        Scope::AccountRead,
        Scope::AccountWrite,
    ];

    /// The scope's name, as in tokens, OAuth requests and the OpenAPI document.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::GameRead => "game:read",
            Scope::GamePlay => "game:play",
            Scope::ChatWrite => "chat:write",
            Scope::ChallengeWrite => "challenge:write",
            Scope::WebhookWrite => "webhook:write",
            Scope::AccountRead => "account:read",
            Scope::AccountWrite => "account:write",
        }
    }

    /// What it allows, for consent screens and the OpenAPI document.
    pub fn description(self) -> &'static str {
        match self {
            Scope::GameRead => "Read your private games, inbox and private messages",
            Scope::GamePlay => "Take seats, move, resign and answer the cube in your games",
            Scope::ChatWrite => "Write messages in your games' chats",
            Scope::ChallengeWrite => "Create games and invite players",
            Scope::WebhookWrite => "Manage your webhooks",
            Scope::AccountRead => "Read your account, sessions, tokens and authorised apps",
            Scope::AccountWrite => {
                "Change your account: settings, credentials, tokens, sessions, apps"
            }
        }
    }

    /// The scope named `name`.
    pub fn parse(name: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|s| s.as_str() == name)
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A set of scopes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Scopes(u8);

/// A scope list that names no known scope, or one twice.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScopeError {
    #[error("unknown scope {0:?}; the scopes are {list}", list = Scopes::ALL)]
    Unknown(String),
    #[error("scope {0} is named twice")]
    Twice(Scope),
}

impl Scopes {
    /// Every scope: what a player's first token and a web session grant.
    pub const ALL: Scopes = Scopes(0b111_1111);
    /// No scope.
    pub const NONE: Scopes = Scopes(0);

    /// Whether `scope` is in the set.
    pub fn allows(self, scope: Scope) -> bool {
        self.0 & scope.bit() != 0
    }

    /// Whether every scope of `other` is in this set.
    pub fn covers(self, other: Scopes) -> bool {
        self.0 & other.0 == other.0
    }

    /// The set with `scope` added.
    pub fn with(self, scope: Scope) -> Scopes {
        Scopes(self.0 | scope.bit())
    }

    /// The scopes in the set, in [`Scope::ALL`]'s order.
    pub fn iter(self) -> impl Iterator<Item = Scope> {
        Scope::ALL.into_iter().filter(move |s| self.allows(*s))
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The scopes of a list of names (a JSON array's items, or a space-separated string
    /// split): refuses an unknown name and a name given twice.
    pub fn from_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<Scopes, ScopeError> {
        let mut set = Scopes::NONE;
        for name in names {
            let scope = Scope::parse(name).ok_or_else(|| ScopeError::Unknown(name.to_owned()))?;
            if set.allows(scope) {
                return Err(ScopeError::Twice(scope));
            }
            set = set.with(scope);
        }
        Ok(set)
    }

    /// The scopes of a space-separated list, as OAuth (RFC 6749 §3.3) and the store
    /// write them.
    pub fn from_spaced(list: &str) -> Result<Scopes, ScopeError> {
        Scopes::from_names(list.split(' ').filter(|s| !s.is_empty()))
    }

    /// The scopes' names.
    pub fn names(self) -> Vec<&'static str> {
        self.iter().map(Scope::as_str).collect()
    }
}

impl fmt::Display for Scopes {
    /// Space-separated, as OAuth writes them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.names().join(" "))
    }
}

/// What kind of credential a request came with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CredentialKind {
    /// The token a player got when registering (every scope, never expires).
    Legacy,
    /// A personal access token.
    Personal,
    /// A web session's cookie.
    Session,
    /// An OAuth access token.
    OauthAccess,
    /// An OAuth refresh token (never accepted by the API, only by `/oauth/token`).
    OauthRefresh,
}

impl CredentialKind {
    /// The name the store writes.
    pub fn as_str(self) -> &'static str {
        match self {
            CredentialKind::Legacy => "legacy",
            CredentialKind::Personal => "personal",
            CredentialKind::Session => "session",
            CredentialKind::OauthAccess => "oauth_access",
            CredentialKind::OauthRefresh => "oauth_refresh",
        }
    }

    /// The kind the store wrote as `name`.
    pub fn parse(name: &str) -> Option<CredentialKind> {
        [
            CredentialKind::Legacy,
            CredentialKind::Personal,
            CredentialKind::Session,
            CredentialKind::OauthAccess,
            CredentialKind::OauthRefresh,
        ]
        .into_iter()
        .find(|k| k.as_str() == name)
    }

    /// The prefix of the secrets of this kind: a token says what it is, so a leaked one
    /// is recognised by secret scanners and routed to the right table without a guess.
    pub fn prefix(self) -> &'static str {
        match self {
            CredentialKind::Legacy => "worp_",
            CredentialKind::Personal => "worp_pat_",
            CredentialKind::Session => "worp_ses_",
            CredentialKind::OauthAccess => "worp_oat_",
            CredentialKind::OauthRefresh => "worp_ort_",
        }
    }

    /// The kind of a presented secret, by its prefix.
    pub fn of_secret(secret: &str) -> CredentialKind {
        [
            CredentialKind::Personal,
            CredentialKind::Session,
            CredentialKind::OauthAccess,
            CredentialKind::OauthRefresh,
        ]
        .into_iter()
        .find(|k| secret.starts_with(k.prefix()))
        .unwrap_or(CredentialKind::Legacy)
    }
}

/// What a request's credential grants: whose it is and for what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    /// The credential's id (`None` for the legacy token, which has none).
    pub credential: Option<Uuid>,
    pub kind: CredentialKind,
    pub scopes: Scopes,
}

impl Grant {
    /// The grant of a player's first token.
    pub fn legacy() -> Grant {
        Grant {
            credential: None,
            kind: CredentialKind::Legacy,
            scopes: Scopes::ALL,
        }
    }
}

/// A stored credential other than the legacy token (the `credentials` table).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credential {
    pub id: Uuid,
    pub player_id: Uuid,
    /// SHA-256 of the secret.
    pub secret_hash: Vec<u8>,
    pub kind: CredentialKind,
    /// The token's note, the session's device, or the OAuth client's id.
    pub name: String,
    pub scopes: Scopes,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
    /// When it stops working (`None`: never; a session's slides with use).
    pub expires_at: Option<DateTime<Utc>>,
    /// The OAuth grant it belongs to.
    pub grant_id: Option<Uuid>,
    /// When a refresh token was exchanged (a second exchange revokes its grant).
    pub used_at: Option<DateTime<Utc>>,
}

impl Credential {
    /// Whether it still works at `now`.
    pub fn live_at(&self, now: DateTime<Utc>) -> bool {
        self.expires_at.is_none_or(|t| now < t)
    }
}

/// A third-party front-end a player authorised (the `oauth_grants` table).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OauthGrant {
    pub id: Uuid,
    pub player_id: Uuid,
    pub client_id: String,
    pub redirect_uri: String,
    pub scopes: Scopes,
    pub created_at: DateTime<Utc>,
}

/// An authorisation code waiting to be exchanged (the `oauth_codes` table).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OauthCode {
    pub code_hash: Vec<u8>,
    pub player_id: Uuid,
    pub client_id: String,
    pub redirect_uri: String,
    pub scopes: Scopes,
    /// BASE64URL(SHA-256(code_verifier)), as the client sent it (RFC 7636).
    pub code_challenge: String,
    pub expires_at: DateTime<Utc>,
    /// The grant made when it was exchanged; a second exchange revokes it.
    pub grant_id: Option<Uuid>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_round_trip_through_their_spaced_list() {
        let s = Scopes::from_spaced("game:play game:read").unwrap();
        assert!(s.allows(Scope::GamePlay) && s.allows(Scope::GameRead));
        assert!(!s.allows(Scope::ChatWrite));
        assert_eq!(s.to_string(), "game:read game:play");
        assert_eq!(
            Scopes::from_spaced(&Scopes::ALL.to_string()),
            Ok(Scopes::ALL)
        );
        assert_eq!(Scopes::ALL.iter().count(), Scope::ALL.len());
    }

    #[test]
    fn unknown_and_repeated_scopes_are_refused() {
        assert!(matches!(
            Scopes::from_spaced("game:read admin"),
            Err(ScopeError::Unknown(s)) if s == "admin"
        ));
        assert_eq!(
            Scopes::from_spaced("game:read game:read"),
            Err(ScopeError::Twice(Scope::GameRead))
        );
    }

    #[test]
    fn a_secret_says_its_kind() {
        for kind in [
            CredentialKind::Personal,
            CredentialKind::Session,
            CredentialKind::OauthAccess,
            CredentialKind::OauthRefresh,
        ] {
            assert_eq!(
                CredentialKind::of_secret(&format!("{}ab12", kind.prefix())),
                kind
            );
        }
        // A first token is `worp_` and 64 hex digits: no hex digit spells `pat_`.
        assert_eq!(
            CredentialKind::of_secret(&format!("worp_{}", "ab".repeat(32))),
            CredentialKind::Legacy
        );
    }
}
