//! Notifications: players' e-mail addresses, their preferences and muted games, the
//! notifier's place in the log, and the outbox of mails and pushes. What they mean is the
//! service's (`worp_service::notifications`).

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::{bounded, postgres, sqlite, Store, StoreError};

/// A player's e-mail address.
#[derive(Debug, Clone)]
pub struct EmailAddress {
    pub player_id: Uuid,
    pub address: String,
    /// When the pending confirmation link expires (unconfirmed addresses).
    pub confirm_expires_at: Option<DateTime<Utc>>,
    pub confirmed_at: Option<DateTime<Utc>>,
    /// The secret of this address's unsubscribe links.
    pub unsubscribe_key: String,
    /// Set when a receiving server refused the address for good.
    pub disabled_at: Option<DateTime<Utc>>,
    pub disabled_reason: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// An address a player gives, waiting for its confirmation.
#[derive(Debug, Clone)]
pub struct NewAddress {
    pub player_id: Uuid,
    pub address: String,
    /// SHA-256 of the confirmation link's secret.
    pub confirm_hash: Vec<u8>,
    pub confirm_expires_at: DateTime<Utc>,
    pub unsubscribe_key: String,
    pub created_at: DateTime<Utc>,
}

/// One item for the outbox: to `player_id` by `channel`, coalescing with the row of the
/// same `topic` still pending.
#[derive(Debug, Clone)]
pub struct Queued {
    pub player_id: Uuid,
    /// `email`, `push`, `digest`, `confirm` or `reset`.
    pub channel: String,
    /// A game's id, `digest`, or (confirmation mails) the target address.
    pub topic: String,
    /// One JSON object and a newline.
    pub item: String,
    /// When a new row is due (a pending row keeps its own).
    pub due_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
}

/// A notice of the log, and what it puts in the outbox the first time it is taken.
#[derive(Debug, Clone)]
pub struct TakenNotice {
    pub player_id: Uuid,
    pub game_id: Uuid,
    /// The game's version (for clock reminders: the deadline's Unix time).
    pub version: i64,
    pub kind: String,
    pub queue: Vec<Queued>,
}

/// A row of the outbox.
#[derive(Debug, Clone)]
pub struct Outgoing {
    pub id: Uuid,
    pub player_id: Uuid,
    pub channel: String,
    pub topic: String,
    pub items: String,
    pub status: String,
    pub due_at: DateTime<Utc>,
    pub attempts: i32,
    pub lease_until: Option<DateTime<Utc>>,
}

impl Store {
    pub async fn email_address(&self, player: Uuid) -> Result<Option<EmailAddress>, StoreError> {
        on_backend!(self.email_address(player))
    }

    /// Sets `a` as its player's address, unconfirmed, in place of any other.
    pub async fn set_email_address(&self, a: &NewAddress) -> Result<(), StoreError> {
        on_backend!(self.set_email_address(a))
    }

    /// A new confirmation secret for `player`'s unconfirmed address; whether there is one.
    pub async fn renew_email_confirmation(
        &self,
        player: Uuid,
        hash: &[u8],
        expires_at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        on_backend!(self.renew_email_confirmation(player, hash, expires_at))
    }

    /// Confirms the address whose pending secret has SHA-256 `hash`, unless expired.
    pub async fn confirm_email(
        &self,
        hash: &[u8],
        now: DateTime<Utc>,
    ) -> Result<Option<EmailAddress>, StoreError> {
        on_backend!(self.confirm_email(hash, now))
    }

    /// Deletes `player`'s address and the mails still waiting for it.
    pub async fn delete_email_address(&self, player: Uuid) -> Result<bool, StoreError> {
        on_backend!(self.delete_email_address(player))
    }

    /// Disables `player`'s `address` after a permanent refusal (if it is still theirs).
    pub async fn disable_email_address(
        &self,
        player: Uuid,
        address: &str,
        reason: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        on_backend!(self.disable_email_address(player, address, reason, now))
    }

    pub async fn email_by_unsubscribe_key(
        &self,
        key: &str,
    ) -> Result<Option<EmailAddress>, StoreError> {
        on_backend!(self.email_by_unsubscribe_key(key))
    }

    /// Confirmation mails sent since `since`: [by `player`, from `client`, to `target`].
    pub async fn confirmations_sent(
        &self,
        player: Uuid,
        client: &str,
        target: &str,
        since: DateTime<Utc>,
    ) -> Result<[i64; 3], StoreError> {
        on_backend!(self.confirmations_sent(player, client, target, since))
    }

    /// Counts a confirmation mail (from `client`) and queues it, in one transaction.
    pub async fn queue_confirmation(&self, client: &str, mail: &Queued) -> Result<(), StoreError> {
        on_backend!(self.queue_confirmation(client, mail))
    }

    /// Queues one item (into the pending row of its player, channel and topic if any).
    pub async fn queue_notification(&self, q: &Queued) -> Result<(), StoreError> {
        on_backend!(self.queue_notification(q))
    }

    /// Takes each notice not taken before into the outbox; how many were new.
    pub async fn take_notices(
        &self,
        notices: &[TakenNotice],
        now: DateTime<Utc>,
    ) -> Result<usize, StoreError> {
        on_backend!(self.take_notices(notices, now))
    }

    pub async fn notice_taken(
        &self,
        player: Uuid,
        game: Uuid,
        version: i64,
        kind: &str,
    ) -> Result<bool, StoreError> {
        on_backend!(self.notice_taken(player, game, version, kind))
    }

    /// When a row of `player`'s `channel` and `topic` was last sent.
    pub async fn last_sent(
        &self,
        player: Uuid,
        channel: &str,
        topic: &str,
    ) -> Result<Option<DateTime<Utc>>, StoreError> {
        on_backend!(self.last_sent(player, channel, topic))
    }

    pub async fn due_notifications(
        &self,
        now: DateTime<Utc>,
        limit: i64,
    ) -> Result<Vec<Outgoing>, StoreError> {
        on_backend!(self.due_notifications(now, limit))
    }

    /// Claims row `id` for one attempt until `lease`; whether this caller holds it.
    pub async fn claim_notification(
        &self,
        id: Uuid,
        now: DateTime<Utc>,
        lease: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        on_backend!(self.claim_notification(id, now, lease))
    }

    /// Records the attempt on the row claimed until `lease`; whether the claim held.
    #[allow(clippy::too_many_arguments)]
    pub async fn finish_notification(
        &self,
        id: Uuid,
        lease: DateTime<Utc>,
        status: &str,
        due_at: DateTime<Utc>,
        error: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        on_backend!(self.finish_notification(id, lease, status, due_at, error, now))
    }

    pub async fn notifications_of(
        &self,
        player: Uuid,
        limit: i64,
    ) -> Result<Vec<Outgoing>, StoreError> {
        on_backend!(self.notifications_of(player, limit))
    }

    pub async fn notification_preferences(
        &self,
        player: Uuid,
    ) -> Result<Option<String>, StoreError> {
        on_backend!(self.notification_preferences(player))
    }

    pub async fn set_notification_preferences(
        &self,
        player: Uuid,
        settings: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        on_backend!(self.set_notification_preferences(player, settings, now))
    }

    /// Mutes or unmutes `game` for `player`; whether anything changed.
    pub async fn set_muted(
        &self,
        player: Uuid,
        game: Uuid,
        muted: bool,
    ) -> Result<bool, StoreError> {
        on_backend!(self.set_muted(player, game, muted))
    }

    pub async fn muted_games(&self, player: Uuid) -> Result<Vec<Uuid>, StoreError> {
        on_backend!(self.muted_games(player))
    }

    /// The players who can be reached: by a confirmed address that is not disabled, or
    /// on a device subscribed to pushes.
    pub async fn reachable_players(&self) -> Result<Vec<Uuid>, StoreError> {
        on_backend!(self.reachable_players())
    }

    pub async fn notifier_cursor(&self) -> Result<i64, StoreError> {
        on_backend!(self.notifier_cursor())
    }

    pub async fn advance_notifier_cursor(&self, position: i64) -> Result<(), StoreError> {
        on_backend!(self.advance_notifier_cursor(position))
    }

    /// Up to `limit` (position, game, sequence number) of the log after `position`, in
    /// order.
    pub async fn log_after(
        &self,
        position: i64,
        limit: i64,
    ) -> Result<Vec<(i64, Uuid, i64)>, StoreError> {
        on_backend!(self.log_after(position, limit))
    }

    /// Active games whose clock runs out in `(after, until]`: (game, player to move,
    /// deadline), soonest first.
    pub async fn deadlines_between(
        &self,
        after: DateTime<Utc>,
        until: DateTime<Utc>,
        limit: i64,
    ) -> Result<Vec<(Uuid, Uuid, DateTime<Utc>)>, StoreError> {
        on_backend!(self.deadlines_between(after, until, limit))
    }

    /// Stores a password reset for the mail's player and queues the mail, unless they
    /// asked for `limit` since `since`; whether it did.
    pub async fn queue_password_reset(
        &self,
        hash: &[u8],
        expires_at: DateTime<Utc>,
        since: DateTime<Utc>,
        limit: i64,
        mail: &Queued,
    ) -> Result<bool, StoreError> {
        on_backend!(self.queue_password_reset(hash, expires_at, since, limit, mail))
    }

    /// The player of the unused, unexpired password reset whose secret has SHA-256 `hash`.
    pub async fn password_reset_holder(
        &self,
        hash: &[u8],
        now: DateTime<Utc>,
    ) -> Result<Option<Uuid>, StoreError> {
        on_backend!(self.password_reset_holder(hash, now))
    }

    /// Uses the unexpired, unused password reset whose secret has SHA-256 `hash`: its
    /// player.
    pub async fn use_password_reset(
        &self,
        hash: &[u8],
        now: DateTime<Utc>,
    ) -> Result<Option<Uuid>, StoreError> {
        on_backend!(self.use_password_reset(hash, now))
    }

    /// How many events the log holds with positions in `(after, upto]`.
    pub async fn log_count(&self, after: i64, upto: i64) -> Result<i64, StoreError> {
        on_backend!(self.log_count(after, upto))
    }
}
