//! Backgammon speed: (a) full-move generation over every oracle corpus position
//! (positions/second), (b) `Position::outcomes()` over the same positions, also as a
//! ratio to (a) measured pass by pass in the same run, (c) complete random games from the
//! opening roll (games/second).
//!
//! The corpus is read from `../../shared/oracle/` or `$WORP_ORACLE_DIR`.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::{criterion_group, Criterion, Throughput};
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

/// The name the ratio is reported under (and filtered by, like criterion's names).
const RATIO: &str = "backgammon_corpus/outcomes_over_generator";

/// `outcomes()` as a multiple of the generator's time on the same positions: passes over
/// the corpus alternate (generator first, then outcomes first), each pair gives a ratio,
/// and the median and quartiles of the ratios are printed. Pairs, not two separate
/// measurements, so that the load of a shared machine falls on both sides alike.
fn outcomes_over_generator() {
    let cases = corpus();
    let mut counter = OutcomeCounter::default();
    let mut generate = || {
        let start = Instant::now();
        let mut n = 0;
        for case in &cases {
            n += case
                .position
                .count_outcomes(case.to_move, case.dice, &mut counter);
        }
        (start.elapsed().as_secs_f64(), n)
    };
    let outcomes = || {
        let start = Instant::now();
        let mut n = 0;
        for case in &cases {
            n += std::hint::black_box(case.position.outcomes(case.to_move, case.dice)).len();
        }
        (start.elapsed().as_secs_f64(), n)
    };
    // Warm up both, then measure.
    for _ in 0..50 {
        generate();
        outcomes();
    }
    let mut ratios = Vec::new();
    let (mut gen_total, mut out_total) = (0.0, 0.0);
    for pair in 0..400 {
        let ((g, gn), (o, on)) = if pair % 2 == 0 {
            let g = generate();
            (g, outcomes())
        } else {
            let o = outcomes();
            (generate(), o)
        };
        // Blocked rolls have no ways but one outcome (the position itself).
        assert!(on >= gn && gn > 0, "{on} outcomes, {gn} ways");
        gen_total += g;
        out_total += o;
        ratios.push(o / g);
    }
    ratios.sort_by(f64::total_cmp);
    let at = |q: f64| ratios[((ratios.len() - 1) as f64 * q).round() as usize];
    println!(
        "{RATIO}: outcomes() takes {:.2}x the generator's time (median of {} interleaved \
         pairs of corpus passes; quartiles {:.2}x to {:.2}x; per pass {:.3} ms against \
         {:.3} ms)",
        at(0.5),
        ratios.len(),
        at(0.25),
        at(0.75),
        out_total * 1e3 / ratios.len() as f64,
        gen_total * 1e3 / ratios.len() as f64,
    );
}

criterion_group!(benches, movegen, random_games);

fn main() {
    benches();
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    if filter.is_none_or(|f| RATIO.contains(f.as_str())) {
        outcomes_over_generator();
    }
    Criterion::default().configure_from_args().final_summary();
}
