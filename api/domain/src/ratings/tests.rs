//! The fold's rules, one test each, and what a refresh and a read of the book cost.

use super::*;

/// When the game at `position` finished: twelve hours after the one before, so that no
/// two players meet more than twice within [`PAIR_WINDOW`].
fn at(position: i64) -> DateTime<Utc> {
    DateTime::UNIX_EPOCH + chrono::TimeDelta::hours(12 * position)
}

/// A rated game of backgammon in which every seat made [`SEASONED_MOVES`] moves.
fn game(position: i64, players: Vec<Option<Uuid>>, winners: Vec<u8>) -> FinishedGame {
    FinishedGame {
        position,
        game_id: Uuid::new_v4(),
        variant: "backgammon".into(),
        rated: true,
        moves: vec![SEASONED_MOVES; players.len()],
        players,
        winners,
        finished_at: at(position),
    }
}

/// `g` with each seat's moves.
fn with_moves(mut g: FinishedGame, moves: &[u32]) -> FinishedGame {
    g.moves = moves.to_vec();
    g
}

#[test]
fn a_game_in_which_a_seat_did_not_make_its_first_moves_is_aborted_and_unrated() {
    let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
    let seasoned = game(1, vec![Some(a), Some(b)], vec![]);
    let resigned_at_once = with_moves(game(2, vec![Some(a), Some(b)], vec![0]), &[1, 0]);
    // Backgammon: two moves each.
    let one_move = with_moves(game(3, vec![Some(a), Some(b)], vec![0]), &[2, 1]);
    let book = RatingBook::fold(&[seasoned, resigned_at_once.clone(), one_move.clone()]);
    for g in [&resigned_at_once, &one_move] {
        assert_eq!(book.not_rated(g.game_id), Some(NotRated::Aborted));
        assert_eq!(book.changes(g.game_id), None);
    }
    assert_eq!(book.standing(a, "backgammon").map(|s| s.games), Some(1));
    // One turn in the other games.
    let mut ludo = with_moves(game(4, vec![Some(a), Some(b)], vec![0]), &[1, 1]);
    ludo.variant = "ludo".into();
    let book = RatingBook::fold(&[game(1, vec![Some(a), Some(b)], vec![]), ludo.clone()]);
    assert_eq!(book.not_rated(ludo.game_id), None);
    assert_eq!(book.standing(a, "ludo").map(|s| s.games), Some(1));
    assert!(aborted("ludo", &[1, 0]) && !aborted("ludo", &[1, 1]));
    assert!(aborted("backgammon", &[2, 1]) && !aborted("backgammon", &[2, 2]));
}

#[test]
fn a_game_in_which_one_player_held_two_seats_is_unrated_and_says_so() {
    let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
    let alone = game(1, vec![Some(a), Some(a)], vec![0]);
    // Four seats, one player in two of them.
    let mut crowd = game(2, vec![Some(a), Some(b), Some(a), Some(b)], vec![0]);
    crowd.variant = "ludo".into();
    let mut unrated = game(3, vec![Some(a), Some(a)], vec![1]);
    unrated.rated = false;
    let book = RatingBook::fold(&[alone.clone(), crowd.clone(), unrated.clone()]);
    for g in [&alone, &crowd] {
        assert_eq!(book.not_rated(g.game_id), Some(NotRated::SamePlayer));
        assert_eq!(book.changes(g.game_id), None);
    }
    // Created unrated: nothing to explain.
    assert_eq!(book.not_rated(unrated.game_id), None);
    assert_eq!(book.standing(a, "backgammon"), None);
    assert_eq!(book.standing(a, "ludo"), None);
}

#[test]
fn a_players_games_count_once_they_have_made_ten_moves_in_finished_games() {
    let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
    // Four short games: 2, 4, 6, 8 moves each so far; the fifth brings them to ten.
    let games: Vec<FinishedGame> = (1..=5)
        .map(|i| with_moves(game(i, vec![Some(a), Some(b)], vec![0]), &[2, 2]))
        .collect();
    let book = RatingBook::fold(&games);
    for g in &games[..4] {
        assert_eq!(book.not_rated(g.game_id), Some(NotRated::NewPlayer));
    }
    assert_eq!(book.not_rated(games[4].game_id), None);
    assert_eq!(book.standing(a, "backgammon").map(|s| s.games), Some(1));
    // Moves made in unrated games count too: practice is play.
    let (c, d) = (Uuid::new_v4(), Uuid::new_v4());
    let mut practice = game(6, vec![Some(c), Some(d)], vec![]);
    practice.rated = false;
    let short = with_moves(game(7, vec![Some(c), Some(d)], vec![0]), &[2, 2]);
    let book = RatingBook::fold(&[practice, short.clone()]);
    assert_eq!(book.not_rated(short.game_id), None);
}

#[test]
fn the_same_two_players_count_three_games_a_day_together() {
    let (a, b, c) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
    let mut games = vec![
        game(1, vec![Some(a), Some(b)], vec![]),
        game(2, vec![Some(a), Some(c)], vec![]),
    ];
    let start = at(10);
    for i in 0..5 {
        let mut g = game(10 + i, vec![Some(a), Some(b)], vec![0]);
        g.finished_at = start + chrono::TimeDelta::minutes(i);
        games.push(g);
    }
    // a against another player still counts; a against b again a day after the first
    // of the three, too.
    let mut other = game(20, vec![Some(c), Some(a)], vec![0]);
    other.finished_at = start + chrono::TimeDelta::minutes(10);
    let mut next_day = game(21, vec![Some(b), Some(a)], vec![0]);
    next_day.finished_at = start + PAIR_WINDOW + chrono::TimeDelta::seconds(1);
    games.extend([other.clone(), next_day.clone()]);
    let book = RatingBook::fold(&games);
    let why: Vec<Option<NotRated>> = games[2..7]
        .iter()
        .map(|g| book.not_rated(g.game_id))
        .collect();
    assert_eq!(
        why,
        vec![
            None,
            None,
            None,
            Some(NotRated::SameOpponents),
            Some(NotRated::SameOpponents)
        ]
    );
    assert_eq!(book.not_rated(other.game_id), None);
    assert_eq!(book.not_rated(next_day.game_id), None);
}

#[test]
fn thirty_two_games_against_sixteen_fresh_puppets_farm_nothing() {
    let farmer = Uuid::new_v4();
    let puppets: Vec<Uuid> = (0..16).map(|_| Uuid::new_v4()).collect();
    let mut games = Vec::new();
    for (i, p) in puppets.iter().enumerate() {
        for j in 0..2 {
            let position = (i * 2 + j) as i64 + 1;
            let mut g = game(position, vec![Some(farmer), Some(*p)], vec![0]);
            g.variant = "ludo".into();
            g.finished_at = at(0) + chrono::TimeDelta::minutes(position);
            // The puppet resigns before any move; or after its first, in the second game.
            games.push(with_moves(g, if j == 0 { &[1, 0] } else { &[1, 1] }));
        }
    }
    let book = RatingBook::fold(&games);
    assert_eq!(
        book.standing(farmer, "ludo"),
        None,
        "{:?}",
        book.standings_of(farmer)
    );
    assert!(book.leaders("ludo", 10).is_empty());
    assert_eq!(book.folded, 32);
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
