//! Seats of a waiting game: taking an open one, accepting the invitation to a reserved
//! one (by taking it), declining it.

use std::sync::Arc;

use uuid::Uuid;
use worp_engine::Seat;

use super::refusal::Refusal;
use super::text;
use super::worp::Worp;
use worp_domain::events::Event;
use worp_domain::table::{SeatInfo, Status, Table};
use worp_store::Player;

impl Worp {
    /// Takes an open seat, or accepts the invitation to the seat reserved for the caller.
    pub async fn take_seat(
        &self,
        player: &Player,
        id: Uuid,
        seat: u8,
        client_seed: Option<String>,
    ) -> Result<Arc<Table>, Refusal> {
        text::check_client_seed(&client_seed)?;
        let table = self.load(id).await?;
        let info: &SeatInfo = table
            .seats
            .get(usize::from(seat))
            .ok_or_else(|| Refusal::NotFound(format!("game {id} has no seat {seat}")))?;
        if table.status() != Status::Waiting || !info.is_empty() {
            return Err(Refusal::Conflict(format!("seat {seat} is already taken")));
        }
        if info.invited.is_some_and(|p| p != player.id) {
            return Err(Refusal::NotYours(format!(
                "seat {seat} is reserved for the player invited to it"
            )));
        }
        let now = self.now();
        let mut events = vec![Event::SeatTaken {
            seat,
            player_id: player.id,
            client_seed,
        }];
        // A player on vacation sits down paused.
        if table.days_per_move.is_some() {
            events.extend(self.vacation_of_seats(player.id, [seat], now).await?);
        }
        self.change_all(&table, events, now).await
    }

    /// Declines the invitation to `seat` (or to the caller's only reserved seat): the
    /// seat is open again, for anyone to take.
    pub async fn decline(
        &self,
        player: &Player,
        id: Uuid,
        seat: Option<u8>,
    ) -> Result<Arc<Table>, Refusal> {
        let table = self.load(id).await?;
        let mine = table.invitations_of(player.id);
        let seat = chosen_seat(
            seat,
            &mine,
            |s| Refusal::NotYours(format!("seat {s} is not reserved for you")),
            || Refusal::NotYours("you have no invitation to this game".into()),
            "you are invited to several seats: say which one you decline",
        )?;
        // The game still waits for the seat: nothing is owed after it.
        let event = Event::InvitationDeclined {
            seat: seat.0,
            player_id: player.id,
        };
        self.change(&table, event, self.now(), None).await
    }
}

/// The seat a request acts on: the one it names, if it is among `mine`, else the only one
/// of `mine`; refused with `not_mine` (a seat named that is not among them), `none` (no
/// seat at all) or, when several could be meant, an invalid request saying `several`.
pub(super) fn chosen_seat(
    asked: Option<u8>,
    mine: &[Seat],
    not_mine: impl FnOnce(u8) -> Refusal,
    none: impl FnOnce() -> Refusal,
    several: &str,
) -> Result<Seat, Refusal> {
    match (asked, mine) {
        (Some(s), _) if mine.contains(&Seat(s)) => Ok(Seat(s)),
        (Some(s), _) => Err(not_mine(s)),
        (None, [only]) => Ok(*only),
        (None, []) => Err(none()),
        (None, _) => Err(Refusal::Invalid(several.to_owned())),
    }
}
