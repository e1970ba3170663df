//! The store's statements on an embedded SQLite file, the zero-set-up default: one
//! connection, each change its own transaction.

super::statements::statements!(
    sqlx::Sqlite,
    sql::LOCK_READ_MODELS_SQLITE,
    sql::LIST_GAMES_SQLITE,
    sql::LIST_GAMES_OF_SQLITE,
    sql::LIST_GAMES_AFTER_SQLITE,
    sql::LIST_GAMES_OF_AFTER_SQLITE,
    sql::LIST_GAMES_IN_SQLITE,
    sql::LIST_GAMES_IN_AFTER_SQLITE,
    sql::WRITE_GAME_ROW
);
super::webhook_statements::webhook_statements!();
super::account_statements::account_statements!(sqlx::Sqlite);
super::passkey_statements::passkey_statements!();
super::vacation_statements::vacation_statements!();
super::tournament_statements::tournament_statements!(sqlx::Sqlite);
super::push_statements::push_statements!();
super::oauth_statements::oauth_statements!(sqlx::Sqlite);
super::notification_statements::notification_statements!(sqlx::Sqlite);
super::notifier_statements::notifier_statements!();
super::bots::bot_statements!();

/// How many games `player` created that still wait for players.
pub async fn open_games_of(pool: &Pool, player: Uuid) -> Result<i64, StoreError> {
    let row = sqlx::query(sql::OPEN_GAMES_OF_SQLITE)
        .bind(player.to_string())
        .fetch_one(pool)
        .await?;
    Ok(row.try_get("n")?)
}

/// None: SQLite lets one transaction write at a time, and an event takes its position
/// inside it, so events commit in the order of their positions and none can commit
/// below a position already read.
pub async fn event_writers(_pool: &Pool) -> Result<Vec<String>, StoreError> {
    Ok(Vec::new())
}

/// The names of those of `ids` who are players, a statement each: the file is read in
/// this process, with no round trip to save.
pub async fn player_names(pool: &Pool, ids: &[Uuid]) -> Result<Vec<(Uuid, String)>, StoreError> {
    let mut names = Vec::with_capacity(ids.len());
    for &id in ids {
        if let Some(name) = player_name(pool, id).await? {
            names.push((id, name));
        }
    }
    Ok(names)
}
