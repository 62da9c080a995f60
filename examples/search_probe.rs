//! The full-strength search on a position, with its info lines: `cargo run --release --example search_probe -- "<fen>" [ms] [variant]`.
use gambit::bots::{AlphaBeta, Limits};
use gambit::chess::{Game, Rules, Variant};

fn main() {
    let mut args = std::env::args().skip(1);
    let fen = args.next().unwrap_or_else(|| Variant::Standard.initial_fen().to_string());
    let ms: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let variant: Variant = args.next().and_then(|a| a.parse().ok()).unwrap_or_default();
    let game = Game::from_fen(variant, &fen, Rules::default()).expect("valid FEN");
    let mut engine = AlphaBeta::new(Some(1));
    let result = engine.search(&game, &Limits::movetime(ms), &mut |info| {
        let Some(line) = info.lines.first() else { return };
        let pv: Vec<String> = line.pv.iter().map(|m| m.to_string()).collect();
        println!(
            "depth {} seldepth {} score {:?} nodes {} nps {:.0} pv {}",
            info.depth,
            info.seldepth,
            line.score,
            info.nodes,
            info.nodes as f64 / info.time.as_secs_f64().max(1e-9),
            pv.join(" ")
        );
    });
    println!("bestmove {:?}", result.best);
}
