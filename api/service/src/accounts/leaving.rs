//! Leaving: everything the server holds about a player, as one JSON document, and
//! deleting the account.
//!
//! Deleting first leaves every game and tournament that would otherwise wait for the
//! player for ever, each by the operation the API offers for it and so by events
//! appended as any change is (`leave_games`): a registration for an unfinished
//! tournament is withdrawn (`DELETE /v1/tournaments/{id}/players/me`), an invitation is
//! declined (`POST …/seats/{seat}/decline`), a seat of an active game resigns
//! (`POST …/resign`; with two seats the other one wins), and a seat of a game that has
//! not started (an open game they made, or joined while it waits for others) resigns
//! too: there is no operation that cancels a waiting game, so the seat retires, and a
//! game nobody is then left to play against ends at once (`game_finished`, the seed
//! revealed, aborted and unrated): it leaves the lobby and nobody can join it. Finished
//! games are not touched. A step that loses a race is tried once more on the game as it
//! then is; lost twice, the deletion is refused (409) before anything of the account is
//! deleted, and what was already left stays left (asking again carries on from there).
//! Once the account is deleted its games are looked at once more, for a request of
//! theirs that was under way meanwhile; a game not left then is only logged.
//!
//! Then it removes what the server holds of the player beside the log (credentials,
//! password, recovery codes, apps, webhooks, push subscriptions, the name's key) and
//! replaces their name with [`DELETED_NAME`] wherever it is shown. The log is only
//! appended to: it holds ids, never names, so every game still replays and every audit
//! still verifies. Their ratings leave the leaderboard; their messages stay in their
//! games' chats, as the words of a deleted player.

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;
use worp_domain::access::{CredentialKind, Grant};
use worp_domain::events::{Event, RetireReason};
use worp_domain::table::{Status, Table};
use worp_engine::Awaiting;
use worp_store::{GameFilter, ListedAt, Player};
use worp_tournament::PlayerId;

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

/// The most steps leaving one game takes: a seat resigned or an invitation declined each
/// (a game has at most a few seats), and the one step tried again after a lost race.
const MOST_STEPS: usize = 32;

/// What deleting an account still has to do in a game, one seat at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// Declines the invitation to this seat, as `POST …/seats/{seat}/decline` does.
    Decline(u8),
    /// Resigns this seat of an active game, as `POST …/resign` does.
    Resign(u8),
    /// Retires this seat of a game that has not started, ending the game if nobody is
    /// then left to play against.
    Withdraw(u8),
}

/// The next step of `player` leaving `table`, if any is left.
fn next_step(table: &Table, player: Uuid) -> Option<Step> {
    let own = || {
        table
            .seats_of(player)
            .into_iter()
            .find(|s| table.seats.get(s.index()).is_some_and(|i| !i.retired))
            .map(|s| s.0)
    };
    match table.status() {
        Status::Finished => None,
        Status::Active => own().map(Step::Resign),
        Status::Waiting => match table.invitations_of(player).first() {
            Some(seat) => Some(Step::Decline(seat.0)),
            None => own().map(Step::Withdraw),
        },
    }
}

/// The refusal of a deletion after a race lost twice over `what`.
fn raced(what: &str, why: &str) -> Refusal {
    Refusal::Conflict(format!(
        "{what} changed while your account was being deleted, again when tried once more \
         ({why}); your account is not deleted (what it already left stays left): try again"
    ))
}

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
        // Nothing waits for a deleted player: their tournaments and games go on without
        // them, before anything of the account goes (a refusal here deletes nothing).
        self.leave_tournaments(player).await?;
        self.leave_games(player).await?;
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
        // A request of theirs already under way (a seat taken, a game made) may have
        // landed after the games were left; with the credentials gone none lands now.
        if let Err(e) = self.leave_games(player).await {
            tracing::error!(player = %player.id, "a deleted player's game was not left: {e}");
        }
        Ok(())
    }

    /// Withdraws `player` from every unfinished tournament they are registered for, as
    /// `DELETE /v1/tournaments/{id}/players/me` does (their game of the running round
    /// resigns with it).
    async fn leave_tournaments(&self, player: &Player) -> Result<(), Refusal> {
        for id in self.store.unfinished_tournaments().await? {
            let mut retried = false;
            loop {
                let t = self.tournament(id).await?;
                let playing = !t.state.is_finished()
                    && t.state
                        .entrant(PlayerId(player.id))
                        .is_some_and(|e| e.withdrawn_after.is_none());
                if !playing {
                    break;
                }
                match self.withdraw_from_tournament(player, id).await {
                    Ok(_) => break,
                    Err(Refusal::Conflict(_)) if !retried => retried = true,
                    Err(Refusal::Conflict(why)) => {
                        return Err(raced(&format!("tournament {id}"), &why))
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(())
    }

    /// Leaves every unfinished game where `player` holds a seat or is invited to one
    /// (the module's first paragraph says how).
    async fn leave_games(&self, player: &Player) -> Result<(), Refusal> {
        for id in self.store.unfinished_games_of(player.id).await? {
            self.leave_game(player, id).await?;
        }
        Ok(())
    }

    /// Takes `player`'s steps out of game `id`, each judged on the game as it then is;
    /// a step refused as a lost race is tried once more.
    async fn leave_game(&self, player: &Player, id: Uuid) -> Result<(), Refusal> {
        let mut retried = false;
        for _ in 0..MOST_STEPS {
            let table = self.load(id).await?;
            let Some(step) = next_step(&table, player.id) else {
                return Ok(());
            };
            let taken = match step {
                Step::Decline(seat) => self.decline(player, id, Some(seat)).await.map(drop),
                Step::Resign(seat) => self.resign(player, id, Some(seat)).await.map(drop),
                Step::Withdraw(seat) => self.withdraw_seat(&table, seat).await,
            };
            match taken {
                Ok(()) => {}
                // The seat or invitation the step was judged on changed meanwhile.
                Err(Refusal::Conflict(_) | Refusal::NotYours(_)) if !retried => retried = true,
                Err(Refusal::Conflict(why) | Refusal::NotYours(why)) => {
                    return Err(raced(&format!("game {id}"), &why))
                }
                Err(e) => return Err(e),
            }
        }
        Err(Refusal::Internal(format!(
            "game {id} was not left in {MOST_STEPS} steps"
        )))
    }

    /// Retires `seat` of `table`, a game that has not started, through a draft as every
    /// change is made; a game that is then over (nobody is left to play against the one
    /// who would sit down) ends in the same change, its seed revealed, as a started game
    /// ends (`Draft::advance`, which leaves a waiting game as it is).
    async fn withdraw_seat(&self, table: &Table, seat: u8) -> Result<(), Refusal> {
        let mut draft = self.draft(table, self.now()).await?;
        draft.push(Event::SeatRetired {
            seat,
            reason: RetireReason::Resigned,
        })?;
        if let (None, Awaiting::Finished { result }) =
            (&draft.table.result, draft.table.game.awaiting())
        {
            let server_seed = hex::encode(&draft.seed);
            draft.push(Event::GameFinished {
                result,
                server_seed,
            })?;
        }
        self.record(Some(table), draft, table.version, None, None, false)
            .await?;
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
