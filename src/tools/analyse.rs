//! `gambit analyse GAME.pgn [--movetime MS]`: the engine at full strength (level 12) over every position of every
//! game in a PGN file, printed as PGN again with the evaluation after each move as a
//! `{ [%eval 0.35] }` comment (`[%eval #-3]` for a mate), the judged moves marked with NAGs
//! ($6 ?!, $2 ?, $4 ??) and the engine's move named — readable by other PGN tools.

use std::path::PathBuf;

use clap::Args;

use super::ToolError;
use crate::bots::analysis::{analyse, judge, Eval, PositionEval};
use crate::bots::Limits;
use crate::chess::{read_pgn, Color, PgnGame};

#[derive(Args, Debug)]
pub struct AnalyseArgs {
    /// The PGN file to analyse (every game in it)
    pub file: PathBuf,
    /// Thinking time per position in milliseconds
    #[arg(long, default_value_t = 150, value_parser = clap::value_parser!(u64).range(1..=60_000))]
    pub movetime: u64,
}

/// Analyses every game of the file and prints them annotated.
pub fn run(args: &AnalyseArgs) -> Result<(), ToolError> {
    let text = std::fs::read_to_string(&args.file)
        .map_err(|e| ToolError(format!("cannot read {}: {e}", args.file.display())))?;
    let games = read_pgn(&text).map_err(|e| ToolError(format!("{}: {e}", args.file.display())))?;
    let limits = Limits::movetime(args.movetime);
    for (i, game) in games.iter().enumerate() {
        let bar = indicatif::ProgressBar::new(game.game.history().len() as u64 + 1);
        bar.set_message(format!("game {}", i + 1));
        let evals = analyse(&game.game, &limits, &mut |done, _| bar.set_position(done as u64));
        bar.finish_and_clear();
        if i > 0 {
            println!();
        }
        print!("{}", annotated(game, &evals));
    }
    Ok(())
}

/// `[%eval 0.35]` / `[%eval #-3]`, as lichess and other tools write it.
fn eval_text(eval: Eval) -> String {
    match eval {
        Eval::Cp(cp) => format!("{:.2}", f64::from(cp) / 100.0),
        Eval::Mate(n) => format!("#{n}"),
    }
}

/// The game as PGN with the analysis in comments and NAGs.
fn annotated(pgn: &PgnGame, evals: &[PositionEval]) -> String {
    let game = &pgn.game;
    let result = game.outcome().map_or_else(|| pgn.result.clone().unwrap_or_else(|| "*".into()), |o| o.result().into());
    let mut out = String::new();
    for (name, value) in pgn.tags.iter().filter(|(n, _)| n != "Result") {
        out.push_str(&format!("[{name} \"{}\"]\n", value.replace('\\', "\\\\").replace('"', "\\\"")));
    }
    out.push_str(&format!("[Result \"{result}\"]\n[Annotator \"gambit analyse\"]\n\n"));
    let positions = game.positions();
    let mut number = game.initial_position().fullmoves();
    for (i, played) in game.history().iter().enumerate() {
        let before = &positions[i];
        let mover = before.turn();
        let mut token = match mover {
            Color::White => format!("{number}. {}", played.san),
            Color::Black => format!("{number}... {}", played.san),
        };
        let (Some(prev), Some(next)) = (evals.get(i), evals.get(i + 1)) else {
            out.push_str(&token);
            out.push('\n');
            continue;
        };
        let judged = judge(prev.eval, next.eval, mover);
        if let Some(judgement) = judged {
            token.push_str(&format!(" ${}", judgement.nag()));
        }
        let mut comment = format!("[%eval {}]", eval_text(next.eval));
        if let (Some(judgement), Some(best)) = (judged, prev.best) {
            if best != played.mv {
                let word = judgement.name();
                let word = format!("{}{}", word[..1].to_uppercase(), &word[1..]);
                comment.push_str(&format!(" {word}. {} was best.", before.san(best)));
            }
        }
        if next.best.is_some() || game.outcome().is_none() || i + 1 < game.history().len() {
            token.push_str(&format!(" {{ {comment} }}"));
        }
        out.push_str(&token);
        out.push('\n');
        if mover == Color::Black {
            number += 1;
        }
    }
    out.push_str(&result);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Move;

    #[test]
    fn a_blunder_gets_its_nag_and_the_best_move() {
        let games = read_pgn("[White \"A\"]\n\n1. e4 d5 2. Qg4 Bxg4 *").expect("pgn");
        let cp = |cp| PositionEval { eval: Eval::Cp(cp), best: None };
        let best = |cp, uci: &str, game: &crate::chess::Game, ply: usize| {
            let pos = &game.positions()[ply];
            let mv: Move = uci.parse::<crate::chess::UciMove>().expect("uci").to_move(pos).expect("legal");
            PositionEval { eval: Eval::Cp(cp), best: Some(mv) }
        };
        let g = &games[0].game;
        let evals =
            vec![cp(30), cp(40), best(30, "b1c3", g, 2), cp(-900), PositionEval { eval: Eval::Mate(-2), best: None }];
        let text = annotated(&games[0], &evals);
        assert!(text.starts_with("[White \"A\"]\n[Result \"*\"]\n[Annotator \"gambit analyse\"]\n\n"), "{text}");
        assert!(text.contains("2. Qg4 $4 { [%eval -9.00] Blunder. Nc3 was best. }\n"), "{text}");
        assert!(text.contains("2... Bxg4 { [%eval #-2] }\n*\n"), "{text}");
        assert!(text.contains("1. e4 { [%eval 0.40] }\n1... d5 { [%eval 0.30] }\n"), "{text}");
    }
}
