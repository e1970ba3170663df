//! Backgammon speed: (a) full-move generation over every oracle corpus position
//! (positions/second), (b) complete random games from the opening roll (games/second).
//!
//! The corpus is read from `../../shared/oracle/` or `$WORP_ORACLE_DIR`.

use std::path::PathBuf;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde::Deserialize;
use worp_engine::backgammon::{Backgammon, Options, OutcomeCounter, Position, Side};
use worp_engine::playout::{play_random, SplitMix64};
use worp_engine::Game;

#[derive(Deserialize)]
struct Case {
    #[serde(flatten)]
    position: Position,
    to_move: Side,
    dice: [u8; 2],
}

fn corpus() -> Vec<Case> {
    let dir = std::env::var("WORP_ORACLE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/oracle"))
        });
    let path = dir.join("backgammon.jsonl");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {} ({e}); set WORP_ORACLE_DIR", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a corpus line"))
        .collect()
}

fn movegen(c: &mut Criterion) {
    let cases = corpus();
    let mut group = c.benchmark_group("backgammon_corpus");
    group.throughput(Throughput::Elements(cases.len() as u64));
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("generate_all_positions", |b| {
        let mut counter = OutcomeCounter::default();
        b.iter(|| {
            let mut n = 0;
            for case in &cases {
                n += case
                    .position
                    .count_outcomes(case.to_move, case.dice, &mut counter);
            }
            n
        })
    });
    group.bench_function("outcome_positions_all_positions", |b| {
        b.iter(|| {
            let mut n = 0;
            for case in &cases {
                n += case.position.outcomes(case.to_move, case.dice).len();
            }
            n
        })
    });
    group.finish();
}

fn random_games(c: &mut Criterion) {
    let mut group = c.benchmark_group("backgammon_games");
    group.throughput(Throughput::Elements(1));
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("random_game", |b| {
        let mut rng = SplitMix64(1);
        b.iter(|| {
            let mut g = Backgammon::new(&Options::default(), 2).expect("a game");
            play_random(&mut g, &mut rng, 100_000).expect("a finished game");
            g
        })
    });
    group.finish();
}

criterion_group!(benches, movegen, random_games);
criterion_main!(benches);
