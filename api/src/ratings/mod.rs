//! Ratings: one Glicko-2 rating per player per variant, a projection of the event log.
//!
//! The fold is pure: finished games, applied in the global order of their `game_finished`
//! events, give the same book every time (`service::ratings` keeps it current and
//! `worp ratings` recomputes it from the log alone). A game counts when it was created
//! rated, every seat was a registered player (no bots, no seat held twice) and it has at
//! least two players. Each game is one Glicko-2 rating period for its players (computed
//! by the `skillratings` crate): two seats play one result; more seats play every other
//! seat pairwise by finishing order (a seat placed higher beats one placed lower; seats
//! the result does not rank, such as those that retired, tie among themselves below
//! every ranked seat), so a four-seat game is three results for each player.

use std::cmp::Ordering;
use std::sync::Arc;

use imbl::{HashMap, OrdSet};

use serde::Serialize;
use skillratings::glicko2::{glicko2_rating_period, Glicko2Config, Glicko2Rating};
use skillratings::Outcomes;
use utoipa::ToSchema;
use uuid::Uuid;

/// A finished game, as the fold needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct FinishedGame {
    /// The global position of its `game_finished` event: the order of the fold.
    pub position: i64,
    pub game_id: Uuid,
    pub variant: String,
    /// Whether it was created rated.
    pub rated: bool,
    /// The player of each seat (`None`: a bot).
    pub players: Vec<Option<Uuid>>,
    /// The winning seats, best placed first (empty: a draw).
    pub winners: Vec<u8>,
}

/// A player's standing in one variant.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, ToSchema)]
pub struct Standing {
    /// The Glicko-2 rating (1500 to start).
    pub rating: f64,
    /// The rating deviation (350 to start): how uncertain the rating still is.
    pub deviation: f64,
    /// The Glicko-2 volatility.
    pub volatility: f64,
    /// Rated games played.
    pub games: u32,
    /// Rated games won (placed first).
    pub won: u32,
    /// Rated games lost.
    pub lost: u32,
    /// Rated games drawn.
    pub drawn: u32,
}

impl Default for Standing {
    fn default() -> Self {
        let start = Glicko2Rating::new();
        Standing {
            rating: start.rating,
            deviation: start.deviation,
            volatility: start.volatility,
            games: 0,
            won: 0,
            lost: 0,
            drawn: 0,
        }
    }
}

impl Standing {
    fn glicko(&self) -> Glicko2Rating {
        Glicko2Rating {
            rating: self.rating,
            deviation: self.deviation,
            volatility: self.volatility,
        }
    }
}

/// What one rated game did to one seat's rating.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, ToSchema)]
pub struct RatingChange {
    pub seat: u8,
    pub player_id: Uuid,
    /// The rating before the game.
    pub before: f64,
    /// The rating after it.
    pub after: f64,
    /// The deviation after it.
    pub deviation: f64,
}

/// The rating deviation below which a player is on a variant's leaderboard: Glicko-2
/// starts at 350; about ten rated games bring it under 150.
pub const LEADERBOARD_MAX_DEVIATION: f64 = 150.0;

/// Every standing, and what each rated game changed.
///
/// The maps are persistent (`imbl`): a clone shares them and costs the same at any size,
/// and folding a game into the clone copies only the paths to the entries it changes.
/// A refresh folds the new finishes into a clone of the book readers may still hold, so
/// a copy of every standing and every rated game's changes would make each finish cost
/// in proportion to all the games ever rated. Each variant's leaderboard is kept in
/// order as games are folded, so that reading its first places, or a player's
/// standings, does not go through every player.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RatingBook {
    /// Each player's standings, one per variant played rated.
    standings: HashMap<Uuid, Standings>,
    /// Per variant, the players with a deviation under [`LEADERBOARD_MAX_DEVIATION`],
    /// best first.
    leaderboards: HashMap<Arc<str>, OrdSet<Ranked>>,
    changes: HashMap<Uuid, Arc<[RatingChange]>>,
    /// How many finished games were folded in (rated or not), and the last position.
    pub folded: u64,
    pub last_position: i64,
}

/// One player's standings, by variant name (a player plays a few variants).
type Standings = Arc<[(Arc<str>, Standing)]>;

/// A place on a leaderboard: higher ratings first, then by player id.
#[derive(Debug, Clone, Copy)]
struct Ranked {
    rating: f64,
    player: Uuid,
}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .rating
            .total_cmp(&self.rating)
            .then(self.player.cmp(&other.player))
    }
}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Ranked {}

/// Where each seat finished: its place in `winners`, or below all of them.
fn places(g: &FinishedGame) -> Vec<usize> {
    (0..g.players.len())
        .map(|seat| {
            g.winners
                .iter()
                .position(|w| usize::from(*w) == seat)
                .unwrap_or(g.winners.len())
        })
        .collect()
}

impl RatingBook {
    /// Folds in one finished game (after every game of a lower position).
    pub fn apply(&mut self, g: &FinishedGame) {
        self.folded += 1;
        self.last_position = self.last_position.max(g.position);
        let Some(players) = g.players.iter().copied().collect::<Option<Vec<Uuid>>>() else {
            return;
        };
        let mut distinct = players.clone();
        distinct.sort();
        distinct.dedup();
        if !g.rated || distinct.len() < 2 || distinct.len() != players.len() {
            return;
        }
        let places = places(g);
        let variant: Arc<str> = g.variant.as_str().into();
        let before: Vec<Standing> = players
            .iter()
            .map(|p| self.standing(*p, &g.variant).unwrap_or_default())
            .collect();
        let config = Glicko2Config::new();
        let mut changes = Vec::with_capacity(players.len());
        for (seat, player) in players.iter().enumerate() {
            let results: Vec<(Glicko2Rating, Outcomes)> = (0..players.len())
                .filter(|other| *other != seat)
                .map(|other| {
                    let outcome = match places[seat].cmp(&places[other]) {
                        std::cmp::Ordering::Less => Outcomes::WIN,
                        std::cmp::Ordering::Greater => Outcomes::LOSS,
                        std::cmp::Ordering::Equal => Outcomes::DRAW,
                    };
                    (before[other].glicko(), outcome)
                })
                .collect();
            let new = glicko2_rating_period(&before[seat].glicko(), &results, &config);
            let mut standing = before[seat];
            standing.rating = new.rating;
            standing.deviation = new.deviation;
            standing.volatility = new.volatility;
            standing.games += 1;
            if g.winners.is_empty() {
                standing.drawn += 1;
            } else if places[seat] == 0 {
                standing.won += 1;
            } else {
                standing.lost += 1;
            }
            changes.push(RatingChange {
                seat: seat as u8,
                player_id: *player,
                before: before[seat].rating,
                after: new.rating,
                deviation: new.deviation,
            });
            self.set_standing(*player, &variant, standing);
        }
        self.changes.insert(g.game_id, changes.into());
    }

    /// Sets `player`'s standing in `variant`, and their place on its leaderboard.
    fn set_standing(&mut self, player: Uuid, variant: &Arc<str>, standing: Standing) {
        let mut mine: Vec<(Arc<str>, Standing)> = self
            .standings
            .get(&player)
            .map(|s| s.to_vec())
            .unwrap_or_default();
        let before = match mine.iter_mut().find(|(v, _)| v == variant) {
            Some((_, s)) => Some(std::mem::replace(s, standing)),
            None => {
                mine.push((variant.clone(), standing));
                mine.sort_by(|a, b| a.0.cmp(&b.0));
                None
            }
        };
        self.standings.insert(player, mine.into());
        let mut board = self.leaderboards.get(variant).cloned().unwrap_or_default();
        if let Some(b) = before.filter(|b| b.deviation < LEADERBOARD_MAX_DEVIATION) {
            board.remove(&Ranked {
                rating: b.rating,
                player,
            });
        }
        if standing.deviation < LEADERBOARD_MAX_DEVIATION {
            board.insert(Ranked {
                rating: standing.rating,
                player,
            });
        }
        self.leaderboards.insert(variant.clone(), board);
    }

    /// A book folded from `games`, in the order given.
    pub fn fold<'a>(games: impl IntoIterator<Item = &'a FinishedGame>) -> RatingBook {
        let mut book = RatingBook::default();
        for g in games {
            book.apply(g);
        }
        book
    }

    /// Every standing, by player and variant.
    pub fn all(&self) -> Vec<(Uuid, String, Standing)> {
        let mut out: Vec<(Uuid, String, Standing)> = self
            .standings
            .iter()
            .flat_map(|(p, mine)| mine.iter().map(|(v, s)| (*p, v.to_string(), *s)))
            .collect();
        out.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        out
    }

    /// `player`'s standing in `variant`, if they played a rated game of it.
    pub fn standing(&self, player: Uuid, variant: &str) -> Option<Standing> {
        self.standings
            .get(&player)?
            .iter()
            .find(|(v, _)| &**v == variant)
            .map(|(_, s)| *s)
    }

    /// Every variant `player` has a standing in, by name.
    pub fn standings_of(&self, player: Uuid) -> Vec<(String, Standing)> {
        self.standings
            .get(&player)
            .map(|mine| mine.iter().map(|(v, s)| (v.to_string(), *s)).collect())
            .unwrap_or_default()
    }

    /// The best rated players of `variant` whose deviation is below
    /// [`LEADERBOARD_MAX_DEVIATION`], best first (ties by id), at most `limit`.
    pub fn leaders(&self, variant: &str, limit: usize) -> Vec<(Uuid, Standing)> {
        let Some(board) = self.leaderboards.get(variant) else {
            return Vec::new();
        };
        board
            .iter()
            .take(limit)
            .filter_map(|r| Some((r.player, self.standing(r.player, variant)?)))
            .collect()
    }

    /// What the rated game `game` changed, if it was rated.
    pub fn changes(&self, game: Uuid) -> Option<&[RatingChange]> {
        self.changes.get(&game).map(|c| &c[..])
    }
}

/// The projection shared by a process's requests (one refresh at a time): the book, and
/// how far it is known to hold every finish of the log (`service::ratings`).
#[derive(Debug, Default)]
pub struct Projector(pub tokio::sync::Mutex<Projection>);

/// See [`Projector`].
#[derive(Debug, Default)]
pub struct Projection {
    pub book: std::sync::Arc<RatingBook>,
    /// When the book was last checked for a finish that committed late.
    pub checked_at: Option<std::time::Instant>,
    /// Up to this mark the log can gain no finish, and the book holds every one.
    pub settled: Mark,
    /// The book's end when it was last checked, and the transactions that might then
    /// still commit a finish below it: once they all ended, the finishes up to it are
    /// counted, and the mark settles.
    pub pending: Option<(Mark, Vec<String>)>,
}

/// A position of the log, and how many finishes the book had folded up to it.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Mark {
    pub position: i64,
    pub folded: u64,
}

#[cfg(test)]
mod tests;
