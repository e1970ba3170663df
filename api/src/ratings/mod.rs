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

use imbl::HashMap;

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

/// Every standing, and what each rated game changed.
///
/// Both maps are persistent (`imbl`): a clone shares them and costs the same at any size,
/// and folding a game into the clone copies only the paths to the entries it changes.
/// A refresh folds the new finishes into a clone of the book readers may still hold, so
/// a copy of every standing and every rated game's changes would make each finish cost
/// in proportion to all the games ever rated.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RatingBook {
    standings: HashMap<(Uuid, String), Standing>,
    changes: HashMap<Uuid, std::sync::Arc<[RatingChange]>>,
    /// How many finished games were folded in (rated or not), and the last position.
    pub folded: u64,
    pub last_position: i64,
}

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
            self.standings
                .insert((*player, g.variant.clone()), standing);
        }
        self.changes.insert(g.game_id, changes.into());
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
            .map(|((p, v), s)| (*p, v.clone(), *s))
            .collect();
        out.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        out
    }

    /// `player`'s standing in `variant`, if they played a rated game of it.
    pub fn standing(&self, player: Uuid, variant: &str) -> Option<Standing> {
        self.standings.get(&(player, variant.to_owned())).copied()
    }

    /// Every variant `player` has a standing in, by name.
    pub fn standings_of(&self, player: Uuid) -> Vec<(String, Standing)> {
        let mut out: Vec<(String, Standing)> = self
            .standings
            .iter()
            .filter(|((p, _), _)| *p == player)
            .map(|((_, v), s)| (v.clone(), *s))
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// The best rated players of `variant` whose deviation is below `max_deviation`,
    /// best first (ties by id), at most `limit`.
    pub fn leaders(
        &self,
        variant: &str,
        max_deviation: f64,
        limit: usize,
    ) -> Vec<(Uuid, Standing)> {
        let mut out: Vec<(Uuid, Standing)> = self
            .standings
            .iter()
            .filter(|((_, v), s)| v == variant && s.deviation < max_deviation)
            .map(|((p, _), s)| (*p, *s))
            .collect();
        out.sort_by(|a, b| b.1.rating.total_cmp(&a.1.rating).then(a.0.cmp(&b.0)));
        out.truncate(limit);
        out
    }

    /// What the rated game `game` changed, if it was rated.
    pub fn changes(&self, game: Uuid) -> Option<&[RatingChange]> {
        self.changes.get(&game).map(|c| &c[..])
    }
}

/// The projection shared by a process's requests (one refresh at a time): the book, and
/// when it was last checked against a count of the whole log.
#[derive(Debug, Default)]
pub struct Projector(pub tokio::sync::Mutex<Projection>);

/// See [`Projector`].
#[derive(Debug, Default)]
pub struct Projection {
    pub book: std::sync::Arc<RatingBook>,
    pub counted_at: Option<std::time::Instant>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(position: i64, players: Vec<Option<Uuid>>, winners: Vec<u8>) -> FinishedGame {
        FinishedGame {
            position,
            game_id: Uuid::new_v4(),
            variant: "backgammon".into(),
            rated: true,
            players,
            winners,
        }
    }

    #[test]
    fn a_win_raises_the_winner_and_lowers_the_loser_by_glicko2() {
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        let book = RatingBook::fold(&[game(1, vec![Some(a), Some(b)], vec![0])]);
        let (sa, sb) = (
            book.standing(a, "backgammon").expect("a"),
            book.standing(b, "backgammon").expect("b"),
        );
        // Glickman's two new players, one game: 1500 ± 350 each, 1662 / 1338 after.
        assert_eq!(sa.rating.round(), 1662.0);
        assert_eq!(sb.rating.round(), 1338.0);
        assert!(sa.deviation < 350.0);
        assert_eq!((sa.games, sa.won, sa.lost, sa.drawn), (1, 1, 0, 0));
        assert_eq!((sb.games, sb.won, sb.lost, sb.drawn), (1, 0, 1, 0));
    }

    #[test]
    fn unrated_games_games_with_bots_and_a_player_in_two_seats_change_nothing() {
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        let mut unrated = game(1, vec![Some(a), Some(b)], vec![0]);
        unrated.rated = false;
        let bot = game(2, vec![Some(a), None], vec![0]);
        let twice = game(3, vec![Some(a), Some(a)], vec![0]);
        let book = RatingBook::fold(&[unrated, bot, twice]);
        assert_eq!(book.standing(a, "backgammon"), None);
        assert_eq!(book.folded, 3);
    }

    #[test]
    fn more_seats_play_pairwise_by_finishing_order() {
        let p: Vec<Uuid> = (0..4).map(|_| Uuid::new_v4()).collect();
        // Seat 2 first, seat 0 second; seats 1 and 3 unranked (tied last).
        let g = game(1, p.iter().copied().map(Some).collect(), vec![2, 0]);
        let book = RatingBook::fold(&[g]);
        let r = |i: usize| book.standing(p[i], "backgammon").expect("rated").rating;
        assert!(r(2) > r(0) && r(0) > 1500.0, "{} {}", r(2), r(0));
        assert!(r(1) < 1500.0 && (r(1) - r(3)).abs() < 1e-9);
    }

    #[test]
    fn folding_the_same_games_in_the_same_order_gives_the_same_book() {
        let (a, b, c) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
        let games: Vec<FinishedGame> = (0..30)
            .map(|i| {
                let players = match i % 3 {
                    0 => vec![Some(a), Some(b)],
                    1 => vec![Some(b), Some(c)],
                    _ => vec![Some(c), Some(a)],
                };
                game(
                    i,
                    players,
                    if i % 5 == 0 {
                        vec![]
                    } else {
                        vec![(i % 2) as u8]
                    },
                )
            })
            .collect();
        let once = RatingBook::fold(&games);
        let mut incremental = RatingBook::fold(&games[..17]);
        for g in &games[17..] {
            incremental.apply(g);
        }
        assert_eq!(once, incremental);
        assert_eq!(once.standing(a, "backgammon").map(|s| s.games), Some(20));
    }

    /// Counts the allocations of the thread that makes them (tests run in parallel).
    struct CountingAllocator;

    thread_local! {
        static ALLOCATIONS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    // SAFETY: every call is passed on unchanged to the system allocator.
    unsafe impl std::alloc::GlobalAlloc for CountingAllocator {
        unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
            let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
            std::alloc::System.alloc(layout)
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
            std::alloc::System.dealloc(ptr, layout)
        }
        unsafe fn realloc(
            &self,
            ptr: *mut u8,
            layout: std::alloc::Layout,
            new_size: usize,
        ) -> *mut u8 {
            let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
            std::alloc::System.realloc(ptr, layout, new_size)
        }
    }

    #[global_allocator]
    static COUNTING: CountingAllocator = CountingAllocator;

    fn allocations() -> u64 {
        ALLOCATIONS.with(std::cell::Cell::get)
    }

    /// A book of `games` rated games, each between two new players.
    fn book_of(games: usize) -> RatingBook {
        let games: Vec<FinishedGame> = (0..games)
            .map(|i| {
                game(
                    i as i64 + 1,
                    vec![Some(Uuid::new_v4()), Some(Uuid::new_v4())],
                    vec![(i % 2) as u8],
                )
            })
            .collect();
        RatingBook::fold(&games)
    }

    #[test]
    fn a_refresh_copies_no_more_of_a_big_book_than_of_a_small_one() {
        // A refresh folds the new finishes into a copy of the book that readers may still
        // hold: that copy must not grow with every game ever rated.
        let refresh = |book: &RatingBook| {
            let g = game(
                book.last_position + 1,
                vec![Some(Uuid::new_v4()), Some(Uuid::new_v4())],
                vec![0],
            );
            let before = allocations();
            let mut grown = book.clone();
            grown.apply(&g);
            let made = allocations() - before;
            // The book the readers hold is unchanged.
            assert_eq!(book.changes(g.game_id), None);
            assert_eq!(grown.changes(g.game_id).map(<[_]>::len), Some(2));
            assert_eq!(grown.folded, book.folded + 1);
            made
        };
        let (small, big) = (book_of(10), book_of(20_000));
        let (small, big) = (refresh(&small), refresh(&big));
        assert!(
            big <= small + 64,
            "a refresh of a book of 20,000 games made {big} allocations, of 10 games {small}"
        );
    }
}
