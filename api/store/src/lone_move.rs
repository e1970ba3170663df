//! A group-commit batch of one move (each move, when a single client plays): its rows
//! bound one by one to a statement of its shape ([`sql::append_one_move`]), not
//! gathered into arrays ([`super::batch_columns`]). A move whose notices go to players
//! not known to have a webhook may be written without the outbox
//! ([`sql::append_one_quiet_move`]; [`super::batch`] decides, [`super::watched`]).

use sqlx::{PgConnection, Row};

use super::sql;
use super::watched::Watched;
use worp_domain::records::Append;

/// The statement of a lone move, and whether it writes the outbox.
#[derive(Debug, Clone, Copy)]
pub(super) struct Statement {
    sql: &'static str,
    /// Written only while the players it notifies have no webhook, without the outbox.
    unwatched: bool,
}

/// The statement for `a` alone, when it is a move to an existing game (no new game, seat
/// or kept answer) whose rows are all of its own game, within the shapes kept: without
/// the outbox when `quiet` and it has notices.
pub(super) fn statement(a: &Append, quiet: bool) -> Option<Statement> {
    let own = a.row.id == a.game_id
        && a.events.iter().all(|e| e.event.game_id == a.game_id)
        && a.notices.iter().all(|n| n.game_id == a.game_id);
    let move_only = a.expected_version > 0
        && a.secret.is_none()
        && a.answer_to_keep.is_none()
        && !a.seats_changed();
    if !own || !move_only {
        return None;
    }
    if quiet && !a.notices.is_empty() {
        let sql = sql::append_one_quiet_move(a.events.len())?;
        return Some(Statement {
            sql,
            unwatched: true,
        });
    }
    let sql = sql::append_one_move(a.events.len(), a.notices.len())?;
    Some(Statement {
        sql,
        unwatched: false,
    })
}

impl Statement {
    /// Whether it writes nothing when a player it notifies has a webhook (no outbox).
    pub(super) fn unwatched(&self) -> bool {
        self.unwatched
    }
}

/// Appends `a` with `statement` (from [`statement`]): the positions of its events, or
/// `None` when nothing was written (its game had moved on or, without the outbox, a
/// player it notifies has a webhook); and the number of webhook deliveries written.
pub(super) async fn append(
    connection: &mut PgConnection,
    a: &Append,
    statement: Statement,
) -> Result<(Option<Vec<i64>>, i64), sqlx::Error> {
    let row = &a.row;
    let mut query = sqlx::query(statement.sql)
        .bind(a.game_id)
        .bind(a.expected_version)
        .bind(row.status.as_str())
        .bind(row.version)
        .bind(row.to_move_seat)
        .bind(row.to_move_player)
        .bind(row.summary.get())
        .bind(row.updated_at)
        .bind(row.deadline);
    if statement.unwatched {
        query = query.bind(Watched::notified([a]));
    }
    for row in &a.events {
        let e = &row.event;
        query = query
            .bind(e.seq)
            .bind(e.kind.as_str())
            .bind(row.payload.as_str())
            .bind(e.rules_version)
            .bind(e.recorded_at)
            .bind(e.hash.as_str());
    }
    if !statement.unwatched {
        for n in &a.notices {
            query = query
                .bind(n.player_id)
                .bind(n.version)
                .bind(n.kind.as_str())
                .bind(n.payload.get());
        }
    }
    let returned = query.fetch_all(connection).await?;
    let mut deliveries = 0;
    let mut at = Vec::with_capacity(a.events.len());
    for e in &a.events {
        let r = returned
            .iter()
            .find(|r| r.try_get::<i64, _>("seq").ok() == Some(e.event.seq));
        if let Some(r) = r {
            deliveries = r.try_get("deliveries")?;
            at.push(r.try_get::<i64, _>("position")?);
        }
    }
    match (returned.len(), at.len()) {
        // Nothing was written: the game had moved on, or (without the outbox) a player
        // it notifies has a webhook.
        (0, _) => Ok((None, deliveries)),
        (n, found) if n == a.events.len() && found == n => Ok((Some(at), deliveries)),
        // The statement writes a change's events together or not at all.
        _ => Err(sqlx::Error::Protocol(
            "only some of a change's events were returned".into(),
        )),
    }
}
