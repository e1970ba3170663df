//! How every change of a game is written: drafted on the table it was judged on, with
//! the rolls the server then owes and the moves bots then play; appended as one change
//! that names that table's version; then cached and published. The answer to the
//! change may be written while its commit is in flight.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::draft::Draft;
use super::read_model::{game_row, notices};
use super::refusal::Refusal;
use super::views::{answered_before_commit, game_body, game_json};
use super::worp::Worp;
use crate::live::Change;
use worp_domain::events::{Event, StoredEvent};
use worp_domain::table::Table;
use worp_store::{AnswerToKeep, Append, PlayerNotice};

/// A retry key of a move (`Idempotency-Key`): the answer kept for it is the body the
/// first request was answered with, the game's view.
#[derive(Debug, Clone, Copy)]
pub struct Idempotency<'a> {
    pub key: &'a str,
    /// The request's method and path: the key answers only this request.
    pub request: &'a str,
    /// The SHA-256 of the request's body, hex: the key answers only this body.
    pub body_hash: &'a str,
}

/// A change that was committed: the new table, and the game's view ([`GameView`]'s JSON
/// text) written while its commit was in flight, if one was asked for and could be
/// (not for a game that the change finished rated: its rating changes are known only
/// once it is committed).
///
/// [`GameView`]: super::views::GameView
#[derive(Debug)]
pub struct Played {
    pub table: Arc<Table>,
    pub answer: Option<Vec<u8>>,
}

impl Worp {
    /// A draft of new events for `table`, with its secret seed.
    pub(super) async fn draft(&self, table: &Table, now: DateTime<Utc>) -> Result<Draft, Refusal> {
        // The secret never changes once stored: cached after the first read.
        let seed = match self.cache.secret(table.id) {
            Some(s) => s,
            None => {
                let s = Box::pin(self.store.secret(table.id))
                    .await?
                    .ok_or_else(|| {
                        Refusal::Internal(format!("game {} has no dice seed", table.id))
                    })?;
                self.cache.put_secret(table.id, &s);
                s
            }
        };
        Ok(Draft {
            table: table.clone(),
            events: Vec::new(),
            now,
            seed,
            passed: Vec::new(),
        })
    }

    /// Appends `draft` as one change judged on `expected_version` (with the notices it
    /// sends and the answer kept for its `Idempotency-Key`), writing the game's view
    /// while the commit is in flight if `answered`; then caches the new table and tells
    /// live listeners.
    pub(super) async fn record(
        &self,
        before: Option<&Table>,
        draft: Draft,
        expected_version: i64,
        secret: Option<&[u8]>,
        idempotency: Option<(Uuid, Idempotency<'_>)>,
        answered: bool,
    ) -> Result<Played, Refusal> {
        let table = draft.table;
        let notices = self.notices_heard(before, &table).await?;
        if idempotency.is_some() || answered {
            self.learn_table_names(&table).await?;
        }
        // An answer kept for an Idempotency-Key goes in with the change, so it is
        // written now; the answer sent is then the same text.
        let answer_to_keep = idempotency
            .map(|(player_id, i)| self.answer_to_keep(player_id, i, &table))
            .transpose()?;
        let rendered = match &answer_to_keep {
            Some(kept) if answered && answered_before_commit(&table) => {
                Some(kept.body.get().as_bytes().to_vec())
            }
            _ => None,
        };
        let append = self.store.append(Append {
            game_id: table.id,
            expected_version,
            events: draft.events,
            row: game_row(&table)?,
            secret: secret.map(<[u8]>::to_vec),
            answer_to_keep,
            notices: notices.clone(),
        });
        // The change is in the writers' queue: the answer is written while the database
        // commits, after a yield that lets the writer take the change and send it (the
        // writer may run on this very thread).
        let early = async {
            if rendered.is_some() {
                rendered
            } else if answered {
                tokio::task::yield_now().await;
                game_body(&table, &self.names)
            } else {
                None
            }
        };
        let (appended, answer) = tokio::join!(append, early);
        let finished_now = table.result.is_some() && before.is_none_or(|b| b.result.is_none());
        let table = self.committed(table, draft.passed, secret, notices, appended?);
        if let (true, Some(place)) = (finished_now, table.tournament) {
            self.tournament_queue.push(place.tournament_id);
        }
        Ok(Played { table, answer })
    }

    /// The notices a change sends: an invitation only to players who want to hear of
    /// them.
    async fn notices_heard(
        &self,
        before: Option<&Table>,
        table: &Table,
    ) -> Result<Vec<PlayerNotice>, Refusal> {
        let notices = notices(before, table)?;
        if !notices.iter().any(|n| n.kind == "invited") {
            return Ok(notices);
        }
        // A new game with invitations: rare.
        let mut kept = Vec::with_capacity(notices.len());
        for n in notices {
            if n.kind != "invited" || Box::pin(self.store.invitation_notices(n.player_id)).await? {
                kept.push(n);
            }
        }
        Ok(kept)
    }

    /// The answer kept for `player_id`'s retry key: the game's view.
    fn answer_to_keep(
        &self,
        player_id: Uuid,
        key: Idempotency<'_>,
        table: &Table,
    ) -> Result<AnswerToKeep, Refusal> {
        let body = game_json(table, &self.names)?;
        Ok(AnswerToKeep {
            player_id,
            key: key.key.to_owned(),
            body,
            request: key.request.to_owned(),
            body_hash: key.body_hash.to_owned(),
            expired_before: self.kept_answers_since(),
        })
    }

    /// What follows a commit: the game's seed and new table cached, the checkpoints the
    /// change passed stored, and the change, with the events the store wrote, told to
    /// live listeners.
    fn committed(
        &self,
        table: Table,
        passed: Vec<Table>,
        secret: Option<&[u8]>,
        notices: Vec<PlayerNotice>,
        appended: Vec<StoredEvent>,
    ) -> Arc<Table> {
        if let Some(s) = secret {
            self.cache.put_secret(table.id, s);
        }
        let table = Arc::new(table);
        self.cache.put(table.clone());
        self.wake_bot(&table);
        for passed in passed {
            self.store_checkpoint(Arc::new(passed), false);
        }
        self.live.publish(Change::new(
            self.live.origin,
            table.id,
            table.version,
            notices,
            Some(appended.into()),
        ));
        table
    }

    /// Records `event` on `table` (judged on its version), with every roll the server
    /// then owes and every move bots then play.
    pub(super) async fn change(
        &self,
        table: &Table,
        event: Event,
        now: DateTime<Utc>,
        idempotency: Option<(Uuid, Idempotency<'_>)>,
    ) -> Result<Arc<Table>, Refusal> {
        self.change_answered(table, event, now, idempotency, false)
            .await
            .map(|p| p.table)
    }

    /// Records `events` on `table` in one change (judged on its version), then every roll
    /// the server owes and every move bots play.
    pub(super) async fn change_all(
        &self,
        table: &Table,
        events: Vec<Event>,
        now: DateTime<Utc>,
    ) -> Result<Arc<Table>, Refusal> {
        let mut draft = self.draft(table, now).await?;
        for event in events {
            draft.push(event)?;
        }
        draft.advance()?;
        let played = self
            .record(Some(table), draft, table.version, None, None, false)
            .await?;
        Ok(played.table)
    }

    /// [`Self::change`], with the game's view written while the commit is in flight if
    /// `answered`.
    pub(super) async fn change_answered(
        &self,
        table: &Table,
        event: Event,
        now: DateTime<Utc>,
        idempotency: Option<(Uuid, Idempotency<'_>)>,
        answered: bool,
    ) -> Result<Played, Refusal> {
        let mut draft = self.draft(table, now).await?;
        draft.push(event)?;
        draft.advance()?;
        self.record(
            Some(table),
            draft,
            table.version,
            None,
            idempotency,
            answered,
        )
        .await
    }
}
