//! The statements of accounts (credentials, passwords, recovery codes, failed sign-ins,
//! deleted accounts), stamped out per backend beside [`super::statements`] (whose
//! imports and `Pool` they share: invoke both in the same module, `statements!` first).
//! The SQL is the same on both backends.

/// Defines the account statements in the module it is invoked in.
macro_rules! account_statements {
    ($Db:ty) => {
        use worp_domain::access::{Credential, CredentialKind, Scopes};

        const CREDENTIAL_COLUMNS: &str = "id, player_id, secret_hash, kind, name, scopes, \
             created_at, last_used_at, expires_at, grant_id, used_at";

        fn credential_of(r: &DbRow) -> Result<Credential, StoreError> {
            let kind: String = r.try_get("kind")?;
            let scopes: String = r.try_get("scopes")?;
            Ok(Credential {
                id: r.try_get("id")?,
                player_id: r.try_get("player_id")?,
                secret_hash: r.try_get("secret_hash")?,
                kind: CredentialKind::parse(&kind)
                    .ok_or_else(|| StoreError::Corrupt(format!("credential kind {kind:?}")))?,
                name: r.try_get("name")?,
                scopes: Scopes::from_spaced(&scopes)
                    .map_err(|e| StoreError::Corrupt(format!("credential scopes: {e}")))?,
                created_at: r.try_get("created_at")?,
                last_used_at: r.try_get("last_used_at")?,
                expires_at: r.try_get("expires_at")?,
                grant_id: r.try_get("grant_id")?,
                used_at: r.try_get("used_at")?,
            })
        }

        async fn insert_credential<'c, E>(executor: E, c: &Credential) -> Result<(), StoreError>
        where
            E: sqlx::Executor<'c, Database = $Db>,
        {
            sqlx::query(
                "INSERT INTO credentials (id, player_id, secret_hash, kind, name, scopes, \
                 created_at, last_used_at, expires_at, grant_id, used_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
            )
            .bind(c.id)
            .bind(c.player_id)
            .bind(&c.secret_hash)
            .bind(c.kind.as_str())
            .bind(&c.name)
            .bind(c.scopes.to_string())
            .bind(c.created_at)
            .bind(c.last_used_at)
            .bind(c.expires_at)
            .bind(c.grant_id)
            .bind(c.used_at)
            .execute(executor)
            .await?;
            Ok(())
        }

        /// The player with id `id`.
        pub async fn player(pool: &Pool, id: Uuid) -> Result<Option<Player>, StoreError> {
            let row = sqlx::query("SELECT id, name, token_hash FROM players WHERE id = $1")
                .bind(id)
                .fetch_optional(pool)
                .await?;
            Ok(row.map(|r| player_of(&r)).transpose()?)
        }

        pub async fn create_credential(pool: &Pool, c: &Credential) -> Result<(), StoreError> {
            insert_credential(pool, c).await
        }

        /// The credential whose secret has this hash, with its player.
        pub async fn credential_by_hash(
            pool: &Pool,
            hash: &[u8],
        ) -> Result<Option<(Credential, Player)>, StoreError> {
            let row = sqlx::query(
                "SELECT c.id, c.player_id, c.secret_hash, c.kind, c.name, c.scopes, \
                 c.created_at, c.last_used_at, c.expires_at, c.grant_id, c.used_at, \
                 p.name AS player_name, p.token_hash \
                 FROM credentials c JOIN players p ON p.id = c.player_id \
                 WHERE c.secret_hash = $1",
            )
            .bind(hash)
            .fetch_optional(pool)
            .await?;
            row.map(|r| {
                let c = credential_of(&r)?;
                let p = Player {
                    id: c.player_id,
                    name: r.try_get("player_name")?,
                    token_hash: r.try_get("token_hash")?,
                };
                Ok((c, p))
            })
            .transpose()
        }

        /// Notes a use of credential `id` at `now`, and its new expiry.
        pub async fn touch_credential(
            pool: &Pool,
            id: Uuid,
            now: DateTime<Utc>,
            expires_at: Option<DateTime<Utc>>,
        ) -> Result<(), StoreError> {
            sqlx::query("UPDATE credentials SET last_used_at = $2, expires_at = $3 WHERE id = $1")
                .bind(id)
                .bind(now)
                .bind(expires_at)
                .execute(pool)
                .await?;
            Ok(())
        }

        /// `player`'s credentials of `kind`, oldest first.
        pub async fn credentials_of(
            pool: &Pool,
            player: Uuid,
            kind: CredentialKind,
        ) -> Result<Vec<Credential>, StoreError> {
            let rows = sqlx::query(&format!(
                "SELECT {CREDENTIAL_COLUMNS} FROM credentials \
                 WHERE player_id = $1 AND kind = $2 ORDER BY created_at, id"
            ))
            .bind(player)
            .bind(kind.as_str())
            .fetch_all(pool)
            .await?;
            rows.iter().map(credential_of).collect()
        }

        /// Deletes `player`'s credential `id` of `kind`; whether there was one.
        pub async fn delete_credential(
            pool: &Pool,
            player: Uuid,
            kind: CredentialKind,
            id: Uuid,
        ) -> Result<bool, StoreError> {
            let done =
                sqlx::query("DELETE FROM credentials WHERE player_id = $1 AND kind = $2 AND id = $3")
                    .bind(player)
                    .bind(kind.as_str())
                    .bind(id)
                    .execute(pool)
                    .await?;
            Ok(done.rows_affected() > 0)
        }

        /// Deletes every credential of `kind` of `player` but `keep`; how many.
        pub async fn delete_credentials_of(
            pool: &Pool,
            player: Uuid,
            kind: CredentialKind,
            keep: Option<Uuid>,
        ) -> Result<u64, StoreError> {
            let done = sqlx::query(
                "DELETE FROM credentials WHERE player_id = $1 AND kind = $2 \
                 AND ($3 IS NULL OR id <> $3)",
            )
            .bind(player)
            .bind(kind.as_str())
            .bind(keep)
            .execute(pool)
            .await?;
            Ok(done.rows_affected())
        }

        /// Deletes the credentials that expired before `now`, and the codes; how many.
        pub async fn delete_expired_credentials(
            pool: &Pool,
            now: DateTime<Utc>,
        ) -> Result<u64, StoreError> {
            let creds = sqlx::query("DELETE FROM credentials WHERE expires_at < $1")
                .bind(now)
                .execute(pool)
                .await?;
            let codes = sqlx::query("DELETE FROM oauth_codes WHERE expires_at < $1")
                .bind(now)
                .execute(pool)
                .await?;
            Ok(creds.rows_affected() + codes.rows_affected())
        }

        /// `player`'s password hash (PHC string), if they have one.
        pub async fn password_of(pool: &Pool, player: Uuid) -> Result<Option<String>, StoreError> {
            let row = sqlx::query("SELECT phc FROM passwords WHERE player_id = $1")
                .bind(player)
                .fetch_optional(pool)
                .await?;
            Ok(row.map(|r| r.try_get("phc")).transpose()?)
        }

        /// Sets `player`'s password hash.
        pub async fn set_password(
            pool: &Pool,
            player: Uuid,
            phc: &str,
            now: DateTime<Utc>,
        ) -> Result<(), StoreError> {
            sqlx::query(
                "INSERT INTO passwords (player_id, phc, updated_at) VALUES ($1, $2, $3) \
                 ON CONFLICT (player_id) DO UPDATE SET phc = excluded.phc, \
                 updated_at = excluded.updated_at",
            )
            .bind(player)
            .bind(phc)
            .bind(now)
            .execute(pool)
            .await?;
            Ok(())
        }

        /// Replaces `player`'s recovery codes by `hashes`, in one transaction.
        pub async fn replace_recovery_codes(
            pool: &Pool,
            player: Uuid,
            hashes: &[Vec<u8>],
        ) -> Result<(), StoreError> {
            let mut tx = pool.begin().await?;
            sqlx::query("DELETE FROM recovery_codes WHERE player_id = $1")
                .bind(player)
                .execute(&mut *tx)
                .await?;
            for h in hashes {
                sqlx::query("INSERT INTO recovery_codes (player_id, code_hash) VALUES ($1, $2)")
                    .bind(player)
                    .bind(h)
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await?;
            Ok(())
        }

        /// Uses up one of `player`'s recovery codes; whether it was there.
        pub async fn use_recovery_code(
            pool: &Pool,
            player: Uuid,
            hash: &[u8],
        ) -> Result<bool, StoreError> {
            let done =
                sqlx::query("DELETE FROM recovery_codes WHERE player_id = $1 AND code_hash = $2")
                    .bind(player)
                    .bind(hash)
                    .execute(pool)
                    .await?;
            Ok(done.rows_affected() == 1)
        }

        /// How many recovery codes `player` has left.
        pub async fn recovery_codes_left(pool: &Pool, player: Uuid) -> Result<i64, StoreError> {
            let row = sqlx::query("SELECT COUNT(*) AS n FROM recovery_codes WHERE player_id = $1")
                .bind(player)
                .fetch_one(pool)
                .await?;
            Ok(row.try_get("n")?)
        }

        /// The failures counted against `key`: how many, and the last one's time.
        pub async fn sign_in_failures(
            pool: &Pool,
            key: &str,
        ) -> Result<Option<(i32, DateTime<Utc>)>, StoreError> {
            let row = sqlx::query(
                "SELECT failures, last_failed FROM sign_in_failures WHERE key = $1",
            )
            .bind(key)
            .fetch_optional(pool)
            .await?;
            Ok(row
                .map(|r| Ok::<_, sqlx::Error>((r.try_get("failures")?, r.try_get("last_failed")?)))
                .transpose()?)
        }

        /// Counts one more failure against `key`, at `now`; failures before
        /// `forget_before` count no more.
        pub async fn record_sign_in_failure(
            pool: &Pool,
            key: &str,
            now: DateTime<Utc>,
            forget_before: DateTime<Utc>,
        ) -> Result<(), StoreError> {
            sqlx::query(
                "INSERT INTO sign_in_failures (key, failures, last_failed) VALUES ($1, 1, $2) \
                 ON CONFLICT (key) DO UPDATE SET \
                 failures = CASE WHEN sign_in_failures.last_failed < $3 THEN 1 \
                 ELSE sign_in_failures.failures + 1 END, last_failed = excluded.last_failed",
            )
            .bind(key)
            .bind(now)
            .bind(forget_before)
            .execute(pool)
            .await?;
            Ok(())
        }

        /// Forgets the failures counted against `key`.
        pub async fn clear_sign_in_failures(pool: &Pool, key: &str) -> Result<(), StoreError> {
            sqlx::query("DELETE FROM sign_in_failures WHERE key = $1")
                .bind(key)
                .execute(pool)
                .await?;
            Ok(())
        }


        /// Deletes what is held of `player` beside the log, in one transaction: their
        /// credentials, password, recovery codes, passkeys, OAuth grants and codes,
        /// webhooks and their deliveries, and name key; their name becomes `name` and their first
        /// token's hash `token_hash`. False if they had deleted their account before.
        pub async fn delete_account(
            pool: &Pool,
            player: Uuid,
            name: &str,
            token_hash: &[u8],
            now: DateTime<Utc>,
        ) -> Result<bool, StoreError> {
            let mut tx = pool.begin().await?;
            let first = sqlx::query(
                "INSERT INTO deleted_players (player_id, deleted_at) VALUES ($1, $2) \
                 ON CONFLICT (player_id) DO NOTHING",
            )
            .bind(player)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            if first.rows_affected() == 0 {
                return Ok(false);
            }
            for statement in [
                "DELETE FROM credentials WHERE player_id = $1",
                "DELETE FROM passwords WHERE player_id = $1",
                "DELETE FROM recovery_codes WHERE player_id = $1",
                "DELETE FROM oauth_codes WHERE player_id = $1",
                "DELETE FROM oauth_grants WHERE player_id = $1",
                "DELETE FROM webhook_deliveries WHERE player_id = $1",
                "DELETE FROM webhooks WHERE player_id = $1",
                "DELETE FROM name_keys WHERE player_id = $1",
                "DELETE FROM passkeys WHERE player_id = $1",
                "DELETE FROM webauthn_ceremonies WHERE player_id = $1",
                "DELETE FROM email_addresses WHERE player_id = $1",
                "DELETE FROM email_confirmations_sent WHERE player_id = $1",
                "DELETE FROM notification_preferences WHERE player_id = $1",
                "DELETE FROM muted_games WHERE player_id = $1",
                "DELETE FROM notifications WHERE player_id = $1",
                "DELETE FROM password_resets WHERE player_id = $1",
                "DELETE FROM push_subscriptions WHERE player_id = $1",
            ] {
                sqlx::query(statement).bind(player).execute(&mut *tx).await?;
            }
            sqlx::query("UPDATE players SET name = $2, token_hash = $3 WHERE id = $1")
                .bind(player)
                .bind(name)
                .bind(token_hash)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(true)
        }

        /// Gives `player` a first token with hash `token_hash`.
        pub async fn replace_first_token(
            pool: &Pool,
            player: Uuid,
            token_hash: &[u8],
        ) -> Result<(), StoreError> {
            sqlx::query("UPDATE players SET token_hash = $2 WHERE id = $1")
                .bind(player)
                .bind(token_hash)
                .execute(pool)
                .await?;
            Ok(())
        }

        /// Which of the players are deleted, all of them.
        pub async fn deleted_players(pool: &Pool) -> Result<Vec<Uuid>, StoreError> {
            let rows = sqlx::query("SELECT player_id FROM deleted_players")
                .fetch_all(pool)
                .await?;
            Ok(rows
                .iter()
                .map(|r| r.try_get("player_id"))
                .collect::<Result<_, _>>()?)
        }

        /// When `player` deleted their account, if they did.
        pub async fn deleted_at(
            pool: &Pool,
            player: Uuid,
        ) -> Result<Option<DateTime<Utc>>, StoreError> {
            let row = sqlx::query("SELECT deleted_at FROM deleted_players WHERE player_id = $1")
                .bind(player)
                .fetch_optional(pool)
                .await?;
            Ok(row.map(|r| r.try_get("deleted_at")).transpose()?)
        }
    };
}

pub(super) use account_statements;
