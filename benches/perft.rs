//! Perft speed against cozy-chess, the reference: single thread, bulk counting at the leaves,
//! on the start position (depth 5) and Kiwipete (depth 4).
//!
//! Criterion times each side; then the two are run alternately, side by side, and the ratio of
//! our nodes/s to cozy-chess's is printed (median of the pairs), since this machine is shared
//! and noisy. Run with `cargo bench --bench perft`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, Criterion};
use gambit::chess::perft::perft;
use gambit::chess::{Position, Variant};

const CASES: [(&str, &str, u32); 2] = [
    ("startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 5),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 4),
];

/// cozy-chess's own perft, as its documentation writes it.
fn cozy_perft(board: &cozy_chess::Board, depth: u32) -> u64 {
    let mut nodes = 0;
    match depth {
        0 => nodes = 1,
        1 => {
            board.generate_moves(|moves| {
                nodes += moves.len() as u64;
                false
            });
        }
        _ => {
            board.generate_moves(|moves| {
                for mv in moves {
                    let mut child = board.clone();
                    child.play_unchecked(mv);
                    nodes += cozy_perft(&child, depth - 1);
                }
                false
            });
        }
    }
    nodes
}

fn bench_perft(c: &mut Criterion) {
    for (name, fen, depth) in CASES {
        let ours = Position::from_fen(fen, Variant::Standard).expect("valid FEN");
        let cozy: cozy_chess::Board = fen.parse().expect("valid FEN");
        assert_eq!(perft(&ours, depth), cozy_perft(&cozy, depth), "{name}: node counts differ");
        let mut group = c.benchmark_group(format!("perft/{name}/depth{depth}"));
        group.sample_size(10);
        group.bench_function("gambit", |b| b.iter(|| perft(black_box(&ours), depth)));
        group.bench_function("cozy-chess", |b| b.iter(|| cozy_perft(black_box(&cozy), depth)));
        group.finish();
    }
}

fn timed(f: impl FnOnce() -> u64) -> (u64, Duration) {
    let start = Instant::now();
    let nodes = black_box(f());
    (nodes, start.elapsed())
}

/// Runs both perfts alternately and prints the median ratio of nodes/s.
fn side_by_side() {
    const PAIRS: usize = 21;
    println!("\nside by side, {PAIRS} alternating pairs, median ratio of nodes/s (gambit / cozy-chess):");
    for (name, fen, depth) in CASES {
        let ours = Position::from_fen(fen, Variant::Standard).expect("valid FEN");
        let cozy: cozy_chess::Board = fen.parse().expect("valid FEN");
        let mut ratios = Vec::with_capacity(PAIRS);
        let (mut best_ours, mut best_cozy) = (Duration::MAX, Duration::MAX);
        let mut nodes = 0;
        for _ in 0..PAIRS {
            let (n, t_ours) = timed(|| perft(&ours, depth));
            let (_, t_cozy) = timed(|| cozy_perft(&cozy, depth));
            nodes = n;
            best_ours = best_ours.min(t_ours);
            best_cozy = best_cozy.min(t_cozy);
            ratios.push(t_cozy.as_secs_f64() / t_ours.as_secs_f64());
        }
        ratios.sort_by(f64::total_cmp);
        let mnps = |t: Duration| nodes as f64 / t.as_secs_f64() / 1e6;
        println!(
            "  {name:<9} depth {depth}: ratio {:.2} (gambit {:.0} Mnps, cozy-chess {:.0} Mnps, best of {PAIRS})",
            ratios[PAIRS / 2],
            mnps(best_ours),
            mnps(best_cozy),
        );
    }
}

criterion_group!(benches, bench_perft);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    side_by_side();
}
