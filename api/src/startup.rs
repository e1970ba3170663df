//! Building the application: the one way `worp serve` and every integration test start
//! the server. [`Application::build`] opens the store, makes the service, applies every
//! setting of [`Settings`], starts the background work and binds the listener.

use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;

use actix_cors::Cors;
use actix_web::dev::Server;
use actix_web::error::{JsonPayloadError, PathError, QueryPayloadError};
use actix_web::{middleware, web, App, HttpRequest, HttpResponse, HttpServer};
use utoipa_swagger_ui::{Config, SwaggerUi};

use crate::configuration::Settings;
use worp_domain::clock::Clock;
use worp_http::admission::{self, Admission, AdmissionLimits};
use worp_http::lifecycle::{self, Lifecycle};
use worp_http::problem::ApiError;
use worp_http::ratelimit::RateLimit;
use worp_http::routes;
use worp_http::routes::streams::KeepAlive;
use worp_http::timeouts::body_timeout;
use worp_service::accounts::oauth::Issuer;
use worp_service::notifications::Notifier;
use worp_service::{OpenGames, Worp};
use worp_store::{Store, StoreError};
use worp_telemetry::request_id;

/// Why the application could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error("cannot open the database: {0}")]
    Store(#[from] StoreError),
    #[error("WORP_PUBLIC_URL: {0}")]
    PublicUrl(String),
    #[error("notifications: {0}")]
    Notifications(String),
    /// `WORP_VAPID_PRIVATE_KEY` or `WORP_VAPID_SUBJECT` (the message names which).
    #[error("{0}")]
    Push(String),
    #[error("cannot listen on {address}: {source}")]
    Listen {
        address: SocketAddr,
        source: std::io::Error,
    },
}

/// The server, built and listening, not yet running.
pub struct Application {
    address: SocketAddr,
    server: Server,
    worp: Arc<Worp>,
    store: Store,
    lifecycle: Arc<Lifecycle>,
    shutdown_grace: std::time::Duration,
    /// `/metrics` on its own address (`WORP_METRICS_BIND`), if it has one.
    metrics: Option<(SocketAddr, Server)>,
}

impl Application {
    /// Opens the store (running its migrations), makes the service with `clock`, starts
    /// the background work (deadline sweep, webhook deliveries, the relay between
    /// processes) and binds `settings.bind:settings.port` (port 0: any free port).
    pub async fn build(
        settings: Settings,
        clock: Arc<dyn Clock>,
    ) -> Result<Application, StartupError> {
        let store = Store::connect_with(
            &settings.database(),
            settings.db_connections,
            settings.write_queue,
        )
        .await?;
        let bots = settings.bots.clone();
        let gnubg = tokio::task::spawn_blocking(move || worp_service::bots::start_gnubg(&bots))
            .await
            .unwrap_or_default();
        let worp = Worp::new(store.clone(), settings.cache_states, clock)
            .with_bots(settings.bots.clone(), gnubg)
            .with_webhook_allow(settings.webhooks.allow.clone())
            .with_idempotency_ttl(
                chrono::Duration::from_std(settings.idempotency_ttl)
                    .unwrap_or(chrono::Duration::MAX),
            )
            .with_open_games(OpenGames::new(settings.open_games_per_player))
            .with_vacation_days(settings.vacation_days)
            .with_public_url(&settings.public_url)
            .map_err(StartupError::PublicUrl)?
            .with_notifier(
                Notifier::new(settings.notify.clone()).map_err(StartupError::Notifications)?,
            )
            .with_push(&settings.push, &settings.public_url)
            .map_err(StartupError::Push)?;
        // OAuth's issuer and endpoints are on the public URL, never on a request's `Host`.
        let issuer = Issuer::new(&settings.public_url).map_err(StartupError::PublicUrl)?;
        // Before the first registration: names registered before keys were kept take
        // theirs, so that a new name cannot look like one of them. Not a reason to stay
        // down (a database that is read-only for now refuses the keys): `worp rebuild`,
        // run at each upgrade, gives them too.
        match worp.settle_name_keys().await {
            Ok(collisions) if !collisions.is_empty() => tracing::warn!(
                "{} players' names look like an earlier player's or show nothing (kept; \
                 `worp rebuild` lists them)",
                collisions.len()
            ),
            Ok(_) => {}
            Err(e) => tracing::warn!("the players' names could not all be keyed now: {e}"),
        }
        let worp = Arc::new(worp);
        let wanted = SocketAddr::new(settings.bind, settings.port);
        let listen_error = |source| StartupError::Listen {
            address: wanted,
            source,
        };
        let listener = listen(wanted).map_err(listen_error)?;
        let address = listener.local_addr().map_err(listen_error)?;
        worp.start_background(settings.sweep_interval, settings.webhooks.clone());
        let lifecycle = Arc::new(Lifecycle::default());
        let metrics = match settings.metrics_bind {
            None => None,
            Some(wanted) => {
                let listen_error = |source| StartupError::Listen {
                    address: wanted,
                    source,
                };
                let listener = listen(wanted).map_err(listen_error)?;
                let address = listener.local_addr().map_err(listen_error)?;
                let server = serve_metrics(listener, worp.clone()).map_err(listen_error)?;
                Some((address, server))
            }
        };
        let server = serve(listener, worp.clone(), lifecycle.clone(), issuer, &settings)
            .map_err(listen_error)?;
        Ok(Application {
            address,
            server,
            worp,
            store,
            lifecycle,
            shutdown_grace: settings.shutdown_grace,
            metrics,
        })
    }

    /// The address it listens on.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// The address `/metrics` is served on when it has its own (`WORP_METRICS_BIND`).
    pub fn metrics_address(&self) -> Option<SocketAddr> {
        self.metrics.as_ref().map(|(a, _)| *a)
    }

    /// The service (tests reach into it).
    pub fn worp(&self) -> Arc<Worp> {
        self.worp.clone()
    }

    /// The store under the service (tests reach into it; the HTTP crate cannot).
    pub fn store(&self) -> Store {
        self.store.clone()
    }

    /// Whether the server drains (tests reach into it).
    pub fn lifecycle(&self) -> Arc<Lifecycle> {
        self.lifecycle.clone()
    }

    /// Serves until SIGTERM or SIGINT, then drains: `/readyz` answers 503, live streams
    /// end with `event: shutdown`, no connection is accepted any more, and the requests
    /// in flight (with the group commits they wait for) are answered before this returns.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let handle = self.server.handle();
        let (metrics_handle, metrics) = match self.metrics {
            Some((_, server)) => (Some(server.handle()), Some(server)),
            None => (None, None),
        };
        let lifecycle = self.lifecycle.clone();
        let grace = self.shutdown_grace;
        let stopper = tokio::spawn(async move {
            lifecycle::stop_signal().await;
            tracing::info!("stop signal: draining for {grace:?}, then exiting");
            lifecycle.drain();
            tokio::time::sleep(grace).await;
            handle.stop(true).await;
            // Scraped until the API has stopped.
            if let Some(h) = metrics_handle {
                h.stop(true).await;
            }
        });
        if let Some(metrics) = metrics {
            tokio::spawn(metrics);
        }
        let served = self.server.await;
        stopper.abort();
        tracing::info!("stopped");
        served
    }
}

/// How many connections may wait in the kernel to be accepted while the server serves
/// `max_connections` (the kernel caps it at `net.core.somaxconn`). The standard
/// library's `bind` allows 128: a burst beyond that would see its connections refused.
const BACKLOG: u32 = 1024;

/// Binds `address` (reusing it, as the standard library does) with [`BACKLOG`].
fn listen(address: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = if address.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.bind(address)?;
    socket.listen(BACKLOG)?.into_std()
}

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

async fn openapi_json() -> Result<HttpResponse, ApiError> {
    let doc = worp_http::openapi::openapi_json()
        .map_err(|e| ApiError::unserialisable("the OpenAPI document", e))?;
    Ok(HttpResponse::Ok()
        .content_type("application/json")
        .body(doc))
}

fn cors(settings: &Settings) -> Cors {
    let mut cors = Cors::default()
        .allow_any_method()
        .allow_any_header()
        .expose_headers([
            "etag",
            "location",
            "idempotent-replayed",
            "retry-after",
            request_id::HEADER,
        ])
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

/// Serves the API on `listener`; the returned server runs until stopped.
fn serve(
    listener: TcpListener,
    worp: Arc<Worp>,
    lifecycle: Arc<Lifecycle>,
    issuer: Issuer,
    settings: &Settings,
) -> std::io::Result<Server> {
    let worp = web::Data::from(worp);
    let lifecycle = web::Data::from(lifecycle);
    let issuer = web::Data::new(issuer);
    let recorder = web::Data::new(worp_telemetry::metrics::handle());
    let public_metrics = settings.metrics_bind.is_none();
    let settings = settings.clone();
    let limiter = RateLimit::new(settings.rate_limits)
        .with_registrations(settings.players_per_hour_per_address);
    let body_limit = settings.body_timeout;
    // actix-web caps connections per worker: each takes its share of the cap.
    let workers = settings.workers;
    let per_worker = settings.max_connections.div_ceil(workers).max(1);
    let header_timeout = settings.header_timeout;
    let shutdown_timeout = settings.shutdown_timeout.as_secs();
    let keepalive = web::Data::new(KeepAlive(settings.sse_keepalive));
    let admission = Admission::new(AdmissionLimits {
        connections_per_address: settings.connections_per_address,
        streams_per_address: settings.streams_per_address,
        max_connections: settings.max_connections,
    });
    let admitted = web::Data::from(admission.clone());
    let keep_alive = settings.keep_alive;
    let keep_alive_header = format!("timeout={}", keep_alive.as_secs());
    // The access log renders every request before it knows whether the line will be
    // written: leave it out when its level is off (`RUST_LOG=warn`).
    let access_log =
        tracing::enabled!(target: "actix_web::middleware::logger", tracing::Level::INFO);
    let server = HttpServer::new(move || {
        let limit = settings.body_limit;
        App::new()
            .wrap(middleware::from_fn(move |req, next| {
                body_timeout(body_limit, req, next)
            }))
            .wrap(middleware::from_fn(lifecycle::close_when_draining))
            .wrap(limiter.clone())
            .wrap(middleware::Condition::new(
                access_log,
                middleware::Logger::new("%a \"%r\" %s %b %Dms %{x-request-id}i")
                    .exclude("/healthz")
                    .exclude("/readyz")
                    .exclude("/metrics"),
            ))
            .wrap(cors(&settings))
            .wrap(middleware::Compress::default())
            .wrap(middleware::from_fn(worp_telemetry::metrics::http_metrics))
            .wrap(middleware::from_fn(request_id::request_id))
            // How long an idle connection is kept, said to clients that pool them.
            .wrap(middleware::DefaultHeaders::new().add(("keep-alive", keep_alive_header.clone())))
            // Outermost: a refused connection's request does nothing else.
            .wrap(middleware::from_fn(admission::refuse_marked))
            .app_data(worp.clone())
            .app_data(admitted.clone())
            .app_data(keepalive.clone())
            .app_data(lifecycle.clone())
            .app_data(issuer.clone())
            .app_data(recorder.clone())
            .app_data(
                web::JsonConfig::default()
                    .limit(limit)
                    .error_handler(json_error),
            )
            .app_data(web::PayloadConfig::new(limit))
            .app_data(web::QueryConfig::default().error_handler(query_error))
            .app_data(web::PathConfig::default().error_handler(path_error))
            .configure(routes::configure)
            // `/metrics` here unless it has an address of its own.
            .configure(|cfg| {
                if public_metrics {
                    cfg.service(routes::health::metrics);
                }
            })
            .route("/openapi.json", web::get().to(openapi_json))
            .service(SwaggerUi::new("/docs/{_:.*}").config(Config::new(["/openapi.json"])))
            // The documentation's address without its slash (as the README gives it).
            .route(
                "/docs",
                web::get().to(|| async {
                    HttpResponse::PermanentRedirect()
                        .insert_header((actix_web::http::header::LOCATION, "/docs/"))
                        .finish()
                }),
            )
            .default_service(web::to(not_found))
    })
    .on_connect(move |connection, data| {
        send_at_once(connection);
        admission::on_connect(&admission, connection, data);
    })
    .keep_alive(keep_alive)
    .workers(workers)
    .max_connections(per_worker)
    .backlog(BACKLOG)
    .client_request_timeout(header_timeout)
    // `run_until_stopped` handles the signals: it drains before actix-web stops.
    .disable_signals()
    .shutdown_timeout(shutdown_timeout)
    .listen(listener)?
    .run();
    Ok(server)
}

/// Turns Nagle's algorithm off on each connection, so that every write of an answer
/// leaves at once. A compressed answer is written in pieces (its head and first chunk,
/// then the last chunk): with Nagle on, the last small piece waited for the client's
/// acknowledgement of the first, which clients delay by up to 40 ms, so every
/// compressed answer on a kept-alive connection took about 40 ms.
fn send_at_once(connection: &dyn std::any::Any) {
    if let Some(tcp) = connection.downcast_ref::<actix_web::rt::net::TcpStream>() {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!(error = %e, "TCP_NODELAY not set on a connection");
        }
    }
}

/// Serves only `GET /metrics` on `listener` (`WORP_METRICS_BIND`), on one worker.
fn serve_metrics(listener: TcpListener, worp: Arc<Worp>) -> std::io::Result<Server> {
    let worp = web::Data::from(worp);
    let recorder = web::Data::new(worp_telemetry::metrics::handle());
    let server = HttpServer::new(move || {
        App::new()
            .app_data(worp.clone())
            .app_data(recorder.clone())
            .service(routes::health::metrics)
            .default_service(web::to(not_found))
    })
    .workers(1)
    .disable_signals()
    .listen(listener)?
    .run();
    Ok(server)
}
