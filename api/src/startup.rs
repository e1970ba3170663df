//! Building and running the HTTP server.

use std::net::TcpListener;
use std::sync::Arc;

use actix_cors::Cors;
use actix_web::dev::Server;
use actix_web::error::{JsonPayloadError, PathError, QueryPayloadError};
use actix_web::{middleware, web, App, HttpRequest, HttpResponse, HttpServer};
use utoipa::OpenApi;
use utoipa_swagger_ui::SwaggerUi;

use crate::configuration::Settings;
use crate::openapi::ApiDoc;
use crate::problem::ApiError;
use crate::routes;
use crate::service::Worp;

fn json_error(err: JsonPayloadError, _: &HttpRequest) -> actix_web::Error {
    let e = match &err {
        JsonPayloadError::Overflow { limit }
        | JsonPayloadError::OverflowKnownLength { limit, .. } => {
            ApiError::PayloadTooLarge(format!("the body is larger than {limit} bytes"))
        }
        JsonPayloadError::ContentType => {
            ApiError::BadRequest("send the body as Content-Type: application/json".into())
        }
        other => ApiError::BadRequest(format!("malformed body: {other}")),
    };
    e.into()
}

fn query_error(err: QueryPayloadError, _: &HttpRequest) -> actix_web::Error {
    ApiError::BadRequest(format!("malformed query: {err}")).into()
}

fn path_error(err: PathError, _: &HttpRequest) -> actix_web::Error {
    ApiError::NotFound(format!("no such resource: {err}")).into()
}

async fn not_found(req: HttpRequest) -> HttpResponse {
    actix_web::ResponseError::error_response(&ApiError::NotFound(format!(
        "no route {} {}",
        req.method(),
        req.path()
    )))
}

async fn openapi_json() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(crate::openapi::openapi_json())
}

fn cors(settings: &Settings) -> Cors {
    let mut cors = Cors::default()
        .allow_any_method()
        .allow_any_header()
        .expose_headers(["etag", "location", "idempotent-replayed", "retry-after"])
        .max_age(3600);
    if settings.cors_origins.iter().any(|o| o == "*") {
        cors = cors.allow_any_origin();
    } else {
        for origin in &settings.cors_origins {
            cors = cors.allowed_origin(origin);
        }
    }
    cors
}

/// Starts serving on `listener`; the returned server runs until stopped.
pub fn run(listener: TcpListener, worp: Arc<Worp>, settings: &Settings) -> std::io::Result<Server> {
    let worp = web::Data::from(worp);
    let settings = settings.clone();
    let limiter = crate::ratelimit::RateLimit::from_env();
    // The access log renders every request before it knows whether the line will be
    // written: leave it out when its level is off (`RUST_LOG=warn`).
    let access_log =
        tracing::enabled!(target: "actix_web::middleware::logger", tracing::Level::INFO);
    let server = HttpServer::new(move || {
        let limit = settings.body_limit;
        App::new()
            .wrap(limiter.clone())
            .wrap(middleware::Condition::new(
                access_log,
                middleware::Logger::new("%a \"%r\" %s %b %Dms").exclude("/healthz"),
            ))
            .wrap(cors(&settings))
            .wrap(middleware::Compress::default())
            .app_data(worp.clone())
            .app_data(
                web::JsonConfig::default()
                    .limit(limit)
                    .error_handler(json_error),
            )
            .app_data(web::PayloadConfig::new(limit))
            .app_data(web::QueryConfig::default().error_handler(query_error))
            .app_data(web::PathConfig::default().error_handler(path_error))
            .configure(routes::configure)
            .route("/openapi.json", web::get().to(openapi_json))
            .service(SwaggerUi::new("/docs/{_:.*}").url("/docs/openapi.json", ApiDoc::openapi()))
            .default_service(web::to(not_found))
    })
    .listen(listener)?
    .run();
    Ok(server)
}

/// Starts the server's own work: time-outs of overdue moves, webhook deliveries and (on
/// PostgreSQL) relaying other processes' changes to this one's live streams.
pub fn spawn_background(worp: Arc<Worp>, settings: &Settings) {
    let sweep = settings.sweep_interval;
    let w = worp.clone();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(sweep);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            match w.sweep_deadlines().await {
                Ok(0) => {}
                Ok(n) => tracing::info!("{n} seats ran out of time"),
                Err(e) => tracing::warn!("the deadline sweep failed: {e}"),
            }
        }
    });
    tokio::spawn(crate::webhooks::run(
        worp.clone(),
        settings.webhooks.clone(),
    ));
    tokio::spawn(crate::live::announce(worp.store.clone(), worp.clone()));
    tokio::spawn(crate::live::relay_postgres(worp.store.clone(), worp));
}
