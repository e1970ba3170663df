//! The store's statements on PostgreSQL, the production backend, and what only it does:
//! announcing changes to the other server processes (`NOTIFY`). Appends of new changes
//! go through [`super::group_commit`], which falls back on [`append_alone`].

super::statements::statements!(
    sqlx::Postgres,
    sql::LOCK_READ_MODELS_POSTGRES,
    sql::LIST_GAMES_POSTGRES,
    sql::LIST_GAMES_OF_POSTGRES,
    sql::LIST_GAMES_AFTER_POSTGRES,
    sql::LIST_GAMES_OF_AFTER_POSTGRES,
    sql::LIST_GAMES_IN_POSTGRES,
    sql::LIST_GAMES_IN_AFTER_POSTGRES,
    sql::WRITE_GAME_ROW_POSTGRES
);
super::webhook_statements::webhook_statements!();
super::account_statements::account_statements!(sqlx::Postgres);
super::passkey_statements::passkey_statements!();
super::vacation_statements::vacation_statements!();
super::tournament_statements::tournament_statements!(sqlx::Postgres);
super::push_statements::push_statements!();
super::oauth_statements::oauth_statements!(sqlx::Postgres);
super::notification_statements::notification_statements!(sqlx::Postgres);
super::notifier_statements::notifier_statements!();
super::bots::bot_statements!();

/// The names of those of `ids` who are players: one statement for them all, where a
/// listing page would otherwise cost a round trip per player.
pub async fn player_names(pool: &Pool, ids: &[Uuid]) -> Result<Vec<(Uuid, String)>, StoreError> {
    let rows = sqlx::query(sql::PLAYER_NAMES)
        .bind(ids)
        .fetch_all(pool)
        .await?;
    rows.iter()
        .map(|r| Ok((r.try_get("id")?, r.try_get("name")?)))
        .collect()
}

/// Tells other server processes on the same PostgreSQL server that games changed
/// (`LISTEN worp_events`), one notification per payload, in one statement.
pub async fn announce(pool: &Pool, payloads: &[String]) -> Result<(), StoreError> {
    sqlx::query(sql::ANNOUNCE)
        .bind(payloads)
        .execute(pool)
        .await?;
    Ok(())
}

/// Whether another process's `LISTEN` connection (named otherwise than `own`) is open
/// on this database.
pub async fn others_listen(pool: &Pool, own: &str) -> Result<bool, StoreError> {
    let row = sqlx::query(sql::OTHERS_LISTEN)
        .bind(own)
        .fetch_one(pool)
        .await?;
    Ok(row.try_get("others")?)
}

/// How many games `player` created that still wait for players.
pub async fn open_games_of(pool: &Pool, player: Uuid) -> Result<i64, StoreError> {
    let row = sqlx::query(sql::OPEN_GAMES_OF_POSTGRES)
        .bind(player.to_string())
        .fetch_one(pool)
        .await?;
    Ok(row.try_get("n")?)
}

/// The transactions that may be writing events now, in this process or another, by
/// their virtual transaction ids: a transaction takes its `ROW EXCLUSIVE` lock on
/// `events` before it takes a position, and holds it until it ends, so one that will
/// still commit an event below a position already read is among them.
pub async fn event_writers(pool: &Pool) -> Result<Vec<String>, StoreError> {
    let rows = sqlx::query(sql::EVENT_WRITERS_POSTGRES)
        .fetch_all(pool)
        .await?;
    rows.iter().map(|r| Ok(r.try_get("vxid")?)).collect()
}
