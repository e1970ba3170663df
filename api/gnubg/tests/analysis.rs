//! gnubg's analysis read into Worp's types agrees with gnubg's own statistics of the
//! same file: the equity each player lost, the error rate and its rating, and the marks
//! by gnubg's thresholds are the marks gnubg counts.

use std::time::Duration;

use worp_gnubg::analysis::{DecisionKind, Mark};
use worp_gnubg::PoolSettings;

#[test]
fn the_decisions_add_up_to_gnubgs_own_statistics() {
    let Ok(program) = PoolSettings::find_program(None) else {
        assert!(
            std::env::var_os("WORP_SKIP_GNUBG").is_some(),
            "GNU Backgammon is needed for this test (apt-get install gnubg), or set WORP_SKIP_GNUBG=1"
        );
        return;
    };
    let mat = include_str!("three_points.mat");
    let a = worp_gnubg::analyse(&program, mat, 0, Duration::from_secs(120)).expect("analysed");
    assert_eq!(a.players.len(), 2);
    // gnubg's `show statistics match` of this file at 0-ply: X lost 0.645 in checker
    // play, O nothing; X's error rate is 26.9 mEMG.
    let x = &a.players[0];
    assert!((x.checker_error - 0.645).abs() < 6e-4, "{x:?}");
    assert!((x.error_rate_memg - 26.9).abs() < 0.06, "{x:?}");
    assert_eq!(x.rating, "Beginner");
    assert!(a.players[1].checker_error.abs() < 1e-9);
    for p in &a.players {
        let mine = || {
            a.games
                .iter()
                .flat_map(|g| &g.decisions)
                .filter(|d| d.seat == p.seat)
        };
        let marks = |m: Mark| {
            mine()
                .filter(|d| d.kind == DecisionKind::Checkers && d.mark == Some(m))
                .count() as u32
        };
        assert_eq!(
            (
                marks(Mark::Doubtful),
                marks(Mark::Error),
                marks(Mark::Blunder)
            ),
            (p.doubtful, p.errors, p.blunders),
            "seat {}",
            p.seat
        );
        let unforced = mine()
            .filter(|d| d.kind == DecisionKind::Checkers && !d.forced)
            .count() as u32;
        assert_eq!(unforced, p.unforced_moves, "seat {}", p.seat);
    }
    println!(
        "{}",
        serde_json::to_string_pretty(&a.players).expect("json")
    );
}
