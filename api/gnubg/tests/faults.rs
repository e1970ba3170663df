//! What Worp does when a gnubg worker misbehaves, with stand-in workers (shell scripts
//! that speak the protocol badly): an answer that is no legal move is an error, a worker
//! that hangs or writes garbage is replaced and counted, and the queue is bounded.

use std::path::PathBuf;
use std::time::Duration;

use worp_engine::backgammon::{Backgammon, Options};
use worp_engine::{Awaiting, Game};
use worp_gnubg::{choose, GnubgError, Level, Pool, PoolSettings};

/// A stand-in for gnubg: says it is ready, then answers each line with `answer`.
fn stand_in(name: &str, answer: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("worp-gnubg-fakes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join(name);
    let script = format!(
        "#!/bin/sh\necho '@worp {{\"ready\": true, \"version\": 1}}'\n\
         n=0\nwhile read line; do n=$((n+1)); {answer}; done\n"
    );
    std::fs::write(&path, script).expect("write");
    let mut perms = std::fs::metadata(&path).expect("meta").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&path, perms).expect("chmod");
    path
}

fn pool(program: PathBuf, timeout: Duration) -> Pool {
    Pool::start(PoolSettings {
        program,
        workers: 1,
        queue: 2,
        timeout,
    })
    .expect("the stand-in starts")
}

/// A game awaiting a checker play with more than one choice: the opening roll is
/// White 6, Black 1, so White plays 6-1.
fn awaiting_a_checker_play() -> Backgammon {
    let mut game = Backgammon::new(&Options::default(), 2).expect("game");
    let mut opening = [6u8, 1].into_iter();
    for _ in 0..10 {
        match Game::awaiting(&game) {
            Awaiting::Dice { count: 1, .. } => {
                let die = opening.next().expect("two opening dice");
                game.apply_dice(&[die]).expect("dice");
            }
            Awaiting::Dice { .. } => game.apply_dice(&[3, 1]).expect("dice"),
            Awaiting::Move { .. } if Game::legal_moves(&game).len() > 1 => return game,
            other => panic!("unexpected {other:?}"),
        }
    }
    panic!("no checker play came")
}

#[test]
fn an_answer_that_is_no_legal_move_is_an_error_never_a_move() {
    // 24/1 is never a legal opening move.
    let program = stand_in("wrong", r#"echo "@worp {\"id\": $n, \"move\": [24, 1]}""#);
    let pool = pool(program, Duration::from_secs(10));
    let game = awaiting_a_checker_play();
    match choose(&pool, Level::Expert, &game) {
        Err(GnubgError::Answer(why)) => assert!(why.contains("none of the legal moves"), "{why}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert_eq!(pool.restarts(), 0, "the worker itself was well");
}

#[test]
fn a_worker_that_hangs_or_writes_garbage_is_replaced() {
    let hangs = pool(stand_in("hangs", "sleep 60"), Duration::from_millis(300));
    let game = awaiting_a_checker_play();
    assert!(matches!(
        choose(&hangs, Level::Expert, &game),
        Err(GnubgError::Timeout(_))
    ));
    assert_eq!(
        hangs.restarts(),
        2,
        "the worker and its replacement were both stopped"
    );
    let garbage = pool(
        stand_in("garbage", "echo '@worp {not json'"),
        Duration::from_secs(10),
    );
    assert!(matches!(
        choose(&garbage, Level::Expert, &game),
        Err(GnubgError::Garbled(_))
    ));
    assert_eq!(garbage.restarts(), 2);
}

#[test]
fn the_queue_before_the_workers_is_bounded() {
    let pool = std::sync::Arc::new(pool(stand_in("slow", "sleep 60"), Duration::from_secs(1)));
    // One question holds the worker, two wait (the queue), the fourth is refused.
    let asking: Vec<_> = (0..3)
        .map(|_| {
            let pool = pool.clone();
            std::thread::spawn(move || pool.ask(&serde_json::json!({"ask": "move"})))
        })
        .collect();
    while pool.queue_depth() < 2 {
        std::thread::yield_now();
    }
    assert!(matches!(
        pool.ask(&serde_json::json!({"ask": "move"})),
        Err(GnubgError::Busy(2))
    ));
    for a in asking {
        assert!(
            a.join().expect("thread").is_err(),
            "the slow worker answers none"
        );
    }
}
