//! Texel tuning: fits standard chess's evaluation weights to the results of games.
//!
//! `cargo run --release --example texel -- games.pgn [more.pgn…]`
//!
//! Every quiet position of the games (not in check, and the move played from it neither a
//! capture nor a promotion, past the 8-ply random opening `gambit match` plays) is labelled
//! with its game's result. The error is the mean squared difference between that result and
//! the evaluation mapped to an expected score, `1 / (1 + 10^(-K·eval/400))`, with K fitted
//! first to the current weights. Then each tunable weight in turn is moved a step up or down
//! while that lowers the error, with the step shrinking from 8 to 1. One game in ten is held
//! out: its positions are not fitted, and the weights kept are those of the pass that
//! predicted them best (positions of one game are alike, so a long fit learns the games
//! rather than chess); each step size gives up after six passes without a better one. The tuned weights
//! are printed as a Rust expression for `Weights::STANDARD` in src/bots/eval.rs, to be kept
//! only if a match shows they play better; docs/bots.md has the games and the matches so far.

use std::time::Instant;

use gambit::bots::eval::{Evaluator, Weights};
use gambit::chess::pgn_read::read_pgn;
use gambit::chess::{Color, Position, Variant};

/// Plies of random opening at the start of each `gambit match` game, skipped.
const OPENING_PLIES: usize = 8;

/// A position and the result of its game for White (1, ½ or 0).
struct Sample {
    pos: Position,
    result: f64,
}

fn main() {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: texel GAMES.pgn [MORE.pgn…]");
        std::process::exit(2);
    }
    let (train, held_out) = samples(&files);
    println!("{} positions to fit, {} held out", train.len(), held_out.len());

    let mut weights = Weights::STANDARD;
    let k = fit_k(&train, &weights);
    let start_train = error(&train, &weights, k);
    let start_held = error(&held_out, &weights, k);
    println!("K = {k:.3}; error {start_train:.6} (held out {start_held:.6})");

    let mut best = start_train;
    let mut kept = (start_held, weights);
    let count = weights.tunable().len();
    let started = Instant::now();
    // Passes since the held-out error last improved; after PATIENCE of them, stop.
    const PATIENCE: usize = 6;
    let mut stale = 0;
    for step in [8, 4, 2, 1] {
        while stale < PATIENCE {
            let mut improved = false;
            for i in 0..count {
                for delta in [step, -step] {
                    let mut trial = weights;
                    *trial.tunable()[i].1 += delta;
                    let e = error(&train, &trial, k);
                    if e < best {
                        best = e;
                        weights = trial;
                        improved = true;
                        break;
                    }
                }
            }
            let held = error(&held_out, &weights, k);
            println!("step {step}: error {best:.6} (held out {held:.6}), {:.0} s", started.elapsed().as_secs_f64());
            if held < kept.0 {
                kept = (held, weights);
                stale = 0;
            } else {
                stale += 1;
            }
            if !improved {
                break;
            }
        }
        stale = 0;
    }

    let (held, weights) = kept;
    let mut before = Weights::STANDARD;
    let mut after = weights;
    for ((name, old), (_, new)) in before.tunable().into_iter().zip(after.tunable()) {
        if old != new {
            println!("  {name}: {old} -> {new}");
        }
    }
    println!("error {start_train:.6} -> {:.6}; held out {start_held:.6} -> {held:.6}", error(&train, &weights, k));
    println!("{weights:?}");
}

/// The quiet positions of every game in `files`: (fitted, held out).
fn samples(files: &[String]) -> (Vec<Sample>, Vec<Sample>) {
    let (mut train, mut held_out) = (Vec::new(), Vec::new());
    let mut games = 0;
    for file in files {
        let games_of_file = std::fs::read_to_string(file)
            .map_err(|e| e.to_string())
            .and_then(|text| read_pgn(&text).map_err(|e| e.to_string()));
        let pgns = games_of_file.unwrap_or_else(|e| {
            eprintln!("{file}: {e}");
            std::process::exit(1);
        });
        for pgn in pgns {
            let result = match pgn.tag("Result").or(pgn.result.as_deref()) {
                Some("1-0") => 1.0,
                Some("0-1") => 0.0,
                Some("1/2-1/2") => 0.5,
                _ => continue,
            };
            if pgn.game.variant() != Variant::Standard {
                continue;
            }
            games += 1;
            let into = if games % 10 == 0 { &mut held_out } else { &mut train };
            let positions = pgn.game.positions();
            for (pos, played) in positions.iter().zip(pgn.game.history()).skip(OPENING_PLIES) {
                if !pos.is_check() && played.captured.is_none() && played.mv.promotion.is_none() {
                    into.push(Sample { pos: *pos, result });
                }
            }
        }
    }
    println!("{games} games");
    (train, held_out)
}

/// The mean squared error of `weights`' predictions over `samples`, on two threads.
fn error(samples: &[Sample], weights: &Weights, k: f64) -> f64 {
    let evaluator = Evaluator::new(Variant::Standard, *weights);
    let half = samples.len() / 2;
    let sum = |part: &[Sample]| -> f64 {
        part.iter()
            .map(|s| {
                let eval = f64::from(evaluator.evaluate(&s.pos));
                let white = if s.pos.turn() == Color::White { eval } else { -eval };
                let expected = 1.0 / (1.0 + 10f64.powf(-k * white / 400.0));
                (s.result - expected).powi(2)
            })
            .sum()
    };
    let total = std::thread::scope(|scope| {
        let first = scope.spawn(|| sum(&samples[..half]));
        let second = sum(&samples[half..]);
        first.join().unwrap_or(0.0) + second
    });
    total / samples.len().max(1) as f64
}

/// The K that makes `weights`' evaluations best predict the results (a scan, then a finer one).
fn fit_k(samples: &[Sample], weights: &Weights) -> f64 {
    let best_of = |ks: Vec<f64>| -> f64 {
        let errors = ks.into_iter().map(|k| (error(samples, weights, k), k));
        errors.fold((f64::MAX, 1.0), |best, e| if e.0 < best.0 { e } else { best }).1
    };
    let coarse = best_of((1..=40).map(|i| f64::from(i) * 0.1).collect());
    best_of((-10..=10).map(|i| coarse + f64::from(i) * 0.01).collect())
}
