//! Tournaments: each one's hash-chained log, its row (what listings read) and the games it
//! paired (`worp_domain::tournaments`; the service says what the events mean).

use uuid::Uuid;
use worp_domain::tournaments::{
    TournamentAppend, TournamentEventRow, TournamentGame, TournamentRow,
};

use super::{bounded, postgres, sqlite, Store, StoreError};

impl Store {
    /// The events of tournament `id` after sequence number `after`, in order (none from
    /// 0: no such tournament).
    pub async fn tournament_events(
        &self,
        id: Uuid,
        after: i64,
    ) -> Result<Vec<TournamentEventRow>, StoreError> {
        on_backend!(self.tournament_events(id, after))
    }

    /// Appends a change of a tournament: [`StoreError::Conflict`] when its log no longer
    /// ends at the change's expected version.
    pub async fn append_tournament(&self, a: &TournamentAppend) -> Result<(), StoreError> {
        on_backend!(self.append_tournament(a))
    }

    /// The row of tournament `id`.
    pub async fn tournament_row(&self, id: Uuid) -> Result<Option<TournamentRow>, StoreError> {
        on_backend!(self.tournament_row(id))
    }

    /// Tournaments newest first, of `status` if given.
    pub async fn list_tournaments(
        &self,
        status: Option<&str>,
        limit: i64,
        offset: i64,
    ) -> Result<Vec<TournamentRow>, StoreError> {
        let status = status.map(str::to_owned);
        on_backend!(self.list_tournaments(status.clone(), limit, offset))
    }

    /// The tournament table game `game_id` is played at, if any.
    pub async fn tournament_of_game(
        &self,
        game_id: Uuid,
    ) -> Result<Option<TournamentGame>, StoreError> {
        on_backend!(self.tournament_of_game(game_id))
    }

    /// Every tournament that has a log.
    pub async fn tournament_ids(&self) -> Result<Vec<Uuid>, StoreError> {
        on_backend!(self.tournament_ids())
    }

    /// How many tournaments `creator` made that are not finished.
    pub async fn unfinished_tournaments_of(&self, creator: Uuid) -> Result<i64, StoreError> {
        on_backend!(self.unfinished_tournaments_of(creator))
    }

    /// The tournaments whose row says they are not finished.
    pub async fn unfinished_tournaments(&self) -> Result<Vec<Uuid>, StoreError> {
        on_backend!(self.unfinished_tournaments())
    }

    /// Replaces every tournament row and game (`worp rebuild`).
    pub async fn replace_tournament_rows(
        &self,
        rows: &[TournamentRow],
        games: &[TournamentGame],
    ) -> Result<(), StoreError> {
        on_backend!(self.replace_tournament_rows(rows, games))
    }
}
