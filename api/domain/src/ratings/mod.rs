//! Ratings: one Glicko-2 rating per player per variant, a projection of the event log.
//!
//! The fold is pure: finished games, applied in the global order of their `game_finished`
//! events, give the same book every time (`service::ratings` keeps it current and
//! `worp rebuild` recomputes it from the log alone). Each game is one Glicko-2 rating
//! period for its players (computed by the `skillratings` crate): two seats play one
//! result; more seats play every other seat pairwise by finishing order (a seat placed
//! higher beats one placed lower; seats the result does not rank, such as those that
//! retired, tie among themselves below every ranked seat), so a four-seat game is three
//! results for each player.
//!
//! Which games count (docs/api.md, "Which games count"), each decided from the log alone, so that every
//! fold decides the same: a game counts when it was created rated, every seat was a
//! registered player (no bots, no seat held twice), it has at least two players, and
//!
//! 1. it was not aborted: every seat made its first moves ([`FIRST_MOVES`]; a puppet
//!    that resigns before playing gives nothing away);
//! 2. every player has made at least [`SEASONED_MOVES`] moves in the finished games
//!    folded so far, this one included (an account made minutes ago to lose on purpose
//!    must first play);
//! 3. no two of its players have already had [`PAIR_GAMES`] counted games of the
//!    variant together that finished within [`PAIR_WINDOW`] before it (by the finishes'
//!    recorded times: the same two accounts cannot pump a rating by playing on and on).
//!
//! A game created rated that does not count changes no rating; the book says why
//! ([`RatingBook::not_rated`]).

use std::cmp::Ordering;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use imbl::{HashMap, OrdSet, Vector};

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
    /// When its `game_finished` event was recorded.
    pub finished_at: DateTime<Utc>,
    /// The moves each seat made (`move_played` events).
    pub moves: Vec<u32>,
}

/// How many moves each seat of a game of `variant` must have made for the game not to be
/// aborted: its first turn; in backgammon two moves (with the cube a turn is two, the
/// decision to roll and the checkers' move).
pub fn first_moves(variant: &str) -> u32 {
    if variant == "backgammon" {
        2
    } else {
        1
    }
}

/// See [`first_moves`].
pub const FIRST_MOVES: &str = "two moves in backgammon, one in the other games";

/// Whether a finished game whose seats made `moves` is aborted: some seat did not make
/// its first moves ([`first_moves`]).
pub fn aborted(variant: &str, moves: &[u32]) -> bool {
    moves.iter().any(|m| *m < first_moves(variant))
}

/// The moves a player must have made in finished games (the game in question included)
/// before their rated games count.
pub const SEASONED_MOVES: u32 = 10;

/// At most this many counted games of a variant between the same two players may finish
/// within [`PAIR_WINDOW`]; the next ones do not count.
pub const PAIR_GAMES: usize = 3;

/// See [`PAIR_GAMES`].
pub const PAIR_WINDOW: chrono::TimeDelta = chrono::TimeDelta::hours(24);

/// Why a game created rated changed no rating.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum NotRated {
    /// A seat did not make its first moves: the game was aborted.
    Aborted,
    /// A player had made fewer than ten moves in finished games.
    NewPlayer,
    /// Two of its players already had three counted games of the variant together
    /// finish in the 24 hours before it.
    SameOpponents,
    /// One player held more than one of its seats: nobody else was beaten.
    SamePlayer,
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
    /// Games created rated that did not count, and why.
    not_rated: HashMap<Uuid, NotRated>,
    /// The moves each player made in the finished games folded.
    moves: HashMap<Uuid, u32>,
    /// Per two players (the lower id first) and variant, when their counted games
    /// finished, those within [`PAIR_WINDOW`] of the newest.
    pairs: HashMap<(Uuid, Uuid, Arc<str>), Vector<DateTime<Utc>>>,
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
        for (player, moves) in g.players.iter().zip(&g.moves) {
            if let Some(p) = player {
                *self.moves.entry(*p).or_default() += moves;
            }
        }
        let Some(players) = g.players.iter().copied().collect::<Option<Vec<Uuid>>>() else {
            return;
        };
        if !g.rated {
            return;
        }
        let mut distinct = players.clone();
        distinct.sort();
        distinct.dedup();
        if distinct.len() != players.len() {
            self.not_rated.insert(g.game_id, NotRated::SamePlayer);
            return;
        }
        if distinct.len() < 2 {
            return;
        }
        let variant: Arc<str> = g.variant.as_str().into();
        if let Some(why) = self.why_not_rated(g, &players, &variant) {
            self.not_rated.insert(g.game_id, why);
            return;
        }
        for (i, a) in players.iter().enumerate() {
            for b in &players[i + 1..] {
                let key = ((*a).min(*b), (*a).max(*b), variant.clone());
                let mut recent = self.pairs.get(&key).cloned().unwrap_or_default();
                recent.retain(|t| *t > g.finished_at - PAIR_WINDOW);
                recent.push_back(g.finished_at);
                self.pairs.insert(key, recent);
            }
        }
        let places = places(g);
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

    /// Why the rated game `g` between `players` (all distinct) does not count, if it
    /// does not (the module's rules, in order).
    fn why_not_rated(
        &self,
        g: &FinishedGame,
        players: &[Uuid],
        variant: &Arc<str>,
    ) -> Option<NotRated> {
        if g.moves.len() != players.len() || aborted(&g.variant, &g.moves) {
            return Some(NotRated::Aborted);
        }
        let moves = |p: &Uuid| self.moves.get(p).copied().unwrap_or_default();
        if players.iter().any(|p| moves(p) < SEASONED_MOVES) {
            return Some(NotRated::NewPlayer);
        }
        let since = g.finished_at - PAIR_WINDOW;
        for (i, a) in players.iter().enumerate() {
            for b in &players[i + 1..] {
                let key = ((*a).min(*b), (*a).max(*b), variant.clone());
                let together = self
                    .pairs
                    .get(&key)
                    .map_or(0, |t| t.iter().filter(|t| **t > since).count());
                if together >= PAIR_GAMES {
                    return Some(NotRated::SameOpponents);
                }
            }
        }
        None
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

    /// Why the game `game`, created rated, changed no rating (`None`: it did, or it was
    /// not created rated, or is not folded yet).
    pub fn not_rated(&self, game: Uuid) -> Option<NotRated> {
        self.not_rated.get(&game).copied()
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
