//! A self-contained, checkable bundle of one game (`GET /v1/games/{id}/export`,
//! `worp audit FILE`).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;
use worp_engine::GameResult;

use crate::audit::{audit, AuditError, AuditReport};
use worp_domain::events::StoredEvent;
use worp_domain::table::Table;

/// The format tag of exports.
pub const EXPORT_FORMAT: &str = "worp-export/1";

/// Everything needed to check a game offline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Export {
    /// `worp-export/1`.
    pub format: String,
    pub game_id: Uuid,
    pub variant: String,
    /// The options, defaults filled in.
    pub options: Value,
    /// The player of each seat (`null`: open).
    pub seats: Vec<Option<Uuid>>,
    /// The engine's rules version that produced the newest event.
    pub rules_version: u32,
    /// Hex SHA-256 of the server seed.
    pub dice_commitment: String,
    /// The client seed of each seat (`null`: none).
    pub client_seeds: Vec<Option<String>>,
    /// The server seed; only once the game is finished.
    pub server_seed: Option<String>,
    #[schema(value_type = worp_domain::table::Status)]
    pub status: String,
    pub result: Option<GameResult>,
    /// The hash of the newest event.
    pub head_hash: String,
    /// Every event, in order.
    pub events: Vec<StoredEvent>,
}

impl Export {
    /// The export of a table and its events.
    pub fn of(table: &Table, events: Vec<StoredEvent>) -> Export {
        Export {
            format: EXPORT_FORMAT.to_owned(),
            game_id: table.id,
            variant: table.variant.to_owned(),
            options: table.options.clone(),
            seats: table.seats.iter().map(|s| s.player_id).collect(),
            rules_version: events
                .last()
                .map_or(worp_engine::RULES_VERSION, |e| e.rules_version as u32),
            dice_commitment: table.dice_commitment.clone(),
            client_seeds: table.client_seeds(),
            server_seed: table.server_seed.clone(),
            status: table.status().as_str().to_owned(),
            result: table.result.clone(),
            head_hash: table.head_hash.clone(),
            events,
        }
    }
}

/// The game's inputs as a replay record's steps (what `worp replay` takes).
pub fn record_steps(
    events: &[StoredEvent],
) -> Result<Vec<worp_engine::replay::Step>, serde_json::Error> {
    use worp_domain::events::Event;
    use worp_engine::replay::Step;
    let mut steps = Vec::new();
    for e in events {
        match e.event()? {
            Event::DiceRolled { values, .. } => steps.push(Step::Dice(values)),
            Event::MovePlayed { mv, .. } => steps.push(Step::Move(mv)),
            Event::SeatRetired { seat, .. } => steps.push(Step::Retire(worp_engine::Seat(seat))),
            Event::GameCreated { .. }
            | Event::SeatTaken { .. }
            | Event::InvitationDeclined { .. }
            | Event::MessagePosted { .. }
            | Event::VacationStarted { .. }
            | Event::VacationEnded { .. }
            | Event::GameFinished { .. } => {}
        }
    }
    Ok(steps)
}

/// A full audit of an export: the log itself (chain, sequence, rolls, moves) and that the
/// bundle's header says what the log says.
pub fn audit_export(x: &Export) -> Result<AuditReport, AuditError> {
    if x.format != EXPORT_FORMAT {
        return Err(AuditError {
            seq: 0,
            reason: format!("unknown export format {:?}", x.format),
        });
    }
    let report = audit(&x.events)?;
    let last = x.events.last().map_or(0, |e| e.seq);
    let header = |what: &str| AuditError {
        seq: last,
        reason: format!("the export's {what} does not match its events"),
    };
    let table = Table::from_events(&x.events).map_err(|e| AuditError {
        seq: last,
        reason: e.to_string(),
    })?;
    if x.game_id != table.id {
        return Err(header("game_id"));
    }
    if x.variant != table.variant {
        return Err(header("variant"));
    }
    if x.options != table.options {
        return Err(header("options"));
    }
    if x.seats != table.seats.iter().map(|s| s.player_id).collect::<Vec<_>>() {
        return Err(header("seats"));
    }
    if x.dice_commitment != table.dice_commitment {
        return Err(header("dice_commitment"));
    }
    if x.client_seeds != table.client_seeds() {
        return Err(header("client_seeds"));
    }
    if x.server_seed != table.server_seed {
        return Err(header("server_seed"));
    }
    if x.status != table.status().as_str() {
        return Err(header("status"));
    }
    if x.result != table.result {
        return Err(header("result"));
    }
    if x.head_hash != table.head_hash {
        return Err(header("head_hash"));
    }
    Ok(report)
}
