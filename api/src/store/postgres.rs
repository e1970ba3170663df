//! The store's statements on PostgreSQL, the production backend, and what only it does:
//! announcing changes to the other server processes (`NOTIFY`). Appends of new changes
//! go through [`super::group_commit`], which falls back on [`append_alone`].

super::statements::statements!(sqlx::Postgres, sql::LOCK_READ_MODELS_POSTGRES);
super::webhook_statements::webhook_statements!();

/// Tells other server processes on the same PostgreSQL server that games changed
/// (`LISTEN worp_events`), one notification per payload, in one statement.
pub async fn announce(pool: &Pool, payloads: &[String]) -> Result<(), StoreError> {
    sqlx::query(sql::ANNOUNCE)
        .bind(payloads)
        .execute(pool)
        .await?;
    Ok(())
}
