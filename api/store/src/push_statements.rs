//! The statements of Web Push (the VAPID key, push subscriptions), stamped out per
//! backend after [`super::statements`]. The SQL is the same on both backends.

/// Defines the push statements in the module it is invoked in.
macro_rules! push_statements {
    () => {
        use $crate::push::StoredPushSubscription;

        const PUSH_COLUMNS: &str =
            "id, player_id, endpoint, p256dh, auth, device, created_at, last_used_at";

        fn push_subscription_of(r: &DbRow) -> Result<StoredPushSubscription, sqlx::Error> {
            Ok(StoredPushSubscription {
                id: r.try_get("id")?,
                player_id: r.try_get("player_id")?,
                endpoint: r.try_get("endpoint")?,
                p256dh: r.try_get("p256dh")?,
                auth: r.try_get("auth")?,
                device: r.try_get("device")?,
                created_at: r.try_get("created_at")?,
                last_used_at: r.try_get("last_used_at")?,
            })
        }

        pub async fn vapid_key(pool: &Pool) -> Result<Option<String>, StoreError> {
            let row = sqlx::query("SELECT private_key FROM vapid_keys WHERE id = 1")
                .fetch_optional(pool)
                .await?;
            Ok(row.map(|r| r.try_get("private_key")).transpose()?)
        }

        pub async fn keep_vapid_key(
            pool: &Pool,
            private_key: &str,
            now: DateTime<Utc>,
        ) -> Result<String, StoreError> {
            sqlx::query(
                "INSERT INTO vapid_keys (id, private_key, created_at) VALUES (1, $1, $2) \
                 ON CONFLICT (id) DO NOTHING",
            )
            .bind(private_key)
            .bind(now)
            .execute(pool)
            .await?;
            vapid_key(pool)
                .await?
                .ok_or_else(|| StoreError::Corrupt("the VAPID key was not kept".into()))
        }

        pub async fn save_push_subscription(
            pool: &Pool,
            s: &StoredPushSubscription,
        ) -> Result<StoredPushSubscription, StoreError> {
            let row = sqlx::query(&format!(
                "INSERT INTO push_subscriptions ({PUSH_COLUMNS}) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
                 ON CONFLICT (endpoint) DO UPDATE SET player_id = excluded.player_id, \
                 p256dh = excluded.p256dh, auth = excluded.auth, device = excluded.device \
                 RETURNING {PUSH_COLUMNS}"
            ))
            .bind(s.id)
            .bind(s.player_id)
            .bind(&s.endpoint)
            .bind(&s.p256dh)
            .bind(&s.auth)
            .bind(&s.device)
            .bind(s.created_at)
            .bind(s.last_used_at)
            .fetch_one(pool)
            .await?;
            Ok(push_subscription_of(&row)?)
        }

        pub async fn push_subscriptions_of(
            pool: &Pool,
            player: Uuid,
        ) -> Result<Vec<StoredPushSubscription>, StoreError> {
            let rows = sqlx::query(&format!(
                "SELECT {PUSH_COLUMNS} FROM push_subscriptions WHERE player_id = $1 \
                 ORDER BY created_at, id"
            ))
            .bind(player)
            .fetch_all(pool)
            .await?;
            Ok(rows
                .iter()
                .map(push_subscription_of)
                .collect::<Result<_, _>>()?)
        }

        pub async fn delete_push_subscription(
            pool: &Pool,
            player: Uuid,
            id: Uuid,
        ) -> Result<bool, StoreError> {
            let done =
                sqlx::query("DELETE FROM push_subscriptions WHERE player_id = $1 AND id = $2")
                    .bind(player)
                    .bind(id)
                    .execute(pool)
                    .await?;
            Ok(done.rows_affected() > 0)
        }

        pub async fn use_push_subscription(
            pool: &Pool,
            id: Uuid,
            now: DateTime<Utc>,
        ) -> Result<(), StoreError> {
            sqlx::query("UPDATE push_subscriptions SET last_used_at = $2 WHERE id = $1")
                .bind(id)
                .bind(now)
                .execute(pool)
                .await?;
            Ok(())
        }
    };
}

pub(super) use push_statements;
