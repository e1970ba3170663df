//! The statements of notifications (e-mail addresses, preferences, muted games, the
//! notifier's place in the log, the outbox), stamped out per backend beside
//! [`super::statements`], whose imports and `Pool` they share. The SQL is the same on
//! both backends.

/// Defines the notification statements in the module it is invoked in.
macro_rules! notification_statements {
    ($Db:ty) => {
        use $crate::notifications::{EmailAddress, NewAddress, Outgoing, Queued, TakenNotice};

        const ADDRESS_COLUMNS: &str = "player_id, address, confirm_expires_at, confirmed_at, \
             unsubscribe_key, disabled_at, disabled_reason, created_at";
        const OUTBOX_COLUMNS: &str =
            "id, player_id, channel, topic, items, status, due_at, attempts, lease_until";

        fn address_of(r: &DbRow) -> Result<EmailAddress, StoreError> {
            Ok(EmailAddress {
                player_id: r.try_get("player_id")?,
                address: r.try_get("address")?,
                confirm_expires_at: r.try_get("confirm_expires_at")?,
                confirmed_at: r.try_get("confirmed_at")?,
                unsubscribe_key: r.try_get("unsubscribe_key")?,
                disabled_at: r.try_get("disabled_at")?,
                disabled_reason: r.try_get("disabled_reason")?,
                created_at: r.try_get("created_at")?,
            })
        }

        fn outgoing_of(r: &DbRow) -> Result<Outgoing, StoreError> {
            Ok(Outgoing {
                id: r.try_get("id")?,
                player_id: r.try_get("player_id")?,
                channel: r.try_get("channel")?,
                topic: r.try_get("topic")?,
                items: r.try_get("items")?,
                status: r.try_get("status")?,
                due_at: r.try_get("due_at")?,
                attempts: r.try_get("attempts")?,
                lease_until: r.try_get("lease_until")?,
            })
        }

        pub async fn email_address(
            pool: &Pool,
            player: Uuid,
        ) -> Result<Option<EmailAddress>, StoreError> {
            let row = sqlx::query(&format!(
                "SELECT {ADDRESS_COLUMNS} FROM email_addresses WHERE player_id = $1"
            ))
            .bind(player)
            .fetch_optional(pool)
            .await?;
            row.as_ref().map(address_of).transpose()
        }

        /// Sets `a` as its player's address, unconfirmed, in place of any other.
        pub async fn set_email_address(pool: &Pool, a: &NewAddress) -> Result<(), StoreError> {
            sqlx::query(
                "INSERT INTO email_addresses (player_id, address, confirm_hash, \
                 confirm_expires_at, confirmed_at, unsubscribe_key, disabled_at, \
                 disabled_reason, created_at) VALUES ($1, $2, $3, $4, NULL, $5, NULL, NULL, $6) \
                 ON CONFLICT (player_id) DO UPDATE SET address = excluded.address, \
                 confirm_hash = excluded.confirm_hash, \
                 confirm_expires_at = excluded.confirm_expires_at, confirmed_at = NULL, \
                 unsubscribe_key = excluded.unsubscribe_key, disabled_at = NULL, \
                 disabled_reason = NULL, created_at = excluded.created_at",
            )
            .bind(a.player_id)
            .bind(&a.address)
            .bind(&a.confirm_hash)
            .bind(a.confirm_expires_at)
            .bind(&a.unsubscribe_key)
            .bind(a.created_at)
            .execute(pool)
            .await?;
            Ok(())
        }

        /// A new confirmation secret for `player`'s unconfirmed address.
        pub async fn renew_email_confirmation(
            pool: &Pool,
            player: Uuid,
            hash: &[u8],
            expires_at: DateTime<Utc>,
        ) -> Result<bool, StoreError> {
            let done = sqlx::query(
                "UPDATE email_addresses SET confirm_hash = $2, confirm_expires_at = $3 \
                 WHERE player_id = $1 AND confirmed_at IS NULL",
            )
            .bind(player)
            .bind(hash)
            .bind(expires_at)
            .execute(pool)
            .await?;
            Ok(done.rows_affected() > 0)
        }

        /// Confirms the address whose pending secret has SHA-256 `hash`, if it has not
        /// expired by `now`; the address confirmed.
        pub async fn confirm_email(
            pool: &Pool,
            hash: &[u8],
            now: DateTime<Utc>,
        ) -> Result<Option<EmailAddress>, StoreError> {
            let row = sqlx::query(&format!(
                "UPDATE email_addresses SET confirmed_at = $2, confirm_hash = NULL, \
                 confirm_expires_at = NULL \
                 WHERE confirm_hash = $1 AND confirm_expires_at > $2 RETURNING {ADDRESS_COLUMNS}"
            ))
            .bind(hash)
            .bind(now)
            .fetch_optional(pool)
            .await?;
            row.as_ref().map(address_of).transpose()
        }

        pub async fn delete_email_address(pool: &Pool, player: Uuid) -> Result<bool, StoreError> {
            let done = sqlx::query("DELETE FROM email_addresses WHERE player_id = $1")
                .bind(player)
                .execute(pool)
                .await?;
            sqlx::query(
                "DELETE FROM notifications WHERE player_id = $1 AND status = 'pending' \
                 AND channel IN ('email', 'digest', 'confirm')",
            )
            .bind(player)
            .execute(pool)
            .await?;
            Ok(done.rows_affected() > 0)
        }

        /// Disables `player`'s address `address` (a permanent refusal), if it is still theirs.
        pub async fn disable_email_address(
            pool: &Pool,
            player: Uuid,
            address: &str,
            reason: &str,
            now: DateTime<Utc>,
        ) -> Result<(), StoreError> {
            sqlx::query(
                "UPDATE email_addresses SET disabled_at = $3, disabled_reason = $4 \
                 WHERE player_id = $1 AND address = $2",
            )
            .bind(player)
            .bind(address)
            .bind(now)
            .bind(reason)
            .execute(pool)
            .await?;
            Ok(())
        }

        pub async fn email_by_unsubscribe_key(
            pool: &Pool,
            key: &str,
        ) -> Result<Option<EmailAddress>, StoreError> {
            let row = sqlx::query(&format!(
                "SELECT {ADDRESS_COLUMNS} FROM email_addresses WHERE unsubscribe_key = $1"
            ))
            .bind(key)
            .fetch_optional(pool)
            .await?;
            row.as_ref().map(address_of).transpose()
        }

        /// Confirmation mails sent since `since`: by `player`, from `client`, to `target`.
        pub async fn confirmations_sent(
            pool: &Pool,
            player: Uuid,
            client: &str,
            target: &str,
            since: DateTime<Utc>,
        ) -> Result<[i64; 3], StoreError> {
            let row = sqlx::query(
                "SELECT \
                 (SELECT count(*) FROM email_confirmations_sent WHERE player_id = $1 AND sent_at > $4) AS by_player, \
                 (SELECT count(*) FROM email_confirmations_sent WHERE client_address = $2 AND sent_at > $4) AS by_client, \
                 (SELECT count(*) FROM email_confirmations_sent WHERE target = $3 AND sent_at > $4) AS by_target",
            )
            .bind(player)
            .bind(client)
            .bind(target)
            .bind(since)
            .fetch_one(pool)
            .await?;
            Ok([
                row.try_get("by_player")?,
                row.try_get("by_client")?,
                row.try_get("by_target")?,
            ])
        }

        /// Notes a confirmation mail and queues it, in one transaction.
        pub async fn queue_confirmation(
            pool: &Pool,
            client: &str,
            mail: &Queued,
        ) -> Result<(), StoreError> {
            let mut tx = pool.begin().await?;
            sqlx::query(
                "INSERT INTO email_confirmations_sent (player_id, client_address, target, sent_at) \
                 VALUES ($1, $2, $3, $4)",
            )
            .bind(mail.player_id)
            .bind(client)
            .bind(&mail.topic)
            .bind(mail.due_at)
            .execute(&mut *tx)
            .await?;
            sqlx::query(
                "DELETE FROM email_confirmations_sent WHERE sent_at < $1",
            )
            .bind(mail.due_at - chrono::Duration::days(2))
            .execute(&mut *tx)
            .await?;
            queue_into(&mut *tx, mail).await?;
            tx.commit().await?;
            Ok(())
        }

        /// Queues `mail` (a pending row of its player, channel and topic takes its item
        /// instead).
        pub async fn queue_notification(pool: &Pool, mail: &Queued) -> Result<(), StoreError> {
            queue_into(pool, mail).await
        }

        async fn queue_into<'c, E>(executor: E, q: &Queued) -> Result<(), StoreError>
        where
            E: sqlx::Executor<'c, Database = $Db>,
        {
            sqlx::query(
                "INSERT INTO notifications (id, player_id, channel, topic, items, status, \
                 due_at, attempts, created_at) VALUES ($1, $2, $3, $4, $5, 'pending', $6, 0, $7) \
                 ON CONFLICT (player_id, channel, topic) WHERE status = 'pending' \
                 DO UPDATE SET items = notifications.items || excluded.items",
            )
            .bind(Uuid::new_v4())
            .bind(q.player_id)
            .bind(&q.channel)
            .bind(&q.topic)
            .bind(&q.item)
            .bind(q.due_at)
            .bind(q.created_at)
            .execute(executor)
            .await?;
            Ok(())
        }

        /// Takes each notice not taken before into the outbox, with its rows, in one
        /// transaction; how many were new.
        pub async fn take_notices(
            pool: &Pool,
            notices: &[TakenNotice],
            now: DateTime<Utc>,
        ) -> Result<usize, StoreError> {
            let mut tx = pool.begin().await?;
            let mut new = 0;
            for n in notices {
                let taken = sqlx::query(
                    "INSERT INTO notices_taken (player_id, game_id, version, kind, taken_at) \
                     VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
                )
                .bind(n.player_id)
                .bind(n.game_id)
                .bind(n.version)
                .bind(&n.kind)
                .bind(now)
                .execute(&mut *tx)
                .await?;
                if taken.rows_affected() == 0 {
                    continue;
                }
                new += 1;
                for q in &n.queue {
                    queue_into(&mut *tx, q).await?;
                }
            }
            tx.commit().await?;
            Ok(new)
        }

        /// Whether `player` took notice `kind` of `game` at `version` before.
        pub async fn notice_taken(
            pool: &Pool,
            player: Uuid,
            game: Uuid,
            version: i64,
            kind: &str,
        ) -> Result<bool, StoreError> {
            let row = sqlx::query(
                "SELECT 1 AS one FROM notices_taken \
                 WHERE player_id = $1 AND game_id = $2 AND version = $3 AND kind = $4",
            )
            .bind(player)
            .bind(game)
            .bind(version)
            .bind(kind)
            .fetch_optional(pool)
            .await?;
            Ok(row.is_some())
        }

        /// When the last row of `player`'s `channel` and `topic` was sent.
        pub async fn last_sent(
            pool: &Pool,
            player: Uuid,
            channel: &str,
            topic: &str,
        ) -> Result<Option<DateTime<Utc>>, StoreError> {
            let row = sqlx::query(
                "SELECT max(sent_at) AS at FROM notifications \
                 WHERE player_id = $1 AND channel = $2 AND topic = $3 AND status = 'sent'",
            )
            .bind(player)
            .bind(channel)
            .bind(topic)
            .fetch_one(pool)
            .await?;
            Ok(row.try_get("at")?)
        }

        /// Rows due by `now`: pending ones, and those whose sender's claim lapsed.
        pub async fn due_notifications(
            pool: &Pool,
            now: DateTime<Utc>,
            limit: i64,
        ) -> Result<Vec<Outgoing>, StoreError> {
            let rows = sqlx::query(&format!(
                "SELECT {OUTBOX_COLUMNS} FROM notifications \
                 WHERE status IN ('pending', 'sending') \
                 AND ((status = 'pending' AND due_at <= $1) OR (status = 'sending' AND lease_until <= $1)) \
                 ORDER BY due_at LIMIT $2"
            ))
            .bind(now)
            .bind(limit)
            .fetch_all(pool)
            .await?;
            rows.iter().map(outgoing_of).collect()
        }

        /// Claims row `id` for one attempt until `lease`, if it is still due; whether
        /// this caller holds it.
        pub async fn claim_notification(
            pool: &Pool,
            id: Uuid,
            now: DateTime<Utc>,
            lease: DateTime<Utc>,
        ) -> Result<bool, StoreError> {
            let done = sqlx::query(
                "UPDATE notifications SET status = 'sending', lease_until = $3, \
                 attempts = attempts + 1 WHERE id = $1 \
                 AND ((status = 'pending' AND due_at <= $2) OR (status = 'sending' AND lease_until <= $2))",
            )
            .bind(id)
            .bind(now)
            .bind(lease)
            .execute(pool)
            .await?;
            Ok(done.rows_affected() > 0)
        }

        /// Records the attempt on row `id` claimed until `lease`: `status` (`sent`,
        /// `failed`, `dropped`, or `pending` again, due at `due_at`). The row's items are
        /// cleared once it is done with (they may hold a secret link).
        pub async fn finish_notification(
            pool: &Pool,
            id: Uuid,
            lease: DateTime<Utc>,
            status: &str,
            due_at: DateTime<Utc>,
            error: Option<&str>,
            now: DateTime<Utc>,
        ) -> Result<bool, StoreError> {
            let done = sqlx::query(
                "UPDATE notifications SET status = $3, due_at = $4, last_error = $5, \
                 lease_until = NULL, \
                 sent_at = CASE WHEN $3 = 'sent' THEN $6 ELSE sent_at END, \
                 items = CASE WHEN $3 = 'pending' OR channel NOT IN ('confirm', 'reset') \
                     THEN items ELSE '' END \
                 WHERE id = $1 AND status = 'sending' AND lease_until = $2",
            )
            .bind(id)
            .bind(lease)
            .bind(status)
            .bind(due_at)
            .bind(error)
            .bind(now)
            .execute(pool)
            .await?;
            Ok(done.rows_affected() > 0)
        }

        /// The outbox rows of `player`, newest first (what the tests and the account
        /// export read).
        pub async fn notifications_of(
            pool: &Pool,
            player: Uuid,
            limit: i64,
        ) -> Result<Vec<Outgoing>, StoreError> {
            let rows = sqlx::query(&format!(
                "SELECT {OUTBOX_COLUMNS} FROM notifications WHERE player_id = $1 \
                 ORDER BY created_at DESC, id LIMIT $2"
            ))
            .bind(player)
            .bind(limit)
            .fetch_all(pool)
            .await?;
            rows.iter().map(outgoing_of).collect()
        }

        pub async fn notification_preferences(
            pool: &Pool,
            player: Uuid,
        ) -> Result<Option<String>, StoreError> {
            let row = sqlx::query("SELECT settings FROM notification_preferences WHERE player_id = $1")
                .bind(player)
                .fetch_optional(pool)
                .await?;
            Ok(row.map(|r| r.try_get("settings")).transpose()?)
        }

        pub async fn set_notification_preferences(
            pool: &Pool,
            player: Uuid,
            settings: &str,
            now: DateTime<Utc>,
        ) -> Result<(), StoreError> {
            sqlx::query(
                "INSERT INTO notification_preferences (player_id, settings, updated_at) \
                 VALUES ($1, $2, $3) ON CONFLICT (player_id) DO UPDATE \
                 SET settings = excluded.settings, updated_at = excluded.updated_at",
            )
            .bind(player)
            .bind(settings)
            .bind(now)
            .execute(pool)
            .await?;
            Ok(())
        }

        /// Mutes (`true`) or unmutes `game` for `player`; whether anything changed.
        pub async fn set_muted(
            pool: &Pool,
            player: Uuid,
            game: Uuid,
            muted: bool,
        ) -> Result<bool, StoreError> {
            let sql = if muted {
                "INSERT INTO muted_games (player_id, game_id) VALUES ($1, $2) ON CONFLICT DO NOTHING"
            } else {
                "DELETE FROM muted_games WHERE player_id = $1 AND game_id = $2"
            };
            let done = sqlx::query(sql).bind(player).bind(game).execute(pool).await?;
            Ok(done.rows_affected() > 0)
        }

        pub async fn muted_games(pool: &Pool, player: Uuid) -> Result<Vec<Uuid>, StoreError> {
            let rows = sqlx::query("SELECT game_id FROM muted_games WHERE player_id = $1 ORDER BY game_id")
                .bind(player)
                .fetch_all(pool)
                .await?;
            rows.iter().map(|r| Ok(r.try_get("game_id")?)).collect()
        }

        /// The players who can be reached: by a confirmed address that is not disabled,
        /// or on a device subscribed to pushes.
        pub async fn reachable_players(pool: &Pool) -> Result<Vec<Uuid>, StoreError> {
            let rows = sqlx::query(
                "SELECT player_id FROM email_addresses \
                 WHERE confirmed_at IS NOT NULL AND disabled_at IS NULL \
                 UNION SELECT player_id FROM push_subscriptions",
            )
            .fetch_all(pool)
            .await?;
            rows.iter().map(|r| Ok(r.try_get("player_id")?)).collect()
        }

    };
}

pub(crate) use notification_statements;
