use actix_web::{get, route, web, HttpResponse};
use metrics_exporter_prometheus::PrometheusHandle;
use serde::Serialize;
use utoipa::ToSchema;

use crate::lifecycle::Lifecycle;
use crate::problem::ApiError;
use worp_service::Worp;

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
    get,
    path = "/healthz",
    tag = "health",
    operation_id = "check_health",
    responses(
        (status = 200, description = "Server and database are up", body = Health),
        (status = 503, description = "The database is unavailable", body = crate::problem::Problem, content_type = "application/problem+json"),
    )
)]
// HEAD too: load balancers probe with it.
#[route("/healthz", method = "GET", method = "HEAD")]
pub async fn healthz(worp: web::Data<Worp>) -> Result<HttpResponse, ApiError> {
    worp.ping().await?;
    Ok(HttpResponse::Ok().json(Health {
        status: "ok",
        database: worp.backend(),
        rules_version: worp_engine::RULES_VERSION,
    }))
}

/// The server's readiness for traffic.
#[derive(Serialize, ToSchema)]
pub struct Readiness {
    /// `ready`.
    pub status: &'static str,
}

/// Reports whether this process should get traffic: its database answers, every
/// migration of this build has run, and it is not shutting down. `/healthz` is liveness.
#[utoipa::path(
    get,
    path = "/readyz",
    tag = "health",
    operation_id = "check_readiness",
    responses(
        (status = 200, description = "Ready for traffic", body = Readiness),
        (status = 503, description = "Not ready: the database is unavailable or unmigrated, the ratings are being folded from the log at start, or the server is shutting down", body = crate::problem::Problem, content_type = "application/problem+json"),
    )
)]
#[route("/readyz", method = "GET", method = "HEAD")]
pub async fn readyz(
    worp: web::Data<Worp>,
    lifecycle: web::Data<Lifecycle>,
) -> Result<HttpResponse, ApiError> {
    if lifecycle.is_draining() {
        return Err(ApiError::Unavailable("the server is shutting down".into()));
    }
    worp.readiness().await?;
    Ok(HttpResponse::Ok().json(Readiness { status: "ready" }))
}

/// The server's metrics in the Prometheus text format: requests by route and status,
/// moves, the group commit, the state cache, replays, live streams, webhooks, deadlines,
/// bots, the database pool and refusals (README lists them). Not rate-limited. With
/// `WORP_METRICS_BIND` it is served on that address only.
#[utoipa::path(
    tag = "health",
    operation_id = "metrics",
    responses(
        (status = 200, description = "The Prometheus text exposition format", content_type = "text/plain; version=0.0.4", body = String,
         example = "# TYPE worp_moves_acknowledged_total counter\nworp_moves_acknowledged_total 42\n"),
    )
)]
#[get("/metrics")]
pub async fn metrics(worp: web::Data<Worp>, recorder: web::Data<PrometheusHandle>) -> HttpResponse {
    worp.record_pool();
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(recorder.render())
}
