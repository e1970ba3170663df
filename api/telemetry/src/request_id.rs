//! The request id: taken from a sane incoming `X-Request-Id` (a proxy's) or made here,
//! returned in `X-Request-Id`, a field of the span every log line of the request is
//! written in, and the `request_id` of its problem documents.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use tracing::Instrument;

/// The header that carries the request id, both ways.
pub const HEADER: &str = "x-request-id";

tokio::task_local! {
    static CURRENT: String;
}

/// The id of the request being served on this task, if any.
pub fn current() -> Option<String> {
    CURRENT.try_with(Clone::clone).ok()
}

/// An incoming id worth keeping: 1 to 128 characters, letters, digits and `-_.:`.
fn sane(id: &str) -> bool {
    (1..=128).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.:".contains(&b))
}

/// The middleware (outermost, so that every answer has the id).
pub async fn request_id<B: MessageBody>(
    mut req: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<B>, actix_web::Error> {
    let id = req
        .headers()
        .get(HEADER)
        .and_then(|v| v.to_str().ok())
        .filter(|v| sane(v))
        .map_or_else(|| uuid::Uuid::new_v4().simple().to_string(), str::to_owned);
    // Into the request too, for the access log (`%{x-request-id}i`), inner to this.
    if let Ok(value) = HeaderValue::from_str(&id) {
        req.headers_mut()
            .insert(HeaderName::from_static(HEADER), value);
    }
    let span = tracing::info_span!("request", request_id = %id, method = %req.method(), path = %req.path());
    let served = CURRENT
        .scope(id.clone(), next.call(req).instrument(span))
        .await;
    let mut res = served?;
    if let Ok(value) = HeaderValue::from_str(&id) {
        res.headers_mut()
            .insert(HeaderName::from_static(HEADER), value);
    }
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::sane;

    #[test]
    fn only_short_plain_ids_are_kept() {
        assert!(sane("9f1c2d3e-aa.b:c_d"));
        assert!(!sane(""));
        assert!(!sane(&"a".repeat(129)));
        assert!(!sane("a b"));
        assert!(!sane("a\nb"));
    }
}
