//! Random complete games of Ali Baba per second: 4 seats, 6 planks, random dice and
//! random choices among the legal moves.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use worp_engine::ali_baba::{AliBaba, Options};
use worp_engine::playout::{play_out, SplitMix64, Stop};
use worp_engine::Game;

fn random_games(c: &mut Criterion) {
    let options = Options { planks: 6 };
    let mut group = c.benchmark_group("ali_baba");
    group.throughput(Throughput::Elements(1));
    let mut rng = SplitMix64(0xA11_BABA);
    group.bench_function("random_game_4_seats_6_planks", |b| {
        b.iter(|| {
            let mut game = AliBaba::new(&options, 4).expect("valid options");
            let mut choice = SplitMix64(rng.next_u64());
            let stop = play_out(
                &mut game,
                |die| rng.roll(die),
                |_, moves| choice.below(moves.len()),
                1_000_000,
                None,
            )
            .expect("a random game plays out");
            assert_eq!(stop, Stop::Finished);
            black_box(game)
        })
    });
    group.finish();
}

criterion_group!(benches, random_games);
criterion_main!(benches);
