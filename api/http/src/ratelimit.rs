//! Request rate limits per bearer token and per client address (token buckets).
//!
//! A request spends one token from the bucket of its bearer token (if any) and one from
//! the bucket of its peer address. The token is read as `auth.rs` reads it (the scheme in
//! any case, whitespace trimmed), so a respelt `Authorization` header is the same bucket.
//! A registration (`POST /v1/players`) also spends one from its address's bucket of
//! registrations, which holds an hour's worth (`WORP_PLAYERS_PER_HOUR_PER_ADDRESS`,
//! default 20). An empty bucket answers 429
//! `application/problem+json` with `Retry-After` (whole seconds until a token is back).
//! Buckets hold one minute's worth and refill continuously. Configured by
//! `WORP_RATE_PER_MINUTE` (per token, default 6000) and `WORP_RATE_PER_MINUTE_PER_ADDRESS`
//! (per client address, default 60000), read into `Settings`; `0` turns a limit off. The defaults are far
//! above what a person or a front-end does, so normal play and the test suites never meet
//! them. The operators' probes ([`UNLIMITED`]: `/healthz`, `/readyz`, `/metrics`) are not
//! limited. Only a hash of the token is kept.
//!
//! Not `governor`: its keyed limiters hold one quota each and have no check that spends
//! nothing (`check_key` spends a cell whenever it passes, and nothing gives one back), so
//! the three buckets here would be three limiters checked one after another. A request
//! refused by one bucket would then have spent from those checked before it (an
//! over-limit token draining its address's bucket for everyone behind that address, or
//! the reverse), where here a refused request spends nothing
//! (`a_refused_request_spends_from_no_bucket`).

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::future::{ready, Future, Ready};
use std::hash::{Hash, Hasher};
use std::net::IpAddr;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use actix_web::body::EitherBody;
use actix_web::dev::{Service, ServiceRequest, ServiceResponse, Transform};
use actix_web::http::{header, Method};
use actix_web::HttpResponse;

use crate::problem::Problem;

/// Requests per minute; 0 means unlimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Per bearer token (`WORP_RATE_PER_MINUTE`).
    pub per_token: u32,
    /// Per client address (`WORP_RATE_PER_MINUTE_PER_ADDRESS`).
    pub per_address: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            per_token: 6_000,
            per_address: 60_000,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Key {
    Token(u64),
    Address(IpAddr),
    Registrations(IpAddr),
}

/// A bucket's size and the time it takes to refill from empty.
#[derive(Debug, Clone, Copy)]
struct Rate {
    cap: f64,
    per_secs: f64,
}

impl Rate {
    fn per_minute(n: u32) -> Rate {
        Rate {
            cap: f64::from(n),
            per_secs: 60.0,
        }
    }
}

#[derive(Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// The paths no limit applies to: the operators' probes and scrapes.
pub const UNLIMITED: [&str; 3] = ["/healthz", "/readyz", "/metrics"];

/// The path of `POST` registering a player.
const REGISTRATION: &str = "/v1/players";

/// The most buckets kept before full (idle) ones are dropped.
const PRUNE_AT: usize = 100_000;

/// The limiter, shared by every worker; `.wrap(RateLimit::new(settings.rate_limits))`.
#[derive(Debug, Clone)]
pub struct RateLimit {
    limits: Limits,
    /// Registrations per hour per address; 0 means unlimited.
    registrations: u32,
    buckets: Arc<Mutex<HashMap<Key, Bucket>>>,
}

impl RateLimit {
    pub fn new(limits: Limits) -> RateLimit {
        RateLimit {
            limits,
            registrations: 0,
            buckets: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    /// Also limits registrations (`POST /v1/players`) to `per_hour` per client address
    /// (0: no limit).
    pub fn with_registrations(mut self, per_hour: u32) -> RateLimit {
        self.registrations = per_hour;
        self
    }

    /// The size and refill time of a kind of bucket.
    fn rate(&self, key: &Key) -> Rate {
        match key {
            Key::Token(_) => Rate::per_minute(self.limits.per_token),
            Key::Address(_) => Rate::per_minute(self.limits.per_address),
            Key::Registrations(_) => Rate {
                cap: f64::from(self.registrations),
                per_secs: 3600.0,
            },
        }
    }

    /// Spends one token of each bucket the request falls in; on refusal, how long until
    /// the emptiest one has a token again. `token` is the bearer token as `auth.rs`
    /// reads it; `registration`, whether the request registers a player.
    fn check(
        &self,
        token: Option<&str>,
        address: Option<IpAddr>,
        registration: bool,
    ) -> Result<(), Duration> {
        let now = Instant::now();
        let mut keys = Vec::with_capacity(3);
        if let Some(t) = token {
            let mut h = DefaultHasher::new();
            t.hash(&mut h);
            keys.push(Key::Token(h.finish()));
        }
        if let Some(a) = address {
            keys.push(Key::Address(a));
            if registration {
                keys.push(Key::Registrations(a));
            }
        }
        // A limit of 0 is no limit.
        keys.retain(|k| self.rate(k).cap > 0.0);
        if keys.is_empty() {
            return Ok(());
        }
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if buckets.len() > PRUNE_AT {
            buckets.retain(|k, b| {
                let Rate { cap, per_secs } = self.rate(k);
                let refill = now.duration_since(b.at).as_secs_f64() * cap / per_secs;
                b.tokens + refill < cap
            });
        }
        // Refill every bucket first; spend only if all have a token.
        let mut wait = Duration::ZERO;
        for key in &keys {
            let Rate { cap, per_secs } = self.rate(key);
            let rate = cap / per_secs;
            let b = buckets.entry(*key).or_insert(Bucket {
                tokens: cap,
                at: now,
            });
            b.tokens = (b.tokens + now.duration_since(b.at).as_secs_f64() * rate).min(cap);
            b.at = now;
            if b.tokens < 1.0 {
                wait = wait.max(Duration::from_secs_f64((1.0 - b.tokens) / rate));
            }
        }
        if wait > Duration::ZERO {
            return Err(wait);
        }
        for key in &keys {
            if let Some(b) = buckets.get_mut(key) {
                b.tokens -= 1.0;
            }
        }
        Ok(())
    }
}

fn too_many(wait: Duration) -> HttpResponse {
    let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    let secs = secs.max(1);
    worp_telemetry::metrics::rate_limited();
    HttpResponse::TooManyRequests()
        .content_type("application/problem+json")
        .insert_header((header::RETRY_AFTER, secs.to_string()))
        .json(Problem::new(
            "rate-limited",
            "Too many requests",
            429,
            format!("too many requests; try again in {secs} s"),
        ))
}

impl<S, B> Transform<S, ServiceRequest> for RateLimit
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = actix_web::Error> + 'static,
    B: 'static,
{
    type Response = ServiceResponse<EitherBody<B>>;
    type Error = actix_web::Error;
    type Transform = RateLimitService<S>;
    type InitError = ();
    type Future = Ready<Result<Self::Transform, Self::InitError>>;

    fn new_transform(&self, service: S) -> Self::Future {
        ready(Ok(RateLimitService {
            service: Rc::new(service),
            limiter: self.clone(),
        }))
    }
}

/// The middleware service of [`RateLimit`].
pub struct RateLimitService<S> {
    service: Rc<S>,
    limiter: RateLimit,
}

type LocalBoxFuture<T> = Pin<Box<dyn Future<Output = T>>>;

impl<S, B> Service<ServiceRequest> for RateLimitService<S>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = actix_web::Error> + 'static,
    B: 'static,
{
    type Response = ServiceResponse<EitherBody<B>>;
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<Result<Self::Response, Self::Error>>;

    actix_web::dev::forward_ready!(service);

    fn call(&self, req: ServiceRequest) -> Self::Future {
        if !UNLIMITED.contains(&req.path()) {
            // A web session is a credential like a token: its cookie has a bucket too.
            let session = crate::auth::session_secret(req.request());
            let token = crate::auth::bearer_token(req.headers()).or(session.as_deref());
            let address = req.peer_addr().map(|a| a.ip());
            let registration = req.method() == Method::POST && req.path() == REGISTRATION;
            if let Err(wait) = self.limiter.check(token, address, registration) {
                let resp = too_many(wait).map_into_right_body();
                let (req, _) = req.into_parts();
                return Box::pin(ready(Ok(ServiceResponse::new(req, resp))));
            }
        }
        let service = self.service.clone();
        Box::pin(async move { Ok(service.call(req).await?.map_into_left_body()) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::{test as atest, web, App};

    async fn ok() -> HttpResponse {
        HttpResponse::Ok().finish()
    }

    #[actix_web::test]
    async fn a_token_over_its_limit_gets_429_with_retry_after_and_others_do_not() {
        let limiter = RateLimit::new(Limits {
            per_token: 3,
            per_address: 0,
        });
        let app = atest::init_service(
            App::new()
                .wrap(limiter)
                .route("/x", web::get().to(ok))
                .route("/healthz", web::get().to(ok)),
        )
        .await;
        let get = |token: &'static str| {
            atest::TestRequest::get()
                .uri("/x")
                .insert_header((header::AUTHORIZATION, format!("Bearer {token}")))
                .to_request()
        };
        for _ in 0..3 {
            assert_eq!(atest::call_service(&app, get("a")).await.status(), 200);
        }
        let resp = atest::call_service(&app, get("a")).await;
        assert_eq!(resp.status(), 429);
        assert_eq!(
            resp.headers()
                .get(header::CONTENT_TYPE)
                .map(|v| v.as_bytes()),
            Some(&b"application/problem+json"[..])
        );
        // 3 per minute: one token is back after 20 s.
        let retry: u64 = resp
            .headers()
            .get(header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse().ok())
            .expect("Retry-After in seconds");
        assert!((1..=20).contains(&retry), "{retry}");
        let body: serde_json::Value = atest::read_body_json(resp).await;
        assert_eq!(body["status"], 429);
        // Another token and the health check are not limited by a's bucket.
        assert_eq!(atest::call_service(&app, get("b")).await.status(), 200);
        let health = atest::TestRequest::get()
            .uri("/healthz")
            .insert_header((header::AUTHORIZATION, "Bearer a"))
            .to_request();
        assert_eq!(atest::call_service(&app, health).await.status(), 200);
    }

    #[actix_web::test]
    async fn an_address_over_its_limit_gets_429_whatever_the_token() {
        let limiter = RateLimit::new(Limits {
            per_token: 0,
            per_address: 2,
        });
        let app =
            atest::init_service(App::new().wrap(limiter).route("/x", web::get().to(ok))).await;
        let from = |token: &str, ip: [u8; 4]| {
            atest::TestRequest::get()
                .uri("/x")
                .peer_addr((ip, 4000).into())
                .insert_header((header::AUTHORIZATION, format!("Bearer {token}")))
                .to_request()
        };
        let here = [10, 0, 0, 1];
        assert_eq!(
            atest::call_service(&app, from("a", here)).await.status(),
            200
        );
        assert_eq!(
            atest::call_service(&app, from("b", here)).await.status(),
            200
        );
        assert_eq!(
            atest::call_service(&app, from("c", here)).await.status(),
            429
        );
        assert_eq!(
            atest::call_service(&app, from("c", [10, 0, 0, 2]))
                .await
                .status(),
            200
        );
    }

    #[test]
    fn buckets_refill_over_time() {
        let limiter = RateLimit::new(Limits {
            per_token: 60,
            per_address: 0,
        });
        for _ in 0..60 {
            assert!(limiter.check(Some("t"), None, false).is_ok());
        }
        let wait = limiter.check(Some("t"), None, false).expect_err("empty");
        assert!(wait <= Duration::from_secs(1));
        std::thread::sleep(Duration::from_millis(1100));
        assert!(limiter.check(Some("t"), None, false).is_ok());
    }

    #[test]
    fn a_refused_request_spends_from_no_bucket() {
        let (x, y): (IpAddr, IpAddr) = ([10, 0, 0, 1].into(), [10, 0, 0, 2].into());
        // Refused for its address: its token's bucket keeps what it had.
        let limiter = RateLimit::new(Limits {
            per_token: 3,
            per_address: 2,
        });
        for _ in 0..2 {
            assert!(limiter.check(Some("a"), Some(x), false).is_ok());
        }
        for _ in 0..5 {
            assert!(limiter.check(Some("a"), Some(x), false).is_err());
        }
        assert!(
            limiter.check(Some("a"), Some(y), false).is_ok(),
            "a's third"
        );
        // Refused for its token: its address's bucket keeps what it had.
        let limiter = RateLimit::new(Limits {
            per_token: 1,
            per_address: 3,
        });
        assert!(limiter.check(Some("b"), Some(x), false).is_ok());
        for _ in 0..5 {
            assert!(limiter.check(Some("b"), Some(x), false).is_err());
        }
        for other in ["c", "d"] {
            assert!(
                limiter.check(Some(other), Some(x), false).is_ok(),
                "{other}"
            );
        }
    }

    #[test]
    fn the_defaults_are_generous_and_zero_turns_a_limit_off() {
        let d = Limits::default();
        assert!(d.per_token >= 1000 && d.per_address >= d.per_token);
        let off = RateLimit::new(Limits {
            per_token: 0,
            per_address: 0,
        });
        for _ in 0..10_000 {
            assert!(off
                .check(Some("t"), Some([127, 0, 0, 1].into()), true)
                .is_ok());
        }
    }
}
