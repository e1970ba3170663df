//! The statements of passkeys and of WebAuthn ceremonies between their two requests,
//! stamped out per backend after [`super::statements`].

/// Defines the passkey statements in the module it is invoked in.
macro_rules! passkey_statements {
    () => {
        use $crate::passkeys::StoredPasskey;

        fn passkey_of(r: &DbRow) -> Result<StoredPasskey, sqlx::Error> {
            Ok(StoredPasskey {
                credential_id: r.try_get("credential_id")?,
                player_id: r.try_get("player_id")?,
                name: r.try_get("name")?,
                passkey: r.try_get("passkey")?,
                created_at: r.try_get("created_at")?,
                last_used_at: r.try_get("last_used_at")?,
            })
        }

        pub async fn create_passkey(pool: &Pool, p: &StoredPasskey) -> Result<(), StoreError> {
            sqlx::query(
                "INSERT INTO passkeys (credential_id, player_id, name, passkey, created_at, \
                 last_used_at) VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(&p.credential_id)
            .bind(p.player_id)
            .bind(&p.name)
            .bind(&p.passkey)
            .bind(p.created_at)
            .bind(p.last_used_at)
            .execute(pool)
            .await
            .map_err(conflict_or)?;
            Ok(())
        }

        pub async fn passkeys_of(
            pool: &Pool,
            player: Uuid,
        ) -> Result<Vec<StoredPasskey>, StoreError> {
            let rows = sqlx::query(
                "SELECT credential_id, player_id, name, passkey, created_at, last_used_at \
                 FROM passkeys WHERE player_id = $1 ORDER BY created_at, credential_id",
            )
            .bind(player)
            .fetch_all(pool)
            .await?;
            Ok(rows.iter().map(passkey_of).collect::<Result<_, _>>()?)
        }

        pub async fn passkey(pool: &Pool, id: &[u8]) -> Result<Option<StoredPasskey>, StoreError> {
            let row = sqlx::query(
                "SELECT credential_id, player_id, name, passkey, created_at, last_used_at \
                 FROM passkeys WHERE credential_id = $1",
            )
            .bind(id)
            .fetch_optional(pool)
            .await?;
            Ok(row.map(|r| passkey_of(&r)).transpose()?)
        }

        /// Stores a passkey's state after a use at `now`.
        pub async fn use_passkey(
            pool: &Pool,
            id: &[u8],
            passkey: &str,
            now: DateTime<Utc>,
        ) -> Result<(), StoreError> {
            sqlx::query(
                "UPDATE passkeys SET passkey = $2, last_used_at = $3 WHERE credential_id = $1",
            )
            .bind(id)
            .bind(passkey)
            .bind(now)
            .execute(pool)
            .await?;
            Ok(())
        }

        pub async fn delete_passkey(
            pool: &Pool,
            player: Uuid,
            id: &[u8],
        ) -> Result<bool, StoreError> {
            let done =
                sqlx::query("DELETE FROM passkeys WHERE player_id = $1 AND credential_id = $2")
                    .bind(player)
                    .bind(id)
                    .execute(pool)
                    .await?;
            Ok(done.rows_affected() > 0)
        }

        pub async fn create_ceremony(
            pool: &Pool,
            id: Uuid,
            player: Option<Uuid>,
            kind: &str,
            state: &str,
            expires_at: DateTime<Utc>,
        ) -> Result<(), StoreError> {
            sqlx::query(
                "INSERT INTO webauthn_ceremonies (id, player_id, kind, state, expires_at) \
                 VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(id)
            .bind(player)
            .bind(kind)
            .bind(state)
            .bind(expires_at)
            .execute(pool)
            .await?;
            Ok(())
        }

        /// Takes ceremony `id` of `kind` (and of `player`, when given): it is deleted, so
        /// it is used once. Its state and when it expires.
        pub async fn take_ceremony(
            pool: &Pool,
            id: Uuid,
            player: Option<Uuid>,
            kind: &str,
        ) -> Result<Option<(String, DateTime<Utc>)>, StoreError> {
            let row = sqlx::query(
                "DELETE FROM webauthn_ceremonies WHERE id = $1 AND kind = $2 \
                 AND player_id IS NOT DISTINCT FROM $3 RETURNING state, expires_at",
            )
            .bind(id)
            .bind(kind)
            .bind(player)
            .fetch_optional(pool)
            .await?;
            Ok(row
                .map(|r| Ok::<_, sqlx::Error>((r.try_get("state")?, r.try_get("expires_at")?)))
                .transpose()?)
        }

        pub async fn delete_expired_ceremonies(
            pool: &Pool,
            now: DateTime<Utc>,
        ) -> Result<u64, StoreError> {
            let done = sqlx::query("DELETE FROM webauthn_ceremonies WHERE expires_at < $1")
                .bind(now)
                .execute(pool)
                .await?;
            Ok(done.rows_affected())
        }
    };
}

pub(super) use passkey_statements;
