//! The fold's rules, one test each, and what a refresh and a read of the book cost.

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
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
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

/// `games` rated games of backgammon among `players` players, each game between a
/// player and the next but `round` (so that each meets several others).
fn league(players: usize, games: usize) -> (Vec<Uuid>, Vec<FinishedGame>) {
    let ids: Vec<Uuid> = (0..players).map(|_| Uuid::new_v4()).collect();
    let games = (0..games)
        .map(|i| {
            let a = i % players;
            let b = (a + 1 + (i / players) % (players - 1)) % players;
            game(
                i as i64 + 1,
                vec![Some(ids[a]), Some(ids[b])],
                if i % 7 == 0 {
                    vec![]
                } else {
                    vec![(i % 3 % 2) as u8]
                },
            )
        })
        .collect();
    (ids, games)
}

#[test]
fn the_leaderboard_kept_as_games_are_folded_is_every_settled_standing_best_first() {
    let (ids, games) = league(40, 400);
    let book = RatingBook::fold(&games);
    let mut expected: Vec<(Uuid, Standing)> = book
        .all()
        .into_iter()
        .filter(|(_, v, s)| v == "backgammon" && s.deviation < LEADERBOARD_MAX_DEVIATION)
        .map(|(p, _, s)| (p, s))
        .collect();
    expected.sort_by(|a, b| b.1.rating.total_cmp(&a.1.rating).then(a.0.cmp(&b.0)));
    assert!(
        expected.len() > 10,
        "the league settles players: {}",
        expected.len()
    );
    assert_eq!(book.leaders("backgammon", 1000), expected);
    assert_eq!(book.leaders("backgammon", 5), expected[..5].to_vec());
    assert_eq!(book.leaders("ludo", 10), vec![]);
    for p in &ids {
        let mine = book.standings_of(*p);
        assert_eq!(mine.len(), 1);
        assert_eq!(Some(mine[0].1), book.standing(*p, "backgammon"));
    }
}

#[test]
fn a_leaderboard_reads_no_more_of_a_big_book_than_of_a_small_one() {
    // The first places of a variant, asked by every visitor of the leaderboard, must
    // not cost a pass over every player.
    let read = |book: &RatingBook| {
        let before = allocations();
        let leaders = book.leaders("backgammon", 10);
        let made = allocations() - before;
        assert_eq!(leaders.len(), 10);
        made
    };
    let small = RatingBook::fold(&league(12, 120).1);
    let big = RatingBook::fold(&league(3_000, 30_000).1);
    let (small, big) = (read(&small), read(&big));
    // Reading an ordered set keeps a stack as deep as its tree (a few levels).
    assert!(
        big <= small + 4,
        "the leaderboard of 3,000 players made {big} allocations, of 12 players {small}"
    );
}
