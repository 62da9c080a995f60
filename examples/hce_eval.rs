//! Prints the fitted hand-made evaluation (without the network's correction) of each position
//! of labelled-position files, one line each, for White, in centipawns: what
//! `scripts/train_network.py` fits the network's correction beside.
//!
//! `cargo run --release --example hce_eval -- positions.csv [more.csv…]`
//!
//! Each line of a file is `FEN;result;score` (examples/texel.rs reads the same files). A line
//! whose FEN does not parse prints `nan`, so the output keeps the files' line numbers.

use std::io::{BufWriter, Write};

use gambit::bots::eval::{Evaluator, Weights};
use gambit::chess::{Color, Position, Variant};

fn main() {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: hce_eval POSITIONS.csv [MORE.csv…]");
        std::process::exit(2);
    }
    let evaluator = Evaluator::new(Variant::Standard, Weights::STANDARD);
    let mut out = BufWriter::new(std::io::stdout().lock());
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| {
            eprintln!("{file}: {e}");
            std::process::exit(1);
        });
        for (n, line) in text.lines().enumerate() {
            let fen = line.split(';').next().unwrap_or_default();
            let written = match Position::from_fen(fen, Variant::Standard) {
                Ok(pos) => {
                    let eval = evaluator.evaluate(&pos);
                    writeln!(out, "{}", if pos.turn() == Color::White { eval } else { -eval })
                }
                Err(e) => {
                    eprintln!("{file}:{}: {e}", n + 1);
                    writeln!(out, "nan")
                }
            };
            if let Err(e) = written {
                eprintln!("writing: {e}");
                std::process::exit(1);
            }
        }
    }
    if let Err(e) = out.flush() {
        eprintln!("writing: {e}");
        std::process::exit(1);
    }
}
