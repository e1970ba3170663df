//! Random complete games of Hoofden per second, under both movement rules.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use worp_engine::hoofden::{Hoofden, Movement, Options};
use worp_engine::playout::{play_out, SplitMix64, Stop};
use worp_engine::Game;

fn random_game(options: &Options, seed: u64) -> Hoofden {
    let mut game = match Hoofden::new(options, 2) {
        Ok(game) => game,
        Err(e) => panic!("{e}"),
    };
    let mut dice = SplitMix64(seed);
    let mut choices = SplitMix64(seed ^ 0x0005_DEEC_E66D);
    let stop = play_out(
        &mut game,
        |die| dice.roll(die),
        |_, moves| choices.below(moves.len()),
        100_000,
        None,
    );
    assert_eq!(stop, Ok(Stop::Finished));
    game
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("hoofden");
    group.throughput(Throughput::Elements(1));
    for (name, movement) in [("basic", Movement::Basic), ("by_head", Movement::ByHead)] {
        let options = Options {
            movement,
            forced_attack: false,
        };
        let mut seed = 0u64;
        group.bench_function(format!("random_game_{name}"), |b| {
            b.iter_batched(
                || {
                    seed += 1;
                    seed
                },
                |seed| random_game(&options, seed),
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
