//! Which players have a webhook, as far as a group-commit writer knows. A move whose
//! notices go only to players not known to have one is written without the webhook
//! outbox, by a statement that writes nothing when one of them has a webhook after all
//! ([`sql::append_one_quiet_move`], [`sql::APPEND_QUIET_MOVES`]). The writer then asks
//! which of them have one, remembers them, and writes the move again with its outbox.
//!
//! A hint only, never needed for correctness: a player wrongly in it costs the dearer
//! statement with the outbox, one missing (a webhook registered since) a statement that
//! writes nothing.

use std::collections::HashSet;

use sqlx::PgConnection;
use uuid::Uuid;

use super::sql;
use worp_domain::records::Append;

/// Players remembered at most; past it the hint is emptied and learnt again.
const WATCHED: usize = 1 << 16;

/// The players a writer found with a webhook.
#[derive(Debug, Default)]
pub(super) struct Watched(HashSet<Uuid>);

impl Watched {
    /// Whether none of the players `appends` notify is known to have a webhook: their
    /// moves may be written without the outbox.
    pub(super) fn unwatched<'a>(&self, appends: impl IntoIterator<Item = &'a Append>) -> bool {
        !appends
            .into_iter()
            .flat_map(|a| &a.notices)
            .any(|n| self.0.contains(&n.player_id))
    }

    /// The players notified by `appends`.
    pub(super) fn notified<'a>(appends: impl IntoIterator<Item = &'a Append>) -> Vec<Uuid> {
        let mut players: Vec<Uuid> = appends
            .into_iter()
            .flat_map(|a| a.notices.iter().map(|n| n.player_id))
            .collect();
        players.sort_unstable();
        players.dedup();
        players
    }

    /// Asks which of `players` have a webhook and remembers them; whether any has.
    pub(super) async fn learn(
        &mut self,
        connection: &mut PgConnection,
        players: Vec<Uuid>,
    ) -> Result<bool, sqlx::Error> {
        let found: Vec<Uuid> = sqlx::query_scalar(sql::WATCHED_PLAYERS)
            .bind(players)
            .fetch_all(connection)
            .await?;
        if self.0.len() + found.len() > WATCHED {
            self.0.clear();
        }
        self.0.extend(&found);
        Ok(!found.is_empty())
    }
}
