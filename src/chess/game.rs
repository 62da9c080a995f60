//! `Game`: a position with its move stack and how the game ended. The stack records what each
//! move needs to be undone, so undo is exact and the position after any prefix is reproducible.

use std::fmt;

use thiserror::Error;

use super::chess960::StartPosition;
use super::fen::ParseFenError;
use super::moves::{Move, MoveList};
use super::piece::{Color, Role};
use super::position::{Position, Undo};
use super::rules::{Repetition, Rules, Variant};
use super::san::SanError;
use super::uci::{IllegalMoveError, ParseUciError, UciMove};

/// Why a game ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum EndReason {
    Checkmate,
    /// Standard chess: no legal move and not in check.
    Stalemate,
    /// Minichess7: moves exist but every one leaves the king in check; the side to move loses.
    OutOfMoves,
    /// Minichess7: no move at all, legal or not; a draw.
    NoMoves,
    ThreefoldRepetition,
    EightMoveRepetition,
    /// Standard: 50 moves each without capture or pawn move. Minichess7: without capture.
    FiftyMoves,
    InsufficientMaterial,
    Resignation,
    Agreement,
    Timeout,
    /// Declared drawn by an arbiter (e.g. `gambit match` after 300 plies).
    Adjudication,
    /// Lost for an illegal action, such as an engine sending an illegal move.
    RulesInfraction,
    /// Lost by leaving the game.
    Abandoned,
    /// Called off by a player before both sides had moved: no result (`*`), nobody won.
    Aborted,
}

impl EndReason {
    /// Every reason, for lookups by name.
    pub const ALL: [EndReason; 15] = [
        EndReason::Checkmate,
        EndReason::Stalemate,
        EndReason::OutOfMoves,
        EndReason::NoMoves,
        EndReason::ThreefoldRepetition,
        EndReason::EightMoveRepetition,
        EndReason::FiftyMoves,
        EndReason::InsufficientMaterial,
        EndReason::Resignation,
        EndReason::Agreement,
        EndReason::Timeout,
        EndReason::Adjudication,
        EndReason::RulesInfraction,
        EndReason::Abandoned,
        EndReason::Aborted,
    ];

    /// The reason of this [`EndReason::name`], if it is one.
    pub fn from_name(name: &str) -> Option<EndReason> {
        EndReason::ALL.into_iter().find(|r| r.name() == name)
    }

    /// The snake_case name used on the wire and in logs.
    pub const fn name(self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::Stalemate => "stalemate",
            EndReason::OutOfMoves => "out_of_moves",
            EndReason::NoMoves => "no_moves",
            EndReason::ThreefoldRepetition => "threefold_repetition",
            EndReason::EightMoveRepetition => "eight_move_repetition",
            EndReason::FiftyMoves => "fifty_moves",
            EndReason::InsufficientMaterial => "insufficient_material",
            EndReason::Resignation => "resignation",
            EndReason::Agreement => "agreement",
            EndReason::Timeout => "timeout",
            EndReason::Adjudication => "adjudication",
            EndReason::RulesInfraction => "rules_infraction",
            EndReason::Abandoned => "abandoned",
            EndReason::Aborted => "aborted",
        }
    }

    /// A phrase for people: "checkmate", "threefold repetition", …
    pub const fn description(self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::Stalemate => "stalemate",
            EndReason::OutOfMoves => "out of valid moves",
            EndReason::NoMoves => "no moves at all",
            EndReason::ThreefoldRepetition => "threefold repetition",
            EndReason::EightMoveRepetition => "eight-move repetition",
            EndReason::FiftyMoves => "fifty-move rule",
            EndReason::InsufficientMaterial => "insufficient material",
            EndReason::Resignation => "resignation",
            EndReason::Agreement => "agreement",
            EndReason::Timeout => "time forfeit",
            EndReason::Adjudication => "adjudication",
            EndReason::RulesInfraction => "rules infraction",
            EndReason::Abandoned => "abandonment",
            EndReason::Aborted => "abort",
        }
    }
}

/// The end of a game: who won (None for a draw) and why.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Outcome {
    pub winner: Option<Color>,
    pub reason: EndReason,
}

impl Outcome {
    pub const fn win(winner: Color, reason: EndReason) -> Outcome {
        Outcome { winner: Some(winner), reason }
    }

    pub const fn draw(reason: EndReason) -> Outcome {
        Outcome { winner: None, reason }
    }

    /// A game called off before it got going: no result.
    pub const ABORTED: Outcome = Outcome { winner: None, reason: EndReason::Aborted };

    /// True for a game called off, which has no result (`*`) rather than a draw.
    pub const fn is_aborted(self) -> bool {
        matches!(self.reason, EndReason::Aborted)
    }

    /// The outcome written as `result` (`"1-0"`, `"0-1"`, `"1/2-1/2"`, `"*"` for an aborted
    /// game) for `reason` (a name).
    pub fn from_result(result: &str, reason: &str) -> Option<Outcome> {
        let reason = EndReason::from_name(reason)?;
        match (result, reason) {
            ("*", EndReason::Aborted) => Some(Outcome::ABORTED),
            (_, EndReason::Aborted) => None,
            ("1-0", _) => Some(Outcome::win(Color::White, reason)),
            ("0-1", _) => Some(Outcome::win(Color::Black, reason)),
            ("1/2-1/2", _) => Some(Outcome::draw(reason)),
            _ => None,
        }
    }

    /// How the game ended, in words, for people: "Checkmate — Black wins", "White resigned —
    /// Black wins", "Draw by threefold repetition". The one wording of every display (the
    /// terminal, the text log); the web client's table follows it.
    pub fn headline(self) -> String {
        let name = |c: Color| c.fold("White", "Black");
        match self.winner {
            Some(w) => {
                let (winner, loser) = (name(w), name(!w));
                match self.reason {
                    EndReason::Checkmate => format!("Checkmate — {winner} wins"),
                    EndReason::Resignation => format!("{loser} resigned — {winner} wins"),
                    EndReason::OutOfMoves => format!("{loser} is out of valid moves — {winner} wins"),
                    EndReason::Timeout => format!("{loser} ran out of time — {winner} wins"),
                    EndReason::Abandoned => format!("{loser} left the game — {winner} wins"),
                    EndReason::RulesInfraction => format!("Rules infraction by {loser} — {winner} wins"),
                    other => format!("{winner} wins by {}", other.description()),
                }
            }
            None => match self.reason {
                EndReason::Aborted => "Game aborted".into(),
                EndReason::Stalemate => "Stalemate — draw".into(),
                EndReason::Agreement => "Draw agreed".into(),
                EndReason::ThreefoldRepetition => "Draw by threefold repetition".into(),
                EndReason::EightMoveRepetition => "Draw by eight-move repetition".into(),
                EndReason::FiftyMoves => "Draw by the fifty-move rule".into(),
                EndReason::InsufficientMaterial => "Draw by insufficient material".into(),
                EndReason::NoMoves => "No moves at all — draw".into(),
                EndReason::Timeout => "Draw — time ran out but the other side cannot mate".into(),
                other => format!("Draw by {}", other.description()),
            },
        }
    }

    /// `"1-0"`, `"0-1"`, `"1/2-1/2"`, or `"*"` for an aborted game.
    pub const fn result(self) -> &'static str {
        match self.winner {
            Some(Color::White) => "1-0",
            Some(Color::Black) => "0-1",
            None if self.is_aborted() => "*",
            None => "1/2-1/2",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.winner {
            Some(Color::White) => write!(f, "White wins by {}", self.reason.description()),
            Some(Color::Black) => write!(f, "Black wins by {}", self.reason.description()),
            None if self.is_aborted() => f.write_str("Game aborted"),
            None => write!(f, "Draw by {}", self.reason.description()),
        }
    }
}

/// Why a move was not played.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MoveError {
    #[error("the game is over")]
    GameOver,
    #[error(transparent)]
    Uci(#[from] ParseUciError),
    #[error(transparent)]
    San(#[from] SanError),
    #[error(transparent)]
    Illegal(#[from] IllegalMoveError),
}

/// One entry of the move stack.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedMove {
    pub mv: Move,
    pub san: String,
    /// The piece that moved (a pawn, for a promotion).
    pub role: Role,
    pub captured: Option<Role>,
    undo: Undo,
    /// The repetition key of the position after the move.
    key: u64,
}

/// A game in progress or finished.
#[derive(Clone, Debug)]
pub struct Game {
    initial: Position,
    position: Position,
    initial_key: u64,
    history: Vec<PlayedMove>,
    outcome: Option<Outcome>,
}

impl Game {
    /// A game from the variant's starting position with the default rules.
    pub fn new(variant: Variant) -> Game {
        Game::from_position(Position::new(variant))
    }

    /// A game from any valid FEN under the given rules. If that position is already over
    /// (checkmate, stalemate, …) the game starts finished.
    pub fn from_fen(variant: Variant, fen: &str, rules: Rules) -> Result<Game, ParseFenError> {
        Ok(Game::from_position(Position::from_fen(fen, variant)?.with_rules(rules)))
    }

    pub fn from_position(position: Position) -> Game {
        let mut game = Game {
            initial: position,
            position,
            initial_key: repetition_key(&position),
            history: Vec::new(),
            outcome: None,
        };
        game.outcome = game.automatic_outcome();
        game
    }

    pub fn variant(&self) -> Variant {
        self.position.variant()
    }

    pub fn rules(&self) -> Rules {
        self.position.rules()
    }

    pub fn position(&self) -> &Position {
        &self.position
    }

    pub fn initial_position(&self) -> &Position {
        &self.initial
    }

    /// True if the game did not start from the variant's usual initial position (in Chess960,
    /// from none of its 960).
    pub fn is_custom_start(&self) -> bool {
        let fen = self.initial.fen();
        match self.variant() {
            Variant::Chess960 => StartPosition::of_board(&fen).is_none_or(|start| start.fen() != fen),
            variant => fen != variant.initial_fen(),
        }
    }

    pub fn turn(&self) -> Color {
        self.position.turn()
    }

    pub fn history(&self) -> &[PlayedMove] {
        &self.history
    }

    pub fn ply(&self) -> usize {
        self.history.len()
    }

    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    pub fn is_over(&self) -> bool {
        self.outcome.is_some()
    }

    /// The legal moves now: none once the game is over.
    pub fn legal_moves(&self) -> MoveList {
        if self.is_over() {
            MoveList::new()
        } else {
            self.position.legal_moves()
        }
    }

    /// Plays a legal move and updates the outcome.
    pub fn play(&mut self, m: Move) -> Result<&PlayedMove, MoveError> {
        if self.is_over() {
            return Err(MoveError::GameOver);
        }
        if !self.position.is_legal(m) {
            // Ask the UCI layer for the most specific reason (no piece there, wrong colour, …).
            let reason = UciMove::from(m).to_move(&self.position).err();
            return Err(MoveError::Illegal(reason.unwrap_or(IllegalMoveError::Illegal(m))));
        }
        let san = self.position.san(m);
        let role = self.position.role_at(m.from).unwrap_or(Role::Pawn);
        let undo = self.position.play_unchecked(m);
        self.history.push(PlayedMove {
            mv: m,
            san,
            role,
            captured: undo.captured,
            undo,
            key: repetition_key(&self.position),
        });
        self.outcome = self.automatic_outcome();
        Ok(self.history.last().expect("just pushed"))
    }

    /// Plays a move given in UCI notation.
    pub fn play_uci(&mut self, text: &str) -> Result<&PlayedMove, MoveError> {
        if self.is_over() {
            return Err(MoveError::GameOver);
        }
        let m = text.parse::<UciMove>()?.to_move(&self.position)?;
        self.play(m)
    }

    /// Plays a move given in SAN.
    pub fn play_san(&mut self, text: &str) -> Result<&PlayedMove, MoveError> {
        if self.is_over() {
            return Err(MoveError::GameOver);
        }
        let m = self.position.parse_san(text)?;
        self.play(m)
    }

    /// Takes back the last move, if any, and reopens the game.
    pub fn undo(&mut self) -> Option<PlayedMove> {
        let last = self.history.pop()?;
        self.position.undo(last.mv, &last.undo);
        self.outcome = self.automatic_outcome();
        Some(last)
    }

    /// Ends the game for a reason off the board (resignation, agreement, time). No effect if it is already over.
    pub fn end(&mut self, outcome: Outcome) {
        if self.outcome.is_none() {
            self.outcome = Some(outcome);
        }
    }

    /// The positions the game went through, the initial one first.
    pub fn positions(&self) -> Vec<Position> {
        let mut pos = self.initial;
        let mut out = vec![pos];
        for played in &self.history {
            pos.play_unchecked(played.mv);
            out.push(pos);
        }
        out
    }

    /// The outcome the rules impose on the current position, if any.
    fn automatic_outcome(&self) -> Option<Outcome> {
        let pos = &self.position;
        let mover = pos.turn();
        if !pos.has_legal_move() {
            return Some(if pos.is_check() {
                Outcome::win(!mover, EndReason::Checkmate)
            } else {
                match pos.variant() {
                    Variant::Standard | Variant::Chess960 => Outcome::draw(EndReason::Stalemate),
                    Variant::Minichess7 if pos.has_pseudo_legal_move() => Outcome::win(!mover, EndReason::OutOfMoves),
                    Variant::Minichess7 => Outcome::draw(EndReason::NoMoves),
                }
            });
        }
        if pos.variant().fide_rules() && insufficient_material(pos) {
            return Some(Outcome::draw(EndReason::InsufficientMaterial));
        }
        if pos.halfmoves() >= 100 {
            return Some(Outcome::draw(EndReason::FiftyMoves));
        }
        match pos.rules().repetition {
            Repetition::Threefold if self.repetitions() >= 3 => Some(Outcome::draw(EndReason::ThreefoldRepetition)),
            Repetition::EightMove if self.eight_move_cycle() => Some(Outcome::draw(EndReason::EightMoveRepetition)),
            _ => None,
        }
    }

    /// How many times the current position has occurred in this game.
    fn repetitions(&self) -> usize {
        let current = self.history.last().map_or(self.initial_key, |m| m.key);
        let earlier = self.history.iter().map(|m| m.key).chain([self.initial_key]);
        earlier.filter(|&k| k == current).count()
    }

    /// The last 8 plies are two identical 4-ply cycles of from/to squares with no capture,
    /// promotion or pawn move among them.
    fn eight_move_cycle(&self) -> bool {
        let n = self.history.len();
        if n < 8 {
            return false;
        }
        let last = &self.history[n - 8..];
        let quiet = last.iter().all(|m| m.captured.is_none() && m.mv.promotion.is_none() && m.role != Role::Pawn);
        quiet && (0..4).all(|i| (last[i].mv.from, last[i].mv.to) == (last[i + 4].mv.from, last[i + 4].mv.to))
    }
}

/// The position's hash, counting the en passant square only when a legal en passant capture
/// exists: FIDE treats positions as the same when the same moves are possible.
fn repetition_key(pos: &Position) -> u64 {
    match pos.ep_square() {
        Some(ep) if !pos.legal_moves().iter().any(|m| m.to == ep && pos.is_en_passant(*m)) => {
            pos.hash() ^ super::zobrist::en_passant(ep)
        }
        _ => pos.hash(),
    }
}

/// Standard chess: neither side can ever mate — bare kings, a lone minor piece, or only
/// bishops all on squares of one colour.
pub fn insufficient_material(pos: &Position) -> bool {
    let heavy = pos.by_role(Role::Pawn) | pos.by_role(Role::Rook) | pos.by_role(Role::Queen);
    if heavy.any() {
        return false;
    }
    let minors = pos.by_role(Role::Knight) | pos.by_role(Role::Bishop);
    if minors.count() <= 1 {
        return true;
    }
    let bishops = pos.by_role(Role::Bishop);
    let dark = bishops.into_iter().filter(|s| s.is_dark()).count();
    pos.by_role(Role::Knight).is_empty() && (dark == 0 || dark == bishops.count() as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_read_back_from_their_names() {
        for reason in EndReason::ALL {
            assert_eq!(EndReason::from_name(reason.name()), Some(reason));
            if reason == EndReason::Aborted {
                continue;
            }
            for outcome in
                [Outcome::win(Color::White, reason), Outcome::win(Color::Black, reason), Outcome::draw(reason)]
            {
                assert_eq!(Outcome::from_result(outcome.result(), reason.name()), Some(outcome));
            }
        }
        assert_eq!(EndReason::from_name("boredom"), None);
        assert_eq!(Outcome::from_result("2-0", "checkmate"), None);
        // An aborted game has no result, and only an aborted game has none.
        assert_eq!(Outcome::ABORTED.result(), "*");
        assert_eq!(Outcome::from_result("*", "aborted"), Some(Outcome::ABORTED));
        assert_eq!(Outcome::from_result("1-0", "aborted"), None);
        assert_eq!(Outcome::from_result("*", "resignation"), None);
        assert_eq!(Outcome::ABORTED.headline(), "Game aborted");
    }

    /// Captures, promotions and pawn moves cannot really recur in two identical cycles, but the
    /// rule excludes them anyway; check the exclusion on a doctored move stack.
    #[test]
    fn eight_move_cycles_exclude_captures_and_pawn_moves() {
        let rules = Rules { repetition: Repetition::EightMove, ..Rules::default() };
        let mut game = Game::from_fen(Variant::Standard, Variant::Standard.initial_fen(), rules).unwrap();
        for san in ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"] {
            game.play_san(san).unwrap();
        }
        let mut quiet = game.clone();
        quiet.play_san("Ng8").unwrap();
        assert!(quiet.eight_move_cycle());
        let mut with_capture = quiet.clone();
        with_capture.history[2].captured = Some(Role::Knight);
        assert!(!with_capture.eight_move_cycle());
        let mut with_pawn = quiet.clone();
        with_pawn.history[5].role = Role::Pawn;
        assert!(!with_pawn.eight_move_cycle());
        let mut with_promotion = quiet;
        with_promotion.history[7].mv.promotion = Some(Role::Queen);
        assert!(!with_promotion.eight_move_cycle());
    }
}
