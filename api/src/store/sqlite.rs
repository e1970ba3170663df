//! The store's statements on an embedded SQLite file, the zero-set-up default: one
//! connection, each change its own transaction.

super::statements::statements!(sqlx::Sqlite, sql::LOCK_READ_MODELS_SQLITE);
super::webhook_statements::webhook_statements!();
