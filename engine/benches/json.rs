//! A game's state written as JSON text: `worp_engine::json::to_vec` against its anchor,
//! `serde_json::to_vec`, on the same states in the same run (every 20th state of a
//! random six-colour Mens-erger-je-niet game and of a random backgammon game).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use serde::Serialize;
use worp_engine::backgammon::{self, Backgammon};
use worp_engine::mens_erger_je_niet::{self, MensErgerJeNiet};
use worp_engine::playout::{play_out, Input, SplitMix64};
use worp_engine::Game;

/// Every 20th state of a random game of `G`.
fn states<G: Game>(mut game: G, seed: u64) -> Vec<G> {
    let mut log: Vec<Input<G::Move>> = Vec::new();
    let start = game.clone();
    let mut dice = SplitMix64(seed);
    let mut choice = SplitMix64(seed ^ 0x5EED);
    if let Err(e) = play_out(
        &mut game,
        |d| dice.roll(d),
        |_, m| choice.below(m.len()),
        100_000,
        Some(&mut log),
    ) {
        panic!("{e}");
    }
    let mut g = start;
    let mut kept = Vec::new();
    for (i, input) in log.iter().enumerate() {
        if let Err(e) = input.apply(&mut g) {
            panic!("{e}");
        }
        if i % 20 == 0 {
            kept.push(g.clone());
        }
    }
    kept
}

fn bench_states<T: Serialize>(c: &mut Criterion, name: &str, states: &[T]) {
    let mut group = c.benchmark_group(format!("json_{name}"));
    group.throughput(Throughput::Elements(states.len() as u64));
    group.bench_function(BenchmarkId::new("serde_json", states.len()), |b| {
        b.iter(|| {
            states
                .iter()
                .map(|s| serde_json::to_vec(s).map_or(0, |v| v.len()))
                .sum::<usize>()
        })
    });
    group.bench_function(BenchmarkId::new("worp", states.len()), |b| {
        b.iter(|| {
            states
                .iter()
                .map(|s| worp_engine::json::to_vec(s).map_or(0, |v| v.len()))
                .sum::<usize>()
        })
    });
    group.finish();
}

fn bench(c: &mut Criterion) {
    let six = mens_erger_je_niet::Options {
        board: 6,
        ..Default::default()
    };
    let mejn = match MensErgerJeNiet::new(&six, 6) {
        Ok(g) => states(g, 7),
        Err(e) => panic!("{e}"),
    };
    bench_states(c, "mens_erger_je_niet_6", &mejn);
    let bg = match Backgammon::new(&backgammon::Options::default(), 2) {
        Ok(g) => states(g, 7),
        Err(e) => panic!("{e}"),
    };
    bench_states(c, "backgammon", &bg);
    let moves: Vec<_> = bg.iter().map(|g| g.legal_moves()).collect();
    bench_states(c, "backgammon_moves", &moves);
}

criterion_group!(benches, bench);
criterion_main!(benches);
