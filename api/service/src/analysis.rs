//! GNU Backgammon's analysis of finished backgammon games and matches: asked for by a
//! player's first read (`GET /v1/games/{id}/analysis`), made in the background by the
//! analyst from the game's match file, and kept as derived data (`game_analyses`),
//! never in the game's log: forgetting every analysis loses nothing but time.

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;
use worp_domain::events::StoredEvent;
use worp_domain::table::Status;
use worp_gnubg::analysis::{DecisionAnalysis, DecisionKind};
use worp_gnubg::MatchAnalysis;
use worp_store::bots::AnalysisRow;
use worp_store::Player;

use super::refusal::Refusal;
use super::worp::Worp;

/// Where an analysis stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AnalysisState {
    Pending,
    Ready,
    Failed,
}

/// `GET /v1/games/{id}/analysis`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct AnalysisView {
    pub game_id: Uuid,
    pub state: AnalysisState,
    /// The game's version analysed (its last).
    pub version: i64,
    /// Once ready.
    pub analysis: Option<MatchAnalysis>,
    /// Once failed: why.
    pub error: Option<String>,
    #[serde(serialize_with = "worp_domain::clock::rfc3339")]
    pub requested_at: DateTime<Utc>,
    #[serde(serialize_with = "worp_domain::clock::rfc3339_option")]
    pub done_at: Option<DateTime<Utc>>,
}

fn view(row: AnalysisRow) -> Result<AnalysisView, Refusal> {
    let state = match row.state.as_str() {
        "pending" => AnalysisState::Pending,
        "ready" => AnalysisState::Ready,
        _ => AnalysisState::Failed,
    };
    let analysis = row
        .body
        .as_deref()
        .map(serde_json::from_str)
        .transpose()
        .map_err(|e| Refusal::Internal(format!("a stored analysis does not read: {e}")))?;
    Ok(AnalysisView {
        game_id: row.game_id,
        state,
        version: row.version,
        analysis,
        error: row.error,
        requested_at: row.requested_at,
        done_at: row.done_at,
    })
}

impl Worp {
    /// The analysis of finished backgammon game `id`. Asking for one that was never
    /// made, or asking again for one that failed, takes a player (`asker`): it costs the
    /// server GNU Backgammon's time.
    pub async fn analysis(
        &self,
        id: Uuid,
        asker: Option<&Player>,
    ) -> Result<AnalysisView, Refusal> {
        let table = self.load(id).await?;
        if table.variant != "backgammon" {
            return Err(Refusal::Invalid(format!(
                "only backgammon games are analysed, not {}",
                table.variant
            )));
        }
        if table.status() != Status::Finished {
            return Err(Refusal::Conflict(
                "the game is still being played: it is analysed once finished".into(),
            ));
        }
        let row = self.store.analysis(id).await?;
        let asks_again = matches!(&row, Some(r) if r.state == "failed") && asker.is_some();
        match row {
            Some(row) if !asks_again => return view(row),
            _ => {}
        }
        if asker.is_none() {
            return Err(Refusal::UnknownToken(
                "sign in to ask for the analysis of a game (it takes the server's GNU \
                 Backgammon a while); anyone may read one once it is made"
                    .into(),
            ));
        }
        if self.bots.gnubg.is_none() {
            return Err(Refusal::Conflict(
                "this server cannot analyse: GNU Backgammon is not installed".into(),
            ));
        }
        let row = if asks_again {
            self.store.retry_analysis(id, self.now()).await?
        } else {
            self.store
                .request_analysis(id, table.version, self.now())
                .await?
        };
        self.bots.analyst.notify_one();
        view(row)
    }

    /// Starts the analyst: the pending analyses, one at a time, when one is asked for
    /// and every minute (those a restart left pending).
    pub(crate) fn start_analyst(self: &Arc<Self>) {
        if self.bots.gnubg.is_none() {
            return;
        }
        let w = self.clone();
        tokio::spawn(async move {
            loop {
                match w.store.pending_analyses(10).await {
                    Ok(ids) => {
                        for id in ids {
                            w.analyse(id).await;
                        }
                    }
                    Err(e) => tracing::warn!("the pending analyses could not be read: {e}"),
                }
                let _ =
                    tokio::time::timeout(Duration::from_secs(60), w.bots.analyst.notified()).await;
            }
        });
    }

    /// Forgets every analysis (`worp rebuild`): each is made again when next read.
    pub async fn forget_analyses(&self) -> Result<u64, Refusal> {
        Ok(self.store.forget_analyses().await?)
    }

    /// Analyses game `id` and records the outcome (a failure too: a player's next read
    /// asks again).
    async fn analyse(&self, id: Uuid) {
        let outcome = self.analysed(id).await;
        if let Err(e) = &outcome {
            tracing::warn!("game {id} could not be analysed: {e}");
        }
        if let Err(e) = self.store.finish_analysis(id, outcome, self.now()).await {
            tracing::warn!("the analysis of game {id} could not be stored: {e}");
        }
    }

    async fn analysed(&self, id: Uuid) -> Result<String, String> {
        let pool = self
            .bots
            .gnubg
            .clone()
            .ok_or("GNU Backgammon is not installed")?;
        let (export, table) = self.export(id).await.map_err(|e| e.to_string())?;
        let mat = self
            .match_file(&export, &table)
            .await
            .map_err(|e| e.to_string())?;
        let (plies, timeout) = (
            self.bots.settings.analysis_plies,
            self.bots.settings.analysis_timeout,
        );
        let mut analysis = tokio::task::spawn_blocking(move || {
            worp_gnubg::analyse(pool.program(), &mat, plies, timeout)
        })
        .await
        .map_err(|e| format!("the analysis stopped: {e}"))?
        .map_err(|e| e.to_string())?;
        place_decisions(&mut analysis, &export.events);
        serde_json::to_string(&analysis).map_err(|e| e.to_string())
    }
}

/// What a `move_played` of the log is, for finding each analysed decision's event.
fn is(kind: DecisionKind, played: &str, mv: &Value) -> bool {
    match kind {
        DecisionKind::Checkers => mv.get("steps").is_some(),
        DecisionKind::Cube if played == "double" => mv == "double",
        DecisionKind::Cube => mv == "roll",
        DecisionKind::Answer if played == "take" => mv == "take",
        DecisionKind::Answer => mv == "pass",
    }
}

/// Gives each analysed decision the version of the `move_played` event that recorded
/// it: the next one of its seat and kind, in order (a decision not to double is the
/// `roll` before the checker play, or, where the log has none, the checker play).
pub fn place_decisions(analysis: &mut MatchAnalysis, events: &[StoredEvent]) {
    let moves: Vec<(i64, u64, &Value)> = events
        .iter()
        .filter(|e| e.kind == "move_played")
        .filter_map(|e| {
            Some((
                e.seq,
                e.payload.get("seat")?.as_u64()?,
                e.payload.get("move")?,
            ))
        })
        .collect();
    let mut cursor = 0;
    let decisions = analysis
        .games
        .iter_mut()
        .flat_map(|g| g.decisions.iter_mut());
    for d in decisions {
        let found = find(&moves[cursor..], d);
        if let Some((i, version)) = found {
            d.version = Some(version);
            let no_double_on_checkers = d.kind == DecisionKind::Cube
                && d.played != "double"
                && moves[cursor + i].2.get("steps").is_some();
            if !no_double_on_checkers {
                cursor += i + 1;
            }
        }
    }
}

fn find(moves: &[(i64, u64, &Value)], d: &DecisionAnalysis) -> Option<(usize, i64)> {
    let mine = |m: &&(i64, u64, &Value)| m.1 == u64::from(d.seat);
    for (i, m) in moves.iter().enumerate().filter(|(_, m)| mine(m)) {
        if is(d.kind, &d.played, m.2) {
            return Some((i, m.0));
        }
        // A decision not to double where the log went straight to the checker play.
        if d.kind == DecisionKind::Cube && d.played != "double" && m.2.get("steps").is_some() {
            return Some((i, m.0));
        }
    }
    None
}
