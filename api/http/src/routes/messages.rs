//! Messages in a game.

use actix_web::http::header;
use actix_web::{get, post, web, HttpResponse};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::auth::scope::{ChatWrite, GameRead};
use crate::auth::{Caller, MaybeCaller};
use crate::body::Body;
use crate::problem::{ApiError, Problem};
use crate::routes::paging::log_page;
use worp_service::messages::Message;
use worp_service::Worp;

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
    security(("bearer" = ["chat:write"])),
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
    caller: Caller<ChatWrite>,
    id: web::Path<Uuid>,
    body: Body<NewMessage>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner()?;
    let (_, message) = worp
        .post_message(&caller.0, id.into_inner(), &body.text, body.seat)
        .await?;
    Ok(HttpResponse::Created().json(message))
}

/// Which messages to list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct MessagesQuery {
    /// Only the messages after the event with this sequence number (default 0: from the
    /// first). A message's `seq` is its event's.
    #[param(minimum = 0)]
    pub after: Option<i64>,
    /// At most this many (1 to 1,000, default 1,000).
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<i64>,
}

/// The messages of a game, oldest first: for its players, or anyone when the game was
/// created with `public_chat`. A full page has a `Link` header to the next one. Reading
/// them costs in proportion to the messages read, not to the game's length.
#[utoipa::path(
    tag = "games",
    operation_id = "list_messages",
    params(("id" = Uuid, Path, description = "The game"), MessagesQuery),
    security((), ("bearer" = ["game:read"])),
    responses(
        (status = 200, description = "The messages", body = Vec<Message>,
         headers(("Link" = String, description = "`<…/messages?after=S&limit=L>; rel=\"next\"` when the page is full (there may be more)"))),
        (status = 400, description = "Malformed parameters", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "The chat is for the game's players", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/games/{id}/messages")]
pub async fn list_messages(
    worp: web::Data<Worp>,
    caller: MaybeCaller<GameRead>,
    id: web::Path<Uuid>,
    q: web::Query<MessagesQuery>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let (after, limit) = log_page(q.after, q.limit, 1000)?;
    let messages = worp
        .messages(id, caller.0.map(|p| p.id), after, limit)
        .await?;
    let mut answer = HttpResponse::Ok();
    if let Some(last) = messages.last().filter(|_| messages.len() as i64 == limit) {
        answer.insert_header((
            header::LINK,
            format!(
                "</v1/games/{id}/messages?after={}&limit={limit}>; rel=\"next\"",
                last.seq
            ),
        ));
    }
    Ok(answer.json(messages))
}
