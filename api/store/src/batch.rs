//! The statement of a group-commit batch ([`super::group_commit`]), in one of three
//! forms: a batch of moves to existing games is judged change by change
//! ([`APPEND_MOVES`], or [`APPEND_QUIET_MOVES`] without the webhook outbox while none of
//! the players it notifies is known to have a webhook: [`super::watched`]); any other
//! batch is all or nothing ([`APPEND_TOGETHER`]). A batch of one move has statements of
//! its own ([`super::lone_move`]).

use sqlx::{PgConnection, Row};
use uuid::Uuid;

use super::batch_columns::{AnswerColumns, EventColumns, NoticeColumns, RowColumns};
use super::lone_move;
use super::sql::{APPEND_MOVES, APPEND_QUIET_MOVES, APPEND_TOGETHER};
use super::watched::Watched;
use worp_domain::records::Append;

/// What a batch statement did for each of its changes, in order: the positions of the
/// change's events, or `None` when nothing of it was written (its game had moved on);
/// and the number of webhook deliveries written.
pub(super) type Written = (Vec<Option<Vec<i64>>>, i64);

/// The form of a batch's statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// Moves to existing games, each judged on its own, with the outbox.
    Moves,
    /// The same without the outbox: nothing is written if a player notified has a
    /// webhook.
    QuietMoves,
    /// Anything else: all or nothing.
    Together,
}

/// Appends `appends` in one statement, without the outbox while none of the players they
/// notify is known to have a webhook; when such a statement wrote nothing because one
/// has, `watched` learns who and the changes are written again with the outbox.
pub(super) async fn append_together(
    connection: &mut PgConnection,
    appends: &[&Append],
    watched: &mut Watched,
) -> Result<Written, sqlx::Error> {
    let quiet = watched.unwatched(appends.iter().copied());
    let (written, unwatched) = append_once(connection, appends, quiet).await?;
    if !unwatched || written.0.iter().any(Option::is_some) {
        return Ok(written);
    }
    if !watched
        .learn(connection, Watched::notified(appends.iter().copied()))
        .await?
    {
        return Ok(written); // Every game had moved on.
    }
    Ok(append_once(connection, appends, false).await?.0)
}

/// Appends `appends` in one statement, without the outbox if `quiet` allows; and whether
/// the statement was one that writes nothing when a player notified has a webhook.
async fn append_once(
    connection: &mut PgConnection,
    appends: &[&Append],
    quiet: bool,
) -> Result<(Written, bool), sqlx::Error> {
    if let [a] = appends {
        if let Some(statement) = lone_move::statement(a, quiet) {
            let (at, deliveries) = lone_move::append(connection, a, statement).await?;
            return Ok(((vec![at], deliveries), statement.unwatched()));
        }
    }
    let only_moves = appends.iter().all(|a| {
        a.expected_version > 0
            && !a.events.is_empty()
            && !a.seats_changed()
            && a.secret.is_none()
            && a.answer_to_keep.is_none()
    });
    let form = match only_moves {
        false => Form::Together,
        true if quiet => Form::QuietMoves,
        true => Form::Moves,
    };
    Ok((
        append_with(connection, appends, form).await?,
        form == Form::QuietMoves,
    ))
}

/// Appends `appends` with the statement of `form`.
async fn append_with(
    connection: &mut PgConnection,
    appends: &[&Append],
    form: Form,
) -> Result<Written, sqlx::Error> {
    let mut heads = (Vec::new(), Vec::new());
    let mut ev = EventColumns::default();
    let mut rows = RowColumns::default();
    let mut seats = (Vec::new(), Vec::new(), Vec::new());
    let mut secrets = (Vec::new(), Vec::new());
    let mut notices = NoticeColumns::default();
    let mut answers = AnswerColumns::default();
    for a in appends {
        heads.0.push(a.game_id);
        heads.1.push(a.expected_version);
        for e in &a.events {
            ev.push(e);
        }
        rows.push(&a.row);
        if a.seats_changed() {
            for (seat, player) in a.row.seats.iter().enumerate() {
                seats.0.push(a.game_id);
                seats.1.push(seat as i32);
                seats.2.push(*player);
            }
        }
        if let Some(seed) = &a.secret {
            secrets.0.push(a.game_id);
            secrets.1.push(seed.clone());
        }
        if form != Form::QuietMoves {
            for n in &a.notices {
                notices.push(n, a.row.updated_at);
            }
        }
        if let Some(kept) = &a.answer_to_keep {
            answers.push(kept, a.row.updated_at);
        }
    }
    let total = ev.game_id.len();
    let mut statement = sqlx::query(match form {
        Form::Moves => APPEND_MOVES,
        Form::QuietMoves => APPEND_QUIET_MOVES,
        Form::Together => APPEND_TOGETHER,
    })
    .bind(heads.0)
    .bind(heads.1)
    .bind(ev.game_id)
    .bind(ev.seq)
    .bind(ev.kind)
    .bind(ev.payload)
    .bind(ev.rules_version)
    .bind(ev.recorded_at)
    .bind(ev.hash)
    .bind(rows.id)
    .bind(rows.variant)
    .bind(rows.status)
    .bind(rows.version)
    .bind(rows.to_move_seat)
    .bind(rows.to_move_player)
    .bind(rows.summary)
    .bind(rows.created_at)
    .bind(rows.updated_at)
    .bind(rows.deadline);
    statement = match form {
        Form::QuietMoves => statement.bind(Watched::notified(appends.iter().copied())),
        Form::Moves | Form::Together => statement
            .bind(notices.player_id)
            .bind(notices.game_id)
            .bind(notices.version)
            .bind(notices.kind)
            .bind(notices.payload)
            .bind(notices.at),
    };
    if form == Form::Together {
        statement = statement
            .bind(seats.0)
            .bind(seats.1)
            .bind(seats.2)
            .bind(secrets.0)
            .bind(secrets.1)
            .bind(answers.player_id)
            .bind(answers.key)
            .bind(answers.body)
            .bind(answers.at)
            .bind(answers.request)
            .bind(answers.body_hash);
    }
    let returned = statement.fetch_all(connection).await?;
    let mut positions = std::collections::HashMap::with_capacity(total);
    let mut deliveries = 0;
    for r in &returned {
        deliveries = r.try_get("deliveries")?;
        let game: Uuid = r.try_get("game_id")?;
        let seq: i64 = r.try_get("seq")?;
        let position: i64 = r.try_get("position")?;
        positions.insert((game, seq), position);
    }
    if form == Form::Together && returned.len() != total {
        // All or nothing: a game had moved on.
        return Ok((appends.iter().map(|_| None).collect(), deliveries));
    }
    // A statement that succeeded wrote each game at most once: a returned event is its
    // game's (and sequence number's) one change.
    let mut written = Vec::with_capacity(appends.len());
    for a in appends {
        let events = &a.events;
        let at: Vec<i64> = events
            .iter()
            .filter_map(|e| positions.get(&(e.event.game_id, e.event.seq)).copied())
            .collect();
        if at.is_empty() {
            written.push(None);
        } else if at.len() == events.len() {
            written.push(Some(at));
        } else {
            // The statement writes a change's events together or not at all.
            return Err(sqlx::Error::Protocol(
                "only some of a change's events were returned".into(),
            ));
        }
    }
    Ok((written, deliveries))
}
