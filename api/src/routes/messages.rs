//! Messages in a game.

use actix_web::{get, post, web, HttpResponse};
use serde::Deserialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::auth::{Caller, MaybeCaller};
use crate::problem::{ApiError, Problem};
use crate::service::messages::Message;
use crate::service::Worp;

/// `POST /v1/games/{id}/messages`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"text": "Good game!"}))]
pub struct NewMessage {
    /// 1 to 500 characters, no control characters (no line breaks).
    #[schema(min_length = 1, max_length = 500)]
    pub text: String,
    /// Which of your seats writes; needed only when you hold several.
    #[schema(maximum = 255)]
    pub seat: Option<u8>,
}

/// Writes a message in a game you play. It is stored in the game's log (exports and
/// audits carry it), sent on the game's stream and to the other players as a `message`
/// notice. Spectators read it only when the game was created with `public_chat`.
#[utoipa::path(
    tag = "games",
    operation_id = "post_message",
    params(("id" = Uuid, Path, description = "The game")),
    request_body = NewMessage,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "Written", body = Message),
        (status = 400, description = "Empty, too long, or with control characters", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "You have no seat in this game", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The game kept changing while the message was written", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/games/{id}/messages")]
pub async fn post_message(
    worp: web::Data<Worp>,
    caller: Caller,
    id: web::Path<Uuid>,
    body: web::Json<NewMessage>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let (_, message) = worp
        .post_message(&caller.0, id.into_inner(), &body.text, body.seat)
        .await?;
    Ok(HttpResponse::Created().json(message))
}

/// The messages of a game, oldest first: for its players, or anyone when the game was
/// created with `public_chat`.
#[utoipa::path(
    tag = "games",
    operation_id = "list_messages",
    params(("id" = Uuid, Path, description = "The game")),
    security((), ("bearer" = [])),
    responses(
        (status = 200, description = "The messages", body = Vec<Message>),
        (status = 403, description = "The chat is for the game's players", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/games/{id}/messages")]
pub async fn list_messages(
    worp: web::Data<Worp>,
    caller: MaybeCaller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let messages = worp
        .messages(id.into_inner(), caller.0.map(|p| p.id))
        .await?;
    Ok(HttpResponse::Ok().json(messages))
}
