//! The caller's own resources: settings, inbox and webhooks.

use actix_web::http::header;
use actix_web::{delete, get, patch, post, web, HttpRequest, HttpResponse};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::auth::scope::{AccountRead, AccountWrite, GameRead, WebhookWrite};
use crate::auth::Caller;
use crate::body::Body;
use crate::problem::{ApiError, Problem};
use crate::routes::games::{game_page, GamePage};
use crate::routes::paging::{next_offset, page};
use worp_domain::access::{CredentialKind, Grant, Scope};
use worp_domain::records::{Delivery, GameFilter, Player};
use worp_service::Worp;

/// The caller.
#[derive(Debug, Serialize, ToSchema)]
pub struct Me {
    pub id: Uuid,
    pub name: String,
    /// Whether an `invited` notice (webhooks, player stream) tells you when someone names
    /// you in a new game.
    pub invitation_notices: bool,
    /// Whether the player can sign in with a password.
    pub has_password: bool,
    /// How many unused recovery codes the player holds.
    pub recovery_codes_left: i64,
    /// What the credential of this request is, and the scopes it grants.
    pub credential: CredentialKind,
    #[schema(value_type = Vec<Scope>)]
    pub scopes: Vec<&'static str>,
}

async fn me_view(worp: &Worp, player: Player, grant: &Grant) -> Result<HttpResponse, ApiError> {
    let invitation_notices = worp.invitation_notices(&player).await?;
    let (has_password, recovery_codes_left) = worp.credentials_summary(&player).await?;
    Ok(HttpResponse::Ok().json(Me {
        id: player.id,
        name: player.name,
        invitation_notices,
        has_password,
        recovery_codes_left,
        credential: grant.kind,
        scopes: grant.scopes.names(),
    }))
}

/// Who the bearer token belongs to, and their settings.
#[utoipa::path(
    operation_id = "get_me",
    tag = "players",
    security(("bearer" = ["account:read"])),
    responses(
        (status = 200, description = "The caller", body = Me),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/players/me")]
pub async fn me(
    worp: web::Data<Worp>,
    caller: Caller<AccountRead>,
) -> Result<HttpResponse, ApiError> {
    me_view(&worp, caller.0, &caller.1).await
}

/// `PATCH /v1/players/me`: the settings to change; absent ones stay as they are.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"invitation_notices": false}))]
pub struct MeUpdate {
    /// Whether an `invited` notice tells you when someone names you in a new game.
    pub invitation_notices: Option<bool>,
}

/// Changes the caller's settings.
#[utoipa::path(
    tag = "players",
    request_body = MeUpdate,
    security(("bearer" = ["account:write"])),
    responses(
        (status = 200, description = "The caller, as now", body = Me),
        (status = 400, description = "Malformed body", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
    )
)]
#[patch("/v1/players/me")]
pub async fn update_me(
    worp: web::Data<Worp>,
    caller: Caller<AccountWrite>,
    body: Body<MeUpdate>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner()?;
    if let Some(on) = body.invitation_notices {
        worp.set_invitation_notices(&caller.0, on).await?;
    }
    me_view(&worp, caller.0, &caller.1).await
}

/// Paging of the inbox.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct InboxQuery {
    /// Only the games where it is the caller's turn.
    pub my_turn: Option<bool>,
    /// At most this many games (1 to 200, default 50).
    pub limit: Option<i64>,
    /// Skip this many games (0 to 10,000; beyond, page with `after`).
    #[param(minimum = 0, maximum = 10000)]
    pub offset: Option<i64>,
    /// Only the games after the last one of a page: that page's `next_cursor`, passed
    /// back unchanged. Not with `offset`.
    pub after: Option<String>,
}

/// The caller's games, newest change first, with whose turn it is, the deadline and the
/// time of the last move. Answers 304 to `If-None-Match` with the ETag of an unchanged
/// inbox, so polling costs almost nothing.
#[utoipa::path(
    operation_id = "list_my_games",
    tag = "players",
    params(InboxQuery, ("If-None-Match" = Option<String>, Header, description = "The ETag of the inbox you have")),
    security(("bearer" = ["game:read"])),
    responses(
        (status = 200, description = "The caller's games", body = GamePage, headers(("ETag" = String, description = "Changes when the inbox changes"))),
        (status = 304, description = "Unchanged"),
        (status = 400, description = "Malformed parameters", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/players/me/games")]
pub async fn inbox(
    worp: web::Data<Worp>,
    req: HttpRequest,
    caller: Caller<GameRead>,
    q: web::Query<InboxQuery>,
) -> Result<HttpResponse, ApiError> {
    let (limit, offset) = page(q.limit, q.offset, 50, 200)?;
    let my_turn = q.my_turn.unwrap_or(false);
    let filter = GameFilter {
        player: (!my_turn).then_some(caller.0.id),
        to_move_player: my_turn.then_some(caller.0.id),
        ..GameFilter::default()
    };
    let page = game_page(&worp, filter, limit, offset, q.after.as_deref()).await?;
    let body = serde_json::to_vec(&page).map_err(|e| ApiError::unserialisable("the inbox", e))?;
    let etag = format!("\"{}\"", &hex::encode(Sha256::digest(&body))[..32]);
    if super::none_match(&req, &etag) {
        return Ok(HttpResponse::NotModified()
            .insert_header((header::ETAG, etag))
            .finish());
    }
    Ok(HttpResponse::Ok()
        .insert_header((header::ETAG, etag))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .content_type("application/json")
        .body(body))
}

/// `POST /v1/players/me/webhooks`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"url": "https://bot.example/worp-hook"}))]
pub struct NewWebhook {
    /// An `http` or `https` URL (at most 2,048 characters) that accepts JSON POSTs.
    pub url: String,
}

/// A webhook as listed.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct WebhookView {
    pub id: Uuid,
    pub url: String,
    pub created_at: DateTime<Utc>,
}

/// A new webhook with its signing secret, shown only now.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct CreatedWebhook {
    pub id: Uuid,
    pub url: String,
    /// Verify each delivery: `Worp-Signature: t=<unix>,v1=<hex>` where hex is
    /// HMAC-SHA256(secret, "<unix>.<raw body>"); reject old timestamps.
    pub secret: String,
    pub created_at: DateTime<Utc>,
}

/// Registers a URL to be told (a signed JSON POST) when it becomes the caller's turn in
/// a game or a game of theirs ends. Deliveries are retried with backoff.
#[utoipa::path(
    tag = "players",
    request_body = NewWebhook,
    security(("bearer" = ["webhook:write"])),
    responses(
        (status = 201, description = "Registered; the secret is shown only now", body = CreatedWebhook),
        (status = 400, description = "Malformed body or URL", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/players/me/webhooks")]
pub async fn create_webhook(
    worp: web::Data<Worp>,
    caller: Caller<WebhookWrite>,
    body: Body<NewWebhook>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner()?;
    let w = worp.create_webhook(&caller.0, &body.url).await?;
    Ok(HttpResponse::Created().json(CreatedWebhook {
        id: w.id,
        url: w.url,
        secret: w.secret,
        created_at: w.created_at,
    }))
}

/// The caller's webhooks.
#[utoipa::path(
    tag = "players",
    security(("bearer" = ["webhook:write"])),
    responses(
        (status = 200, description = "The caller's webhooks", body = Vec<WebhookView>),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/players/me/webhooks")]
pub async fn list_webhooks(
    worp: web::Data<Worp>,
    caller: Caller<WebhookWrite>,
) -> Result<HttpResponse, ApiError> {
    let hooks = worp.webhooks(&caller.0).await?;
    Ok(HttpResponse::Ok().json(
        hooks
            .into_iter()
            .map(|w| WebhookView {
                id: w.id,
                url: w.url,
                created_at: w.created_at,
            })
            .collect::<Vec<_>>(),
    ))
}

/// Removes one of the caller's webhooks.
#[utoipa::path(
    tag = "players",
    params(("id" = Uuid, Path, description = "The webhook")),
    security(("bearer" = ["webhook:write"])),
    responses(
        (status = 204, description = "Removed"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such webhook of yours", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/v1/players/me/webhooks/{id}")]
pub async fn delete_webhook(
    worp: web::Data<Worp>,
    caller: Caller<WebhookWrite>,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    worp.delete_webhook(&caller.0, id.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Paging through a webhook's delivery log.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct DeliveriesQuery {
    /// At most this many (1 to 500, default 100).
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
    /// Skip this many of the newest (default 0, at most 10,000).
    #[param(minimum = 0, maximum = 10000)]
    pub offset: Option<i64>,
}

/// The delivery log of one of the caller's webhooks, newest first: every notice, its
/// status, attempts, the receiver's last answer and the next attempt. A full page has a
/// `Link` header to the next one.
#[utoipa::path(
    operation_id = "list_deliveries",
    tag = "players",
    params(("id" = Uuid, Path, description = "The webhook"), DeliveriesQuery),
    security(("bearer" = ["webhook:write"])),
    responses(
        (status = 200, description = "A page of deliveries, newest first", body = Vec<Delivery>,
         headers(("Link" = String, description = "`<…/deliveries?limit=L&offset=O>; rel=\"next\"` when the page is full (there may be more)"))),
        (status = 400, description = "Malformed parameters", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such webhook of yours", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/players/me/webhooks/{id}/deliveries")]
pub async fn deliveries(
    worp: web::Data<Worp>,
    caller: Caller<WebhookWrite>,
    id: web::Path<Uuid>,
    q: web::Query<DeliveriesQuery>,
) -> Result<HttpResponse, ApiError> {
    let (limit, offset) = page(q.limit, q.offset, 100, 500)?;
    let id = id.into_inner();
    let deliveries = worp.deliveries(&caller.0, id, limit, offset).await?;
    let mut answer = HttpResponse::Ok();
    let next = next_offset(offset, limit).filter(|_| deliveries.len() as i64 == limit);
    if let Some(next) = next {
        answer.insert_header((
            header::LINK,
            format!("</v1/players/me/webhooks/{id}/deliveries?limit={limit}&offset={next}>; rel=\"next\""),
        ));
    }
    Ok(answer.json(deliveries))
}
