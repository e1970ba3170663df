//! Request bodies that must arrive in time. A client that announces a body and then
//! sends it slowly, or not at all, would hold its connection (and a file descriptor)
//! for as long as it likes: [`body_timeout`] gives the whole body `WORP_BODY_TIMEOUT_SECS`
//! (default 10) from the moment the request's head is read, then fails the read and
//! answers 408 `application/problem+json`; the connection is closed, as after any answer
//! to a body not read to its end. The head has its own time limit
//! (`WORP_HEADER_TIMEOUT_SECS`, actix's `client_request_timeout`), and the number of
//! connections served at once is capped (`WORP_MAX_CONNECTIONS`, `startup.rs`).

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};
use std::time::Duration;

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::error::PayloadError;
use actix_web::middleware::Next;
use actix_web::{HttpMessage, HttpResponse};
use bytes::Bytes;
use futures_util::Stream;
use tokio::time::{Instant, Sleep};

use crate::problem::Problem;

/// A request body as a boxed stream (what `Payload::Stream` holds).
type BoxedBody = Pin<Box<dyn Stream<Item = Result<Bytes, PayloadError>>>>;

/// A request body that fails with [`PayloadError::Io`] (`TimedOut`) once its deadline
/// has passed, and marks `timed_out`.
struct TimedBody {
    inner: Payload,
    deadline: Instant,
    sleep: Option<Pin<Box<Sleep>>>,
    timed_out: Rc<Cell<bool>>,
}

impl Stream for TimedBody {
    type Item = Result<Bytes, PayloadError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if this.timed_out.get() {
            return Poll::Ready(None);
        }
        if let Poll::Ready(item) = Pin::new(&mut this.inner).poll_next(cx) {
            return Poll::Ready(item);
        }
        let deadline = this.deadline;
        let sleep = this
            .sleep
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        if sleep.as_mut().poll(cx).is_ready() {
            this.timed_out.set(true);
            return Poll::Ready(Some(Err(PayloadError::Io(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the request body did not arrive in time",
            )))));
        }
        Poll::Pending
    }
}

fn request_timeout(limit: Duration) -> HttpResponse {
    HttpResponse::RequestTimeout()
        .content_type("application/problem+json")
        .json(Problem::new(
            "request-timeout",
            "Request timeout",
            408,
            format!(
                "the request body did not arrive within {} s",
                limit.as_secs_f64()
            ),
        ))
}

/// The middleware: `.wrap(from_fn(move |req, next| body_timeout(limit, req, next)))`.
/// Gives the request's body `limit` from now; answers 408 if it did not arrive in time.
pub async fn body_timeout<B: MessageBody + 'static>(
    limit: Duration,
    mut req: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<EitherBody<B>>, actix_web::Error> {
    let timed_out = Rc::new(Cell::new(false));
    let body = TimedBody {
        inner: req.take_payload(),
        deadline: Instant::now() + limit,
        sleep: None,
        timed_out: timed_out.clone(),
    };
    req.set_payload(Payload::from(Box::pin(body) as BoxedBody));
    // Whatever the handler made of the failed read, the answer is 408.
    match next.call(req).await {
        Ok(res) if timed_out.get() => {
            let (req, _) = res.into_parts();
            let resp = request_timeout(limit).map_into_right_body();
            Ok(ServiceResponse::new(req, resp))
        }
        Ok(res) => Ok(res.map_into_left_body()),
        Err(_) if timed_out.get() => Err(actix_web::error::InternalError::from_response(
            "request timeout",
            request_timeout(limit),
        )
        .into()),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::{test as atest, web, App};

    async fn echo(body: web::Bytes) -> HttpResponse {
        HttpResponse::Ok().body(body)
    }

    #[actix_web::test]
    async fn a_body_in_time_passes_and_one_that_stalls_is_answered_408() {
        let app = atest::init_service(
            App::new()
                .wrap(actix_web::middleware::from_fn(|req, next| {
                    body_timeout(Duration::from_millis(200), req, next)
                }))
                .route("/x", web::post().to(echo)),
        )
        .await;
        let req = atest::TestRequest::post()
            .uri("/x")
            .set_payload("hello")
            .to_request();
        let resp = atest::call_service(&app, req).await;
        assert_eq!(resp.status(), 200);
        assert_eq!(atest::read_body(resp).await, "hello");

        let stalled: BoxedBody = Box::pin(futures_util::stream::pending());
        let (req, _) = atest::TestRequest::post()
            .uri("/x")
            .insert_header(("content-length", "100"))
            .to_request()
            .replace_payload(Payload::from(stalled));
        let resp = atest::call_service(&app, req).await;
        assert_eq!(resp.status(), 408);
        let body: serde_json::Value = atest::read_body_json(resp).await;
        assert_eq!(body["status"], 408);
    }
}
