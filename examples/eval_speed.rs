//! Times the static evaluation over a file of positions (one FEN per line, anything after a
//! `;` ignored, as the texel data has it) and prints a checksum of the scores, so that a change
//! meant only to speed the evaluation up can be shown to change no score:
//! `cargo run --release --example eval_speed -- FILE [ROUNDS]`.
use std::time::Instant;

use gambit::bots::eval::{evaluate_cached, PawnCache};
use gambit::chess::{Position, Variant};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: eval_speed FILE [ROUNDS]");
        std::process::exit(2);
    };
    let rounds: u32 = args.next().and_then(|r| r.parse().ok()).unwrap_or(20);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("cannot read {path}: {e}");
        std::process::exit(2);
    });
    let positions: Vec<Position> =
        text.lines().filter_map(|line| Position::from_fen(line.split(';').next()?, Variant::Standard).ok()).collect();
    // A pawn cache as the search has one: most formations repeat, as they do in a search.
    let mut cache = PawnCache::new();
    cache.allocate();
    let mut checksum = 0i64;
    let start = Instant::now();
    for _ in 0..rounds {
        for pos in &positions {
            checksum = checksum.wrapping_mul(31).wrapping_add(i64::from(evaluate_cached(pos, &mut cache)));
        }
    }
    let evaluations = positions.len() as f64 * f64::from(rounds);
    let ns = start.elapsed().as_nanos() as f64 / evaluations;
    println!("{} positions x {rounds}: {ns:.1} ns an evaluation, checksum {checksum:x}", positions.len());
}
