//! The statements of OAuth (authorisation codes, grants, the exchange of a code and the
//! rotation of a refresh token), stamped out per backend after
//! [`super::account_statements`], whose `insert_credential` they use.

/// Defines the OAuth statements in the module it is invoked in.
macro_rules! oauth_statements {
    ($Db:ty) => {
        use worp_domain::access::{OauthCode, OauthGrant};
        use $crate::accounts::{Exchange, RefreshOutcome};

        fn oauth_code_of(r: &DbRow) -> Result<OauthCode, StoreError> {
            let scopes: String = r.try_get("scopes")?;
            Ok(OauthCode {
                code_hash: r.try_get("code_hash")?,
                player_id: r.try_get("player_id")?,
                client_id: r.try_get("client_id")?,
                redirect_uri: r.try_get("redirect_uri")?,
                scopes: Scopes::from_spaced(&scopes)
                    .map_err(|e| StoreError::Corrupt(format!("code scopes: {e}")))?,
                code_challenge: r.try_get("code_challenge")?,
                expires_at: r.try_get("expires_at")?,
                grant_id: r.try_get("grant_id")?,
            })
        }

        pub async fn create_oauth_code(pool: &Pool, c: &OauthCode) -> Result<(), StoreError> {
            sqlx::query(
                "INSERT INTO oauth_codes (code_hash, player_id, client_id, redirect_uri, \
                 scopes, code_challenge, expires_at, grant_id) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
            .bind(&c.code_hash)
            .bind(c.player_id)
            .bind(&c.client_id)
            .bind(&c.redirect_uri)
            .bind(c.scopes.to_string())
            .bind(&c.code_challenge)
            .bind(c.expires_at)
            .bind(c.grant_id)
            .execute(pool)
            .await?;
            Ok(())
        }

        pub async fn oauth_code(pool: &Pool, hash: &[u8]) -> Result<Option<OauthCode>, StoreError> {
            let row = sqlx::query(
                "SELECT code_hash, player_id, client_id, redirect_uri, scopes, \
                 code_challenge, expires_at, grant_id FROM oauth_codes WHERE code_hash = $1",
            )
            .bind(hash)
            .fetch_optional(pool)
            .await?;
            row.map(|r| oauth_code_of(&r)).transpose()
        }

        /// Deletes grant `id` and every token of it, inside `tx`.
        async fn revoke_grant_in(
            tx: &mut sqlx::Transaction<'_, $Db>,
            id: Uuid,
        ) -> Result<bool, StoreError> {
            sqlx::query("DELETE FROM credentials WHERE grant_id = $1")
                .bind(id)
                .execute(&mut **tx)
                .await?;
            let done = sqlx::query("DELETE FROM oauth_grants WHERE id = $1")
                .bind(id)
                .execute(&mut **tx)
                .await?;
            Ok(done.rows_affected() > 0)
        }

        /// Exchanges the code with hash `code_hash` for `grant` and its two tokens, in one
        /// transaction. A code exchanged before is not exchanged again: the grant it made
        /// is revoked with all its tokens (RFC 6749 §4.1.2).
        pub async fn exchange_oauth_code(
            pool: &Pool,
            code_hash: &[u8],
            grant: &OauthGrant,
            access: &Credential,
            refresh: &Credential,
        ) -> Result<Exchange, StoreError> {
            let mut tx = pool.begin().await?;
            let claimed = sqlx::query(
                "UPDATE oauth_codes SET grant_id = $2 WHERE code_hash = $1 AND grant_id IS NULL",
            )
            .bind(code_hash)
            .bind(grant.id)
            .execute(&mut *tx)
            .await?;
            if claimed.rows_affected() == 0 {
                let earlier: Option<Option<Uuid>> =
                    sqlx::query("SELECT grant_id FROM oauth_codes WHERE code_hash = $1")
                        .bind(code_hash)
                        .fetch_optional(&mut *tx)
                        .await?
                        .map(|r| r.try_get("grant_id"))
                        .transpose()?;
                let revoked = match earlier.flatten() {
                    Some(id) => revoke_grant_in(&mut tx, id).await?,
                    None => false,
                };
                tx.commit().await?;
                return Ok(Exchange::Replayed { revoked });
            }
            sqlx::query(
                "INSERT INTO oauth_grants (id, player_id, client_id, redirect_uri, scopes, \
                 created_at) VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(grant.id)
            .bind(grant.player_id)
            .bind(&grant.client_id)
            .bind(&grant.redirect_uri)
            .bind(grant.scopes.to_string())
            .bind(grant.created_at)
            .execute(&mut *tx)
            .await?;
            insert_credential(&mut *tx, access).await?;
            insert_credential(&mut *tx, refresh).await?;
            tx.commit().await?;
            Ok(Exchange::Granted)
        }

        /// Rotates refresh token `old`: marks it used and stores its successors, in one
        /// transaction. A token used before revokes its whole grant instead (RFC 9700
        /// §4.14.2).
        pub async fn rotate_refresh_token(
            pool: &Pool,
            old: &Credential,
            now: DateTime<Utc>,
            access: &Credential,
            refresh: &Credential,
        ) -> Result<RefreshOutcome, StoreError> {
            let mut tx = pool.begin().await?;
            let claimed = sqlx::query(
                "UPDATE credentials SET used_at = $2 WHERE id = $1 AND used_at IS NULL",
            )
            .bind(old.id)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            if claimed.rows_affected() == 0 {
                if let Some(id) = old.grant_id {
                    revoke_grant_in(&mut tx, id).await?;
                }
                tx.commit().await?;
                return Ok(RefreshOutcome::Reused);
            }
            insert_credential(&mut *tx, access).await?;
            insert_credential(&mut *tx, refresh).await?;
            tx.commit().await?;
            Ok(RefreshOutcome::Rotated)
        }

        /// `player`'s OAuth grants, oldest first.
        pub async fn oauth_grants_of(
            pool: &Pool,
            player: Uuid,
        ) -> Result<Vec<OauthGrant>, StoreError> {
            let rows = sqlx::query(
                "SELECT id, player_id, client_id, redirect_uri, scopes, created_at \
                 FROM oauth_grants WHERE player_id = $1 ORDER BY created_at, id",
            )
            .bind(player)
            .fetch_all(pool)
            .await?;
            rows.iter()
                .map(|r| {
                    let scopes: String = r.try_get("scopes")?;
                    Ok(OauthGrant {
                        id: r.try_get("id")?,
                        player_id: r.try_get("player_id")?,
                        client_id: r.try_get("client_id")?,
                        redirect_uri: r.try_get("redirect_uri")?,
                        scopes: Scopes::from_spaced(&scopes)
                            .map_err(|e| StoreError::Corrupt(format!("grant scopes: {e}")))?,
                        created_at: r.try_get("created_at")?,
                    })
                })
                .collect()
        }

        /// Revokes `player`'s grant `id` with all its tokens; whether there was one.
        pub async fn revoke_oauth_grant(
            pool: &Pool,
            player: Uuid,
            id: Uuid,
        ) -> Result<bool, StoreError> {
            let mut tx = pool.begin().await?;
            let owned = sqlx::query("SELECT id FROM oauth_grants WHERE id = $1 AND player_id = $2")
                .bind(id)
                .bind(player)
                .fetch_optional(&mut *tx)
                .await?
                .is_some();
            let revoked = owned && revoke_grant_in(&mut tx, id).await?;
            tx.commit().await?;
            Ok(revoked)
        }
    };
}

pub(super) use oauth_statements;
