//! Following the log of all games: each new event's notices, taken into the outbox once.
//!
//! The notifier reads events by their global position. On PostgreSQL an event can
//! commit below a position already read (two writers took positions in one order and
//! committed in the other), so the cursor stored in `notifier_cursor` settles as the
//! ratings' mark does (`ratings.rs`): it notes where it has read to and the transactions
//! writing events then; once they are all gone, it counts the events in the stretch, and
//! reads again the ones it has not seen if the count says some came late. A process that
//! restarts reads again from the stored cursor; `notices_taken` makes that harmless.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::time::{Duration, Instant};

use uuid::Uuid;
use worp_domain::table::Table;
use worp_store::notifications::TakenNotice;

use crate::read_model::notices;
use crate::refusal::Refusal;
use crate::worp::Worp;

/// How many events one read of the log takes.
const EVENTS_PER_READ: i64 = 500;
/// How long the set of players who can be reached is trusted.
const REACHABLE_FOR: Duration = Duration::from_secs(5);

/// Where this process has read the log to.
#[derive(Debug, Default)]
pub(crate) struct Tail {
    started: bool,
    /// The stored cursor: every event up to it has been read.
    cursor: i64,
    /// The highest position read.
    read_to: i64,
    /// Positions read above the cursor.
    seen: BTreeSet<i64>,
    /// The end noted for the cursor to settle at, and the writers of events then.
    pending: Option<(i64, Vec<String>)>,
}

impl Worp {
    /// Reads the log's new events and takes their notices; settles the cursor.
    pub(crate) async fn follow_log(&self, tail: &mut Tail) -> Result<(), Refusal> {
        if !tail.started {
            tail.cursor = self.store.notifier_cursor().await?;
            tail.read_to = tail.cursor;
            tail.started = true;
        }
        for _ in 0..20 {
            let rows = self.store.log_after(tail.read_to, EVENTS_PER_READ).await?;
            let Some(&(last, _, _)) = rows.last() else {
                break;
            };
            self.take_notices_of(&rows).await?;
            tail.seen.extend(rows.iter().map(|r| r.0));
            tail.read_to = last;
            if (rows.len() as i64) < EVENTS_PER_READ {
                break;
            }
        }
        self.settle_cursor(tail).await
    }

    async fn settle_cursor(&self, tail: &mut Tail) -> Result<(), Refusal> {
        let Some((end, writers)) = tail.pending.take() else {
            if tail.read_to > tail.cursor {
                tail.pending = Some((tail.read_to, self.store.event_writers().await?));
            }
            return Ok(());
        };
        let writing = self.store.event_writers().await?;
        if writers.iter().any(|w| writing.contains(w)) {
            tail.pending = Some((end, writers));
            return Ok(());
        }
        let in_log = self.store.log_count(tail.cursor, end).await?;
        let seen = tail.seen.range(tail.cursor + 1..=end).count() as i64;
        if in_log != seen {
            // Some committed late: read the stretch again for those not seen.
            let mut from = tail.cursor;
            while from < end {
                let rows = self.store.log_after(from, EVENTS_PER_READ).await?;
                let Some(&(last, _, _)) = rows.last() else {
                    break;
                };
                let late: Vec<_> = rows
                    .into_iter()
                    .filter(|r| r.0 <= end && !tail.seen.contains(&r.0))
                    .collect();
                tracing::info!(
                    late = late.len(),
                    "the notifier read events that committed late"
                );
                self.take_notices_of(&late).await?;
                from = last;
            }
        }
        self.store.advance_notifier_cursor(end).await?;
        tail.cursor = end;
        tail.seen = tail.seen.split_off(&(end + 1));
        Ok(())
    }

    /// The players who can be reached by some channel.
    pub(super) async fn reachable_players(&self) -> Result<HashSet<Uuid>, Refusal> {
        {
            let r = self
                .notifier
                .reachable
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            if r.read_at.is_some_and(|at| at.elapsed() < REACHABLE_FOR) {
                return Ok(r.players.clone());
            }
        }
        let players: HashSet<Uuid> = self.store.reachable_players().await?.into_iter().collect();
        let mut r = self
            .notifier
            .reachable
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        r.players = players.clone();
        r.read_at = Some(Instant::now());
        Ok(players)
    }

    /// Takes the notices of the events `rows` (position, game, sequence number) into
    /// the outbox.
    async fn take_notices_of(&self, rows: &[(i64, Uuid, i64)]) -> Result<(), Refusal> {
        let mut games: BTreeMap<Uuid, (i64, i64)> = BTreeMap::new();
        for &(_, game, seq) in rows {
            let span = games.entry(game).or_insert((seq, seq));
            span.0 = span.0.min(seq);
            span.1 = span.1.max(seq);
        }
        let reachable = self.reachable_players().await?;
        if reachable.is_empty() {
            return Ok(());
        }
        let mut taken = Vec::new();
        for (game, (first, last)) in games {
            match self.notices_between(game, first, last, &reachable).await {
                Ok(mut n) => taken.append(&mut n),
                Err(e @ Refusal::Unavailable(_)) => return Err(e),
                Err(e) => tracing::error!("the notices of game {game} could not be made: {e}"),
            }
        }
        if !taken.is_empty() {
            self.store.take_notices(&taken, self.now()).await?;
        }
        Ok(())
    }

    /// The notices events `first..=last` of `game` give players in `reachable`.
    async fn notices_between(
        &self,
        game: Uuid,
        first: i64,
        last: i64,
        reachable: &HashSet<Uuid>,
    ) -> Result<Vec<TakenNotice>, Refusal> {
        let newest = self.load(game).await?;
        let concerned = newest
            .seats
            .iter()
            .flat_map(|s| s.player_id.into_iter().chain(s.invited))
            .chain([newest.created_by])
            .any(|p| reachable.contains(&p));
        if !concerned {
            return Ok(Vec::new());
        }
        let events = self.store.events(game, first - 1, last - first + 1).await?;
        let mut before: Option<Table> = if first > 1 {
            Some((*self.load_at(game, first - 1).await?).clone())
        } else {
            None
        };
        let mut out = Vec::new();
        for e in &events {
            let after = match &before {
                Some(t) => {
                    let mut t = t.clone();
                    t.apply(e)
                        .map_err(|err| Refusal::Internal(err.to_string()))?;
                    t
                }
                None => Table::from_events(std::slice::from_ref(e))
                    .map_err(|err| Refusal::Internal(err.to_string()))?,
            };
            for n in notices(before.as_ref(), &after)? {
                if reachable.contains(&n.player_id) {
                    let item = super::outbox::Item::of_notice(&n, &after);
                    out.push(
                        self.route(n.player_id, game, n.version, &n.kind, item)
                            .await?,
                    );
                }
            }
            before = Some(after);
        }
        Ok(out)
    }
}
