//! Texel tuning: fits standard chess's evaluation weights, the piece-square tables square by
//! square and the mobility tables count by count among them, to labelled positions.
//!
//! `cargo run --release --example texel -- OUT.rs positions.csv [more.csv…]`
//!
//! Each line of a CSV file is `FEN;result;score`: a quiet position, its game's result for White
//! (1, 0.5 or 0) and a Stockfish score of it for White in centipawns (`scripts/texel-data`
//! writes them). A position's target is a blend of the two, each as an expected score: the
//! result says who went on to win, and the score says it with far less noise from one
//! position, so a few hundred thousand positions are enough.
//!
//! The evaluation maps to an expected score as `1 / (1 + 10^(-K·eval/400))`, with K fitted
//! first to the current weights, and the error is the mean squared difference from the target.
//! The evaluation is nearly linear in its weights, so each weight's effect on each position is
//! measured once (the evaluation with the weight raised, less without), and the fit is then
//! gradient descent (Adam) on that linear model, fast enough for a thousand weights. One block
//! of positions in ten (positions of one game are alike, and lie together) is held out: the
//! weights kept are those that predicted it best. A small penalty keeps weights that few
//! positions speak for (a king on a8 in the middlegame) near where they were.
//!
//! The tuned weights are written to OUT.rs as `Weights::TUNED`'s source (src/bots/eval/tuned.rs),
//! to be kept only if a match shows they play better; docs/bots.md has the data and the matches.

use std::io::Write;

use gambit::bots::eval::{Evaluator, Weights, MOBILITY_COUNTS};
use gambit::chess::{Color, Position, Role, Variant};

/// The share of the target that comes from Stockfish's score rather than the game's result.
const SCORE_SHARE: f64 = 0.75;
/// The L2 penalty per weight, per centipawn squared, against the error (of order 0.1).
const PENALTY: f64 = 1e-9;
/// Lines of a file per block; one block in ten is held out.
const BLOCK: usize = 200;
const EPOCHS: usize = 600;

struct Sample {
    pos: Position,
    target: f64,
}

/// A position's linear model: its evaluation at the starting weights (for White), and the
/// weights that move it, with how many centipawns per unit.
struct Linear {
    base: f64,
    target: f64,
    terms: Vec<(u32, f32)>,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [out, files @ ..] = args.as_slice() else {
        eprintln!("usage: texel OUT.rs POSITIONS.csv [MORE.csv…]");
        std::process::exit(2);
    };
    if files.is_empty() {
        eprintln!("usage: texel OUT.rs POSITIONS.csv [MORE.csv…]");
        std::process::exit(2);
    }
    let (train, held_out) = samples(files);
    println!("{} positions to fit, {} held out", train.len(), held_out.len());

    let start = Weights::STANDARD;
    let k = fit_k(&train, &start);
    let start_train = error(&train, &start, k);
    let start_held = error(&held_out, &start, k);
    println!("K = {k:.3}; error {start_train:.6} (held out {start_held:.6})");

    let started = std::time::Instant::now();
    let train_model = linearise(&train, &start);
    let held_model = linearise(&held_out, &start);
    println!("linearised in {:.0} s", started.elapsed().as_secs_f64());

    let deltas = fit(&train_model, &held_model, k, tunable_count(&start));
    let mut tuned = start;
    for ((_, w), d) in tuned.tunable().into_iter().zip(&deltas) {
        *w += d.round() as i32;
    }
    let (end_train, end_held) = (error(&train, &tuned, k), error(&held_out, &tuned, k));
    let mut before = start;
    let mut after = tuned;
    for ((name, old), (_, new)) in before.tunable().into_iter().zip(after.tunable()) {
        if !name.starts_with("square") && old != new {
            println!("  {name}: {old} -> {new}");
        }
    }
    println!("error {start_train:.6} -> {end_train:.6}; held out {start_held:.6} -> {end_held:.6}");
    let source = rust_source(&tuned);
    if let Err(e) = std::fs::File::create(out).and_then(|mut f| f.write_all(source.as_bytes())) {
        eprintln!("{out}: {e}");
        std::process::exit(1);
    }
    println!("written to {out}; run cargo fmt");
}

/// `Weights::TUNED`'s source: the weights as their `Debug` prints them (a struct expression),
/// but the piece-square additions as a table of their own, a row per rank.
fn rust_source(tuned: &Weights) -> String {
    let zero = [[(0, 0); 64]; Role::COUNT];
    let no_mobility = [[(0, 0); MOBILITY_COUNTS]; Role::COUNT];
    let scalars = format!("{:?}", Weights { squares: zero, mobility_extra: no_mobility, ..*tuned })
        .replace(&format!("{zero:?}"), "SQUARES")
        .replace(&format!("{no_mobility:?}"), "MOBILITY");
    let mut mobility = String::new();
    for (role, table) in Role::ALL.iter().zip(&tuned.mobility_extra) {
        let row: Vec<String> = table.iter().map(|(mg, eg)| format!("({mg},{eg})")).collect();
        mobility += &format!("    // {role:?}, by squares reached\n    [{}],\n", row.join(", "));
    }
    let mut squares = String::new();
    for (role, table) in Role::ALL.iter().zip(&tuned.squares) {
        if table.iter().all(|&s| s == (0, 0)) {
            squares += &format!("    // {role:?}\n    [(0, 0); 64],\n");
            continue;
        }
        squares += &format!("    // {role:?}: rank 1 first, files a to h\n    [\n");
        for rank in table.chunks(8) {
            let row: Vec<String> = rank.iter().map(|(mg, eg)| format!("({mg:4},{eg:4})")).collect();
            squares += &format!("        {},\n", row.join(", "));
        }
        squares += "    ],\n";
    }
    format!(
        "//! Standard chess's evaluation weights as fitted by `examples/texel.rs`, which wrote this\n\
         //! file; docs/bots.md (\"Tuning the evaluation\") has the data and the match that kept them.\n\n\
         use super::weights::MOBILITY_COUNTS;\nuse super::Weights;\nuse crate::chess::Role;\n\n\
         impl Weights {{\n    pub const TUNED: Weights = {scalars};\n}}\n\n\
         /// Added to the shaped piece-square tables: [role][square from White's side].\n\
         #[rustfmt::skip]\n\
         const SQUARES: [[(i32, i32); 64]; Role::COUNT] = [\n{squares}];\n\n\
         /// Added to the linear mobility: [role][squares reached].\n\
         #[rustfmt::skip]\n\
         const MOBILITY: [[(i32, i32); MOBILITY_COUNTS]; Role::COUNT] = [\n{mobility}];\n"
    )
}

/// How many weights `weights` has to tune.
fn tunable_count(weights: &Weights) -> usize {
    let mut copy = *weights;
    copy.tunable().len()
}

/// The positions of every file: (fitted, held out).
fn samples(files: &[String]) -> (Vec<Sample>, Vec<Sample>) {
    let (mut train, mut held_out) = (Vec::new(), Vec::new());
    for file in files {
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| {
            eprintln!("{file}: {e}");
            std::process::exit(1);
        });
        for (n, line) in text.lines().enumerate() {
            let fields: Vec<&str> = line.split(';').collect();
            let parsed = match fields.as_slice() {
                [fen, result, score] => Position::from_fen(fen, Variant::Standard)
                    .ok()
                    .zip(result.parse::<f64>().ok())
                    .zip(score.parse::<f64>().ok()),
                _ => None,
            };
            let Some(((pos, result), score)) = parsed else {
                eprintln!("{file}:{}: not FEN;result;score", n + 1);
                continue;
            };
            let target = SCORE_SHARE * expected(score, 1.0) + (1.0 - SCORE_SHARE) * result;
            let into = if (n / BLOCK) % 10 == 9 { &mut held_out } else { &mut train };
            into.push(Sample { pos, target });
        }
    }
    (train, held_out)
}

/// The expected score of a White evaluation of `eval` centipawns.
fn expected(eval: f64, k: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * eval / 400.0))
}

/// `evaluator`'s evaluation of `pos` for White.
fn white_eval(evaluator: &Evaluator, pos: &Position) -> f64 {
    let eval = f64::from(evaluator.evaluate(pos));
    if pos.turn() == Color::White {
        eval
    } else {
        -eval
    }
}

/// Runs `f` over `samples` on two threads, summing.
fn sum_over<T: Sync>(samples: &[T], f: impl Fn(&T) -> f64 + Sync) -> f64 {
    let half = samples.len() / 2;
    std::thread::scope(|scope| {
        let first = scope.spawn(|| samples[..half].iter().map(&f).sum::<f64>());
        let second: f64 = samples[half..].iter().map(&f).sum();
        first.join().unwrap_or(0.0) + second
    })
}

/// The mean squared error of `weights`' predictions over `samples`.
fn error(samples: &[Sample], weights: &Weights, k: f64) -> f64 {
    let evaluator = Evaluator::new(Variant::Standard, *weights);
    let total = sum_over(samples, |s| (s.target - expected(white_eval(&evaluator, &s.pos), k)).powi(2));
    total / samples.len().max(1) as f64
}

/// The K that makes `weights`' evaluations best predict the targets (a scan, then a finer one).
fn fit_k(samples: &[Sample], weights: &Weights) -> f64 {
    let best_of = |ks: Vec<f64>| -> f64 {
        let errors = ks.into_iter().map(|k| (error(samples, weights, k), k));
        errors.fold((f64::MAX, 1.0), |best, e| if e.0 < best.0 { e } else { best }).1
    };
    let coarse = best_of((1..=40).map(|i| f64::from(i) * 0.1).collect());
    best_of((-10..=10).map(|i| coarse + f64::from(i) * 0.01).collect())
}

/// Each weight's effect on each position: the evaluation with the weight raised by STEP, less
/// the evaluation without, per unit. (A step of 24 makes a tapered term's share exact.)
fn linearise(samples: &[Sample], start: &Weights) -> Vec<Linear> {
    const STEP: i32 = 24;
    let base = Evaluator::new(Variant::Standard, *start);
    let mut model: Vec<Linear> = samples
        .iter()
        .map(|s| Linear { base: white_eval(&base, &s.pos), target: s.target, terms: Vec::new() })
        .collect();
    let count = tunable_count(start);
    for j in 0..count {
        let mut raised = *start;
        *raised.tunable()[j].1 += STEP;
        let evaluator = Evaluator::new(Variant::Standard, raised);
        let half = model.len() / 2;
        let (first, second) = model.split_at_mut(half);
        let (first_samples, second_samples) = samples.split_at(half);
        let pass = |part: &mut [Linear], part_samples: &[Sample]| {
            for (m, s) in part.iter_mut().zip(part_samples) {
                let change = white_eval(&evaluator, &s.pos) - m.base;
                if change != 0.0 {
                    m.terms.push((j as u32, (change / f64::from(STEP)) as f32));
                }
            }
        };
        std::thread::scope(|scope| {
            scope.spawn(|| pass(first, first_samples));
            pass(second, second_samples);
        });
    }
    model
}

/// The linear model's mean squared error with the weights moved by `deltas`.
fn model_error(model: &[Linear], deltas: &[f64], k: f64) -> f64 {
    let total = sum_over(model, |m| {
        let eval = m.base + m.terms.iter().map(|&(j, f)| f64::from(f) * deltas[j as usize]).sum::<f64>();
        (m.target - expected(eval, k)).powi(2)
    });
    total / model.len().max(1) as f64
}

/// Adam on the linear model; returns the weights' moves that predicted the held-out set best.
fn fit(train: &[Linear], held_out: &[Linear], k: f64, count: usize) -> Vec<f64> {
    let (rate, beta1, beta2) = (0.5, 0.9, 0.999);
    let mut deltas = vec![0.0; count];
    let (mut m, mut v) = (vec![0.0; count], vec![0.0; count]);
    let mut best = (model_error(held_out, &deltas, k), deltas.clone());
    let slope = k * std::f64::consts::LN_10 / 400.0;
    for epoch in 1..=EPOCHS {
        let mut gradient = vec![0.0; count];
        for s in train {
            let eval = s.base + s.terms.iter().map(|&(j, f)| f64::from(f) * deltas[j as usize]).sum::<f64>();
            let p = expected(eval, k);
            let g = 2.0 * (p - s.target) * p * (1.0 - p) * slope;
            for &(j, f) in &s.terms {
                gradient[j as usize] += g * f64::from(f);
            }
        }
        let n = train.len().max(1) as f64;
        for j in 0..count {
            let g = gradient[j] / n + 2.0 * PENALTY * deltas[j];
            m[j] = beta1 * m[j] + (1.0 - beta1) * g;
            v[j] = beta2 * v[j] + (1.0 - beta2) * g * g;
            let m_hat = m[j] / (1.0 - beta1.powi(epoch as i32));
            let v_hat = v[j] / (1.0 - beta2.powi(epoch as i32));
            deltas[j] -= rate * m_hat / (v_hat.sqrt() + 1e-12);
        }
        if epoch % 50 == 0 {
            let held = model_error(held_out, &deltas, k);
            println!("epoch {epoch}: train {:.6}, held out {held:.6}", model_error(train, &deltas, k));
            if held < best.0 {
                best = (held, deltas.clone());
            }
        }
    }
    best.1
}
