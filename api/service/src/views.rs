//! The game as a player sees it (`GameView`), made from a table: the body of the API's
//! answers about a game, written by the service while a move's commit is in flight.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;
use worp_engine::json::{self, RawJson};
use worp_engine::{Awaiting, GameResult};

use crate::{NameBook, Refusal};
use worp_domain::bots::BotKind;
use worp_domain::ratings::{NotRated, RatingChange};
use worp_domain::table::{FinishReason, LastDice, Status, Table};

/// A seat in a game view.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SeatView {
    /// The seat number.
    pub seat: u8,
    /// The player in it; absent while open.
    pub player_id: Option<Uuid>,
    /// The player's name.
    pub name: Option<String>,
    /// Whether the seat left the game.
    pub retired: bool,
    /// The bot playing this seat, if the computer plays it.
    pub bot: Option<BotKind>,
    /// The player this seat is reserved for until they take it (accept) or decline.
    pub invited: Option<Uuid>,
    /// The invited player's name.
    pub invited_name: Option<String>,
    /// While the seat's player is on vacation in this game: when it ends at the latest
    /// (the seat's clock is paused until then; docs/vacation.md).
    #[serde(serialize_with = "worp_domain::clock::rfc3339_option")]
    pub vacation_until: Option<DateTime<Utc>>,
}

/// A game as the API shows it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct GameView {
    pub id: Uuid,
    /// The registered variant name (see `GET /v1/variants`).
    pub variant: String,
    /// The options the game was created with, as its rules store them: each default
    /// written out, but for those that follow other options or the seats (left out or
    /// `null` when not given; backgammon leaves out every option not given). `GET
    /// /v1/variants` says how each defaults.
    pub options: Value,
    pub status: Status,
    /// The last sequence number of the game's events; also the ETag.
    pub version: i64,
    /// The sequence number of the last event that changed the game (every event but a
    /// message). A move's `If-Match` passes with any version from this one to
    /// `version`: a message never makes a move stale.
    pub board_version: i64,
    pub seats: Vec<SeatView>,
    /// The seat whose move the game awaits, if any.
    pub to_move: Option<u8>,
    /// When the seat to move runs out of time (games with a clock).
    #[serde(serialize_with = "worp_domain::clock::rfc3339_option")]
    pub deadline: Option<DateTime<Utc>>,
    /// Days each seat has per move; absent: no clock.
    pub days_per_move: Option<u32>,
    /// What the engine waits for next.
    pub awaiting: Awaiting,
    /// The engine's state; its schema is the variant's `state_schema`.
    #[schema(value_type = Value)]
    pub state: RawJson,
    /// The last dice the server rolled.
    pub last_dice: Option<LastDice>,
    /// The legal moves of the seat to move; send one back exactly as listed.
    #[schema(value_type = Vec<Value>)]
    pub legal_moves: RawJson,
    /// How the game ended, when finished.
    pub result: Option<GameResult>,
    /// Why the game ended, when finished, in words a front-end can show.
    pub reason: Option<FinishReason>,
    /// Whether the game was created rated: its result changes the players' ratings
    /// unless `not_rated` says why not.
    pub rated: bool,
    /// Whether the game ended before every seat made its first moves (two in
    /// backgammon, one in the other games): aborted, it changes no rating.
    pub aborted: bool,
    /// What the game did to each player's rating (a finished rated game).
    pub rating_changes: Option<Vec<RatingChange>>,
    /// Why a finished game created rated changed no rating (docs/api.md, "Which games count").
    pub not_rated: Option<NotRated>,
    /// Hex SHA-256 of the secret server seed.
    pub dice_commitment: String,
    /// The server seed, revealed once the game is finished.
    pub server_seed: Option<String>,
    /// The hash of the newest event (the head of the chain).
    pub head_hash: String,
    #[serde(serialize_with = "worp_domain::clock::rfc3339")]
    pub created_at: DateTime<Utc>,
    #[serde(serialize_with = "worp_domain::clock::rfc3339")]
    pub updated_at: DateTime<Utc>,
    #[serde(serialize_with = "worp_domain::clock::rfc3339_option")]
    pub last_move_at: Option<DateTime<Utc>>,
    /// The tournament, round and table this game is (`GET /v1/tournaments/{id}`);
    /// absent for a game outside tournaments.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tournament: Option<worp_domain::events::TournamentTable>,
}

impl GameView {
    /// The view of `t`, with the names `names` knows (learn them first:
    /// `Worp::learn_table_names`); an internal error if the engine cannot write the
    /// game's state or legal moves as JSON.
    pub fn of(t: &Table, names: &NameBook) -> Result<GameView, Refusal> {
        let status = t.status();
        Ok(GameView {
            id: t.id,
            variant: t.variant.to_owned(),
            options: t.options.clone(),
            status,
            version: t.version,
            board_version: t.board_version,
            seats: t
                .seats
                .iter()
                .enumerate()
                .map(|(i, s)| SeatView {
                    seat: i as u8,
                    player_id: s.player_id,
                    name: s.player_id.and_then(|p| names.get(p)),
                    retired: s.retired,
                    bot: s.bot,
                    invited: s.invited,
                    invited_name: s.invited.and_then(|p| names.get(p)),
                    vacation_until: s.vacation.map(|v| v.until),
                })
                .collect(),
            to_move: t.to_move().map(|s| s.0),
            deadline: t.deadline(),
            days_per_move: t.days_per_move,
            awaiting: t.game.awaiting(),
            // Written straight from the engine's types, without `Value` trees between
            // (they would cost about a tenth of a move's time on the server).
            state: t.game.state_json()?,
            last_dice: t.last_dice.clone(),
            legal_moves: if status == Status::Active {
                t.game.legal_moves_json()?
            } else {
                empty_list()?
            },
            result: t.result.clone(),
            reason: t.finish_reason(),
            rated: t.rated,
            aborted: t.aborted(),
            rating_changes: None,
            not_rated: None,
            dice_commitment: t.dice_commitment.clone(),
            server_seed: t.server_seed.clone(),
            tournament: t.tournament,
            head_hash: t.head_hash.clone(),
            created_at: t.created_at,
            updated_at: t.updated_at,
            last_move_at: t.last_move_at,
        })
    }
}

/// `[]`, as JSON text.
fn empty_list() -> Result<RawJson, Refusal> {
    RawJson::of::<[u8]>(&[]).map_err(|e| Refusal::unwritable("an empty list", e))
}

/// The view of `t` as the body of an answer, written before the change that made `t` is
/// committed; `None` for a finished rated game, whose rating changes are known only
/// once it is, and for a view that cannot be written: the answer is then written after
/// the commit (`game_response` in the HTTP crate), which reports why it cannot be.
pub fn game_body(t: &Table, names: &NameBook) -> Option<Vec<u8>> {
    if !answered_before_commit(t) {
        return None;
    }
    json::to_vec(&GameView::of(t, names).ok()?).ok()
}

/// Whether the answer to the change that made `t` can be written before it is
/// committed: not for a finished rated game, whose rating changes are known only then.
pub fn answered_before_commit(t: &Table) -> bool {
    !(t.rated && t.result.is_some())
}

/// The view of `t` as JSON text (the answer kept for an `Idempotency-Key`).
pub fn game_json(t: &Table, names: &NameBook) -> Result<RawJson, Refusal> {
    RawJson::of(&GameView::of(t, names)?).map_err(|e| Refusal::unwritable("the game's view", e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use worp_domain::events::{Event, EventRow};

    /// A six-colour Mens-erger-je-niet game waiting for seats, with odd text where the
    /// view carries text.
    fn table() -> Table {
        let created = Event::GameCreated {
            variant: "mens_erger_je_niet".into(),
            options: serde_json::json!({"board": 6}),
            seats: vec![Some(Uuid::from_u128(7)), None, None],
            invited: Vec::new(),
            client_seeds: Vec::new(),
            bots: Vec::new(),
            days_per_move: Some(3),
            dice_commitment: "\"quoted\" \\ and\ttabbed".into(),
            created_by: Uuid::from_u128(7),
            rated: false,
            public_chat: true,
            tournament: None,
        };
        let e = EventRow::new(Uuid::from_u128(1), 1, &created, chrono::Utc::now(), "")
            .expect("an event serialises")
            .event;
        Table::from_events(&[e]).expect("a new game")
    }

    #[test]
    fn a_view_is_written_as_serde_json_writes_it() {
        let t = table();
        let view = GameView::of(&t, &NameBook::default()).expect("a view");
        let ours = game_body(&t, &NameBook::default());
        assert!(ours.is_some());
        assert_eq!(ours, serde_json::to_vec(&view).ok());
        assert_eq!(
            game_json(&t, &NameBook::default())
                .expect("a view")
                .get()
                .as_bytes(),
            ours.unwrap_or_default()
        );
    }
}
