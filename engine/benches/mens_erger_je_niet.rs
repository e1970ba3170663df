//! Random complete games of Mens-erger-je-niet per second: 4 seats on the four-colour
//! board, random dice and random choices.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use worp_engine::mens_erger_je_niet::{MensErgerJeNiet, Options};
use worp_engine::playout::{play_out, SplitMix64, Stop};
use worp_engine::Game;

fn random_game(seed: u64) -> usize {
    let mut g = match MensErgerJeNiet::new(&Options::default(), 4) {
        Ok(g) => g,
        Err(e) => panic!("{e}"),
    };
    let mut dice = SplitMix64(seed);
    let mut choice = SplitMix64(seed ^ 0x5EED);
    let stop = play_out(
        &mut g,
        |d| dice.roll(d),
        |_, m| choice.below(m.len()),
        1_000_000,
        None,
    );
    assert_eq!(stop, Ok(Stop::Finished));
    dice.0 as usize
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("mens_erger_je_niet");
    group.throughput(Throughput::Elements(1));
    let mut seed = 0u64;
    group.bench_function("random_game_4_seats_4_colours", |b| {
        b.iter(|| {
            seed += 1;
            random_game(seed)
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
