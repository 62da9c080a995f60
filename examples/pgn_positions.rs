//! The positions of PGN games worth a static evaluation's label, as `FEN;result` lines (the
//! game's result for White: 1, 0.5 or 0), for scripts/eval_labels.py in every variant (it
//! read standard chess's games with python-chess before, 25 times slower):
//! `cargo run --release --example pgn_positions -- OPENING GAMES.pgn... > POSITIONS.txt`.
//!
//! Kept: every position from ply
//! OPENING on (the match's random openings are 8 plies in standard chess, up to 6 in
//! minichess7) that is not in check and whose move in the game is neither a capture nor a
//! promotion (a static evaluation cannot judge a position where a capture is due), each
//! placement once. Games without a decisive or drawn result are skipped.
use std::collections::HashSet;
use std::io::{BufWriter, Write};

use gambit::chess::read_pgn;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((opening, paths)) = args.split_first().filter(|(_, paths)| !paths.is_empty()) else {
        usage();
    };
    let Ok(opening) = opening.parse::<usize>() else {
        usage();
    };
    let fail = |what: &str, e: &dyn std::fmt::Display| -> ! {
        eprintln!("{what}: {e}");
        std::process::exit(1);
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut seen = HashSet::new();
    let (mut games, mut kept) = (0usize, 0usize);
    for path in paths {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| fail(path, &e));
        for pgn in read_pgn(&text).unwrap_or_else(|e| fail(path, &e)) {
            let result = match pgn.result.as_deref() {
                Some("1-0") => "1",
                Some("0-1") => "0",
                Some("1/2-1/2") => "0.5",
                _ => continue,
            };
            games += 1;
            let positions = pgn.game.positions();
            for (ply, (pos, played)) in positions.iter().zip(pgn.game.history()).enumerate() {
                let quiet = pos.capture(played.mv).is_none() && played.mv.promotion.is_none();
                if ply < opening || !quiet || pos.is_check() {
                    continue;
                }
                let fen = pos.fen();
                // The move counters do not change the evaluation: one label per placement.
                let placement: String = fen.split(' ').take(4).collect::<Vec<_>>().join(" ");
                if seen.insert(placement) {
                    writeln!(out, "{fen};{result}").unwrap_or_else(|e| fail("stdout", &e));
                    kept += 1;
                }
            }
        }
    }
    out.flush().unwrap_or_else(|e| fail("stdout", &e));
    eprintln!("{kept} positions from {games} games");
}

fn usage() -> ! {
    eprintln!("usage: pgn_positions OPENING GAMES.pgn...   (OPENING: the plies to skip at each game's start)");
    std::process::exit(2);
}
