//! Level 5's search speed, at the start position and in a middlegame, for both variants.
//! Criterion times a fixed-depth search (fresh engine each time, so the work is the same);
//! then a one-second search per position prints nodes per second. `cargo bench --bench search`.

use std::hint::black_box;
use std::time::Instant;

use criterion::{criterion_group, BatchSize, Criterion};
use gambit::bots::{AlphaBeta, Limits};
use gambit::chess::{Game, Rules, Variant};

const POSITIONS: [(&str, Variant, &str, u32); 3] = [
    ("startpos", Variant::Standard, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 7),
    ("middlegame", Variant::Standard, "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 1 8", 6),
    ("minichess7", Variant::Minichess7, "nbqkacr/fpppppf/7/7/7/FPPPPPF/NBQKACR w - - 0 1", 7),
];

fn game(variant: Variant, fen: &str) -> Game {
    Game::from_fen(variant, fen, Rules::default()).expect("valid FEN")
}

fn bench_search(c: &mut Criterion) {
    let mut group = c.benchmark_group("level5");
    group.sample_size(10);
    for (name, variant, fen, depth) in POSITIONS {
        let game = game(variant, fen);
        group.bench_function(format!("{name}/depth{depth}"), |b| {
            b.iter_batched(
                || AlphaBeta::new(Some(1)),
                |mut engine| black_box(engine.search(&game, &Limits::depth(depth), &mut |_| {})),
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

/// One-second searches, reporting nodes per second.
fn nodes_per_second() {
    println!("\nlevel 5, one-second searches:");
    for (name, variant, fen, _) in POSITIONS {
        let game = game(variant, fen);
        let mut engine = AlphaBeta::new(Some(1));
        let start = Instant::now();
        let result = engine.search(&game, &Limits::movetime(1000), &mut |_| {});
        let secs = start.elapsed().as_secs_f64();
        println!(
            "  {name:<11} depth {:>2}  {:>9} nodes  {:>5.2} Mnodes/s",
            result.depth,
            result.nodes,
            result.nodes as f64 / secs / 1e6
        );
    }
}

criterion_group!(benches, bench_search);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    nodes_per_second();
}
