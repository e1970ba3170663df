//! The seats of a table: who sits where, and what a seat is reserved for.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;
use worp_engine::Seat;

use super::{SeatVacation, Table};
use crate::bots::BotKind;

/// One seat of a table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SeatInfo {
    /// The player in the seat; absent while the seat is open.
    pub player_id: Option<Uuid>,
    /// The seat left the game (resigned or timed out).
    pub retired: bool,
    /// The client seed the player added to the dice, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_seed: Option<String>,
    /// Set when the computer plays this seat.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bot: Option<BotKind>,
    /// The player the seat is reserved for, until they accept (take it) or decline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invited: Option<Uuid>,
    /// The vacation of the seat's player, while it lasts (`vacation_started`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vacation: Option<SeatVacation>,
}

impl SeatInfo {
    /// Nobody sits here yet, and the seat is reserved for nobody: anyone may take it.
    pub fn is_open(&self) -> bool {
        self.player_id.is_none() && self.bot.is_none() && self.invited.is_none()
    }

    /// Nobody sits here yet (the seat may be reserved).
    pub fn is_empty(&self) -> bool {
        self.player_id.is_none() && self.bot.is_none()
    }
}

impl Table {
    /// The seats `player` holds.
    pub fn seats_of(&self, player: Uuid) -> Vec<Seat> {
        self.seats
            .iter()
            .enumerate()
            .filter(|(_, s)| s.player_id == Some(player))
            .map(|(i, _)| Seat(i as u8))
            .collect()
    }

    /// The seats reserved for `player`.
    pub fn invitations_of(&self, player: Uuid) -> Vec<Seat> {
        self.seats
            .iter()
            .enumerate()
            .filter(|(_, s)| s.invited == Some(player))
            .map(|(i, _)| Seat(i as u8))
            .collect()
    }

    /// The client seeds in seat order, as the dice derivation uses them.
    pub fn client_seeds(&self) -> Vec<Option<String>> {
        self.seats.iter().map(|s| s.client_seed.clone()).collect()
    }
}
