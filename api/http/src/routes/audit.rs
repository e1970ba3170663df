//! Exports and audits that need no trust in the server: the self-contained bundle, the
//! replay record, match files for other programs, and the audit run on the server's copy.

use actix_web::http::header;
use actix_web::{get, web, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::auth::scope::GameRead;
use crate::auth::MaybeCaller;
use crate::problem::{ApiError, Problem};
use worp_service::messages::{may_read_messages, withhold_messages};
use worp_service::Worp;

/// Which export format.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ExportQuery {
    /// `json` (default): the self-contained, checkable bundle; `record`: the game record
    /// `worp replay` reads; `mat`: a Jellyfish / GNU Backgammon match file (games with match files: backgammon).
    pub format: Option<ExportFormat>,
}

/// Export formats.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    /// The Worp bundle (`worp-export/1`).
    Json,
    /// A Jellyfish `.mat` match file, as GNU Backgammon imports (backgammon only).
    Mat,
    /// The game record `worp replay` reads: variant, options, seats and every input.
    Record,
}

/// An export in JSON: the bundle (`format=json`) or the game record (`format=record`).
// Only its schema is used: the answers are written from the two types themselves.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum JsonExport {
    Bundle(Box<worp_service::export::Export>),
    Record(worp_engine::replay::Record),
}

/// A self-contained bundle of the game: variant, options, seats, rules version, every
/// event with its sequence, time and hash, the dice commitment, the client seeds, and,
/// once the game is over, the revealed server seed. `worp audit FILE` checks it offline.
#[utoipa::path(
    security((), ("bearer" = ["game:read"])),
    tag = "audit",
    params(("id" = Uuid, Path, description = "The game"), ExportQuery),
    responses(
        (status = 200, description = "The bundle (format=json, `Export`), the game record (format=record, `GameRecord`), or a match file (format=mat, text/plain)",
         content(
            (JsonExport = "application/json"),
            (String = "text/plain", example = "; [Site \"Worp\"]\n 0 point match\n\n Game 1\n ..."),
         ),
         headers(("Content-Disposition" = String, description = "format=mat: `attachment; filename=\"worp-<id>.mat\"`"))),
        (status = 400, description = "Malformed parameters, or format=mat for a game without match files", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/games/{id}/export")]
pub async fn export_game(
    worp: web::Data<Worp>,
    caller: MaybeCaller<GameRead>,
    id: web::Path<Uuid>,
    q: web::Query<ExportQuery>,
) -> Result<HttpResponse, ApiError> {
    let (mut export, table) = worp.export(id.into_inner()).await?;
    if !may_read_messages(&table, caller.0.map(|p| p.id)) {
        withhold_messages(&mut export.events);
    }
    match q.format {
        None | Some(ExportFormat::Json) => return Ok(HttpResponse::Ok().json(export)),
        Some(ExportFormat::Record) => {
            let steps = worp_service::export::record_steps(&export.events)
                .map_err(|e| ApiError::Internal(format!("unreadable event: {e}")))?;
            return Ok(HttpResponse::Ok().json(worp_engine::replay::Record {
                variant: export.variant,
                options: export.options,
                seats: export.seats.len() as u8,
                steps,
            }));
        }
        Some(ExportFormat::Mat) => {}
    }
    let text = worp.match_file(&export, &table).await?;
    Ok(HttpResponse::Ok()
        .content_type("text/plain; charset=utf-8")
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"worp-{}.mat\"", table.id),
        ))
        .body(text))
}

/// Runs the offline audit on the server's copy of the game: the hash chain, the
/// sequence, every roll against the revealed seed, every move through the rules.
#[utoipa::path(
    tag = "audit",
    params(("id" = Uuid, Path, description = "The game")),
    responses(
        (status = 200, description = "The log checks out", body = worp_service::audit::AuditReport),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 500, description = "The stored log is broken (names the event)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/games/{id}/audit")]
pub async fn audit_game(
    worp: web::Data<Worp>,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let (export, _) = worp.export(id.into_inner()).await?;
    // The audit replays the game again, with every roll: on the blocking pool too.
    let report = web::block(move || worp_service::export::audit_export(&export))
        .await
        .map_err(|e| ApiError::Internal(format!("the audit stopped: {e}")))?
        .map_err(|e| ApiError::Internal(format!("the stored log fails its audit: {e}")))?;
    Ok(HttpResponse::Ok().json(report))
}
