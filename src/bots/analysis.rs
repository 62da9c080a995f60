//! Computer analysis of a game: the engine at full strength (level 8) over every position, each with a fixed budget;
//! the evaluation after every move (from White's side), the engine's best move in the position
//! before it, and a judgement of the move by how much it lowered the mover's winning chances,
//! as lichess judges them (inaccuracy, mistake, blunder).

use super::search::{AlphaBeta, Score};
use super::Limits;
use crate::chess::{Color, Game, Move};

/// An evaluation from White's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Eval {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many moves; negative when Black mates.
    Mate(i32),
}

impl Eval {
    /// The evaluation as centipawns, mates counted as ±1000 (as lichess caps them for
    /// winning chances).
    pub fn capped_cp(self) -> i32 {
        match self {
            Eval::Cp(cp) => cp.clamp(-1000, 1000),
            Eval::Mate(n) if n > 0 => 1000,
            Eval::Mate(n) if n < 0 => -1000,
            Eval::Mate(_) => 0,
        }
    }
}

/// White's winning chances in [-1, 1] (lichess: 2 / (1 + e^(−0.00368208 · cp)) − 1).
pub fn winning_chances(eval: Eval) -> f64 {
    2.0 / (1.0 + (-0.003_682_08 * f64::from(eval.capped_cp())).exp()) - 1.0
}

/// How bad a move was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Judgement {
    Inaccuracy,
    Mistake,
    Blunder,
}

impl Judgement {
    /// The move suffix: `?!`, `?`, `??`.
    pub fn symbol(self) -> &'static str {
        match self {
            Judgement::Inaccuracy => "?!",
            Judgement::Mistake => "?",
            Judgement::Blunder => "??",
        }
    }

    /// The PGN NAG: `$6`, `$2`, `$4`.
    pub fn nag(self) -> u8 {
        match self {
            Judgement::Inaccuracy => 6,
            Judgement::Mistake => 2,
            Judgement::Blunder => 4,
        }
    }

    /// `"inaccuracy"`, `"mistake"`, `"blunder"`.
    pub fn name(self) -> &'static str {
        match self {
            Judgement::Inaccuracy => "inaccuracy",
            Judgement::Mistake => "mistake",
            Judgement::Blunder => "blunder",
        }
    }
}

/// The judgement of a move by `mover` that took the evaluation from `before` to `after`: the
/// drop in the mover's winning chances (0.1 an inaccuracy, 0.2 a mistake, 0.3 a blunder).
pub fn judge(before: Eval, after: Eval, mover: Color) -> Option<Judgement> {
    let sign = if mover == Color::White { 1.0 } else { -1.0 };
    let drop = sign * (winning_chances(before) - winning_chances(after));
    if drop >= 0.3 {
        Some(Judgement::Blunder)
    } else if drop >= 0.2 {
        Some(Judgement::Mistake)
    } else if drop >= 0.1 {
        Some(Judgement::Inaccuracy)
    } else {
        None
    }
}

/// One position's analysis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionEval {
    pub eval: Eval,
    /// The engine's move here (None when the game is over in this position).
    pub best: Option<Move>,
}

/// The engine's view of every position of `game`, the initial one first (so `n` moves give
/// `n + 1` positions), each searched within `limits`. `progress(done, total)` is called after
/// each position.
pub fn analyse(game: &Game, limits: &Limits, progress: &mut dyn FnMut(usize, usize)) -> Vec<PositionEval> {
    let mut engine = AlphaBeta::new(Some(0));
    let mut replay = Replay::of(game);
    let total = replay.positions();
    let mut out = Vec::with_capacity(total);
    loop {
        out.push(evaluate(&mut engine, replay.game(), limits));
        progress(out.len(), total);
        if !replay.advance() {
            return out;
        }
    }
}

/// Every position of a game in turn, the initial one first, as a game of its own (with the
/// moves that led there, so repetitions count in its search). One game is replayed move by
/// move, so the memory is linear in the game's length: a copy per position would hold every
/// history prefix at once, quadratic (a 2,400-ply game: hundreds of megabytes).
#[derive(Clone, Debug)]
pub struct Replay {
    game: Game,
    moves: Vec<Move>,
    /// How many of `moves` `game` has played.
    played: usize,
}

impl Replay {
    /// The replay of `game` from its initial position (which carries the game's rules).
    pub fn of(game: &Game) -> Replay {
        Replay {
            game: Game::from_position(*game.initial_position()),
            moves: game.history().iter().map(|record| record.mv).collect(),
            played: 0,
        }
    }

    /// How many positions there are: one more than moves.
    pub fn positions(&self) -> usize {
        self.moves.len() + 1
    }

    /// The position reached. Replayed, a game that ended off the board (resignation, time) is
    /// not over: its last position is searched like the others, and only a result on the
    /// board scores as one.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// On to the next position: false when there is none.
    pub fn advance(&mut self) -> bool {
        let Some(&mv) = self.moves.get(self.played) else { return false };
        // The moves come from a game that played them: they are legal here. Should one not
        // be, the replay stops there rather than analyse a position the game never had.
        if self.game.play(mv).is_err() {
            self.moves.truncate(self.played);
            return false;
        }
        self.played += 1;
        true
    }
}

/// How many centipawns `mover`'s move gave away (never negative), each side of it capped at
/// ±1000 as for winning chances: one term of the average centipawn loss.
pub fn centipawn_loss(before: Eval, after: Eval, mover: Color) -> i32 {
    let sign = if mover == Color::White { 1 } else { -1 };
    (sign * (before.capped_cp() - after.capped_cp())).max(0)
}

/// One position: a finished game's result as an evaluation, else the engine's.
pub fn evaluate(engine: &mut AlphaBeta, game: &Game, limits: &Limits) -> PositionEval {
    let to_move = game.turn();
    if let Some(outcome) = game.outcome() {
        // A game won on the board is the largest advantage there is; a draw is level.
        let eval = match outcome.winner {
            Some(Color::White) => Eval::Cp(10_000),
            Some(Color::Black) => Eval::Cp(-10_000),
            None => Eval::Cp(0),
        };
        return PositionEval { eval, best: None };
    }
    let found = engine.search(game, limits, &mut |_| {});
    let sign = if to_move == Color::White { 1 } else { -1 };
    let eval = match found.score {
        Score::Cp(cp) => Eval::Cp(sign * cp),
        Score::Mate(n) => Eval::Mate(sign * n),
    };
    PositionEval { eval, best: found.best }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Variant;

    #[test]
    fn winning_chances_and_judgements_follow_lichess() {
        assert!(winning_chances(Eval::Cp(0)).abs() < 1e-12);
        assert!((winning_chances(Eval::Cp(100)) - 0.1820).abs() < 1e-3);
        assert_eq!(winning_chances(Eval::Mate(3)), winning_chances(Eval::Cp(5000)));
        assert_eq!(judge(Eval::Cp(30), Eval::Cp(20), Color::White), None);
        assert_eq!(judge(Eval::Cp(0), Eval::Cp(-60), Color::White), Some(Judgement::Inaccuracy));
        assert_eq!(judge(Eval::Cp(0), Eval::Cp(-120), Color::White), Some(Judgement::Mistake));
        assert_eq!(judge(Eval::Cp(30), Eval::Cp(-900), Color::White), Some(Judgement::Blunder));
        // Black's moves are judged from Black's side.
        assert_eq!(judge(Eval::Cp(0), Eval::Cp(900), Color::Black), Some(Judgement::Blunder));
        assert_eq!(judge(Eval::Cp(0), Eval::Cp(-900), Color::Black), None);
        assert_eq!((Judgement::Blunder.symbol(), Judgement::Blunder.nag()), ("??", 4));
    }

    #[test]
    fn a_hung_queen_is_a_blunder_and_the_engine_takes_it() {
        let mut game = Game::new(Variant::Standard);
        for san in ["e4", "d5", "Qg4"] {
            game.play_san(san).expect("legal");
        }
        let mut seen = Vec::new();
        let evals = analyse(&game, &Limits { nodes: Some(60_000), ..Limits::default() }, &mut |done, total| {
            seen.push((done, total))
        });
        assert_eq!(evals.len(), 4);
        assert_eq!(seen.last(), Some(&(4, 4)));
        let judged = judge(evals[2].eval, evals[3].eval, Color::White);
        assert_eq!(judged, Some(Judgement::Blunder), "{evals:?}");
        assert_eq!(evals[3].best.map(|m| m.to_string()).as_deref(), Some("c8g4"), "the bishop takes the queen");
        assert!(evals[3].eval.capped_cp() < -500, "{evals:?}");
    }

    #[test]
    fn a_finished_game_ends_in_its_result() {
        let mut game = Game::new(Variant::Standard);
        for san in ["f3", "e5", "g4", "Qh4#"] {
            game.play_san(san).expect("legal");
        }
        let evals = analyse(&game, &Limits { nodes: Some(5_000), ..Limits::default() }, &mut |_, _| {});
        assert_eq!(evals[4], PositionEval { eval: Eval::Cp(-10_000), best: None });
        assert_eq!(judge(evals[3].eval, evals[4].eval, Color::Black), None, "mating is not a mistake");
        assert!(matches!(evals[3].eval, Eval::Mate(n) if n < 0), "Black mates in one: {:?}", evals[3]);
    }

    #[test]
    fn a_replay_walks_every_position_with_its_history() {
        let mut game = Game::new(Variant::Standard);
        for san in ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3"] {
            game.play_san(san).expect("legal");
        }
        let mut replay = Replay::of(&game);
        assert_eq!(replay.positions(), 6);
        let mut seen = vec![(replay.game().position().fen(), replay.game().ply())];
        while replay.advance() {
            seen.push((replay.game().position().fen(), replay.game().ply()));
        }
        let expected: Vec<_> = game.positions().iter().map(|p| p.fen()).zip(0..).collect();
        assert_eq!(seen, expected);
        assert!(!replay.advance(), "the end stays the end");
    }
}
