//! The statements the SQLite writer ([`super::sqlite_commit`]) runs on its own
//! connection: one change's, inside the transaction the writer began (the version check
//! read before the events, [`sql::SQLITE_WRITER_CHANGE`], then what `append_alone` on the
//! sqlx path writes, in the same order), and the stored checkpoints', in a transaction
//! of their own.

use chrono::{DateTime, SecondsFormat, Utc};
use rusqlite::{params, Connection, ToSql};
use tokio::sync::oneshot;
use uuid::Uuid;

use super::error::StoreError;
use super::sql;
use worp_domain::records::{Append, GameRow, StoredCheckpoint};

/// What one change wrote: its events' positions and how many webhook deliveries.
pub(super) type Written = (Vec<i64>, usize);

/// SQLite's text for a time, as sqlx writes it (the reads parse it, and the listings
/// order by it).
fn at(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::AutoSi, false)
}

/// A duplicate event or key is a lost race, as on the sqlx path.
fn conflict_or(e: rusqlite::Error) -> StoreError {
    match &e {
        rusqlite::Error::SqliteFailure(f, message)
            if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
                || f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY
                || message
                    .as_deref()
                    .is_some_and(|m| m.contains(sql::EVENT_EXISTS)) =>
        {
            StoreError::Conflict
        }
        _ => StoreError::Sqlite(e),
    }
}

/// A stored checkpoint to write (`checkpoints/stored.rs`): through the writer too, so
/// that it never waits for the writer's lock nor makes the writer wait for its own.
#[derive(Debug)]
pub(super) struct CheckpointJob {
    pub checkpoint: StoredCheckpoint,
    pub at: DateTime<Utc>,
    pub replace_any: bool,
    pub reply: oneshot::Sender<Result<(), StoreError>>,
}

/// Writes the checkpoints `jobs` in one transaction of their own and answers each.
pub(super) fn store_checkpoints(connection: &mut Connection, jobs: Vec<CheckpointJob>) {
    let written = (|| -> Result<(), rusqlite::Error> {
        connection.prepare_cached(sql::BEGIN_WRITE)?.execute([])?;
        for j in &jobs {
            let c = &j.checkpoint;
            let game = &c.game_id.as_bytes()[..];
            let at = at(j.at);
            let columns: [&dyn ToSql; 7] = [
                &game,
                &c.version,
                &c.rules_version,
                &c.format,
                &c.body,
                &at,
                &j.replace_any,
            ];
            connection
                .prepare_cached(sql::STORE_CHECKPOINT)?
                .execute(&columns[..])?;
        }
        connection.prepare_cached(sql::COMMIT)?.execute([])?;
        Ok(())
    })();
    if written.is_err() && !connection.is_autocommit() {
        let _ = connection.execute_batch(sql::ROLLBACK);
    }
    let message = written.err().map(|e| e.to_string());
    for j in jobs {
        let answer = match &message {
            None => Ok(()),
            Some(m) => Err(StoreError::Sqlite(rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_ERROR),
                Some(m.clone()),
            ))),
        };
        let _ = j.reply.send(answer);
    }
}

/// What a change binds as text, written on its caller's thread before the change joins
/// the queue: the writer, the one thread every SQLite change waits for, only binds it.
#[derive(Debug)]
pub(super) struct ChangeTexts {
    /// Each event's time.
    recorded_at: Vec<String>,
    created_at: String,
    updated_at: String,
    deadline: Option<String>,
    /// The kept answer's expiry.
    expired_before: Option<String>,
}

impl ChangeTexts {
    pub(super) fn of(a: &Append) -> ChangeTexts {
        ChangeTexts {
            recorded_at: a.events.iter().map(|e| at(e.event.recorded_at)).collect(),
            created_at: at(a.row.created_at),
            updated_at: at(a.row.updated_at),
            deadline: a.row.deadline.map(at),
            expired_before: a.answer_to_keep.as_ref().map(|k| at(k.expired_before)),
        }
    }
}

/// Writes one change inside the current transaction (the writer's, begun `IMMEDIATE`):
/// the version check, then what `append_alone` on the sqlx path writes, in the same
/// order. `texts` are `a`'s ([`ChangeTexts::of`]).
pub(super) fn change(
    connection: &Connection,
    a: &Append,
    texts: &ChangeTexts,
) -> Result<Written, StoreError> {
    let game = &a.game_id.as_bytes()[..];
    // The transaction holds the write lock: the log ends here until it commits.
    let last: i64 = connection
        .prepare_cached(sql::LOG_END)?
        .query_row([game], |r| r.get(0))?;
    if last != a.expected_version {
        return Err(StoreError::Conflict);
    }
    let mut positions = Vec::with_capacity(a.events.len());
    for (row, recorded_at) in a.events.iter().zip(&texts.recorded_at) {
        let (e, payload) = (&row.event, &row.payload);
        let event_game = &e.game_id.as_bytes()[..];
        let columns: [&dyn ToSql; 7] = [
            &event_game,
            &e.seq,
            &e.kind,
            payload,
            &e.rules_version,
            recorded_at,
            &e.hash,
        ];
        connection
            .prepare_cached(sql::INSERT_EVENT_IN_WRITER)?
            .execute(&columns[..])
            .map_err(conflict_or)?;
        positions.push(connection.last_insert_rowid());
    }
    if let Some(seed) = &a.secret {
        connection
            .prepare_cached(sql::INSERT_SECRET)?
            .execute(params![game, seed])
            .map_err(conflict_or)?;
    }
    write_row(connection, &a.row, a.seats_changed(), texts)?;
    let mut deliveries = 0;
    for n in &a.notices {
        let mut hooks = connection.prepare_cached(sql::WEBHOOKS_OF_PLAYER)?;
        let player = &n.player_id.as_bytes()[..];
        let hooks: Vec<Vec<u8>> = hooks
            .query_map([player], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        for hook in hooks {
            connection
                .prepare_cached(sql::INSERT_DELIVERY)?
                .execute(params![
                    &Uuid::new_v4().as_bytes()[..],
                    hook,
                    player,
                    &n.game_id.as_bytes()[..],
                    n.version,
                    n.kind,
                    n.payload.get(),
                    texts.updated_at
                ])?;
            deliveries += 1;
        }
    }
    if let (Some(kept), Some(expired_before)) = (&a.answer_to_keep, &texts.expired_before) {
        connection
            .prepare_cached(sql::DELETE_EXPIRED_ANSWER)?
            .execute(params![
                &kept.player_id.as_bytes()[..],
                kept.key,
                expired_before
            ])?;
        connection
            .prepare_cached(sql::INSERT_ANSWER)?
            .execute(params![
                &kept.player_id.as_bytes()[..],
                kept.key,
                kept.body.get(),
                texts.updated_at,
                kept.request,
                kept.body_hash
            ])
            .map_err(conflict_or)?;
    }
    Ok((positions, deliveries))
}

/// The `games` row, and its seats when they changed.
fn write_row(
    connection: &Connection,
    row: &GameRow,
    seats: bool,
    texts: &ChangeTexts,
) -> Result<(), StoreError> {
    let game = &row.id.as_bytes()[..];
    connection
        .prepare_cached(sql::WRITE_GAME_ROW)?
        .execute(params![
            game,
            row.variant,
            row.status,
            row.version,
            row.to_move_seat,
            row.to_move_player.as_ref().map(|p| &p.as_bytes()[..]),
            row.summary.get(),
            texts.created_at,
            texts.updated_at,
            texts.deadline
        ])?;
    if seats {
        let mut write = connection.prepare_cached(sql::WRITE_SEAT)?;
        for (seat, player) in row.seats.iter().enumerate() {
            write.execute(params![
                game,
                seat as i32,
                player.as_ref().map(|p| &p.as_bytes()[..])
            ])?;
        }
    }
    Ok(())
}
