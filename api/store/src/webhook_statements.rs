//! The statements of webhooks and their delivery outbox, stamped out per backend beside
//! [`super::statements`] (whose imports and `Pool` they share: invoke both in the same
//! module, `statements!` first).

/// Defines the webhook statements in the module it is invoked in.
macro_rules! webhook_statements {
    () => {
        pub async fn create_webhook(pool: &Pool, w: &Webhook) -> Result<(), StoreError> {
            sqlx::query(sql::INSERT_WEBHOOK)
                .bind(w.id)
                .bind(w.player_id)
                .bind(&w.url)
                .bind(&w.secret)
                .bind(w.created_at)
                .execute(pool)
                .await?;
            Ok(())
        }

        pub async fn webhooks(pool: &Pool, player: Uuid) -> Result<Vec<Webhook>, StoreError> {
            let rows = sqlx::query(sql::WEBHOOKS)
                .bind(player)
                .fetch_all(pool)
                .await?;
            rows.iter()
                .map(|r| {
                    Ok(Webhook {
                        id: r.try_get("id")?,
                        player_id: r.try_get("player_id")?,
                        url: r.try_get("url")?,
                        secret: r.try_get("secret")?,
                        created_at: r.try_get("created_at")?,
                    })
                })
                .collect()
        }

        /// Deletes one of `player`'s webhooks and, in the same transaction, its
        /// deliveries (nothing would ever send or show them again).
        pub async fn delete_webhook(
            pool: &Pool,
            player: Uuid,
            id: Uuid,
        ) -> Result<bool, StoreError> {
            let mut tx = pool.begin().await?;
            sqlx::query(sql::DELETE_WEBHOOK_DELIVERIES)
                .bind(player)
                .bind(id)
                .execute(&mut *tx)
                .await?;
            let done = sqlx::query(sql::DELETE_WEBHOOK)
                .bind(player)
                .bind(id)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(done.rows_affected() > 0)
        }

        pub async fn deliveries(
            pool: &Pool,
            webhook: Uuid,
            limit: i64,
            offset: i64,
        ) -> Result<Vec<Delivery>, StoreError> {
            let rows = sqlx::query(sql::DELIVERIES)
                .bind(webhook)
                .bind(limit)
                .bind(offset)
                .fetch_all(pool)
                .await?;
            rows.iter().map(delivery).collect()
        }

        fn delivery(r: &DbRow) -> Result<Delivery, StoreError> {
            Ok(Delivery {
                id: r.try_get("id")?,
                webhook_id: r.try_get("webhook_id")?,
                game_id: r.try_get("game_id")?,
                version: r.try_get("version")?,
                kind: r.try_get("kind")?,
                payload: r.try_get::<Json<Value>, _>("payload")?.0,
                status: r.try_get("status")?,
                attempts: r.try_get("attempts")?,
                next_attempt_at: r.try_get("next_attempt_at")?,
                last_status: r.try_get("last_status")?,
                last_error: r.try_get("last_error")?,
                created_at: r.try_get("created_at")?,
                delivered_at: r.try_get("delivered_at")?,
            })
        }

        /// Up to `limit` due deliveries (at most two per webhook), with their webhook's
        /// URL and secret. Read, not claimed: see [`lease_delivery`].
        pub async fn due_deliveries(
            pool: &Pool,
            now: DateTime<Utc>,
            limit: i64,
        ) -> Result<Vec<(Delivery, String, String)>, StoreError> {
            let rows = sqlx::query(sql::DUE_DELIVERIES)
                .bind(now)
                .bind(limit)
                .fetch_all(pool)
                .await?;
            rows.iter()
                .map(|r| Ok((delivery(r)?, r.try_get("url")?, r.try_get("secret")?)))
                .collect()
        }

        /// Claims `d` until `lease_until` (so two processes never send it at once),
        /// unless another process claimed it since it was read; true if this one did.
        pub async fn lease_delivery(
            pool: &Pool,
            d: &Delivery,
            lease_until: DateTime<Utc>,
        ) -> Result<bool, StoreError> {
            let done = sqlx::query(sql::LEASE_DELIVERY)
                .bind(lease_until)
                .bind(d.id)
                .bind(d.next_attempt_at)
                .execute(pool)
                .await?;
            Ok(done.rows_affected() == 1)
        }

        /// Records the outcome of one delivery attempt, if the delivery is still under
        /// the attempt's lease; true if it was recorded.
        pub async fn record_attempt(pool: &Pool, a: &Attempt<'_>) -> Result<bool, StoreError> {
            let done = sqlx::query(sql::RECORD_ATTEMPT)
                .bind(a.status)
                .bind(a.attempts)
                .bind(a.next_attempt_at)
                .bind(a.last_status)
                .bind(a.last_error)
                .bind(a.delivered_at)
                .bind(a.id)
                .bind(a.lease)
                .execute(pool)
                .await?;
            Ok(done.rows_affected() == 1)
        }
    };
}

pub(super) use webhook_statements;
