//! The schema's migrations (`migrations/` at the top of the repository), embedded in the
//! binary: run at start-up only when one is missing, so that a server without the rights
//! to change the schema starts on a database its owner has migrated.

use super::error::StoreError;
use super::sql;

/// Runs the PostgreSQL migrations not applied yet. When every one is applied already,
/// nothing is run and no lock is taken: only `_sqlx_migrations` is read, so the server
/// starts as a role without rights to change the schema (`worp_server`, docs/operations.md), once
/// the owner has migrated.
/// Then warns if the database runs without autovacuum ([`autovacuum_warning`]).
pub(super) async fn migrate_postgres(pool: &sqlx::PgPool) -> Result<(), StoreError> {
    let migrator = sqlx::migrate!("../../migrations/postgres");
    // A database never migrated has no such table: then migrate.
    let applied = sqlx::query_as::<_, (i64, Vec<u8>)>(sql::APPLIED_MIGRATIONS)
        .fetch_all(pool)
        .await;
    if !applied.is_ok_and(|applied| all_applied(&migrator, &applied)) {
        migrator.run(pool).await?;
    }
    let autovacuum = sqlx::query_scalar::<_, String>("SELECT current_setting('autovacuum')")
        .fetch_one(pool)
        .await;
    if let Some(warning) = autovacuum.ok().as_deref().and_then(autovacuum_warning) {
        tracing::warn!("{warning}");
    }
    Ok(())
}

/// What to say of PostgreSQL's `autovacuum` setting, `setting`: nothing when it is on.
/// The schema relies on it: it summarises the log's index of positions as the log grows
/// (`autosummarize`), and keeps the statistics the planner reads. Without either, every
/// read of the log's tail by the notifier reads the whole log.
pub(super) fn autovacuum_warning(setting: &str) -> Option<&'static str> {
    (setting != "on").then_some(
        "PostgreSQL runs with autovacuum off: the notifier's reads of the event log will \
         scan the whole log, slower as it grows; turn autovacuum on (docs/operations.md)",
    )
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

#[cfg(test)]
mod tests {
    use super::autovacuum_warning;

    #[test]
    fn a_database_without_autovacuum_is_warned_of() {
        assert_eq!(autovacuum_warning("on"), None);
        let warning = autovacuum_warning("off").expect("a warning");
        assert!(warning.contains("autovacuum off"), "{warning}");
    }
}
