//! Single-threaded perft of the start position, for profiling: `cargo run --release --example perft_profile`.
fn main() {
    let depth = std::env::args().nth(1).and_then(|d| d.parse().ok()).unwrap_or(6);
    let pos = gambit::chess::Position::new(gambit::chess::Variant::Standard);
    let start = std::time::Instant::now();
    let nodes = gambit::chess::perft::perft(&pos, depth);
    let secs = start.elapsed().as_secs_f64();
    println!("{nodes} nodes in {secs:.2}s: {:.0} Mnps", nodes as f64 / secs / 1e6);
}
