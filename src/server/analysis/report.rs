//! What `GET /api/games/{id}/analysis` answers: a stored analysis read against its game, each
//! ply with its evaluation, the engine's move in the position before it and a judgement, and a
//! summary per player. Judgements and summaries are worked out on each read from the stored
//! evaluations, so a change to how moves are judged applies to every stored analysis.

use serde::Serialize;

use crate::bots::analysis::{centipawn_loss, judge, Eval, Judgement};
use crate::chess::{Color, Game, Position};
use crate::server::store::{StoredAnalysis, StoredEval};

/// A finished analysis.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Always 1: a report is of a finished analysis.
    pub progress: f64,
    pub movetime_ms: u64,
    /// The evaluation of the start position.
    pub initial: EvalView,
    pub plies: Vec<Ply>,
    pub players: Players,
}

/// An evaluation from White's side: `{"cp": 35}` or `{"mate": -3}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EvalView {
    Cp(i32),
    Mate(i32),
}

impl From<Eval> for EvalView {
    fn from(eval: Eval) -> EvalView {
        match eval {
            Eval::Cp(cp) => EvalView::Cp(cp),
            Eval::Mate(n) => EvalView::Mate(n),
        }
    }
}

/// A move in both notations.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MoveView {
    pub uci: String,
    pub san: String,
}

/// One move of the game as the engine saw it.
#[derive(Clone, Debug, Serialize)]
pub struct Ply {
    /// 1 for the first move.
    pub ply: usize,
    #[serde(rename = "move")]
    pub played: MoveView,
    /// The evaluation after the move.
    pub eval: EvalView,
    /// The engine's move in the position before this one (what could have been played).
    pub best: Option<MoveView>,
    /// `"inaccuracy"`, `"mistake"` or `"blunder"`; None for a good enough move.
    pub judgement: Option<&'static str>,
}

/// Each side's count of judged moves and average centipawn loss.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub inaccuracies: u32,
    pub mistakes: u32,
    pub blunders: u32,
    /// Average centipawn loss over the side's moves, rounded (evaluations capped at ±1000).
    pub acpl: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Players {
    pub white: Summary,
    pub black: Summary,
}

fn eval_of(stored: &StoredEval) -> Result<Eval, String> {
    match (stored.cp, stored.mate) {
        (Some(cp), None) => Ok(Eval::Cp(cp)),
        (None, Some(n)) => Ok(Eval::Mate(n)),
        _ => Err(format!("an evaluation is neither centipawns nor a mate: {stored:?}")),
    }
}

/// The stored form of one position's evaluation.
pub fn stored(eval: Eval, best: Option<String>) -> StoredEval {
    match eval {
        Eval::Cp(cp) => StoredEval { cp: Some(cp), mate: None, best },
        Eval::Mate(n) => StoredEval { cp: None, mate: Some(n), best },
    }
}

fn best_of(position: &Position, stored: &StoredEval) -> Result<Option<MoveView>, String> {
    let Some(uci) = &stored.best else { return Ok(None) };
    let mv = position.parse_uci(uci).map_err(|e| format!("the engine's move {uci} does not fit its position: {e}"))?;
    Ok(Some(MoveView { uci: mv.to_string(), san: position.san(mv) }))
}

/// The report of `analysis` on `game`; an error says why the stored analysis does not fit it.
pub fn report(game: &Game, analysis: &StoredAnalysis) -> Result<Report, String> {
    let history = game.history();
    if analysis.positions.len() != history.len() + 1 {
        return Err(format!(
            "the analysis has {} positions for a game of {} moves",
            analysis.positions.len(),
            history.len()
        ));
    }
    let evals = analysis.positions.iter().map(eval_of).collect::<Result<Vec<_>, _>>()?;
    let positions = game.positions();
    let mut plies = Vec::with_capacity(history.len());
    let mut players = Players::default();
    let mut losses = [(0i64, 0i64); 2];
    for (i, played) in history.iter().enumerate() {
        let before = &positions[i];
        let mover = before.turn();
        let judgement = judge(evals[i], evals[i + 1], mover);
        let side = match mover {
            Color::White => &mut players.white,
            Color::Black => &mut players.black,
        };
        match judgement {
            Some(Judgement::Inaccuracy) => side.inaccuracies += 1,
            Some(Judgement::Mistake) => side.mistakes += 1,
            Some(Judgement::Blunder) => side.blunders += 1,
            None => {}
        }
        let (sum, count) = &mut losses[usize::from(mover == Color::Black)];
        *sum += i64::from(centipawn_loss(evals[i], evals[i + 1], mover));
        *count += 1;
        plies.push(Ply {
            ply: i + 1,
            played: MoveView { uci: played.mv.to_string(), san: played.san.clone() },
            eval: evals[i + 1].into(),
            best: best_of(before, &analysis.positions[i])?,
            judgement: judgement.map(Judgement::name),
        });
    }
    let average = |(sum, count): (i64, i64)| {
        if count == 0 {
            0
        } else {
            u32::try_from((sum + count / 2) / count).unwrap_or(u32::MAX)
        }
    };
    players.white.acpl = average(losses[0]);
    players.black.acpl = average(losses[1]);
    Ok(Report { progress: 1.0, movetime_ms: analysis.movetime_ms, initial: evals[0].into(), plies, players })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Variant;

    fn at(cp: i32, best: Option<&str>) -> StoredEval {
        stored(Eval::Cp(cp), best.map(str::to_string))
    }

    #[test]
    fn a_hung_queen_is_reported_with_the_move_that_was_best() {
        let mut game = Game::new(Variant::Standard);
        for san in ["e4", "d5", "Qg4", "Bxg4"] {
            game.play_san(san).expect("legal");
        }
        let analysis = StoredAnalysis {
            movetime_ms: 150,
            positions: vec![
                at(30, Some("e2e4")),
                at(30, Some("d7d5")),
                at(40, Some("e4d5")),
                at(-900, Some("c8g4")),
                at(-880, Some("b1c3")),
            ],
        };
        let report = report(&game, &analysis).expect("fits");
        assert_eq!(report.plies.len(), 4);
        let blunder = &report.plies[2];
        assert_eq!((blunder.ply, blunder.played.san.as_str(), blunder.judgement), (3, "Qg4", Some("blunder")));
        assert_eq!(blunder.best, Some(MoveView { uci: "e4d5".into(), san: "exd5".into() }));
        assert_eq!(blunder.eval, EvalView::Cp(-900));
        assert_eq!(report.plies[3].judgement, None, "taking the queen is no mistake");
        assert_eq!(report.players.white, Summary { inaccuracies: 0, mistakes: 0, blunders: 1, acpl: 470 });
        assert_eq!(report.players.black.acpl, 15, "d5 gave away 10, Bxg4 20");
        let json = serde_json::to_value(&report).expect("json");
        assert_eq!(json["plies"][2]["move"]["san"], "Qg4");
        assert_eq!(json["plies"][2]["eval"], serde_json::json!({"cp": -900}));
        assert_eq!(json["initial"], serde_json::json!({"cp": 30}));
        let mate = serde_json::to_value(EvalView::from(Eval::Mate(-3))).expect("json");
        assert_eq!(mate, serde_json::json!({"mate": -3}));
    }

    #[test]
    fn an_analysis_that_does_not_fit_its_game_is_refused() {
        let game = Game::new(Variant::Standard);
        let two = StoredAnalysis { movetime_ms: 1, positions: vec![at(0, None), at(0, None)] };
        assert!(report(&game, &two).unwrap_err().contains("2 positions for a game of 0 moves"));
        let bad = StoredAnalysis { movetime_ms: 1, positions: vec![StoredEval { cp: None, mate: None, best: None }] };
        assert!(report(&game, &bad).is_err());
        let mut moved = Game::new(Variant::Standard);
        moved.play_san("e4").expect("legal");
        let illegal = StoredAnalysis { movetime_ms: 1, positions: vec![at(0, Some("e2e5")), at(0, None)] };
        assert!(report(&moved, &illegal).unwrap_err().contains("e2e5"));
    }
}
