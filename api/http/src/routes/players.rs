use actix_web::{get, post, web, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::problem::{ApiError, Problem};
use worp_service::{PlayerProfile, Worp};

/// `POST /v1/players`.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "alice"}))]
pub struct NewPlayer {
    /// 1 to 64 characters after normalisation by the PRECIS Nickname profile (RFC 8266:
    /// NFKC, surrounding spaces trimmed, inner runs of spaces made one), with something
    /// visible, no control, invisible or bidirectional formatting characters and no line
    /// separators, and not looking like another player's name.
    // The pattern says exactly that: spaces, 1 to 64 characters that are not control
    // characters (the first not a space), spaces.
    #[schema(
        min_length = 1,
        pattern = r"^\s*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]{0,63}\s*$"
    )]
    pub name: String,
}

/// A new player, with the bearer token that is shown only this once.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct CreatedPlayer {
    pub id: Uuid,
    pub name: String,
    /// Send as `Authorization: Bearer <token>`. Stored only as a hash: keep it.
    pub token: String,
}

/// Registers a player.
#[utoipa::path(
    tag = "players",
    request_body = NewPlayer,
    responses(
        (status = 201, description = "Created; the token is shown only now", body = CreatedPlayer),
        (status = 400, description = "Malformed body, or a name the PRECIS Nickname profile (RFC 8266) refuses: control or invisible characters, bidirectional formatting, line separators, nothing visible, over 64 characters", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The name looks the same as another player's (the same after case folding, NFKC, without marks or invisible characters, and reduced to the UTS #39 confusable skeleton)", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many players registered from this address this hour (`WORP_PLAYERS_PER_HOUR_PER_ADDRESS`), or the per-address rate limit", body = Problem, content_type = "application/problem+json",
         headers(("Retry-After" = u64, description = "Seconds until a registration is allowed again"))),
    )
)]
#[post("/v1/players")]
pub async fn create_player(
    worp: web::Data<Worp>,
    body: web::Json<NewPlayer>,
) -> Result<HttpResponse, ApiError> {
    let (player, token) = worp.create_player(&body.name).await?;
    Ok(HttpResponse::Created().json(CreatedPlayer {
        id: player.id,
        name: player.name,
        token,
    }))
}

/// What anyone may see of a player: their name and when they joined.
#[utoipa::path(
    tag = "players",
    params(("id" = Uuid, Path, description = "The player")),
    responses(
        (status = 200, description = "The player", body = PlayerProfile),
        (status = 404, description = "No such player", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/players/{id}")]
pub async fn get_player(
    worp: web::Data<Worp>,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(worp.profile(id.into_inner()).await?))
}
