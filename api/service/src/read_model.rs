//! The read model: what is derived from a game's table and stored beside its events in
//! the same transaction: the `games` row with the listing entry (`GameSummary`), and the
//! notices players hear (webhooks, their live stream).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;
use worp_engine::GameResult;

use worp_domain::table::{FinishReason, Table};
use worp_engine::json::RawJson;
use worp_store::{GameRow, PlayerNotice};

use crate::Refusal;

/// A game in a listing.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct GameSummary {
    pub id: Uuid,
    pub variant: String,
    #[schema(value_type = worp_domain::table::Status)]
    pub status: String,
    pub version: i64,
    /// The player of each seat (`null` = open, or reserved for an invited player).
    pub seats: Vec<Option<Uuid>>,
    /// The player each seat is reserved for until they accept or decline (`null`: not
    /// reserved). A game with a reservation for the reader is an invitation.
    #[serde(default)]
    pub invited: Vec<Option<Uuid>>,
    /// The name of each seat's player, or of the player it is reserved for (`null`: open
    /// or a bot).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<Option<String>>,
    pub to_move: Option<u8>,
    pub to_move_player: Option<Uuid>,
    /// When the seat to move runs out of time (games with a clock).
    #[serde(serialize_with = "worp_domain::clock::rfc3339_option")]
    pub deadline: Option<DateTime<Utc>>,
    /// An offer the seat to move must answer, when that is what it awaits: in
    /// backgammon with the cube `double` (take or pass) or `resignation` (accept or
    /// decline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    pub result: Option<GameResult>,
    /// Why the game ended, when finished.
    #[serde(default)]
    pub reason: Option<FinishReason>,
    /// Whether the game was created rated (the game's view says whether it counted).
    #[serde(default)]
    pub rated: bool,
    /// Whether the game ended before every seat made its first moves (two in
    /// backgammon, one in the other games): aborted, it changes no rating.
    #[serde(default)]
    pub aborted: bool,
    /// The moves each seat made.
    #[serde(default)]
    pub moves: Vec<u32>,
    /// The seats anyone may take (open and not reserved).
    #[serde(default)]
    pub open_seats: Vec<u8>,
    /// The player who created the game.
    #[serde(default)]
    pub created_by: Option<Uuid>,
    /// The options the game was created with, as its rules store them: each default
    /// written out, but for those that follow other options or the seats (left out or
    /// `null` when not given; backgammon leaves out every option not given). `GET
    /// /v1/variants` says how each defaults.
    #[serde(default)]
    pub options: serde_json::Value,
    /// Days each seat has per move; absent: no clock.
    #[serde(default)]
    pub days_per_move: Option<u32>,
    #[serde(serialize_with = "worp_domain::clock::rfc3339")]
    pub created_at: DateTime<Utc>,
    #[serde(serialize_with = "worp_domain::clock::rfc3339")]
    pub updated_at: DateTime<Utc>,
    #[serde(serialize_with = "worp_domain::clock::rfc3339_option")]
    pub last_move_at: Option<DateTime<Utc>>,
}

/// The offer the seat to move must answer, while the game is active.
fn question(t: &Table) -> Option<&'static str> {
    t.to_move().and(t.game.question())
}

/// The read-model row of a table; an internal error if its summary cannot be written.
pub fn game_row(t: &Table) -> Result<GameRow, Refusal> {
    let summary = GameSummary {
        id: t.id,
        variant: t.variant.to_owned(),
        status: t.status().as_str().to_owned(),
        version: t.version,
        seats: t.seats.iter().map(|s| s.player_id).collect(),
        invited: t.seats.iter().map(|s| s.invited).collect(),
        to_move: t.to_move().map(|s| s.0),
        to_move_player: t.to_move_player(),
        deadline: t.deadline(),
        question: question(t).map(str::to_owned),
        result: t.result.clone(),
        reason: t.finish_reason(),
        rated: t.rated,
        aborted: t.aborted(),
        moves: t.moves.clone(),
        open_seats: t
            .seats
            .iter()
            .enumerate()
            .filter(|(_, s)| s.is_empty() && s.invited.is_none())
            .map(|(i, _)| i as u8)
            .collect(),
        created_by: Some(t.created_by),
        options: t.options.clone(),
        days_per_move: t.days_per_move,
        // Names are looked up when a listing is read (`Worp::name_seats`).
        names: Vec::new(),
        created_at: t.created_at,
        updated_at: t.updated_at,
        last_move_at: t.last_move_at,
    };
    Ok(GameRow {
        id: t.id,
        variant: t.variant.to_owned(),
        status: t.status().as_str().to_owned(),
        version: t.version,
        to_move_seat: t.to_move().map(|s| i32::from(s.0)),
        to_move_player: t.to_move_player(),
        summary: RawJson::of(&summary).map_err(|e| Refusal::unwritable("a game's summary", e))?,
        // A player's games include those they are invited to.
        seats: t.seats.iter().map(|s| s.player_id.or(s.invited)).collect(),
        created_at: t.created_at,
        updated_at: t.updated_at,
        deadline: t.deadline(),
    })
}

/// What players should hear about after a change from `before` to `after`: the player
/// whose turn it now is (when it was not theirs already), everybody seated when the game
/// ended, a player invited to a seat (`invited`, once), the creator when an
/// invitation is declined (`invitation_declined`), and every player of a tournament's
/// game when it starts (`round_started`). A turn that answers an offer (a
/// double, a resignation) says so in `question`.
pub fn notices(before: Option<&Table>, after: &Table) -> Result<Vec<PlayerNotice>, Refusal> {
    let status = after.status();
    let notice = |kind: &str, player: Uuid, seat: Option<u8>| -> Result<PlayerNotice, Refusal> {
        Ok(PlayerNotice {
            player_id: player,
            game_id: after.id,
            version: after.version,
            kind: kind.to_owned(),
            payload: RawJson::of(&NoticePayload {
                deadline: after.deadline(),
                game_id: after.id,
                question: question(after),
                result: &after.result,
                seat,
                status: status.as_str(),
                kind,
                url: format!("/v1/games/{}", after.id),
                variant: after.variant,
                version: after.version,
            })
            .map_err(|e| Refusal::unwritable("a notice", e))?,
        })
    };
    let was_finished = before.is_some_and(|b| b.result.is_some());
    if after.result.is_some() && !was_finished {
        let mut players: Vec<Uuid> = after.seats.iter().filter_map(|s| s.player_id).collect();
        players.sort();
        players.dedup();
        return players
            .into_iter()
            .map(|p| notice("game_finished", p, None))
            .collect();
    }
    let mut out = Vec::new();
    for (i, seat) in after.seats.iter().enumerate() {
        let was = before.and_then(|b| b.seats.get(i));
        match (was.and_then(|s| s.invited), seat.invited) {
            (None, Some(p)) => out.push(notice("invited", p, Some(i as u8))?),
            (Some(_), None) if seat.is_empty() => out.push(notice(
                "invitation_declined",
                after.created_by,
                Some(i as u8),
            )?),
            _ => {}
        }
    }
    // A tournament's game starts with every seat taken: each player hears of it.
    if let (None, Some(_)) = (before, after.tournament) {
        for (i, seat) in after.seats.iter().enumerate() {
            if let Some(p) = seat.player_id {
                out.push(notice("round_started", p, Some(i as u8))?);
            }
        }
    }
    if after.messages > before.map_or(0, |b| b.messages) {
        let author = after
            .last_message_seat
            .and_then(|s| after.seats.get(usize::from(s)))
            .and_then(|s| s.player_id);
        let mut players: Vec<Uuid> = after
            .seats
            .iter()
            .filter_map(|s| s.player_id)
            .filter(|p| Some(*p) != author)
            .collect();
        players.sort();
        players.dedup();
        for p in players {
            out.push(notice("message", p, after.last_message_seat)?);
        }
    }
    match after.to_move_player() {
        Some(p) if before.and_then(Table::to_move_player) != Some(p) => {
            out.push(notice("your_turn", p, after.to_move().map(|s| s.0))?);
        }
        _ => {}
    }
    Ok(out)
}

/// What a notice says (webhook body, stream data), serialised straight from the table,
/// its members in alphabetical order (receivers may compare payloads as text).
#[derive(Serialize, ToSchema)]
#[schema(as = Notice)]
pub struct NoticePayload<'a> {
    /// When the seat to move runs out of time (games with a clock).
    deadline: Option<DateTime<Utc>>,
    game_id: Uuid,
    /// Present when the turn is an answer to an offer (`double`, `resignation`).
    #[serde(skip_serializing_if = "Option::is_none")]
    question: Option<&'a str>,
    /// How the game ended (`game_finished`).
    #[schema(value_type = Option<GameResult>)]
    result: &'a Option<GameResult>,
    /// The seat the notice is about (`your_turn`: the seat to move; `invited` and
    /// `invitation_declined`: the reserved seat).
    seat: Option<u8>,
    #[schema(value_type = worp_domain::table::Status)]
    status: &'a str,
    #[serde(rename = "type")]
    #[schema(value_type = worp_store::NoticeKind)]
    kind: &'a str,
    /// The game's address in this API.
    url: String,
    variant: &'a str,
    /// The game's version the notice was sent at.
    version: i64,
}
