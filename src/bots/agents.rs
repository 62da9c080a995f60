//! The reference agents of the NUS CS3243 (2023) 7x7 minichess project, as `gambit match`
//! opponents: dummy, random, greedy, smart and minimax4.
//!
//! The course's project statement ("Project 3: Adversarial Search", AY2022/23) describes them so:
//! *dummy* plays the first move it sees; *random* a random move; *greedy* a checkmating move if
//! there is one, else a checking move, else a random move; *smart* the move of highest utility —
//! checkmate first, then moves that check and capture at once, then captures only, then checks
//! only, with different captured pieces worth different utilities; *minimax* alpha-beta to depth 4
//! with an evaluation "similar to the utility of the Smart Agent". The course's own code was never
//! published, so the numbers below are ours, chosen to realise exactly that ordering.
//!
//! One deliberate difference: the course's dummy and random agents could play a move that leaves
//! their own king in check (and then lose it). gambit's rules make such moves illegal, so every
//! agent here chooses among the legal moves only.
//!
//! All agents play both variants, and each takes a seed for its random choices.

use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;

use super::values::value;
use super::{Bot, Limits};
use crate::chess::game::insufficient_material;
use crate::chess::{Color, Game, Move, Position, Variant};

/// The agents' names, as `gambit match` accepts them.
pub const AGENTS: [&str; 5] = ["dummy", "random", "greedy", "smart", "minimax4"];

/// The agent called `name` (one of [`AGENTS`]); with a seed its choices are reproducible.
pub fn agent(name: &str, seed: Option<u64>) -> Option<Box<dyn Bot>> {
    Some(match name {
        "dummy" => Box::new(Dummy),
        "random" => Box::new(super::Level1::new(seed)), // a uniformly random legal move: level 1 exactly
        "greedy" => Box::new(Greedy::new(seed)),
        "smart" => Box::new(Smart::new(seed)),
        "minimax4" => Box::new(Minimax4::new(seed)),
        _ => return None,
    })
}

/// The utility of a move that wins at once (checkmate, or in minichess7 leaving the opponent
/// out of valid moves).
pub const MATE_UTILITY: i32 = 10_000;
/// The base utility of a move that gives check and captures.
pub const CHECK_CAPTURE_UTILITY: i32 = 1_000;
/// The base utility of a capture that gives no check.
pub const CAPTURE_UTILITY: i32 = 100;
/// The utility of a check that captures nothing; also what being in check costs in a position.
pub const CHECK_UTILITY: i32 = 10;
/// Each pawn of captured value adds this much to a capture's utility.
pub const PER_PAWN: i32 = 10;

/// True if, after the move, the side to move has lost: no legal move while in check
/// (checkmate), or — in minichess7 — moves that all leave its king in check ("out of valid moves").
pub fn wins_at_once(after: &Position) -> bool {
    !after.has_legal_move() && (after.is_check() || lost_without_check(after))
}

/// Minichess7: a side with no legal move but some pseudo-legal one loses even when not in check.
fn lost_without_check(pos: &Position) -> bool {
    pos.variant() == Variant::Minichess7 && pos.has_pseudo_legal_move()
}

/// The smart agent's utility of playing the legal move `m` in `pos`, higher is better:
///
/// | the move                          | utility                                   |
/// |-----------------------------------|-------------------------------------------|
/// | wins at once (see [`wins_at_once`])| 10 000                                   |
/// | gives check and captures          | 1 000 + 10 × value of the captured piece |
/// | captures, no check                | 100 + 10 × value of the captured piece   |
/// | gives check, captures nothing     | 10                                        |
/// | anything else                     | 0                                         |
///
/// Piece values are [`value`]'s: pawn 1, ferz 2, knight 3, bishop 3, rook 5, princess 7,
/// empress 8, queen 9. So every checking capture outranks every plain capture (at most
/// 100 + 90 = 190), every capture outranks a plain check, and within a tier the more valuable
/// victim wins. A promotion counts only for what it captures and whether it checks.
pub fn utility(pos: &Position, m: Move) -> i32 {
    let after = pos.after(m);
    let captured = pos.capture(m).map(|role| PER_PAWN * value(role));
    let check = after.is_check();
    if wins_at_once(&after) {
        return MATE_UTILITY;
    }
    match (check, captured) {
        (true, Some(v)) => CHECK_CAPTURE_UTILITY + v,
        (false, Some(v)) => CAPTURE_UTILITY + v,
        (true, None) => CHECK_UTILITY,
        (false, None) => 0,
    }
}

/// The material of `color` in tenths of a pawn (the same scale as [`utility`]'s captures).
fn material(pos: &Position, color: Color) -> i32 {
    pos.by_color(color).into_iter().filter_map(|sq| pos.role_at(sq)).map(|role| PER_PAWN * value(role)).sum()
}

/// The position form of [`utility`] that minimax4 evaluates its leaves with, from the side to
/// move's point of view: 10 × (its material − the opponent's material) in [`value`]'s piece values,
/// minus 10 ([`CHECK_UTILITY`]) if it is in check. Captures thus count exactly as in `utility`
/// (10 per pawn of value) and the check term carries over; mates are scored by the search itself
/// (±[`MATE_UTILITY`], sooner mates higher).
pub fn position_utility(pos: &Position) -> i32 {
    let us = pos.turn();
    let check = if pos.is_check() { CHECK_UTILITY } else { 0 };
    material(pos, us) - material(pos, !us) - check
}

/// Dummy: the first legal move generated, every time.
pub struct Dummy;

impl Bot for Dummy {
    fn choose(&mut self, game: &Game, _: &Limits) -> Option<Move> {
        game.legal_moves().first().copied()
    }
}

/// Greedy: a move that wins at once (checkmate, or out of valid moves in minichess7) if there is
/// one, else a move that gives check, else any legal move — uniformly random within the first
/// class that is not empty.
pub struct Greedy {
    rng: SmallRng,
}

impl Greedy {
    pub fn new(seed: Option<u64>) -> Greedy {
        Greedy { rng: super::rng(seed) }
    }
}

impl Bot for Greedy {
    fn choose(&mut self, game: &Game, _: &Limits) -> Option<Move> {
        let pos = game.position();
        let moves = game.legal_moves();
        let mut mates = Vec::new();
        let mut checks = Vec::new();
        for &m in &moves {
            let after = pos.after(m);
            if wins_at_once(&after) {
                mates.push(m);
            } else if after.is_check() {
                checks.push(m);
            }
        }
        let class: &[Move] = if !mates.is_empty() {
            &mates
        } else if !checks.is_empty() {
            &checks
        } else {
            &moves
        };
        class.choose(&mut self.rng).copied()
    }
}

/// Smart: a legal move of highest [`utility`], uniformly random among ties.
pub struct Smart {
    rng: SmallRng,
}

impl Smart {
    pub fn new(seed: Option<u64>) -> Smart {
        Smart { rng: super::rng(seed) }
    }

    /// The legal moves of highest utility.
    pub fn best(game: &Game) -> Vec<Move> {
        let pos = game.position();
        let scored: Vec<(i32, Move)> = game.legal_moves().iter().map(|&m| (utility(pos, m), m)).collect();
        let Some(top) = scored.iter().map(|s| s.0).max() else {
            return Vec::new();
        };
        scored.into_iter().filter(|s| s.0 == top).map(|s| s.1).collect()
    }
}

impl Bot for Smart {
    fn choose(&mut self, game: &Game, _: &Limits) -> Option<Move> {
        Smart::best(game).choose(&mut self.rng).copied()
    }
}

/// Plies minimax4 looks ahead.
pub const MINIMAX_DEPTH: u32 = 4;
const INFINITY: i32 = 1_000_000;

/// Minimax4: alpha-beta negamax to 4 plies. Leaves are scored by [`position_utility`]; a side
/// with no legal move has lost (−[`MATE_UTILITY`] + plies from the root, so nearer mates count
/// more) when it is checkmated or, in minichess7, out of valid moves, and drawn (0) otherwise;
/// the fifty-move rule and (standard) insufficient material also score 0. It does not look at
/// repetitions. Every root move that reaches the best score gets its exact score, and one of
/// them is picked uniformly at random.
pub struct Minimax4 {
    rng: SmallRng,
    /// Nodes visited by the last search (for tests and curiosity).
    pub nodes: u64,
}

impl Minimax4 {
    pub fn new(seed: Option<u64>) -> Minimax4 {
        Minimax4 { rng: super::rng(seed), nodes: 0 }
    }

    /// The root moves of best score and that score, searching `depth` plies.
    pub fn best(&mut self, pos: &Position, depth: u32) -> (Vec<Move>, i32) {
        self.nodes = 0;
        let mut best = -INFINITY;
        let mut ties = Vec::new();
        for m in ordered(pos) {
            // A window just below the best so far: a move that ties it comes back exact.
            let score = -self.negamax(&pos.after(m), depth.saturating_sub(1), -INFINITY, -(best - 1), 1);
            if score > best {
                best = score;
                ties.clear();
                ties.push(m);
            } else if score == best {
                ties.push(m);
            }
        }
        (ties, best)
    }

    fn negamax(&mut self, pos: &Position, depth: u32, mut alpha: i32, beta: i32, ply: i32) -> i32 {
        self.nodes += 1;
        if !pos.has_legal_move() {
            return if pos.is_check() || lost_without_check(pos) { -(MATE_UTILITY - ply) } else { 0 };
        }
        if pos.halfmoves() >= 100 || (pos.variant().fide_rules() && insufficient_material(pos)) {
            return 0;
        }
        if depth == 0 {
            return position_utility(pos);
        }
        let mut best = -INFINITY;
        for m in ordered(pos) {
            let score = -self.negamax(&pos.after(m), depth - 1, -beta, -alpha, ply + 1);
            best = best.max(score);
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        best
    }
}

/// The legal moves, captures first (most valuable victim first), to make alpha-beta cut early.
/// The sort is stable, so the search — and the set of tied root moves — is deterministic.
fn ordered(pos: &Position) -> Vec<Move> {
    let mut moves = pos.legal_moves().to_vec();
    moves.sort_by_key(|&m| std::cmp::Reverse(pos.capture(m).map_or(-1, value)));
    moves
}

impl Bot for Minimax4 {
    fn choose(&mut self, game: &Game, _: &Limits) -> Option<Move> {
        if game.is_over() {
            return None;
        }
        let (ties, _) = self.best(game.position(), MINIMAX_DEPTH);
        ties.choose(&mut self.rng).copied()
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};

    use super::*;
    use crate::chess::{Role, Rules};

    fn game(variant: Variant, fen: &str) -> Game {
        Game::from_fen(variant, fen, Rules::default()).unwrap()
    }

    /// The role on a square of a test position, for readable assertions.
    fn role_at(pos: &Position, sq: &str) -> Option<Role> {
        pos.role_at(sq.parse().ok()?)
    }

    fn uci(m: Option<Move>) -> String {
        m.map_or_else(|| "none".into(), |m| m.to_string())
    }

    fn choices(name: &str, g: &Game, seeds: u64) -> Vec<String> {
        (0..seeds).map(|s| uci(agent(name, Some(s)).unwrap().choose(g, &Limits::default()))).collect()
    }

    #[test]
    fn names_make_agents() {
        for name in AGENTS {
            assert!(agent(name, Some(1)).is_some(), "{name}");
        }
        assert!(agent("minimax", None).is_none());
        assert!(agent("level1", None).is_none());
    }

    #[test]
    fn dummy_returns_the_first_legal_move() {
        for variant in Variant::ALL {
            let mut g = Game::new(variant);
            for _ in 0..6 {
                let first = g.legal_moves()[0];
                assert_eq!(Dummy.choose(&g, &Limits::default()), Some(first));
                g.play(first).unwrap();
            }
        }
    }

    #[test]
    fn greedy_mates_in_one_else_checks() {
        // Ra8# is the only mate; many other moves exist.
        let g = game(Variant::Standard, "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
        assert!(choices("greedy", &g, 20).iter().all(|m| m == "a1a8"));
        // No mate; the checks are Qe2+, Qe1+... let the position say which.
        let g = game(Variant::Standard, "4k3/8/8/8/8/8/3Q4/K7 w - - 0 1");
        let pos = g.position();
        let checks: Vec<String> =
            pos.legal_moves().iter().filter(|&&m| pos.after(m).is_check()).map(|m| m.to_string()).collect();
        assert!(checks.len() >= 2);
        let picked = choices("greedy", &g, 40);
        assert!(picked.iter().all(|m| checks.contains(m)), "{picked:?} not all in {checks:?}");
        // Random among the checks: more than one of them gets played.
        let mut distinct = picked.clone();
        distinct.sort();
        distinct.dedup();
        assert!(distinct.len() > 1);
        // Nothing to mate or check with: any legal move.
        let g = game(Variant::Standard, "k7/8/8/8/8/8/P7/K7 w - - 0 1");
        for m in choices("greedy", &g, 10) {
            assert!(["a2a3", "a2a4", "a1b1", "a1b2"].contains(&m.as_str()), "{m}");
        }
    }

    #[test]
    fn greedy_counts_out_of_valid_moves_as_mate_in_minichess7() {
        // Qc6 or Qb5 leaves the black king on a7 unchecked but with every step into check:
        // Black is out of valid moves and loses.
        let g = game(Variant::Minichess7, "k6/3Q3/7/7/7/7/6K w - - 0 1");
        let pos = *g.position();
        let wins: Vec<String> =
            pos.legal_moves().iter().filter(|&&m| wins_at_once(&pos.after(m))).map(|m| m.to_string()).collect();
        assert!(wins.contains(&"d6c6".to_string()) && !pos.after(pos.parse_uci("d6c6").unwrap()).is_check());
        assert!(choices("greedy", &g, 20).iter().all(|m| wins.contains(m)));
        let mut after = g.clone();
        after.play_uci("d6c6").unwrap();
        assert_eq!(after.outcome().map(|o| o.reason), Some(crate::chess::EndReason::OutOfMoves));
    }

    #[test]
    fn utility_orders_the_tiers() {
        let g = game(Variant::Standard, "4k3/8/8/1p6/Q6q/8/6N1/K7 w - - 0 1");
        let pos = g.position();
        let u = |m: &str| utility(pos, pos.parse_uci(m).unwrap());
        assert_eq!(u("a4b5"), CHECK_CAPTURE_UTILITY + 10); // Qxb5+: checks and takes a pawn
        assert_eq!(u("g2h4"), CAPTURE_UTILITY + 90); // Nxh4: takes the queen
        assert_eq!(u("a4e4"), CHECK_UTILITY); // Qe4+
        assert_eq!(u("a1b1"), 0);
        assert!(u("a4b5") > u("g2h4") && u("g2h4") > u("a4e4") && u("a4e4") > u("a1b1"));
        let g = game(Variant::Standard, "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
        let pos = g.position();
        assert_eq!(utility(pos, pos.parse_uci("a1a8").unwrap()), MATE_UTILITY);
    }

    #[test]
    fn smart_prefers_mate_then_checking_capture_then_the_biggest_capture() {
        // Ra8# beats Nxh3 (a rook).
        let g = game(Variant::Standard, "6k1/5ppp/8/8/8/7r/5N2/R5K1 w - - 0 1");
        assert!(choices("smart", &g, 20).iter().all(|m| m == "a1a8"));
        // Qxb5+ (check, takes a pawn) beats Nxh4 and Qxh4 (a queen, no check).
        let g = game(Variant::Standard, "4k3/8/8/1p6/Q6q/8/6N1/K7 w - - 0 1");
        assert!(choices("smart", &g, 20).iter().all(|m| m == "a4b5"));
        // No checks: Nxf6 (queen) beats Nxd6 (rook).
        let g = game(Variant::Standard, "k7/8/3r1q2/8/4N3/8/8/7K w - - 0 1");
        assert_eq!(role_at(g.position(), "f6"), Some(Role::Queen));
        assert!(choices("smart", &g, 20).iter().all(|m| m == "e4f6"));
        // Minichess7: the empress (8) is worth more than the princess (7).
        let g = game(Variant::Minichess7, "k6/7/2c1a2/7/3N3/7/6K w - - 0 1");
        assert!(choices("smart", &g, 20).iter().all(|m| m == "d3c5"), "{:?}", choices("smart", &g, 3));
    }

    #[test]
    fn minimax4_finds_a_mate_in_two() {
        // Rook ladder: 1. Rb7 (or similar) and 2. Ra8#; no mate in one.
        let g = game(Variant::Standard, "7k/8/8/8/8/8/R7/1R4K1 w - - 0 1");
        let pos = *g.position();
        assert!(!pos.legal_moves().iter().any(|&m| wins_at_once(&pos.after(m))));
        for seed in 0..5 {
            let m = Minimax4::new(Some(seed)).choose(&g, &Limits::default()).unwrap();
            let after = pos.after(m);
            assert!(after.has_legal_move());
            for reply in after.legal_moves() {
                let next = after.after(reply);
                assert!(
                    next.legal_moves().iter().any(|&mate| wins_at_once(&next.after(mate))),
                    "{m} {reply}: no mate follows"
                );
            }
        }
    }

    #[test]
    fn minimax4_wins_a_hanging_queen() {
        let g = game(Variant::Standard, "4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1");
        for seed in 0..5 {
            assert_eq!(uci(Minimax4::new(Some(seed)).choose(&g, &Limits::default())), "d2d5");
        }
        // The same in minichess7, a hanging empress.
        let g = game(Variant::Minichess7, "3k3/7/3c3/7/7/3R3/K6 w - - 0 1");
        assert_eq!(uci(Minimax4::new(Some(1)).choose(&g, &Limits::default())), "d2d5");
    }

    /// Positions reached by random play from the start, a few per game.
    fn random_positions(variant: Variant, count: usize, seed: u64) -> Vec<Game> {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut out = Vec::new();
        while out.len() < count {
            let mut g = Game::new(variant);
            let stop = rng.random_range(0..120);
            while !g.is_over() && g.ply() < stop {
                let moves = g.legal_moves();
                let m = moves[rng.random_range(0..moves.len())];
                g.play(m).unwrap();
            }
            out.push(g);
        }
        out
    }

    #[test]
    fn agents_play_legal_moves_in_both_variants() {
        for variant in Variant::ALL {
            for (i, name) in AGENTS.iter().enumerate() {
                let count = if *name == "minimax4" { 40 } else { 300 };
                let mut bot = agent(name, Some(i as u64)).unwrap();
                for g in random_positions(variant, count, 11 + i as u64) {
                    let chosen = bot.choose(&g, &Limits::default());
                    if g.is_over() {
                        assert_eq!(chosen, None, "{name} in a finished game {}", g.position().fen());
                    } else {
                        let m = chosen.unwrap_or_else(|| panic!("{name}: no move in {}", g.position().fen()));
                        assert!(g.position().is_legal(m), "{name}: {m} in {}", g.position().fen());
                    }
                }
            }
        }
    }

    #[test]
    fn no_legal_move_gives_none() {
        let mut mated = Game::new(Variant::Standard);
        for san in ["f3", "e5", "g4", "Qh4#"] {
            mated.play_san(san).unwrap();
        }
        let stalemate = game(Variant::Standard, "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
        // Minichess7: a king boxed in by its own blocked pawns has no move at all (a draw).
        let boxed = game(Variant::Minichess7, "7/7/7/7/7/pp5/kp4K b - - 0 1");
        for g in [&mated, &stalemate, &boxed] {
            assert!(g.is_over(), "{}", g.position().fen());
            for name in AGENTS {
                assert_eq!(agent(name, Some(0)).unwrap().choose(g, &Limits::default()), None, "{name}");
            }
        }
    }
}
