//! Limits on what one player may hold or do: open (waiting, not started) games, and
//! messages a minute. The limit on registrations is per client address and lives at the
//! HTTP edge (`ratelimit.rs`).

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use uuid::Uuid;

use super::refusal::Refusal;
use worp_store::Store;

/// The most waiting games a player may have created (`WORP_OPEN_GAMES_PER_PLAYER`), and
/// the creations of such games under way in this process, so that many requests at once
/// do not all pass the count of the stored ones.
#[derive(Debug, Default)]
pub struct OpenGames {
    /// 0: no limit.
    pub limit: u32,
    creating: Mutex<HashMap<Uuid, u32>>,
}

impl OpenGames {
    pub fn new(limit: u32) -> OpenGames {
        OpenGames {
            limit,
            creating: Mutex::default(),
        }
    }

    /// Counts one more creation under way for `player`; returns how many there are now.
    fn begin(&self, player: Uuid) -> u32 {
        let mut creating = self.creating.lock().unwrap_or_else(|e| e.into_inner());
        let n = creating.entry(player).or_insert(0);
        *n += 1;
        *n
    }

    fn end(&self, player: Uuid) {
        let mut creating = self.creating.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = creating.get_mut(&player) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                creating.remove(&player);
            }
        }
    }
}

/// A creation of an open game under way; ends when dropped.
#[derive(Debug)]
pub struct OpenGameSlot<'a> {
    games: &'a OpenGames,
    player: Uuid,
}

impl Drop for OpenGameSlot<'_> {
    fn drop(&mut self) {
        self.games.end(self.player);
    }
}

impl OpenGames {
    /// Refuses a game `player` would open beyond their limit of open games (`opens`:
    /// the game will wait for players; one whose seats are all filled starts at once
    /// and is not open). Keep the slot until the game is stored.
    pub async fn reserve(
        &self,
        store: &Store,
        player: Uuid,
        opens: bool,
    ) -> Result<Option<OpenGameSlot<'_>>, Refusal> {
        let limit = self.limit;
        if limit == 0 || !opens {
            return Ok(None);
        }
        let under_way = self.begin(player);
        let slot = OpenGameSlot {
            games: self,
            player,
        };
        let stored = store.open_games_of(player).await?;
        // `under_way` counts this request; an earlier one may be counted twice for a
        // moment (stored, not yet ended): that errs on the side of the limit.
        if stored.saturating_add(i64::from(under_way)) > i64::from(limit) {
            return Err(Refusal::TooMany(format!(
                "you have {stored} open games, the most allowed is {limit}; start or \
                 finish one first"
            )));
        }
        Ok(Some(slot))
    }
}

/// Messages one player may write a minute, over all games (in this process).
pub const MESSAGES_PER_MINUTE: usize = 10;

/// When each player's recent messages were written.
#[derive(Debug, Default)]
pub struct MessageLimit(Mutex<HashMap<Uuid, VecDeque<Instant>>>);

impl MessageLimit {
    /// Counts a message by `player` now, or refuses it with the seconds until one more
    /// is allowed.
    pub fn allow(&self, player: Uuid, now: Instant) -> Result<(), Refusal> {
        let minute = Duration::from_secs(60);
        let mut recent = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if recent.len() > 10_000 {
            recent.retain(|_, times| {
                times
                    .back()
                    .is_some_and(|t| now.duration_since(*t) < minute)
            });
        }
        let times = recent.entry(player).or_default();
        while times
            .front()
            .is_some_and(|t| now.duration_since(*t) >= minute)
        {
            times.pop_front();
        }
        if times.len() >= MESSAGES_PER_MINUTE {
            let wait = times
                .front()
                .map_or(minute, |t| minute.saturating_sub(now.duration_since(*t)));
            return Err(Refusal::TooMany(format!(
                "at most {MESSAGES_PER_MINUTE} messages a minute; try again in {} s",
                wait.as_secs().max(1)
            )));
        }
        times.push_back(now);
        Ok(())
    }
}
