//! What is shown of a tournament: its page (settings, players, standings, each round's
//! tables with their games and results), its line in listings, and its export.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;
use worp_domain::tournaments::TournamentRow;
use worp_tournament::{standings, Outcome};

use super::log::{Folded, TournamentFormat};
use crate::export::Export;
use crate::refusal::Refusal;
use crate::worp::Worp;

/// A tournament as listed: enough to choose one to join.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct TournamentSummary {
    pub id: Uuid,
    pub name: String,
    pub variant: String,
    /// `registering`, `running` or `finished`.
    pub status: String,
    pub format: TournamentFormat,
    pub table_size: u32,
    pub min_players: u32,
    pub max_players: u32,
    /// How many players are registered and not withdrawn.
    pub registered: u32,
    pub days_per_move: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round_days: Option<u32>,
    pub rated: bool,
    /// Only the invited may register.
    pub invitation_only: bool,
    /// Rounds paired so far.
    pub rounds_paired: u32,
    pub created_by: Uuid,
    #[serde(serialize_with = "worp_domain::clock::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: DateTime<Utc>,
}

/// A registered player.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct TournamentPlayer {
    pub player_id: Uuid,
    pub name: Option<String>,
    /// The rating the player was seeded with.
    pub rating: i32,
    /// How many rounds were paired when the player registered (late registration: > 0).
    pub joined_after_round: u32,
    /// How many rounds were paired when the player withdrew; absent: still playing.
    pub withdrawn_after_round: Option<u32>,
}

/// One line of the standings (points in whole and half points).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct TournamentStanding {
    /// 1 for the first; shared when every tie-break is equal.
    pub rank: u32,
    pub player_id: Uuid,
    pub name: Option<String>,
    pub points: f64,
    /// The opponents' points summed.
    pub buchholz: f64,
    /// Each opponent's points times the result against them.
    pub sonneborn_berger: f64,
    /// Points against the players still tied (tables of two).
    pub direct_encounter: f64,
    /// Games won (tables of more than two).
    pub first_places: u32,
    pub games: u32,
    pub byes: u32,
    pub withdrawn: bool,
}

/// One game of a round.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct TournamentTableView {
    pub table: u32,
    pub game_id: Uuid,
    /// `/v1/games/{id}`.
    pub url: String,
    /// The players, first seat first.
    pub seats: Vec<Uuid>,
    /// Absent until the game ends.
    #[schema(value_type = Option<Object>)]
    pub result: Option<Value>,
}

/// A paired round.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct TournamentRound {
    pub number: u32,
    pub tables: Vec<TournamentTableView>,
    /// Players without a game this round, scored as a win.
    pub byes: Vec<Uuid>,
    /// When the round's unfinished games time out, if the tournament has round days.
    #[serde(serialize_with = "worp_domain::clock::rfc3339_option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub deadline: Option<DateTime<Utc>>,
}

/// A tournament's page.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct TournamentView {
    #[serde(flatten)]
    pub summary: TournamentSummary,
    /// The options of every game.
    pub options: Value,
    /// Swiss: rounds a player may still join before.
    pub late_registration_rounds: u32,
    /// Who may register, when by invitation.
    pub invited: Vec<Uuid>,
    pub players: Vec<TournamentPlayer>,
    pub standings: Vec<TournamentStanding>,
    pub rounds: Vec<TournamentRound>,
    /// The last sequence number of the tournament's log.
    pub version: i64,
    #[serde(serialize_with = "worp_domain::clock::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: DateTime<Utc>,
}

/// A tournament's log and every game it paired, checkable offline (`worp audit`).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct TournamentExport {
    /// `worp-tournament-export/1`.
    pub format: String,
    pub tournament_id: Uuid,
    /// Every event of the tournament's log, in order.
    pub events: Vec<TournamentExportEvent>,
    /// The export of each game the tournament paired that has been made.
    pub games: Vec<Export>,
}

/// The format tag of tournament exports.
pub const TOURNAMENT_EXPORT_FORMAT: &str = "worp-tournament-export/1";

/// One stored event of a tournament, as exported: its payload is the text the hash covers.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct TournamentExportEvent {
    pub seq: i64,
    pub kind: String,
    /// The payload's JSON text.
    pub payload: String,
    #[serde(serialize_with = "worp_domain::clock::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub recorded_at: DateTime<Utc>,
    pub hash: String,
}

fn half(n: u64) -> f64 {
    n as f64 / 2.0
}

impl Folded {
    fn summary(&self) -> Result<TournamentSummary, Refusal> {
        let rules = self.rules()?;
        Ok(TournamentSummary {
            id: self.id,
            name: self.settings.name.clone(),
            variant: self.settings.variant.clone(),
            status: self.status().to_owned(),
            format: (&rules.format).into(),
            table_size: rules.table_size,
            min_players: rules.min_players,
            max_players: rules.max_players,
            registered: self.state.active_count() as u32,
            days_per_move: self.settings.days_per_move,
            round_days: self.settings.round_days,
            rated: self.settings.rated,
            invitation_only: !self.settings.invited.is_empty(),
            rounds_paired: self.state.rounds_paired(),
            created_by: self.settings.created_by,
            created_at: self.created_at,
        })
    }
}

/// The `tournaments` row of `t`.
pub(crate) fn row_of(t: &Folded) -> Result<TournamentRow, Refusal> {
    Ok(TournamentRow {
        id: t.id,
        name: t.settings.name.clone(),
        variant: t.settings.variant.clone(),
        status: t.status().to_owned(),
        created_by: t.settings.created_by,
        version: t.version,
        summary: serde_json::to_string(&t.summary()?)
            .map_err(|e| Refusal::unwritable("a tournament's summary", e))?,
        created_at: t.created_at,
        updated_at: t.updated_at,
    })
}

/// A result as shown: `{"winner": id}`, `{"draw": true}` or `{"places": [ids]}`.
fn result_json(o: &Outcome) -> Value {
    match o {
        Outcome::Winner { player } => serde_json::json!({ "winner": player.0 }),
        Outcome::Draw => serde_json::json!({ "draw": true }),
        Outcome::Places { order } => {
            serde_json::json!({ "places": order.iter().map(|p| p.0).collect::<Vec<_>>() })
        }
    }
}

impl Worp {
    /// The page of `t`, with its players' names.
    pub async fn tournament_view(&self, t: &Folded) -> Result<TournamentView, Refusal> {
        let entrants = t.state.entrants();
        self.learn_names(entrants.iter().map(|e| e.player.0).collect())
            .await?;
        let name = |p: Uuid| self.names().get(p);
        let players = entrants
            .iter()
            .map(|e| TournamentPlayer {
                player_id: e.player.0,
                name: name(e.player.0),
                rating: e.rating,
                joined_after_round: e.joined_after,
                withdrawn_after_round: e.withdrawn_after,
            })
            .collect();
        let standings = if t.state.has_started() {
            standings(&t.state)
                .into_iter()
                .map(|s| TournamentStanding {
                    rank: s.rank,
                    player_id: s.player.0,
                    name: name(s.player.0),
                    points: half(u64::from(s.half_points)),
                    buchholz: half(u64::from(s.buchholz)),
                    sonneborn_berger: s.sonneborn_berger as f64 / 4.0,
                    direct_encounter: half(u64::from(s.direct_encounter)),
                    first_places: s.first_places,
                    games: s.games,
                    byes: s.byes,
                    withdrawn: s.withdrawn,
                })
                .collect()
        } else {
            Vec::new()
        };
        let rounds = t
            .state
            .rounds()
            .iter()
            .map(|r| TournamentRound {
                number: r.round.number,
                tables: r
                    .round
                    .tables
                    .iter()
                    .map(|table| {
                        let game_id = t
                            .games
                            .get(&(r.round.number, table.number))
                            .copied()
                            .unwrap_or_default();
                        TournamentTableView {
                            table: table.number,
                            game_id,
                            url: format!("/v1/games/{game_id}"),
                            seats: table.seats.iter().map(|p| p.0).collect(),
                            result: r.results.get(&table.number).map(result_json),
                        }
                    })
                    .collect(),
                byes: r.round.byes.iter().map(|p| p.0).collect(),
                deadline: t.deadlines.get(&r.round.number).copied(),
            })
            .collect();
        Ok(TournamentView {
            summary: t.summary()?,
            options: t.settings.options.clone(),
            late_registration_rounds: t.rules()?.late_registration_rounds,
            invited: t.settings.invited.clone(),
            players,
            standings,
            rounds,
            version: t.version,
            updated_at: t.updated_at,
        })
    }

    /// Tournament `id`'s page.
    pub async fn tournament_page(&self, id: Uuid) -> Result<TournamentView, Refusal> {
        let t = self.tournament(id).await?;
        self.tournament_view(&t).await
    }

    /// Tournaments newest first, of `status` if given (the lobby asks for `registering`).
    pub async fn list_tournaments(
        &self,
        status: Option<&str>,
        limit: i64,
        offset: i64,
    ) -> Result<Vec<TournamentSummary>, Refusal> {
        if let Some(s) = status {
            if !["registering", "running", "finished"].contains(&s) {
                return Err(Refusal::Invalid(format!(
                    "status must be registering, running or finished, not {s:?}"
                )));
            }
        }
        self.store
            .list_tournaments(status, limit, offset)
            .await?
            .iter()
            .map(|r| {
                serde_json::from_str(&r.summary).map_err(|e| {
                    Refusal::Internal(format!("tournament {}'s summary is unreadable: {e}", r.id))
                })
            })
            .collect()
    }

    /// Tournament `id`'s export: its log and the export of every game it made.
    pub async fn export_tournament(&self, id: Uuid) -> Result<TournamentExport, Refusal> {
        let rows = self.tournament_log(id).await?;
        // Read after the log: its games include every game the rows name.
        let t = self.tournament(id).await?;
        let mut games = Vec::new();
        for game in t.games.values() {
            match self.export(*game).await {
                Ok((x, _)) => games.push(x),
                Err(Refusal::NotFound(_)) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(TournamentExport {
            format: TOURNAMENT_EXPORT_FORMAT.to_owned(),
            tournament_id: id,
            events: rows
                .into_iter()
                .map(|r| TournamentExportEvent {
                    seq: r.seq,
                    kind: r.kind,
                    payload: r.payload,
                    recorded_at: r.recorded_at,
                    hash: r.hash,
                })
                .collect(),
            games,
        })
    }

    /// Writes every tournament's row and games again from its log (`worp rebuild`);
    /// returns how many tournaments.
    pub async fn rebuild_tournaments(&self) -> Result<usize, Refusal> {
        let mut rows = Vec::new();
        let mut games = Vec::new();
        for id in self.store.tournament_ids().await? {
            let t = self.tournament(id).await?;
            rows.push(row_of(&t)?);
            for ((round, table), game_id) in &t.games {
                games.push(worp_domain::tournaments::TournamentGame {
                    game_id: *game_id,
                    tournament_id: id,
                    round: *round,
                    table: *table,
                });
            }
        }
        self.store.replace_tournament_rows(&rows, &games).await?;
        Ok(rows.len())
    }
}
