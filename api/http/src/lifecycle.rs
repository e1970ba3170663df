//! The server's life: ready for traffic, then draining after SIGTERM (or SIGINT).
//!
//! On a stop signal the server drains: `/readyz` answers 503 from then on, the live
//! streams send a last `event: shutdown` and end, and every answer carries
//! `Connection: close`, so that no client sends another request on a connection the
//! server is about to close. After the grace (`WORP_SHUTDOWN_GRACE_SECS`, for load
//! balancers to see `/readyz` fail), actix-web stops accepting connections and waits for
//! the requests in flight (whose group commits they await) to be answered; then the
//! process exits.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::ConnectionType;
use actix_web::middleware::Next;
use actix_web::web;
use tokio::sync::watch;

/// Whether the server is draining; shared by the readiness route, the live streams and
/// the signal handler.
#[derive(Debug)]
pub struct Lifecycle {
    draining: watch::Sender<bool>,
}

impl Default for Lifecycle {
    fn default() -> Self {
        Lifecycle {
            draining: watch::Sender::new(false),
        }
    }
}

impl Lifecycle {
    /// Starts draining (idempotent).
    pub fn drain(&self) {
        self.draining.send_replace(true);
    }

    /// Whether the server drains.
    pub fn is_draining(&self) -> bool {
        *self.draining.borrow()
    }

    /// A watch that a live stream keeps to learn that the server drains.
    pub fn watch(&self) -> Drain {
        Drain(self.draining.subscribe())
    }
}

/// One reader's view of [`Lifecycle`].
#[derive(Debug, Clone)]
pub struct Drain(watch::Receiver<bool>);

impl Drain {
    /// Resolves once the server drains (at once if it does already).
    pub async fn started(&mut self) {
        // An error means the lifecycle is gone: the server is going away all the same.
        let _ = self.0.wait_for(|draining| *draining).await;
    }

    /// Whether the server drains now.
    pub fn is_draining(&self) -> bool {
        *self.0.borrow()
    }
}

/// The last message of a live stream when the server drains: reconnect elsewhere (or
/// later) with `Last-Event-ID`.
pub const SHUTDOWN_EVENT: &[u8] = b"event: shutdown\ndata: {}\n\n";

/// Waits for SIGTERM or SIGINT.
pub async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(e) => {
                tracing::warn!("cannot listen for SIGTERM: {e}");
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// The middleware: while the server drains, every answer closes its connection.
pub async fn close_when_draining<B: MessageBody>(
    req: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<B>, actix_web::Error> {
    let draining = req
        .app_data::<web::Data<Lifecycle>>()
        .is_some_and(|l| l.is_draining());
    let mut res = next.call(req).await?;
    if draining {
        res.response_mut()
            .head_mut()
            .set_connection_type(ConnectionType::Close);
    }
    Ok(res)
}
