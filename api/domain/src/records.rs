//! What the store reads and writes: players, the games read model, notices, webhooks
//! and their deliveries, idempotency answers, and the atomic change of a game.

use chrono::{DateTime, Utc};
use serde_json::Value;
use uuid::Uuid;
use worp_engine::json::RawJson;

use crate::events::EventRow;

/// A registered player.
#[derive(Debug, Clone)]
pub struct Player {
    pub id: Uuid,
    pub name: String,
    pub token_hash: Vec<u8>,
}

/// A player's vacation (a row of `vacations`): their clocks are paused from `started_at`
/// until `until`, or until `ended_at` when it ended (early, or by the sweep).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Vacation {
    pub player_id: Uuid,
    pub started_at: DateTime<Utc>,
    pub until: DateTime<Utc>,
    pub ended_at: Option<DateTime<Utc>>,
}

/// A `game_finished` event as the ratings read it, with its game's listing entry
/// (absent while the read models are rebuilt).
#[derive(Debug, Clone)]
pub struct FinishRow {
    pub position: i64,
    pub game_id: Uuid,
    pub payload: Value,
    pub recorded_at: DateTime<Utc>,
    pub summary: Option<Value>,
}

/// The games read model of one game (derived from its events).
#[derive(Debug, Clone)]
pub struct GameRow {
    pub id: Uuid,
    pub variant: String,
    pub status: String,
    pub version: i64,
    pub to_move_seat: Option<i32>,
    pub to_move_player: Option<Uuid>,
    /// The listing entry shown by `GET /v1/games` (a `GameSummary`).
    pub summary: RawJson,
    pub seats: Vec<Option<Uuid>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// When the seat to move runs out of time.
    pub deadline: Option<DateTime<Utc>>,
}

/// Something a player should hear about (it is their turn, a game ended): delivered to
/// their webhooks through the outbox and to their live stream.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PlayerNotice {
    pub player_id: Uuid,
    pub game_id: Uuid,
    pub version: i64,
    /// `your_turn`, `game_finished`, `invited` or `invitation_declined`.
    pub kind: String,
    pub payload: RawJson,
}

/// The outcome of one delivery attempt.
#[derive(Debug, Clone)]
pub struct Attempt<'a> {
    pub id: Uuid,
    /// `pending` (to retry), `delivered` or `failed`.
    pub status: &'a str,
    pub attempts: i32,
    pub next_attempt_at: DateTime<Utc>,
    pub last_status: Option<i32>,
    pub last_error: Option<&'a str>,
    pub delivered_at: Option<DateTime<Utc>>,
    /// The lease the attempt was made under (the claim's `next_attempt_at`): the
    /// outcome is recorded only while the delivery is still under it.
    pub lease: DateTime<Utc>,
}

/// A registered webhook.
#[derive(Debug, Clone)]
pub struct Webhook {
    pub id: Uuid,
    pub player_id: Uuid,
    pub url: String,
    pub secret: String,
    pub created_at: DateTime<Utc>,
}

/// One delivery of a notice to a webhook.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct Delivery {
    pub id: Uuid,
    pub webhook_id: Uuid,
    pub game_id: Uuid,
    pub version: i64,
    #[schema(value_type = NoticeKind)]
    pub kind: String,
    /// The notice, as its body was posted.
    #[schema(schema_with = notice_schema)]
    pub payload: Value,
    #[schema(value_type = DeliveryStatus)]
    pub status: String,
    pub attempts: i32,
    pub next_attempt_at: DateTime<Utc>,
    /// The receiver's last HTTP status.
    pub last_status: Option<i32>,
    pub last_error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub delivered_at: Option<DateTime<Utc>>,
}

/// A reference to the `Notice` schema (the service's notice payload).
fn notice_schema() -> utoipa::openapi::Ref {
    utoipa::openapi::Ref::from_schema_name("Notice")
}

/// What a notice is about.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum NoticeKind {
    /// A game awaits the player's move.
    YourTurn,
    /// A game of the player's ended.
    GameFinished,
    /// Someone reserved a seat for the player in a new game.
    Invited,
    /// A player declined a seat in a game the reader created.
    InvitationDeclined,
    /// The player's game of a tournament's round started (`GET /v1/tournaments/{id}`).
    RoundStarted,
    /// Another player of the game wrote a message (read it with
    /// `GET /v1/games/{id}/messages`).
    Message,
}

/// Where a delivery stands.
#[derive(Debug, Clone, Copy, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryStatus {
    /// Not yet delivered; tried again at `next_attempt_at`.
    Pending,
    /// The receiver answered 2xx.
    Delivered,
    /// Given up after the last retry.
    Failed,
}

/// The answer stored for an `Idempotency-Key` (always a success: refusals are not kept),
/// with the request it answered.
#[derive(Debug, Clone)]
pub struct KeptAnswer {
    pub body: Value,
    /// The request's method and path, e.g. `POST /v1/games/{id}/moves` (empty in
    /// answers kept before requests were recorded).
    pub request: String,
    /// The SHA-256 of the request's body, hex.
    pub body_hash: String,
}

/// An answer to keep with a change, for `(player_id, key)`.
#[derive(Debug, Clone)]
pub struct AnswerToKeep {
    pub player_id: Uuid,
    pub key: String,
    /// The answer's body, as it was sent.
    pub body: RawJson,
    /// The request's method and path (see [`KeptAnswer`]).
    pub request: String,
    /// The SHA-256 of the request's body, hex.
    pub body_hash: String,
    /// An answer kept for this key before this has expired: it is deleted when this one
    /// is written (the background sweep deletes the other expired answers).
    pub expired_before: DateTime<Utc>,
}

/// One atomic change of a game.
#[derive(Debug, Clone)]
pub struct Append {
    pub game_id: Uuid,
    /// The last sequence number the caller saw (0 for a new game).
    pub expected_version: i64,
    pub events: Vec<EventRow>,
    pub row: GameRow,
    /// The secret server seed, stored with a new game.
    pub secret: Option<Vec<u8>>,
    /// The answer to keep for an `Idempotency-Key`.
    pub answer_to_keep: Option<AnswerToKeep>,
    /// Notices for players' webhooks (the outbox).
    pub notices: Vec<PlayerNotice>,
}

impl Append {
    /// Whether the seats read model changes: only when a game is created or a seat taken.
    pub fn seats_changed(&self) -> bool {
        self.events.iter().any(|e| {
            matches!(
                e.event.kind.as_str(),
                "game_created" | "seat_taken" | "invitation_declined"
            )
        })
    }
}

/// Which games to list.
#[derive(Debug, Clone, Default)]
pub struct GameFilter {
    pub player: Option<Uuid>,
    pub status: Option<String>,
    pub to_move_player: Option<Uuid>,
    pub limit: i64,
    pub offset: i64,
    /// Only the games listed after this one (keyset paging): its last change and id.
    pub after: Option<ListedAt>,
}

/// Where a game stands in the listing, newest change first: the time of its last change
/// (`games.updated_at`, exactly as stored) and, among games changed at the same time,
/// its id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListedAt {
    pub updated_at: DateTime<Utc>,
    pub id: Uuid,
}

/// A game of a listing: its stored summary and its place in the listing.
#[derive(Debug, Clone)]
pub struct ListedGame {
    pub summary: serde_json::Value,
    pub at: ListedAt,
}

/// A game's stored checkpoint: its table at `version`, written by
/// `checkpoints::stored` under the engine's `rules_version` in layout `format`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredCheckpoint {
    pub game_id: Uuid,
    pub version: i64,
    pub rules_version: i32,
    pub format: i32,
    pub body: String,
}
