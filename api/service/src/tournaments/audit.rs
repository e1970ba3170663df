//! `worp audit` of a tournament's export: its log's chain, every event folded by the
//! rules (each round checked to be the pairing the rules give from the standings it was
//! paired from), and every result checked against its game's export, itself audited.

use std::collections::BTreeMap;

use serde::Serialize;
use uuid::Uuid;
use worp_domain::table::Table;
use worp_domain::tournaments::TournamentEventRow;
use worp_tournament::{check_round, standings};

use super::driver::outcome_of;
use super::log::{Folded, TournamentEvent};
use super::views::{TournamentExport, TOURNAMENT_EXPORT_FORMAT};
use crate::audit::AuditError;
use crate::export::audit_export;

/// What the audit of a tournament found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TournamentAudit {
    pub events: usize,
    pub rounds_checked: usize,
    pub results_checked: usize,
    pub games_audited: usize,
    pub finished: bool,
    /// The standings the log gives: player and points, in rank order.
    pub standings: Vec<(u32, Uuid, f64)>,
}

fn broken(seq: i64, reason: impl Into<String>) -> AuditError {
    AuditError {
        seq,
        reason: reason.into(),
    }
}

/// Audits `x`; the first broken link is the error.
pub fn audit_tournament(x: &TournamentExport) -> Result<TournamentAudit, AuditError> {
    if x.format != TOURNAMENT_EXPORT_FORMAT {
        return Err(broken(0, format!("unknown export format {:?}", x.format)));
    }
    let mut games: BTreeMap<Uuid, (Table, &crate::export::Export)> = BTreeMap::new();
    for g in &x.games {
        audit_export(g).map_err(|e| {
            broken(
                0,
                format!("game {}: event {}: {}", g.game_id, e.seq, e.reason),
            )
        })?;
        let table = Table::from_events(&g.events)
            .map_err(|e| broken(0, format!("game {}: {e}", g.game_id)))?;
        games.insert(g.game_id, (table, g));
    }
    let rows: Vec<TournamentEventRow> = x
        .events
        .iter()
        .map(|e| TournamentEventRow {
            tournament_id: x.tournament_id,
            seq: e.seq,
            kind: e.kind.clone(),
            payload: e.payload.clone(),
            recorded_at: e.recorded_at,
            hash: e.hash.clone(),
        })
        .collect();
    let Some(first) = rows.first() else {
        return Err(broken(0, "no events"));
    };
    let first_event: TournamentEvent =
        serde_json::from_str(&first.payload).map_err(|e| broken(1, e.to_string()))?;
    let TournamentEvent::Created { settings, .. } = first_event else {
        return Err(broken(1, "the first event must be created"));
    };
    let mut t = Folded::new(x.tournament_id, settings, first.recorded_at);
    let (mut rounds, mut results) = (0, 0);
    for row in &rows {
        let seq = row.seq;
        if seq != t.version + 1 {
            return Err(broken(seq, "out of sequence"));
        }
        if !row.hash_holds(&t.head_hash) {
            return Err(broken(seq, "the hash does not chain"));
        }
        let event: TournamentEvent =
            serde_json::from_str(&row.payload).map_err(|e| broken(seq, e.to_string()))?;
        if event.kind() != row.kind {
            return Err(broken(seq, "the kind stored is not the event's"));
        }
        match &event {
            TournamentEvent::RoundPaired { round, .. } => {
                check_round(&t.state, round)
                    .map_err(|e| broken(seq, format!("round {}: {e}", round.number)))?;
                rounds += 1;
            }
            TournamentEvent::ResultRecorded {
                round,
                table,
                game_id,
                outcome,
            } => {
                let Some((game, export)) = games.get(game_id) else {
                    return Err(broken(seq, format!("game {game_id} is not in the export")));
                };
                let place = game.tournament;
                if place.map(|p| (p.tournament_id, p.round, p.table))
                    != Some((t.id, *round, *table))
                {
                    return Err(broken(
                        seq,
                        format!(
                            "game {game_id} is not this tournament's round {round}, table {table}"
                        ),
                    ));
                }
                if export.variant != t.settings.variant || export.options != t.settings.options {
                    return Err(broken(
                        seq,
                        format!("game {game_id} is not the tournament's game"),
                    ));
                }
                let paired = t
                    .state
                    .rounds()
                    .get(*round as usize - 1)
                    .and_then(|r| r.round.table(*table).cloned())
                    .ok_or_else(|| broken(seq, "no such table"))?;
                let seated: Vec<Option<Uuid>> = paired.seats.iter().map(|p| Some(p.0)).collect();
                if export.seats != seated {
                    return Err(broken(seq, format!("game {game_id} seats other players")));
                }
                if outcome_of(&t, &paired, game).as_ref() != Some(outcome) {
                    return Err(broken(
                        seq,
                        format!("the result recorded is not game {game_id}'s"),
                    ));
                }
                results += 1;
            }
            _ => {}
        }
        t.apply(&event).map_err(|e| broken(seq, e.to_string()))?;
        t.version = seq;
        t.head_hash = row.hash.clone();
    }
    Ok(TournamentAudit {
        events: rows.len(),
        rounds_checked: rounds,
        results_checked: results,
        games_audited: games.len(),
        finished: t.state.is_finished(),
        standings: standings(&t.state)
            .into_iter()
            .map(|s| (s.rank, s.player.0, f64::from(s.half_points) / 2.0))
            .collect(),
    })
}
