use actix_web::{get, web, HttpResponse};
use serde::Serialize;
use utoipa::ToSchema;

use crate::problem::ApiError;
use crate::service::Worp;

/// The server's health.
#[derive(Serialize, ToSchema)]
pub struct Health {
    /// `ok`.
    pub status: &'static str,
    /// `postgres` or `sqlite`.
    pub database: &'static str,
    /// The engine's rules version.
    pub rules_version: u32,
}

/// Reports whether the server and its database answer.
#[utoipa::path(
    tag = "health",
    operation_id = "check_health",
    responses(
        (status = 200, description = "Server and database are up", body = Health),
        (status = 503, description = "The database is unavailable", body = crate::problem::Problem, content_type = "application/problem+json"),
    )
)]
#[get("/healthz")]
pub async fn healthz(worp: web::Data<Worp>) -> Result<HttpResponse, ApiError> {
    worp.ping().await?;
    Ok(HttpResponse::Ok().json(Health {
        status: "ok",
        database: worp.backend(),
        rules_version: worp_engine::RULES_VERSION,
    }))
}
