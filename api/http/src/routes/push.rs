//! Web Push: the server's VAPID public key, and the caller's push subscriptions (one per
//! browser that turned notifications on), kept, listed and removed.

use actix_web::{delete, get, post, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

use super::sessions::device_of;
use crate::auth::scope::{AccountRead, AccountWrite};
use crate::auth::Caller;
use crate::body::Body;
use crate::problem::{ApiError, Problem};
use worp_service::push::subscriptions::SubscribeError;
use worp_service::push::PushSubscriptionView;
use worp_service::Worp;

/// `GET /v1/push/key`.
#[derive(Debug, Serialize, ToSchema)]
pub struct PushKey {
    /// The server's VAPID public key: an uncompressed P-256 point (65 bytes), base64url
    /// without padding. Pass it (decoded) as `applicationServerKey` to
    /// `PushManager.subscribe`.
    pub public_key: String,
}

/// The key browsers subscribe to push messages with: the same for every process and
/// every restart of the server.
#[utoipa::path(
    tag = "players",
    responses(
        (status = 200, description = "The VAPID public key", body = PushKey),
    )
)]
#[get("/v1/push/key")]
pub async fn push_key(worp: web::Data<Worp>) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok()
        // Revalidated: a browser that subscribed with an old key would be refused.
        .insert_header(("cache-control", "no-cache"))
        .json(PushKey {
            public_key: worp.push_public_key().await?,
        }))
}

/// The keys of a push subscription, as the browser gives them.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PushKeys {
    /// The browser's P-256 public key: an uncompressed point, base64url.
    pub p256dh: String,
    /// The browser's 16-byte authentication secret, base64url.
    pub auth: String,
}

/// `POST /v1/players/me/push-subscriptions`: what `PushSubscription.toJSON()` gives,
/// and optionally what to call the device.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewPushSubscription {
    /// The push service's URL for this browser: `https` (plain `http` only to the
    /// ranges of `WORP_WEBHOOK_ALLOW`), on a host that may be reached.
    pub endpoint: String,
    pub keys: PushKeys,
    /// As the browser gives it; not used.
    #[serde(rename = "expirationTime", default)]
    #[schema(value_type = Option<f64>)]
    pub expiration_time: Option<Value>,
    /// What to call the device (default: from the browser).
    pub device: Option<String>,
}

impl From<SubscribeError> for ApiError {
    fn from(e: SubscribeError) -> Self {
        match e {
            SubscribeError::Invalid(m) => ApiError::InvalidSubscription(m),
            SubscribeError::Refused(r) => r.into(),
        }
    }
}

/// Keeps a browser's push subscription: this device receives the caller's notices. The
/// same endpoint again updates its subscription (keys, device) rather than adding one.
#[utoipa::path(
    tag = "players",
    request_body = NewPushSubscription,
    security(("bearer" = ["account:write"])),
    responses(
        (status = 201, description = "Kept", body = PushSubscriptionView),
        (status = 200, description = "That endpoint was kept already: updated", body = PushSubscriptionView),
        (status = 400, description = "A malformed body", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The subscription cannot be used: an endpoint that is not https or not public, keys that are not a P-256 point and a 16-byte secret, a device name out of bounds, or more than 10 devices", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/players/me/push-subscriptions")]
pub async fn subscribe_push(
    worp: web::Data<Worp>,
    req: HttpRequest,
    caller: Caller<AccountWrite>,
    body: Body<NewPushSubscription>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner()?;
    let device = body.device.unwrap_or_else(|| device_of(&req));
    let (view, new) = worp
        .subscribe_push(
            &caller.0,
            &body.endpoint,
            &body.keys.p256dh,
            &body.keys.auth,
            &device,
        )
        .await?;
    Ok(if new {
        HttpResponse::Created().json(view)
    } else {
        HttpResponse::Ok().json(view)
    })
}

/// The caller's push subscriptions: the devices that receive their notices.
#[utoipa::path(
    tag = "players",
    security(("bearer" = ["account:read"])),
    responses(
        (status = 200, description = "The subscriptions, oldest first", body = Vec<PushSubscriptionView>),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/players/me/push-subscriptions")]
pub async fn list_push_subscriptions(
    worp: web::Data<Worp>,
    caller: Caller<AccountRead>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(worp.push_subscriptions(&caller.0).await?))
}

/// Removes one of the caller's push subscriptions: that device receives no more notices.
#[utoipa::path(
    tag = "players",
    params(("id" = Uuid, Path, description = "The push subscription")),
    security(("bearer" = ["account:write"])),
    responses(
        (status = 204, description = "Removed"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such push subscription of yours", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/v1/players/me/push-subscriptions/{id}")]
pub async fn unsubscribe_push(
    worp: web::Data<Worp>,
    caller: Caller<AccountWrite>,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    worp.unsubscribe_push(&caller.0, id.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}
