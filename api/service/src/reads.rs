//! What the service reads: tables (from the cache and the events after it), listings
//! (the lobby of waiting games among them), event pages, exports, and the rebuild of the
//! read models from the log.
//!
//! A game's newest state is the live cache's plus the events after it. A game not in the
//! live cache, or an old state (`state?at=N`), is folded from the nearest state kept at
//! or before where it must end: one in memory (`checkpoints/`), or the game's newest
//! stored checkpoint there when the game is cold or the state in memory is more than
//! `STORED_EVERY` events back (`stored_checkpoints`); from event 1 only when there is
//! neither. The events come as `RawEvent`s, each payload kept as its
//! text and decoded once, by the fold, in pages asked for by their sequence numbers
//! (`sql::EVENTS_IN_RANGE`), so each page reads its own rows whatever plan the database
//! picks. A page of more than `FOLD_HERE` events, and the whole-game replay of an
//! export, is folded on the blocking pool, off the thread that serves requests.

use std::sync::Arc;

use uuid::Uuid;
use worp_engine::{variant, Capability, MatchHeader};

use super::read_model::{game_row, GameSummary};
use super::refusal::Refusal;
use super::worp::Worp;
use crate::checkpoints::stored::STORED_EVERY;
use crate::checkpoints::{is_checkpoint, next_checkpoint, CHECKPOINT_EVERY};
use crate::export::{record_steps, Export};
use worp_domain::events::{RawEvent, StoredEvent};
use worp_domain::table::Table;
use worp_store::{GameFilter, KeptAnswer, ListedAt, Player};

/// Events read per query when folding a game.
pub(super) const PAGE: i64 = 1000;

/// The most events a fold applies on the thread that serves requests (a few
/// microseconds each); a longer page goes to the blocking pool.
const FOLD_HERE: usize = 64;

/// Folds `events` onto `table` (or, with none, starts from the first event); returns the
/// table and a copy of each state made that `keep` picks.
fn fold_page(
    table: Option<Table>,
    events: &[RawEvent],
    keep: impl Fn(&Table) -> bool,
) -> Result<(Table, Vec<Arc<Table>>), Refusal> {
    let mut kept = Vec::new();
    let (mut table, rest) = match table {
        Some(t) => (t, events),
        None => {
            let first = Table::from_events(events.get(..1).unwrap_or_default())?;
            if keep(&first) {
                kept.push(Arc::new(first.clone()));
            }
            (first, events.get(1..).unwrap_or_default())
        }
    };
    for e in rest {
        table.apply(e)?;
        if keep(&table) {
            kept.push(Arc::new(table.clone()));
        }
    }
    Ok((table, kept))
}

/// Where a fold starts ([`Worp::fold_start`]).
#[derive(Debug)]
pub(super) struct FoldStart {
    /// The state it starts from (none: event 1).
    pub table: Option<Arc<Table>>,
    /// The first page of events after it.
    pub events: Vec<RawEvent>,
    /// Whether the store was asked: then none of the game's checkpoints after `table`
    /// and at or before the fold's `at` is stored.
    pub asked: bool,
    /// The version of the stored checkpoint found that did not fit, to be stored again.
    pub unfit: Option<i64>,
}

impl Worp {
    /// The newest state of a game: the cached one and the events after it, or, when the
    /// game is not cached, its newest checkpoint (kept in memory or stored) and the
    /// events after that.
    pub async fn load(&self, id: Uuid) -> Result<Arc<Table>, Refusal> {
        let live = self.cache.newest(id);
        worp_telemetry::metrics::state_cache(live.is_some());
        let history = self.cache.history();
        let start = live.clone().or_else(|| history.nearest(id, i64::MAX));
        let cold = live.is_none();
        let FoldStart {
            table: start,
            events,
            asked,
            unfit,
        } = self
            .fold_start(id, (i64::MAX, i64::MAX), start, cold)
            .await?;
        let after = start.as_ref().map_or(0, |t| t.version);
        if events.is_empty() {
            // Nothing new since the cached state (the common case): no copy, no replay.
            if unfit.is_some() {
                // A stored checkpoint past the log's end, which no fold reaches.
                self.store_folded(id, (after, i64::MAX), &[], (asked, unfit))
                    .await;
            }
            let table = start.ok_or_else(|| Refusal::NotFound(format!("no game {id}")))?;
            if cold {
                self.cache.put(table.clone());
            }
            return Ok(table);
        }
        let (table, kept) = self
            .fold(id, start, events, i64::MAX, move |t| {
                is_checkpoint(t.version) || Some(t.version) == unfit
            })
            .await?;
        self.store_folded(id, (after, i64::MAX), &kept, (asked, unfit))
            .await;
        for t in kept.into_iter().filter(|t| is_checkpoint(t.version)) {
            history.keep(t);
        }
        worp_telemetry::metrics::replay(usize::try_from(table.version - after).unwrap_or(0));
        let table = Arc::new(table);
        self.cache.put(table.clone());
        if table.version - after >= STORED_EVERY {
            // The next cold load of this game starts here.
            self.store_checkpoint(table.clone(), false);
        }
        Ok(table)
    }

    /// The state of a game right after event `at`: the live cache's, or folded from the
    /// nearest historical state or checkpoint at or before `at` (`checkpoints/`). The
    /// fold goes on to the next checkpoint and keeps the states of the stretch between
    /// the two checkpoints around `at` with the historical states (never in the live
    /// cache): a reader stepping through the game, either way, finds the next ones
    /// without a query.
    pub async fn load_at(&self, id: Uuid, at: i64) -> Result<Arc<Table>, Refusal> {
        if at < 1 {
            return Err(Refusal::Invalid("at must be 1 or more".into()));
        }
        if let Some(t) = self.cache.get(id, at) {
            return Ok(t);
        }
        let history = self.cache.history();
        let start = history.nearest(id, at);
        if let Some(t) = start.as_ref().filter(|t| t.version == at) {
            return Ok(t.clone());
        }
        let until = next_checkpoint(at);
        let FoldStart {
            table: start,
            events,
            asked,
            unfit,
        } = self.fold_start(id, (at, until), start, true).await?;
        if let Some(t) = start.as_ref().filter(|t| t.version == at) {
            // The game's stored checkpoint is the state asked for.
            history.keep(t.clone());
            return Ok(t.clone());
        }
        let after = start.as_ref().map_or(0, |t| t.version);
        if events.is_empty() && start.is_none() {
            if unfit.is_some() {
                self.store_folded(id, (after, at), &[], (asked, unfit))
                    .await;
            }
            return Err(Refusal::NotFound(format!("no game {id}")));
        }
        // The whole stretch between two checkpoints that holds `at`, so a reader stepping
        // back finds the states before `at` kept too.
        let stretch = until.saturating_sub(CHECKPOINT_EVERY);
        let kept_here = move |t: &Table| t.version > stretch || is_checkpoint(t.version);
        let (table, kept) = self
            .fold(id, start, events, until, move |t| {
                kept_here(t) || Some(t.version) == unfit
            })
            .await?;
        self.store_folded(id, (after, at), &kept, (asked, unfit))
            .await;
        let found = kept.iter().find(|t| t.version == at).cloned();
        for t in kept.into_iter().filter(|t| kept_here(t)) {
            history.keep(t);
        }
        found.ok_or_else(|| {
            Refusal::NotFound(format!("game {id} has only {} events", table.version))
        })
    }

    /// Folds `events` (the first page after `start`, or from event 1) and the pages after
    /// them, up to event `until`, onto a copy of `start`; returns the table and a copy of
    /// each state made that `keep` picks, oldest first. A page of more than
    /// [`FOLD_HERE`] events is folded on the blocking pool, off the thread that serves
    /// requests (one by default, `WORP_WORKERS`): a cold load of a long game folds
    /// thousands of events.
    #[tracing::instrument(name = "service.replay", level = "info", skip_all, fields(game = %id, from = start.as_ref().map_or(0, |t| t.version)))]
    async fn fold(
        &self,
        id: Uuid,
        start: Option<Arc<Table>>,
        mut events: Vec<RawEvent>,
        until: i64,
        keep: impl Fn(&Table) -> bool + Send + Copy + 'static,
    ) -> Result<(Table, Vec<Arc<Table>>), Refusal> {
        let mut kept = Vec::new();
        let mut table = start.map(Arc::unwrap_or_clone);
        loop {
            let full = events.len() as i64 == PAGE;
            let (folded, page_kept) = if events.len() > FOLD_HERE {
                tokio::task::spawn_blocking(move || fold_page(table, &events, keep))
                    .await
                    .map_err(|e| {
                        Refusal::Internal(format!("the replay of game {id} stopped: {e}"))
                    })??
            } else {
                fold_page(table, &events, keep)?
            };
            kept.extend(page_kept);
            if !full || folded.version >= until {
                return Ok((folded, kept));
            }
            events = self
                .store
                .raw_events(id, folded.version, (until - folded.version).min(PAGE))
                .await?;
            if events.is_empty() {
                return Ok((folded, kept));
            }
            table = Some(folded);
        }
    }

    /// Lists games. A stored summary that does not read as a [`GameSummary`] fails the
    /// listing (a server fault, logged) rather than leaving a hole in a page whose
    /// paging was already counted.
    pub async fn list(&self, f: &GameFilter) -> Result<Vec<(GameSummary, ListedAt)>, Refusal> {
        let rows = self.store.list_games(f).await?;
        rows.into_iter()
            .map(|listed| {
                let game = listed.at.id;
                let summary = serde_json::from_value(listed.summary).map_err(|e| {
                    tracing::error!("the stored summary of game {game} is unreadable: {e}");
                    Refusal::Internal(
                        "a stored game summary is unreadable; run worp rebuild".into(),
                    )
                })?;
                Ok((summary, listed.at))
            })
            .collect()
    }

    /// Waiting games anyone may join, newest first, and whether there may be more.
    pub async fn lobby(
        &self,
        variant: Option<&str>,
        limit: i64,
        offset: i64,
    ) -> Result<(Vec<GameSummary>, bool), Refusal> {
        let rows = self.store.lobby(variant, limit + 1, offset).await?;
        let more = rows.len() as i64 > limit;
        let games = rows
            .into_iter()
            .take(limit as usize)
            .filter_map(|v| serde_json::from_value::<GameSummary>(v).ok())
            // A bot's seat is empty in the seats table too: only seats anyone may take.
            .filter(|g| !g.open_seats.is_empty())
            .collect();
        Ok((games, more))
    }

    /// All events of a game, in order.
    pub async fn all_events(&self, id: Uuid) -> Result<Vec<StoredEvent>, Refusal> {
        let mut events = Vec::new();
        loop {
            let page = self.store.events(id, events.len() as i64, 1000).await?;
            if page.is_empty() {
                break;
            }
            events.extend(page);
        }
        Ok(events)
    }

    /// The export bundle of a game (and its table).
    pub async fn export(&self, id: Uuid) -> Result<(Export, Table), Refusal> {
        let events = self.all_events(id).await?;
        if events.is_empty() {
            return Err(Refusal::NotFound(format!("no game {id}")));
        }
        // A replay of the whole game takes milliseconds for a long one: on the blocking
        // pool, off the thread that serves requests (one by default, `WORP_WORKERS`).
        let (events, table) = tokio::task::spawn_blocking(move || {
            let table = Table::from_events(&events);
            (events, table)
        })
        .await
        .map_err(|e| Refusal::Internal(format!("the replay of game {id} stopped: {e}")))?;
        let table = table?;
        Ok((Export::of(&table, events), table))
    }

    /// Rebuilds the read models from the event log; returns how many games. Appends
    /// wait while it runs (in this process and in others), so a game created meanwhile
    /// loses none of its rows.
    pub async fn rebuild(&self) -> Result<usize, Refusal> {
        self.store
            .rebuild_read_models(|events| game_row(&Table::from_events(events)?))
            .await
    }

    /// The answer kept for a repeated `Idempotency-Key` of `player`.
    pub async fn kept_answer_of(
        &self,
        player: &Player,
        key: &str,
    ) -> Result<Option<KeptAnswer>, Refusal> {
        Ok(self
            .store
            .kept_answer_of(player.id, key, self.kept_answers_since())
            .await?)
    }

    /// Up to `limit` events of game `id` after sequence number `after` (none: nothing new,
    /// or no such game).
    pub async fn events(
        &self,
        id: Uuid,
        after: i64,
        limit: i64,
    ) -> Result<Vec<StoredEvent>, Refusal> {
        Ok(self.store.events(id, after, limit).await?)
    }

    /// The same, but not found when the game has no events at all.
    pub async fn events_after(
        &self,
        id: Uuid,
        after: i64,
        limit: i64,
    ) -> Result<Vec<StoredEvent>, Refusal> {
        let events = self.store.events(id, after, limit).await?;
        if events.is_empty() && self.store.events(id, 0, 1).await?.is_empty() {
            return Err(Refusal::NotFound(format!("no game {id}")));
        }
        Ok(events)
    }

    /// The names the seats of `table` go by in files for other programs: the player's
    /// name, `<bot>_bot`, or `seat_<n>` while open.
    pub async fn seat_names(&self, table: &Table) -> Result<Vec<String>, Refusal> {
        let players = table.seats.iter().filter_map(|s| s.player_id).collect();
        self.learn_names(players).await?;
        let names = table
            .seats
            .iter()
            .enumerate()
            .map(|(seat, s)| match (s.player_id, s.bot) {
                (Some(p), _) => self.names.get(p).unwrap_or_default(),
                (None, Some(bot)) => format!("{bot:?}_bot"),
                (None, None) => format!("seat_{seat}"),
            });
        Ok(names.collect())
    }

    /// The match file of an exported game, for the programs its game has one for (GNU
    /// Backgammon reads backgammon's).
    pub async fn match_file(&self, export: &Export, table: &Table) -> Result<String, Refusal> {
        let game = variant(table.variant)?;
        if !game.capabilities().has(Capability::MatchFile) {
            return Err(Refusal::Invalid(format!(
                "{} has no match files (format=mat)",
                table.variant
            )));
        }
        let steps = record_steps(&export.events)
            .map_err(|e| Refusal::Internal(format!("unreadable event: {e}")))?;
        let header = MatchHeader {
            players: self.seat_names(table).await?,
            date: Some(table.created_at.format("%Y.%m.%d").to_string()),
            options: table.game.options()?,
        };
        Ok(game.match_file(&steps, &header)?)
    }

    /// `postgres` or `sqlite`.
    pub fn backend(&self) -> &'static str {
        self.store.backend()
    }

    /// Whether the database answers.
    pub async fn ping(&self) -> Result<(), Refusal> {
        self.store
            .ping()
            .await
            .map_err(|e| Refusal::Unavailable(format!("the database does not answer: {e}")))
    }
}
