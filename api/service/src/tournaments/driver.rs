//! What moves a tournament on by itself: when a game of the round ends its result is
//! recorded; when the round's last result is in, the next round is paired (or the
//! tournament finishes); a paired round's games are made; at a round's deadline the
//! seat to move in each unfinished game times out. Every step is a change of the log
//! judged on its version, so processes that race over a tournament append it once.
//!
//! The driver runs on the tournaments queued by a change that finished one of their
//! games (or by a registration, a withdrawal, a start) and, at every sweep, on every
//! unfinished tournament: a game finished by another process, or a round paired by a
//! process that stopped before making its games, is picked up there.

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use uuid::Uuid;
use worp_domain::dice;
use worp_domain::events::{Event, EventRow, RetireReason, TournamentTable};
use worp_domain::table::{Status, Table};
use worp_tournament::{pair_next_round, Outcome, PlayerId, Round};

use super::log::{refusal_of, Folded, TournamentEvent};
use crate::draft::Draft;
use crate::refusal::Refusal;
use crate::worp::Worp;

/// The events that follow a round whose results are all in: the next round with a new
/// game for each table, or the end.
pub(crate) fn next_round(t: &Folded, now: DateTime<Utc>) -> Result<Vec<TournamentEvent>, Refusal> {
    match pair_next_round(&t.state) {
        Ok(round) => Ok(vec![TournamentEvent::RoundPaired {
            games: round.tables.iter().map(|_| Uuid::new_v4()).collect(),
            deadline: t
                .settings
                .round_days
                .map(|d| now + Duration::days(i64::from(d))),
            round,
        }]),
        Err(worp_tournament::Refusal::Complete | worp_tournament::Refusal::NotEnoughPlayers) => {
            Ok(vec![TournamentEvent::Finished])
        }
        Err(e) => Err(refusal_of(e)),
    }
}

/// How a finished game of `table` counts: the winner of a table of two (a draw in a
/// knockout goes to the higher seed); at a table of more, the game's winners by place,
/// the others sharing the places left (a game ends at its first winner: RULES.md has no
/// playing on for places), or a draw.
pub fn outcome_of(t: &Folded, table: &worp_tournament::Table, game: &Table) -> Option<Outcome> {
    let result = game.result.as_ref()?;
    let player = |seat: usize| game.seats.get(seat).and_then(|s| s.player_id);
    let knockout = matches!(
        t.state.rules().map(|r| &r.format),
        Some(worp_tournament::Format::Knockout { .. })
    );
    let higher_seed = || {
        let seeds = t.state.seeded_players(1);
        let rank = |p: &PlayerId| seeds.iter().position(|s| s == p).unwrap_or(usize::MAX);
        table.seats.iter().min_by_key(|p| rank(p)).copied()
    };
    if table.seats.len() == 2 {
        return Some(match result.winner.and_then(|s| player(s.index())) {
            Some(p) => Outcome::Winner {
                player: PlayerId(p),
            },
            None if knockout => Outcome::Winner {
                player: higher_seed()?,
            },
            None => Outcome::Draw,
        });
    }
    let order = result
        .winners
        .iter()
        .map(|s| player(s.index()).map(PlayerId))
        .collect::<Option<Vec<_>>>()?;
    Some(match order.is_empty() {
        false => Outcome::Places { order },
        true if knockout => Outcome::Places {
            order: vec![higher_seed()?],
        },
        true => Outcome::Draw,
    })
}

impl Worp {
    /// Drives the queued tournaments, and every unfinished one at each sweep.
    pub(crate) fn start_tournaments(self: &Arc<Self>, sweep: std::time::Duration) {
        let w = self.clone();
        tokio::spawn(async move {
            let mut sweep_all = true;
            loop {
                let mut ids = w.tournament_queue.take();
                if sweep_all {
                    match w.store.unfinished_tournaments().await {
                        Ok(all) => ids.extend(all),
                        Err(e) => tracing::warn!("the tournaments could not be listed: {e}"),
                    }
                }
                ids.sort();
                ids.dedup();
                for id in ids {
                    if let Err(e) = w.advance_tournament(id).await {
                        tracing::warn!("tournament {id} could not move on: {e}");
                    }
                }
                sweep_all = tokio::select! {
                    () = w.tournament_queue.wake.notified() => false,
                    () = tokio::time::sleep(sweep) => true,
                };
            }
        });
    }

    /// Moves tournament `id` on as far as its games allow.
    pub async fn advance_tournament(&self, id: Uuid) -> Result<(), Refusal> {
        for _ in 0..64 {
            let t = self.tournament(id).await?;
            if t.state.is_finished() || !t.state.has_started() {
                return Ok(());
            }
            let Some(last) = t.state.rounds().last().cloned() else {
                return Ok(());
            };
            let now = self.now();
            let deadline_passed = t
                .deadlines
                .get(&last.round.number)
                .is_some_and(|d| *d <= now);
            let mut results = Vec::new();
            for table in &last.round.tables {
                if last.results.contains_key(&table.number) {
                    continue;
                }
                let Some(&game_id) = t.games.get(&(last.round.number, table.number)) else {
                    return Err(Refusal::Internal(format!(
                        "tournament {id} has no game for round {}, table {}",
                        last.round.number, table.number
                    )));
                };
                let game = match self.load(game_id).await {
                    Err(Refusal::NotFound(_)) => {
                        self.make_tournament_game(&t, &last.round, table, game_id)
                            .await?
                    }
                    other => other?,
                };
                let game = if game.result.is_none() && deadline_passed {
                    self.end_at_deadline(game).await?
                } else {
                    game
                };
                if let Some(outcome) = outcome_of(&t, table, &game) {
                    results.push(TournamentEvent::ResultRecorded {
                        round: last.round.number,
                        table: table.number,
                        game_id,
                        outcome,
                    });
                }
            }
            let round = last.round.number;
            let unrecorded = |t: &Folded, e: &TournamentEvent| match e {
                TournamentEvent::ResultRecorded { table, .. } => t
                    .state
                    .rounds()
                    .get(round as usize - 1)
                    .is_some_and(|r| !r.results.contains_key(table)),
                _ => false,
            };
            if !results.is_empty() {
                self.change_tournament(id, Some(t), |t| {
                    Ok(results
                        .iter()
                        .filter(|e| unrecorded(t, e))
                        .cloned()
                        .collect())
                })
                .await?;
                continue;
            }
            if last.results_in() {
                self.change_tournament(id, Some(t), |t| {
                    if t.state.rounds_paired() == round
                        && t.state.results_in()
                        && !t.state.is_finished()
                    {
                        next_round(t, now)
                    } else {
                        Ok(Vec::new())
                    }
                })
                .await?;
                continue;
            }
            return Ok(());
        }
        Ok(())
    }

    /// Makes the game of `table` of `round` under the id the log gave it, every seat
    /// taken by its player; another process making it first is no failure.
    async fn make_tournament_game(
        &self,
        t: &Folded,
        round: &Round,
        table: &worp_tournament::Table,
        id: Uuid,
    ) -> Result<Arc<Table>, Refusal> {
        let seed = dice::new_server_seed()
            .map_err(|e| Refusal::Internal(format!("no randomness available: {e}")))?;
        let now = self.now();
        let seats: Vec<Option<Uuid>> = table.seats.iter().map(|p| Some(p.0)).collect();
        let created = Event::GameCreated {
            variant: t.settings.variant.clone(),
            options: t.settings.options.clone(),
            client_seeds: vec![None; seats.len()],
            seats,
            invited: Vec::new(),
            bots: Vec::new(),
            days_per_move: Some(t.settings.days_per_move),
            dice_commitment: dice::commitment(&seed),
            created_by: t.settings.created_by,
            rated: t.settings.rated,
            public_chat: false,
            tournament: Some(TournamentTable {
                tournament_id: t.id,
                round: round.number,
                table: table.number,
            }),
        };
        let first = EventRow::new(id, 1, &created, now, "").map_err(Refusal::unwritable_event)?;
        let game = Table::from_events(std::slice::from_ref(&first))?;
        let mut draft = Draft {
            table: game,
            events: vec![first],
            now,
            seed: seed.to_vec(),
            passed: Vec::new(),
        };
        // A player on vacation sits down paused.
        for (seat, player) in table.seats.iter().enumerate() {
            for event in self.vacation_of_seats(player.0, [seat as u8], now).await? {
                draft.push(event)?;
            }
        }
        draft.advance()?;
        match self.record(None, draft, 0, Some(&seed), None, false).await {
            Ok(played) => Ok(played.table),
            Err(Refusal::Conflict(_)) => self.load(id).await,
            Err(e) => Err(e),
        }
    }

    /// The round's time is up: the seat to move times out, again until the game ends.
    async fn end_at_deadline(&self, mut game: Arc<Table>) -> Result<Arc<Table>, Refusal> {
        while game.status() == Status::Active {
            let Some(seat) = game.to_move() else {
                break;
            };
            let event = Event::SeatRetired {
                seat: seat.0,
                reason: RetireReason::TimedOut,
            };
            game = match self.change(&game, event, self.now(), None).await {
                Ok(g) => g,
                Err(Refusal::Conflict(_) | Refusal::Stale(_)) => self.load(game.id).await?,
                Err(e) => return Err(e),
            };
        }
        Ok(game)
    }
}
