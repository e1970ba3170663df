use actix_web::http::{header, StatusCode};
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;
use sha2::{Digest, Sha256};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::auth::scope::{ChallengeWrite, GamePlay, GameRead};
use crate::auth::{Caller, MaybeCaller};
use crate::body::Body;
use crate::problem::{ApiError, Problem};
use crate::routes::kept_answers::answer_kept;
use crate::routes::paging::{game_cursor, next_offset, page, parse_game_cursor};
use worp_domain::records::GameFilter;
use worp_domain::table::Table;
use worp_service::views::GameView;
use worp_service::{CreateGame, GameSummary, Idempotency, Played, Refusal, Worp};

/// The game as the answer of a request, with its version as the ETag and its players'
/// names.
pub(crate) async fn game_response(
    worp: &Worp,
    status: actix_web::http::StatusCode,
    table: &Table,
) -> Result<HttpResponse, ApiError> {
    worp.learn_table_names(table).await?;
    let mut view = GameView::of(table, worp.names())?;
    if table.rated && table.result.is_some() {
        let book = worp.rating_book().await?;
        view.rating_changes = book.changes(table.id).map(<[_]>::to_vec);
        view.not_rated = book.not_rated(table.id);
    }
    let body = worp_engine::json::to_vec(&view)
        .map_err(|e| ApiError::Internal(format!("the game's view: {e}")))?;
    Ok(game_answer(status, table, body))
}

/// The answer `body` (the view of `table`, see [`game_response`]) with its headers.
fn game_answer(status: actix_web::http::StatusCode, table: &Table, body: Vec<u8>) -> HttpResponse {
    HttpResponse::build(status)
        .insert_header((header::ETAG, format!("\"{}\"", table.version)))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .content_type(header::ContentType::json())
        .body(body)
}

/// Reads an optional JSON body: empty means the defaults.
fn optional_body<T: for<'de> Deserialize<'de> + Default>(body: &[u8]) -> Result<T, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    serde_json::from_slice::<Option<T>>(body)
        .map(Option::unwrap_or_default)
        .map_err(|e| ApiError::BadRequest(format!("malformed body: {e}")))
}

/// The version named by an `If-Match` (or `If-None-Match`) header: `"5"`, `W/"5"` or `5`.
fn version_header(req: &HttpRequest, name: header::HeaderName) -> Result<Option<i64>, ApiError> {
    let Some(value) = req.headers().get(&name) else {
        return Ok(None);
    };
    let text = value
        .to_str()
        .map_err(|_| ApiError::BadRequest(format!("{name} is not text")))?
        .trim();
    let text = text.strip_prefix("W/").unwrap_or(text).trim_matches('"');
    text.parse()
        .map(Some)
        .map_err(|_| ApiError::BadRequest(format!("{name} must be a game version, e.g. \"7\"")))
}

/// Creates a game. The caller must be in at least one seat; `null` seats are open; a seat
/// naming another player invites them: it is reserved for them until they take it
/// (`POST /v1/games/{id}/seats/{seat}`) or decline it, and no turn, clock or notice but
/// one `invited` reaches them before they take it. When every seat is taken the game
/// starts and the server makes the opening rolls.
#[utoipa::path(
    tag = "games",
    request_body = CreateGame,
    security(("bearer" = ["challenge:write"])),
    responses(
        (status = 201, description = "Created", body = GameView,
         headers(("Location" = String, description = "The new game's address, `/v1/games/{id}`"))),
        (status = 400, description = "Malformed body, unknown variant, invalid options or seats", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many of your games wait for players (`WORP_OPEN_GAMES_PER_PLAYER`), or the rate limit", body = Problem, content_type = "application/problem+json",
         headers(("Retry-After" = u64, description = "Seconds to wait before trying again"))),
    )
)]
#[post("/v1/games")]
pub async fn create_game(
    worp: web::Data<Worp>,
    caller: Caller<ChallengeWrite>,
    body: Body<CreateGame>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner()?;
    let table = worp.create_game(&caller.0, body).await?;
    let mut resp = game_response(&worp, actix_web::http::StatusCode::CREATED, &table).await?;
    if let Ok(loc) = header::HeaderValue::from_str(&format!("/v1/games/{}", table.id)) {
        resp.headers_mut().insert(header::LOCATION, loc);
    }
    Ok(resp)
}

/// Listing filters.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// Only games in which this player has a seat.
    pub player: Option<Uuid>,
    /// Only games with this status.
    pub status: Option<StatusFilter>,
    /// Only games where it is the caller's turn (needs a token).
    pub my_turn: Option<bool>,
    /// At most this many games (1 to 200, default 50).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
    /// Skip this many games (0 to 10,000; beyond, page with `after`).
    #[param(minimum = 0, maximum = 10000)]
    pub offset: Option<i64>,
    /// Only the games after the last one of a page: that page's `next_cursor`, passed
    /// back unchanged. Not with `offset`.
    pub after: Option<String>,
}

/// A status to filter on.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum StatusFilter {
    Waiting,
    Active,
    Finished,
}

/// A page of games, newest change first.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct GamePage {
    pub games: Vec<GameSummary>,
    /// The offset of the next page, when there may be one and it is within the 10,000
    /// an offset may skip (absent when paging with `after`).
    pub next_offset: Option<i64>,
    /// Where the next page starts, when there may be one: pass it as `after`. Costs the
    /// same at any depth, and a game that changes while you page moves to the top
    /// instead of shifting the pages after it.
    pub next_cursor: Option<String>,
}

/// The filter's page of at most `limit` games (by `offset`, or after the cursor `after`),
/// their seats named, and where the next page starts.
pub(crate) async fn game_page(
    worp: &Worp,
    mut filter: GameFilter,
    limit: i64,
    offset: i64,
    after: Option<&str>,
) -> Result<GamePage, ApiError> {
    filter.after = match after {
        Some(_) if offset != 0 => {
            return Err(ApiError::BadRequest(
                "give offset or after, not both".into(),
            ))
        }
        Some(cursor) => Some(parse_game_cursor(cursor)?),
        None => None,
    };
    filter.limit = limit + 1;
    filter.offset = offset;
    let mut listed = worp.list(&filter).await?;
    let more = listed.len() as i64 > limit;
    listed.truncate(limit as usize);
    let next_cursor = listed
        .last()
        .filter(|_| more)
        .map(|(_, at)| game_cursor(at));
    let mut games: Vec<GameSummary> = listed.into_iter().map(|(game, _)| game).collect();
    worp.name_seats(&mut games).await?;
    Ok(GamePage {
        games,
        next_offset: next_offset(offset, limit).filter(|_| more && filter.after.is_none()),
        next_cursor,
    })
}

/// Lists games, newest change first: a player's games, by status, or (with a token and
/// `my_turn=true`) the caller's inbox of games awaiting their move.
#[utoipa::path(
    security((), ("bearer" = ["game:read"])),
    tag = "games",
    params(ListQuery),
    responses(
        (status = 200, description = "A page of games", body = GamePage),
        (status = 400, description = "Malformed parameters", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "my_turn without a valid token", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/games")]
pub async fn list_games(
    worp: web::Data<Worp>,
    caller: MaybeCaller<GameRead>,
    q: web::Query<ListQuery>,
) -> Result<HttpResponse, ApiError> {
    let (limit, offset) = page(q.limit, q.offset, 50, 200)?;
    let to_move_player = match (q.my_turn, &caller.0) {
        (Some(true), Some(p)) => Some(p.id),
        (Some(true), None) => {
            return Err(ApiError::Unauthorized(
                "my_turn=true needs a bearer token".into(),
            ))
        }
        _ => None,
    };
    let filter = GameFilter {
        player: q.player,
        status: q.status.map(|s| {
            match s {
                StatusFilter::Waiting => "waiting",
                StatusFilter::Active => "active",
                StatusFilter::Finished => "finished",
            }
            .to_owned()
        }),
        to_move_player,
        ..GameFilter::default()
    };
    let page = game_page(&worp, filter, limit, offset, q.after.as_deref()).await?;
    Ok(HttpResponse::Ok().json(page))
}

/// One game: its seats, state, last dice, legal moves, result, dice commitment and the
/// head of its event chain. The ETag is the version; `If-None-Match` answers 304.
#[utoipa::path(
    tag = "games",
    params(
        ("id" = Uuid, Path, description = "The game"),
        ("If-None-Match" = Option<String>, Header, description = "A version you have (`\"7\"`); answered 304 without a body while the game is still at it"),
    ),
    responses(
        (status = 200, description = "The game", body = GameView),
        (status = 304, description = "Unchanged since the version in If-None-Match",
         headers(("ETag" = String, description = "The version, unchanged"))),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/games/{id}")]
pub async fn get_game(
    worp: web::Data<Worp>,
    req: HttpRequest,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let table = worp.load(id.into_inner()).await?;
    if super::none_match(&req, &format!("\"{}\"", table.version))
        && !worp.has_deleted_player(&table).await?
    {
        return Ok(HttpResponse::NotModified()
            .insert_header((header::ETAG, format!("\"{}\"", table.version)))
            .finish());
    }
    game_response(&worp, actix_web::http::StatusCode::OK, &table).await
}

/// `POST /v1/games/{id}/seats/{seat}` (the body is optional).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TakeSeat {
    /// A seed of your own (up to 256 bytes) mixed into every roll of the game.
    pub client_seed: Option<String>,
}

/// Takes an open seat, or the seat reserved for the caller (accepting the invitation).
/// When it was the last empty seat the game starts.
#[utoipa::path(
    tag = "games",
    params(("id" = Uuid, Path, description = "The game"), ("seat" = u8, Path, description = "The seat")),
    request_body(content = Option<TakeSeat>, description = "Optional"),
    security(("bearer" = ["game:play"])),
    responses(
        (status = 200, description = "Seated", body = GameView),
        (status = 400, description = "Malformed body", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "The seat is reserved for another player", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game or seat", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The seat is taken, or a race was lost", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/games/{id}/seats/{seat}")]
pub async fn take_seat(
    worp: web::Data<Worp>,
    caller: Caller<GamePlay>,
    path: web::Path<(Uuid, u8)>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let (id, seat) = path.into_inner();
    let body: TakeSeat = optional_body(&body)?;
    let table = worp
        .take_seat(&caller.0, id, seat, body.client_seed)
        .await?;
    game_response(&worp, actix_web::http::StatusCode::OK, &table).await
}

/// Declines the invitation to a seat: the seat reserved for the caller opens for anyone,
/// and the game's creator is told.
#[utoipa::path(
    tag = "games",
    params(("id" = Uuid, Path, description = "The game"), ("seat" = u8, Path, description = "The seat reserved for you")),
    security(("bearer" = ["game:play"])),
    responses(
        (status = 200, description = "Declined", body = GameView),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "The seat is not reserved for you", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "A race was lost", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/games/{id}/seats/{seat}/decline")]
pub async fn decline_seat(
    worp: web::Data<Worp>,
    caller: Caller<GamePlay>,
    path: web::Path<(Uuid, u8)>,
) -> Result<HttpResponse, ApiError> {
    let (id, seat) = path.into_inner();
    let table = worp.decline(&caller.0, id, Some(seat)).await?;
    game_response(&worp, actix_web::http::StatusCode::OK, &table).await
}

/// `POST /v1/games/{id}/moves`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"move": {"steps": [{"from": 13, "to": 7}, {"from": 8, "to": 7}]}}))]
pub struct MoveRequest {
    /// One element of the game's `legal_moves`, exactly as listed.
    #[serde(rename = "move")]
    #[schema(value_type = Value)]
    pub mv: Box<RawValue>,
}

/// Plays a move for the caller's seat. The server then rolls every die the game awaits,
/// so the answer shows the next decision.
#[utoipa::path(
    tag = "games",
    params(
        ("id" = Uuid, Path, description = "The game"),
        ("If-Match" = Option<String>, Header, pattern = r#"^(W/)?"?[0-9]{1,18}"?$"#, description = "The version you saw (`\"7\"`, `W/\"7\"` or `7`); 412 if the board has moved on since (messages do not count: any version from the game's `board_version` on passes)"),
        ("Idempotency-Key" = Option<String>, Header, pattern = r"^[\x21-\x7e]([\t\x20-\x7e]{0,253}[\x21-\x7e])?$", description = "A retry with the same key, game and move gets the first answer and records nothing; the key reused for another game or move answers 422. Keys expire after WORP_IDEMPOTENCY_TTL_SECS (24 hours by default)."),
    ),
    request_body = MoveRequest,
    security(("bearer" = ["game:play"])),
    responses(
        (status = 200, description = "Played", body = GameView,
         headers(("Idempotent-Replayed" = String, description = "`true` when this is the answer kept for the Idempotency-Key of an earlier request (nothing new was recorded)"))),
        (status = 400, description = "Malformed body or header", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "You have no seat in this game", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Not your turn, game not active, or a race was lost", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "If-Match names a version the board has moved on from", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The move is not legal now, or the Idempotency-Key was used for another request (another game or another move)", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "Overloaded or the database is unavailable: retry after Retry-After seconds", body = Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
    )
)]
#[post("/v1/games/{id}/moves")]
pub async fn play_move(
    worp: web::Data<Worp>,
    req: HttpRequest,
    caller: Caller<GamePlay>,
    id: web::Path<Uuid>,
    body: Body<MoveRequest>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner()?;
    let if_match = version_header(&req, header::IF_MATCH)?;
    let key = match req.headers().get("idempotency-key") {
        None => None,
        Some(v) => {
            let k = v
                .to_str()
                .ok()
                .filter(|k| !k.is_empty() && k.len() <= 255)
                .ok_or_else(|| {
                    ApiError::BadRequest(
                        "Idempotency-Key must be 1 to 255 visible characters".into(),
                    )
                })?;
            Some(k.to_owned())
        }
    };
    let id = id.into_inner();
    let mv = body.mv;
    // A key answers only the request it was first sent with: this path, this body (both
    // written out only when a key is sent). The body is the move's compact text, keys in
    // order, as any client's spelling of the same move gives it.
    let (request, body_hash) = match &key {
        Some(_) => (
            format!("POST /v1/games/{id}/moves"),
            hex::encode(Sha256::digest(
                serde_json::from_str::<Value>(mv.get())
                    .map_err(|e| ApiError::BadRequest(format!("the move is not JSON: {e}")))?
                    .to_string(),
            )),
        ),
        None => (String::new(), String::new()),
    };
    if let Some(k) = &key {
        if let Some(kept) = Box::pin(worp.kept_answer_of(&caller.0, k)).await? {
            return answer_kept(&worp, kept, &request, &body_hash).await;
        }
    }
    let result = worp
        .play(
            &caller.0,
            id,
            &mv,
            if_match,
            key.as_deref().map(|key| Idempotency {
                key,
                request: &request,
                body_hash: &body_hash,
            }),
        )
        .await;
    match (result, &key) {
        (Ok(Played { table, answer }), _) => match answer {
            Some(body) => Ok(game_answer(StatusCode::OK, &table, body)),
            None => Box::pin(game_response(&worp, StatusCode::OK, &table)).await,
        },
        // A retry that raced its own first attempt: answer what the first one stored.
        (Err(Refusal::Conflict(m)), Some(k)) => {
            match Box::pin(worp.kept_answer_of(&caller.0, k)).await? {
                Some(kept) => answer_kept(&worp, kept, &request, &body_hash).await,
                None => Err(ApiError::Conflict(m)),
            }
        }
        (Err(e), _) => Err(e.into()),
    }
}

/// `POST /v1/games/{id}/resign` (the body is optional).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Resign {
    /// Which of your seats resigns; needed only when you hold several.
    #[schema(maximum = 255)]
    pub seat: Option<u8>,
}

/// Resigns the caller's seat: it leaves the game; with two seats the other one wins.
#[utoipa::path(
    operation_id = "resign_game",
    tag = "games",
    params(("id" = Uuid, Path, description = "The game")),
    request_body(content = Option<Resign>, description = "Optional"),
    security(("bearer" = ["game:play"])),
    responses(
        (status = 200, description = "Resigned", body = GameView),
        (status = 400, description = "Malformed body", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing or unknown token", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "You have no seat in this game", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The game is not active, or a race was lost", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/games/{id}/resign")]
pub async fn resign(
    worp: web::Data<Worp>,
    caller: Caller<GamePlay>,
    id: web::Path<Uuid>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let body: Resign = optional_body(&body)?;
    let table = worp.resign(&caller.0, id.into_inner(), body.seat).await?;
    game_response(&worp, actix_web::http::StatusCode::OK, &table).await
}
