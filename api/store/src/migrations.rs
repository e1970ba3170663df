//! The schema's migrations (`migrations/` at the top of the repository), embedded in the
//! binary: run at start-up only when one is missing, so that a server without the rights
//! to change the schema starts on a database its owner has migrated.

use super::error::StoreError;
use super::sql;

/// Runs the PostgreSQL migrations not applied yet. When every one is applied already,
/// nothing is run and no lock is taken: only `_sqlx_migrations` is read, so the server
/// starts as a role without rights to change the schema (`worp_server`, docs/operations.md), once
/// the owner has migrated.
pub(super) async fn migrate_postgres(pool: &sqlx::PgPool) -> Result<(), StoreError> {
    let migrator = sqlx::migrate!("../../migrations/postgres");
    // A database never migrated has no such table: then migrate.
    if let Ok(applied) = sqlx::query_as::<_, (i64, Vec<u8>)>(sql::APPLIED_MIGRATIONS)
        .fetch_all(pool)
        .await
    {
        if all_applied(&migrator, &applied) {
            return Ok(());
        }
    }
    migrator.run(pool).await?;
    Ok(())
}

/// Whether `applied` (version and checksum) is every migration of `migrator`, exactly.
pub(super) fn all_applied(migrator: &sqlx::migrate::Migrator, applied: &[(i64, Vec<u8>)]) -> bool {
    let wanted: Vec<(i64, &[u8])> = migrator
        .iter()
        .filter(|m| !m.migration_type.is_down_migration())
        .map(|m| (m.version, &*m.checksum))
        .collect();
    applied.len() == wanted.len()
        && wanted
            .iter()
            .all(|(v, c)| applied.iter().any(|(av, ac)| av == v && ac == c))
}
