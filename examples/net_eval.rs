//! Prints the network's static evaluation (for the side to move, in centipawns) of each FEN,
//! the first `;`-separated field of each line of stdin, as the engine evaluates it: to check a
//! trained network against scripts/train_network.py's forward pass (name it by `GAMBIT_NET`).
//! `cargo run --release --example net_eval < positions.csv`
use std::io::BufRead;

use gambit::bots::eval::network;
use gambit::chess::{Position, Variant};

fn main() {
    for line in std::io::stdin().lock().lines().map_while(Result::ok) {
        let fen = line.split(';').next().unwrap_or("");
        match Position::from_fen(fen, Variant::Standard) {
            Ok(pos) => println!("{}", network::evaluate(&pos)),
            Err(e) => println!("error: {e}"),
        }
    }
}
