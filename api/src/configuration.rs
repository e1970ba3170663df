//! Settings, from environment variables only (so a container needs nothing else).

use std::net::IpAddr;

use worp_http::ratelimit::Limits;

/// Everything `worp serve` can be told.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `DATABASE_URL`: `postgres://…` for PostgreSQL; absent for the embedded SQLite file.
    pub database_url: Option<String>,
    /// `WORP_SQLITE_PATH`: the SQLite file when no `DATABASE_URL` is set.
    pub sqlite_path: String,
    /// `WORP_BIND`: the address to listen on.
    pub bind: IpAddr,
    /// `PORT` (or `WORP_PORT`): the port to listen on.
    pub port: u16,
    /// `WORP_CORS_ORIGINS`: comma-separated origins allowed to call the API from a
    /// browser, or `*` for any.
    pub cors_origins: Vec<String>,
    /// `WORP_PUBLIC_URL`: where browsers reach the server; its host is the passkeys'
    /// relying party (default `http://localhost:<port>`).
    pub public_url: String,
    /// `WORP_BODY_LIMIT`: the largest request body in bytes.
    pub body_limit: usize,
    /// `WORP_CACHE_STATES`: how many game states the cache keeps.
    pub cache_states: usize,
    /// `WORP_DB_CONNECTIONS`: PostgreSQL pool size.
    pub db_connections: u32,
    /// `WORP_CLOCK_SWEEP_SECS`: how often overdue moves are looked for.
    pub sweep_interval: std::time::Duration,
    /// `WORP_SSE_KEEPALIVE_SECS`: the longest silence on a live stream.
    pub sse_keepalive: std::time::Duration,
    /// `WORP_WEBHOOK_BACKOFF_SECS`: the first retry wait of a failed webhook delivery;
    /// `WORP_WEBHOOK_ALLOW`: comma-separated CIDR ranges that are not public which
    /// webhooks may reach anyway (none by default).
    pub webhooks: worp_service::webhooks::WebhookSettings,
    /// `WORP_SMTP_URL`, `WORP_MAIL_FROM`, `WORP_NOTIFY_COALESCE_SECS`,
    /// `WORP_CLOCK_REMINDERS`, `WORP_NOTIFY_POLL_MS`, `WORP_NOTIFY_BACKOFF_SECS`: mail and
    /// push (docs/notifications.md).
    pub notify: worp_service::notifications::NotifySettings,
    /// `WORP_VAPID_PRIVATE_KEY`: the Web Push VAPID private key (the P-256 scalar,
    /// base64url; unset: made once and kept in the database); `WORP_VAPID_SUBJECT`: the
    /// contact push services see (default `mailto:noreply@<host of WORP_PUBLIC_URL>`).
    pub push: worp_service::push::PushSettings,
    /// `WORP_RATE_PER_MINUTE` and `WORP_RATE_PER_MINUTE_PER_ADDRESS`: requests per minute
    /// per bearer token and per client address (`0`: no limit).
    pub rate_limits: worp_http::ratelimit::Limits,
    /// `WORP_WRITE_QUEUE`: how many changes may wait for the group commit (PostgreSQL);
    /// beyond, appends answer 503 with `Retry-After`.
    pub write_queue: usize,
    /// `WORP_IDEMPOTENCY_TTL_SECS`: how long an `Idempotency-Key` answer is kept.
    pub idempotency_ttl: std::time::Duration,
    /// `WORP_PLAYERS_PER_HOUR_PER_ADDRESS`: players one client address may register per
    /// hour (`0`: no limit).
    pub players_per_hour_per_address: u32,
    /// `WORP_OPEN_GAMES_PER_PLAYER`: waiting games a player may have created at once
    /// (`0`: no limit).
    pub open_games_per_player: u32,
    /// `WORP_VACATION_DAYS`: the days of vacation each player may take per calendar
    /// year (UTC), their correspondence clocks paused meanwhile (docs/vacation.md).
    pub vacation_days: u32,
    /// `WORP_GNUBG` (the program, or `off`), `WORP_GNUBG_WORKERS`, `WORP_BOT_QUEUE`,
    /// `WORP_BOT_TIMEOUT_SECS`: how bots that think are run; `WORP_ANALYSIS_PLIES`,
    /// `WORP_ANALYSIS_TIMEOUT_SECS`: how games are analysed (docs/bots.md).
    pub bots: worp_service::bots::BotSettings,
    /// `WORP_HEADER_TIMEOUT_SECS`: the longest wait for a request's head.
    pub header_timeout: std::time::Duration,
    /// `WORP_BODY_TIMEOUT_SECS`: the longest wait for a request's whole body.
    pub body_timeout: std::time::Duration,
    /// `WORP_MAX_CONNECTIONS`: the most connections served at once; more wait to be
    /// accepted. Default: nine tenths of the open-file limit (which `worp serve` raises
    /// to its hard limit at start), less 100 ([`worp_http::admission::default_max_connections`]).
    pub max_connections: usize,
    /// `WORP_CONNECTIONS_PER_ADDRESS` (default 64) and `WORP_STREAMS_PER_ADDRESS`
    /// (default 32): connections and live streams one client address (an IPv6 /64) may
    /// hold at once; `0`: no limit ([`worp_http::admission`]).
    pub connections_per_address: usize,
    pub streams_per_address: usize,
    /// `WORP_KEEPALIVE_SECS`: how long an idle connection is kept open for its next
    /// request (default 30), announced in every answer's `Keep-Alive: timeout=…`.
    pub keep_alive: std::time::Duration,
    /// `WORP_WORKERS`: the threads that serve HTTP, 1 to 64 (default 1). Each thread's
    /// changes share one statement and one durable commit on PostgreSQL, so one thread
    /// makes the fewest, largest commits; more serve more requests at once where the
    /// HTTP work outgrows one core (many cores, the database on another machine).
    pub workers: usize,
    /// `WORP_SHUTDOWN_GRACE_SECS`: after SIGTERM, how long the server keeps accepting
    /// (answering `/readyz` 503 and closing each connection after its answer) before it
    /// stops listening; `0`: stop listening at once.
    pub shutdown_grace: std::time::Duration,
    /// `WORP_SHUTDOWN_TIMEOUT_SECS`: then, the longest wait for the requests in flight.
    pub shutdown_timeout: std::time::Duration,
    /// `WORP_LOG_FORMAT`: `text` (the default) or `json` (one object per line); the level
    /// is `RUST_LOG`'s. Applied by `worp serve` when it installs the log subscriber.
    pub log_format: worp_telemetry::logs::LogFormat,
    /// `WORP_METRICS_BIND`: an address (`host:port`) to serve `GET /metrics` on instead
    /// of the API's; unset: `/metrics` is served with the API.
    pub metrics_bind: Option<std::net::SocketAddr>,
    /// `WORP_OTLP_ENDPOINT`: an OTLP/HTTP collector (`http://host:4318`) to send traces
    /// to; unset (the default): no traces. Applied by `worp serve` with the logs.
    pub otlp_endpoint: Option<String>,
}

/// A setting that could not be read.
#[derive(Debug, thiserror::Error)]
#[error("{name}: {reason}")]
pub struct SettingError {
    pub name: &'static str,
    pub reason: String,
}

/// The default PostgreSQL pool on a machine of `cores` cores: two connections a core, at
/// least four. The pool's reads are short, and it hands out its idle connections in turn:
/// more than the cores can run leaves each backend asleep and cold between its queries.
/// At 32 clients on two cores, 16 connections cost PostgreSQL 45.7 µs a move where 4
/// cost 43.4 (BENCHMARKS.md). The writers of the group commit have their own.
pub fn db_connections_for(cores: usize) -> u32 {
    u32::try_from(cores.saturating_mul(2))
        .unwrap_or(u32::MAX)
        .max(4)
}

fn bot_settings() -> Result<worp_service::bots::BotSettings, SettingError> {
    let defaults = worp_service::bots::BotSettings::default();
    let gnubg = var("WORP_GNUBG");
    Ok(worp_service::bots::BotSettings {
        gnubg: gnubg.as_deref() != Some("off"),
        gnubg_program: gnubg.filter(|g| g != "off").map(Into::into),
        workers: parsed("WORP_GNUBG_WORKERS", defaults.workers)?.max(1),
        queue: parsed("WORP_BOT_QUEUE", defaults.queue)?.max(1),
        timeout: seconds("WORP_BOT_TIMEOUT_SECS", defaults.timeout.as_secs())?,
        analysis_plies: parsed("WORP_ANALYSIS_PLIES", defaults.analysis_plies)?.min(4),
        analysis_timeout: seconds(
            "WORP_ANALYSIS_TIMEOUT_SECS",
            defaults.analysis_timeout.as_secs(),
        )?,
    })
}

fn var(name: &'static str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

fn parsed<T: std::str::FromStr>(name: &'static str, default: T) -> Result<T, SettingError>
where
    T::Err: std::fmt::Display,
{
    match var(name) {
        None => Ok(default),
        Some(v) => v.trim().parse().map_err(|e: T::Err| SettingError {
            name,
            reason: format!("{v:?}: {e}"),
        }),
    }
}

/// A duration in whole seconds, at least one.
fn seconds(name: &'static str, default: u64) -> Result<std::time::Duration, SettingError> {
    Ok(std::time::Duration::from_secs(
        parsed(name, default)?.max(1),
    ))
}

/// A list of times like `24h,1h,30m`.
fn durations(name: &'static str, text: &str) -> Result<Vec<chrono::Duration>, SettingError> {
    text.split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| {
            let (number, unit) = t.split_at(t.len() - 1);
            let n: i64 = number.parse().map_err(|_| SettingError {
                name,
                reason: format!("{t:?} is not a number of hours (h) or minutes (m)"),
            })?;
            match unit {
                "h" if n > 0 => Ok(chrono::Duration::hours(n)),
                "m" if n > 0 => Ok(chrono::Duration::minutes(n)),
                _ => Err(SettingError {
                    name,
                    reason: format!("{t:?} is not a number of hours (h) or minutes (m)"),
                }),
            }
        })
        .collect()
}

fn notify_settings(port: u16) -> Result<worp_service::notifications::NotifySettings, SettingError> {
    let public_url = var("WORP_PUBLIC_URL").unwrap_or_else(|| format!("http://localhost:{port}"));
    // The host of the URL: after the scheme, before any port or path.
    let host = public_url
        .split_once("://")
        .map_or(public_url.as_str(), |(_, rest)| rest)
        .split(['/', ':'])
        .next()
        .filter(|h| !h.is_empty())
        .unwrap_or("localhost")
        .to_owned();
    Ok(worp_service::notifications::NotifySettings {
        smtp_url: var("WORP_SMTP_URL"),
        from: var("WORP_MAIL_FROM").unwrap_or_else(|| format!("Worp <noreply@{host}>")),
        public_url,
        coalesce: chrono::Duration::seconds(parsed("WORP_NOTIFY_COALESCE_SECS", 180i64)?.max(0)),
        reminders: durations(
            "WORP_CLOCK_REMINDERS",
            &var("WORP_CLOCK_REMINDERS").unwrap_or_else(|| "24h,1h".into()),
        )?,
        poll: std::time::Duration::from_millis(parsed("WORP_NOTIFY_POLL_MS", 1000u64)?.max(10)),
        backoff: chrono::Duration::seconds(parsed("WORP_NOTIFY_BACKOFF_SECS", 30i64)?.max(1)),
    })
}

impl Settings {
    /// Reads the settings from the environment.
    pub fn from_env() -> Result<Settings, SettingError> {
        let port = match var("PORT") {
            Some(_) => parsed("PORT", 8080)?,
            None => parsed("WORP_PORT", 8080)?,
        };
        Ok(Settings {
            database_url: var("DATABASE_URL"),
            sqlite_path: var("WORP_SQLITE_PATH").unwrap_or_else(|| "worp.sqlite".into()),
            bind: parsed("WORP_BIND", IpAddr::from([127, 0, 0, 1]))?,
            port,
            public_url: var("WORP_PUBLIC_URL")
                .unwrap_or_else(|| format!("http://localhost:{port}")),
            cors_origins: var("WORP_CORS_ORIGINS")
                .map(|v| {
                    v.split(',')
                        .map(|s| s.trim().to_owned())
                        .filter(|s| !s.is_empty())
                        .collect()
                })
                .unwrap_or_default(),
            body_limit: parsed("WORP_BODY_LIMIT", 64 * 1024)?,
            cache_states: parsed("WORP_CACHE_STATES", 10_000)?,
            db_connections: parsed(
                "WORP_DB_CONNECTIONS",
                db_connections_for(std::thread::available_parallelism().map_or(2, |n| n.get())),
            )?,
            sweep_interval: std::time::Duration::from_secs(
                parsed("WORP_CLOCK_SWEEP_SECS", 30u64)?.max(1),
            ),
            sse_keepalive: std::time::Duration::from_secs(
                parsed("WORP_SSE_KEEPALIVE_SECS", 15u64)?.max(1),
            ),
            webhooks: worp_service::webhooks::WebhookSettings {
                base_backoff: std::time::Duration::from_secs(parsed(
                    "WORP_WEBHOOK_BACKOFF_SECS",
                    10u64,
                )?),
                allow: worp_service::webhooks::parse_allow(
                    &var("WORP_WEBHOOK_ALLOW").unwrap_or_default(),
                )
                .map_err(|reason| SettingError {
                    name: "WORP_WEBHOOK_ALLOW",
                    reason,
                })?,
                ..Default::default()
            },
            notify: notify_settings(port)?,
            push: worp_service::push::PushSettings {
                vapid_private_key: var("WORP_VAPID_PRIVATE_KEY"),
                subject: var("WORP_VAPID_SUBJECT"),
            },
            rate_limits: Limits {
                per_token: parsed("WORP_RATE_PER_MINUTE", Limits::default().per_token)?,
                per_address: parsed(
                    "WORP_RATE_PER_MINUTE_PER_ADDRESS",
                    Limits::default().per_address,
                )?,
            },
            write_queue: parsed("WORP_WRITE_QUEUE", worp_store::WRITE_QUEUE)?.max(1),
            idempotency_ttl: std::time::Duration::from_secs(parsed(
                "WORP_IDEMPOTENCY_TTL_SECS",
                24 * 3600u64,
            )?),
            players_per_hour_per_address: parsed("WORP_PLAYERS_PER_HOUR_PER_ADDRESS", 20)?,
            open_games_per_player: parsed("WORP_OPEN_GAMES_PER_PLAYER", 20)?,
            vacation_days: parsed("WORP_VACATION_DAYS", 30)?,
            bots: bot_settings()?,
            header_timeout: seconds("WORP_HEADER_TIMEOUT_SECS", 5)?,
            body_timeout: seconds("WORP_BODY_TIMEOUT_SECS", 10)?,
            max_connections: parsed(
                "WORP_MAX_CONNECTIONS",
                worp_http::admission::default_max_connections(
                    worp_http::admission::open_file_limit(),
                ),
            )?
            .max(1),
            connections_per_address: parsed(
                "WORP_CONNECTIONS_PER_ADDRESS",
                worp_http::admission::CONNECTIONS_PER_ADDRESS,
            )?,
            streams_per_address: parsed(
                "WORP_STREAMS_PER_ADDRESS",
                worp_http::admission::STREAMS_PER_ADDRESS,
            )?,
            keep_alive: seconds("WORP_KEEPALIVE_SECS", 30)?,
            workers: match parsed("WORP_WORKERS", 1usize)? {
                n @ 1..=64 => n,
                _ => {
                    return Err(SettingError {
                        name: "WORP_WORKERS",
                        reason: "must be a number of threads from 1 to 64".into(),
                    })
                }
            },
            shutdown_grace: std::time::Duration::from_secs(parsed(
                "WORP_SHUTDOWN_GRACE_SECS",
                1u64,
            )?),
            shutdown_timeout: seconds("WORP_SHUTDOWN_TIMEOUT_SECS", 30)?,
            log_format: parsed("WORP_LOG_FORMAT", Default::default())?,
            metrics_bind: match var("WORP_METRICS_BIND") {
                None => None,
                Some(_) => Some(parsed("WORP_METRICS_BIND", ([127, 0, 0, 1], 9100).into())?),
            },
            otlp_endpoint: var("WORP_OTLP_ENDPOINT"),
        })
    }

    /// The database to open: `DATABASE_URL`, else the SQLite file.
    pub fn database(&self) -> String {
        self.database_url
            .clone()
            .unwrap_or_else(|| self.sqlite_path.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_pool_has_two_connections_a_core_and_at_least_four() {
        assert_eq!(db_connections_for(1), 4);
        assert_eq!(db_connections_for(2), 4);
        assert_eq!(db_connections_for(3), 6);
        assert_eq!(db_connections_for(16), 32);
    }
}
