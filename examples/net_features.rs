//! Turns labelled positions (`FEN;result;score` lines, the result and score for White, as
//! scripts/eval_labels.py and scripts/selfplay_data.py write them) into the network's inputs,
//! for scripts/train_network.py: `cargo run --release --example net_features -- [--minichess7]
//! IN.csv OUT.bin` (the positions standard chess's unless told).
//!
//! Each position becomes one record of 132 bytes, little-endian: the side to move's view (32
//! u16 inputs, unused ones 0xFFFF), the other side's view (likewise), the score for the side to
//! move (i16, clamped to ±2000), its result (u8: 0 lost, 1 drawn, 2 won) and whether it has no
//! castling rights (u8: then the trainer may also learn it with its files turned over; always
//! so in minichess7, which has no castling). Parsing
//! a few million FENs here takes seconds where Python took many minutes and gigabytes.
use std::io::{BufRead, BufReader, BufWriter, Write};

use gambit::bots::eval::network::{placement, Shape};
use gambit::chess::{Color, Position, Variant};

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let variant = if args.first().is_some_and(|a| a == "--minichess7") {
        args.remove(0);
        Variant::Minichess7
    } else {
        Variant::Standard
    };
    let [input, output] = args.as_slice() else {
        eprintln!("usage: net_features [--minichess7] IN.csv OUT.bin");
        std::process::exit(2);
    };
    let fail = |what: &str, e: std::io::Error| -> ! {
        eprintln!("{what}: {e}");
        std::process::exit(1);
    };
    let reader = BufReader::new(std::fs::File::open(input).unwrap_or_else(|e| fail(input, e)));
    let mut out = BufWriter::new(std::fs::File::create(output).unwrap_or_else(|e| fail(output, e)));
    let (mut written, mut skipped) = (0u64, 0u64);
    for line in reader.lines() {
        let line = line.unwrap_or_else(|e| fail(input, e));
        match record(variant, &line) {
            Some(bytes) => {
                out.write_all(&bytes).unwrap_or_else(|e| fail(output, e));
                written += 1;
            }
            None => skipped += 1,
        }
    }
    out.flush().unwrap_or_else(|e| fail(output, e));
    eprintln!("{written} positions written, {skipped} lines skipped");
}

/// One position's record, or None for a line that is not a labelled position.
fn record(variant: Variant, line: &str) -> Option<Vec<u8>> {
    let mut parts = line.split(';');
    let (fen, result, score) = (parts.next()?, parts.next()?, parts.next()?);
    let pos = Position::from_fen(fen, variant).ok()?;
    let shape = Shape::of(variant);
    let result: f32 = result.parse().ok()?;
    let score: i32 = score.parse().ok()?;
    let white = pos.turn() == Color::White;
    let (score, result) = if white { (score, result) } else { (-score, 1.0 - result) };
    // The inputs exactly as the engine sets them: the side to move's view first.
    let mut views = [[u16::MAX; 32]; 2];
    let mut count = 0;
    for (group, &bits) in placement(&pos).iter().enumerate() {
        let mut bits = bits;
        while bits != 0 {
            let sq = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if count == 32 {
                return None;
            }
            let [by_white, by_black] = shape.inputs(group, sq).map(|i| i as u16);
            let (own, other) = if white { (by_white, by_black) } else { (by_black, by_white) };
            views[0][count] = own;
            views[1][count] = other;
            count += 1;
        }
    }
    let mut bytes = Vec::with_capacity(132);
    for index in views.iter().flatten() {
        bytes.extend_from_slice(&index.to_le_bytes());
    }
    bytes.extend_from_slice(&(score.clamp(-2000, 2000) as i16).to_le_bytes());
    bytes.push((result * 2.0).round().clamp(0.0, 2.0) as u8);
    bytes.push(u8::from(pos.castling_rights().0 == 0));
    Some(bytes)
}
