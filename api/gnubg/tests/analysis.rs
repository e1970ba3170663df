//! gnubg's analysis read into Worp's types agrees with gnubg's own statistics: the
//! equity each player lost, summed over the decisions Worp lists, is gnubg's total, and
//! the marks by gnubg's thresholds are the marks gnubg counts.

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
    for p in &a.players {
        let mine = || {
            a.games
                .iter()
                .flat_map(|g| &g.decisions)
                .filter(|d| d.seat == p.seat)
        };
        let checker: f64 = mine()
            .filter(|d| d.kind == DecisionKind::Checkers)
            .map(|d| d.equity_lost)
            .sum();
        let cube: f64 = mine()
            .filter(|d| d.kind != DecisionKind::Checkers)
            .map(|d| d.equity_lost)
            .sum();
        assert!(
            (checker - p.checker_error).abs() < 1e-4,
            "seat {}: {checker} against gnubg's {}",
            p.seat,
            p.checker_error
        );
        assert!(
            (cube - p.cube_error).abs() < 1e-4,
            "seat {}: {cube} against gnubg's {}",
            p.seat,
            p.cube_error
        );
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
