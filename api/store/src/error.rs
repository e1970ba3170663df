//! What the store could not do.

/// A failed read or write of the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Another append to the same game won the race (the version check refused it).
    #[error("another change to this game was recorded first")]
    Conflict,
    /// Another player's name has the same name key (looks the same).
    #[error("another player's name looks the same")]
    NameTaken,
    /// The database failed or is unreachable.
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    /// The SQLite writer's connection failed (see `sqlite_commit`).
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// Too many changes are waiting to be written: refused at once (try again shortly).
    #[error("the write queue is full")]
    Overloaded,
    /// The database did not answer within [`super::DATABASE_DEADLINE`] (e.g. a commit
    /// waiting for a synchronous standby that is not there): whether a write was
    /// recorded is unknown, as when a connection breaks.
    #[error("the database did not answer in time")]
    TimedOut,
    /// A stored row holds what no code writes (an unknown credential kind or scope).
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    /// Migrations failed.
    #[error("migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
}

impl StoreError {
    /// Whether the database is not there now (try again shortly), rather than a fault of
    /// the request or of the server.
    pub fn is_unavailable(&self) -> bool {
        match self {
            StoreError::Database(e) => unavailable(e),
            StoreError::Overloaded | StoreError::TimedOut => true,
            // Locked by another connection for longer than the busy timeout, or the
            // file cannot be opened.
            StoreError::Sqlite(e) => matches!(
                e.sqlite_error_code(),
                Some(
                    rusqlite::ErrorCode::DatabaseBusy
                        | rusqlite::ErrorCode::DatabaseLocked
                        | rusqlite::ErrorCode::CannotOpen
                )
            ),
            _ => false,
        }
    }
}

/// Whether `e` says the database is not there now (a connection that broke, a server
/// shutting down or in recovery): then also whether a statement was committed is
/// unknown.
pub(crate) fn unavailable(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(db) => db.code().is_some_and(|code| {
            // Class 08: connection exception; 57P01-57P03: the server shuts down, was
            // shut down or cannot take connections yet; 53300: too many connections;
            // 55000: the database does not accept connections now; 25006: a read-only
            // transaction, i.e. this server is a standby now (a demoted primary, still
            // routed to until the load balancer's check notices).
            code.starts_with("08")
                || matches!(
                    &*code,
                    "57P01" | "57P02" | "57P03" | "53300" | "55000" | "25006"
                )
        }),
        // A connection the server closed mid-conversation.
        sqlx::Error::Protocol(msg) => msg.contains("EOF") || msg.contains("closed"),
        _ => false,
    }
}

/// Whether the database refused the statement, so that nothing of it was committed. Not
/// when the server is going away or is a standby now ([`unavailable`]): a commit
/// cut off while it waited for a synchronous standby ("terminating connection due to
/// administrator command") may have been recorded, so its outcome is unknown.
pub(super) fn refused(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(_)) && !unavailable(e)
}

/// A copy of a connection-level error, for every change of a failed batch.
pub(super) fn same_error(e: &sqlx::Error) -> sqlx::Error {
    match e {
        sqlx::Error::Io(io) => sqlx::Error::Io(std::io::Error::new(io.kind(), io.to_string())),
        sqlx::Error::PoolTimedOut => sqlx::Error::PoolTimedOut,
        sqlx::Error::PoolClosed => sqlx::Error::PoolClosed,
        sqlx::Error::WorkerCrashed => sqlx::Error::WorkerCrashed,
        // The server went away or is a standby now: still unavailable (503), not a fault.
        sqlx::Error::Database(_) => sqlx::Error::Io(std::io::Error::new(
            std::io::ErrorKind::ConnectionAborted,
            e.to_string(),
        )),
        other => sqlx::Error::Protocol(other.to_string()),
    }
}
