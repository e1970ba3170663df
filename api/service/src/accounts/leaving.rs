//! Leaving: everything the server holds about a player, as one JSON document, and
//! deleting the account.
//!
//! Deleting removes what the server holds of the player beside the log (credentials,
//! password, recovery codes, apps, webhooks, push subscriptions, the name's key) and
//! replaces their name with [`DELETED_NAME`] wherever it is shown. The log stays as it
//! was: it holds ids, never names, so every game still replays and every audit still
//! verifies. Their ratings leave the leaderboard; their messages stay in their games'
//! chats, as the words of a deleted player.

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;
use worp_domain::access::{CredentialKind, Grant};
use worp_domain::table::Table;
use worp_store::{GameFilter, ListedAt, Player};

use super::oauth::AppView;
use super::passkeys::PasskeyView;
use super::{new_secret_and_hash, CredentialView};
use crate::messages::Message;
use crate::names::{self, VariantStanding};
use crate::push::ExportedPushSubscription;
use crate::read_model::GameSummary;
use crate::refusal::Refusal;
use crate::worp::Worp;

pub use crate::names::DELETED_NAME;

/// A webhook as exported (its signing secret is not: it is a credential, not data).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ExportedWebhook {
    pub id: Uuid,
    pub url: String,
    pub created_at: DateTime<Utc>,
}

/// A message the player wrote.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ExportedMessage {
    pub game_id: Uuid,
    #[serde(flatten)]
    pub message: Message,
}

/// Everything the server holds about a player, beside the games' public logs (which
/// `GET /v1/games/{id}/export` gives). Secrets are never exported: not the tokens, not
/// the password, not the recovery codes, not webhook secrets; their hashes neither.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AccountExport {
    pub exported_at: DateTime<Utc>,
    pub id: Uuid,
    pub name: String,
    pub joined: DateTime<Utc>,
    pub invitation_notices: bool,
    pub has_password: bool,
    pub recovery_codes_left: i64,
    pub sessions: Vec<CredentialView>,
    pub tokens: Vec<CredentialView>,
    pub apps: Vec<AppView>,
    pub passkeys: Vec<PasskeyView>,
    pub webhooks: Vec<ExportedWebhook>,
    /// The devices that receive Web Push notices (never their endpoints or keys).
    pub push_subscriptions: Vec<ExportedPushSubscription>,
    pub ratings: Vec<VariantStanding>,
    /// Every game the player holds a seat in, newest change first.
    pub games: Vec<GameSummary>,
    /// Every message the player wrote, by game.
    pub messages: Vec<ExportedMessage>,
}

impl Worp {
    /// Everything the server holds about `player`.
    pub async fn export_account(
        &self,
        player: &Player,
        grant: &Grant,
    ) -> Result<AccountExport, Refusal> {
        let profile = self.profile(player.id).await?;
        let (has_password, recovery_codes_left) = self.credentials_summary(player).await?;
        let mut games = Vec::new();
        let mut after: Option<ListedAt> = None;
        loop {
            let page = self
                .list(&GameFilter {
                    player: Some(player.id),
                    status: None,
                    to_move_player: None,
                    limit: 200,
                    offset: 0,
                    after,
                })
                .await?;
            let done = page.len() < 200;
            after = page.last().map(|(_, at)| *at);
            games.extend(page.into_iter().map(|(g, _)| g));
            if done {
                break;
            }
        }
        self.name_seats(&mut games).await?;
        let mut messages = Vec::new();
        for game in &games {
            let mut from = 0;
            loop {
                let page = self.messages(game.id, Some(player.id), from, 500).await?;
                let done = page.len() < 500;
                from = page.last().map_or(from, |m| m.seq);
                messages.extend(
                    page.into_iter()
                        .filter(|m| m.player_id == Some(player.id))
                        .map(|message| ExportedMessage {
                            game_id: game.id,
                            message,
                        }),
                );
                if done {
                    break;
                }
            }
        }
        Ok(AccountExport {
            exported_at: self.now(),
            id: player.id,
            name: player.name.clone(),
            joined: profile.joined,
            invitation_notices: self.invitation_notices(player).await?,
            has_password,
            recovery_codes_left,
            sessions: self
                .credentials(player, CredentialKind::Session, grant)
                .await?,
            tokens: self
                .credentials(player, CredentialKind::Personal, grant)
                .await?,
            apps: self.apps(player).await?,
            passkeys: self.passkeys(player).await?,
            webhooks: self
                .webhooks(player)
                .await?
                .into_iter()
                .map(|w| ExportedWebhook {
                    id: w.id,
                    url: w.url,
                    created_at: w.created_at,
                })
                .collect(),
            push_subscriptions: self.exported_push_subscriptions(player).await?,
            ratings: profile.ratings,
            games,
            messages,
        })
    }

    /// Deletes `player`'s account, once they confirm it by typing their name.
    pub async fn delete_account(&self, player: &Player, confirm_name: &str) -> Result<(), Refusal> {
        if confirm_name != player.name {
            return Err(Refusal::Invalid(
                "confirm_name must be your name exactly as shown: deleting cannot be undone".into(),
            ));
        }
        // A first token no one has: its hash is of a secret made and dropped here.
        let (_, nobodys) = new_secret_and_hash(CredentialKind::Legacy)?;
        if !self
            .store
            .delete_account(player.id, DELETED_NAME, &nobodys, self.now())
            .await?
        {
            return Err(Refusal::NotFound("this account is deleted already".into()));
        }
        self.store
            .clear_sign_in_failures(&format!("name:{}", names::name_key(&player.name)))
            .await?;
        self.forget_player(player.id);
        tracing::info!(player = %player.id, "an account was deleted");
        Ok(())
    }

    /// Forgets what this process keeps of player `id` (their first token, their name):
    /// after their account is deleted, here or by another process.
    pub fn forget_player(&self, id: Uuid) {
        self.cache.forget_player(id);
        self.names.forget(id);
    }

    /// Whether a player of `table` deleted their account: the game's answer then holds a
    /// name its version (the `ETag`) does not tell, so it is never answered 304.
    pub async fn has_deleted_player(&self, table: &Table) -> Result<bool, Refusal> {
        self.learn_table_names(table).await?;
        Ok(table
            .seats
            .iter()
            .flat_map(|s| s.player_id.into_iter().chain(s.invited))
            .any(|p| self.names.get(p).as_deref() == Some(DELETED_NAME)))
    }

    /// Whether player `id` deleted their account.
    pub async fn is_deleted(&self, id: Uuid) -> Result<bool, Refusal> {
        Ok(self.store.deleted_at(id).await?.is_some())
    }

    /// The players who deleted their account.
    pub async fn deleted_players(&self) -> Result<Vec<Uuid>, Refusal> {
        Ok(self.store.deleted_players().await?)
    }
}
