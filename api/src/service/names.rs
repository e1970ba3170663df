//! Players' public names, shown beside their ids in games, listings and profiles, and
//! their public profiles.

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

pub use super::name_book::NameBook;
use super::read_model::GameSummary;
use super::refusal::Refusal;
use super::worp::Worp;
use crate::ratings::Standing;
use crate::table::Table;

/// What anyone may see of a player.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PlayerProfile {
    pub id: Uuid,
    pub name: String,
    /// When the player registered.
    pub joined: DateTime<Utc>,
    /// Per variant played rated: the rating, its deviation, games played, won, lost
    /// and drawn.
    pub ratings: Vec<VariantStanding>,
    /// The player's newest finished games.
    pub recent_games: Vec<GameSummary>,
}

/// A player's standing in one variant.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct VariantStanding {
    pub variant: String,
    #[serde(flatten)]
    pub standing: Standing,
}

impl Worp {
    /// Learns the names of `players` not known yet (unknown ids are skipped), all of
    /// them in one read of the store.
    pub async fn learn_names(&self, players: Vec<Uuid>) -> Result<(), Refusal> {
        let mut unknown: Vec<Uuid> = players
            .into_iter()
            .filter(|&id| self.names.get(id).is_none())
            .collect();
        if unknown.is_empty() {
            return Ok(());
        }
        unknown.sort_unstable();
        unknown.dedup();
        // Boxed: a read that is rarely needed would otherwise widen the future of every
        // change that asks for names.
        for (id, name) in Box::pin(self.store.player_names(&unknown)).await? {
            self.names.put(id, name);
        }
        Ok(())
    }

    /// Learns the names of the players seated in, or invited to, `table`.
    pub async fn learn_table_names(&self, table: &Table) -> Result<(), Refusal> {
        let players = table
            .seats
            .iter()
            .flat_map(|s| s.player_id.into_iter().chain(s.invited))
            .collect();
        self.learn_names(players).await
    }

    /// Fills in the names of the players of each game of a listing.
    pub async fn name_seats(&self, games: &mut [GameSummary]) -> Result<(), Refusal> {
        let players: Vec<Uuid> = games
            .iter()
            .flat_map(|g| g.seats.iter().chain(&g.invited).flatten().copied())
            .collect();
        self.learn_names(players).await?;
        for g in games {
            g.names = g
                .seats
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let p = p.or_else(|| g.invited.get(i).copied().flatten());
                    p.and_then(|p| self.names.get(p))
                })
                .collect();
        }
        Ok(())
    }

    /// The public profile of player `id`.
    pub async fn profile(&self, id: Uuid) -> Result<PlayerProfile, Refusal> {
        let (name, joined) = self
            .store
            .player_profile(id)
            .await?
            .ok_or_else(|| Refusal::NotFound(format!("no player {id}")))?;
        let ratings = self
            .rating_book()
            .await?
            .standings_of(id)
            .into_iter()
            .map(|(variant, standing)| VariantStanding { variant, standing })
            .collect();
        let mut recent_games: Vec<GameSummary> = self
            .list(&crate::store::GameFilter {
                player: Some(id),
                status: Some("finished".into()),
                to_move_player: None,
                limit: 10,
                offset: 0,
                after: None,
            })
            .await?
            .into_iter()
            .map(|(game, _)| game)
            .collect();
        self.name_seats(&mut recent_games).await?;
        Ok(PlayerProfile {
            id,
            name,
            joined,
            ratings,
            recent_games,
        })
    }
}
