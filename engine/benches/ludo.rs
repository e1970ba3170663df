//! Random complete games of Ludo per second (one core): 4 seats, 4 pawns, with the
//! special die and with the plain die.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use worp_engine::ludo::{DieKind, Ludo, Options};
use worp_engine::playout::{play_out, SplitMix64, Stop};
use worp_engine::Game;

fn random_game(options: &Options, rng: &mut SplitMix64) -> Stop {
    let mut game = Ludo::new(options, 4).expect("valid options");
    let mut choices = SplitMix64(rng.next_u64());
    play_out(
        &mut game,
        |die| rng.roll(die),
        |_, moves| choices.below(moves.len()),
        1_000_000,
        None,
    )
    .expect("a random game plays out")
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("ludo");
    group.throughput(Throughput::Elements(1));
    for (name, die) in [("special", DieKind::Special), ("plain", DieKind::Plain)] {
        let options = Options {
            die,
            pawns: 4,
            colours: None,
        };
        let mut rng = SplitMix64(0x1ED0);
        group.bench_function(format!("random_game_4_seats_4_pawns_{name}_die"), |b| {
            b.iter(|| random_game(&options, &mut rng))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
