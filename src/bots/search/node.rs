//! The search below the root: negamax alpha-beta with a transposition table, null-move
//! pruning, late move reductions, a check extension and a quiescence search over captures.

use std::time::Instant;

use super::ordering::{self, Heuristics, MAX_PLY};
use super::tt::{Bound, Entry, Table};
use super::{CONTEMPT, INFINITY, MATE, MATE_BOUND};
use crate::bots::eval::{evaluate, piece_value};
use crate::bots::Limits;
use crate::chess::game::insufficient_material;
use crate::chess::{Color, Move, Position, Role, Variant};

/// The state of one search.
pub(super) struct Searcher<'a> {
    pub(super) table: &'a mut Table,
    pub(super) heuristics: &'a mut Heuristics,
    pub(super) limits: &'a Limits,
    pub(super) deadline: Option<Instant>,
    pub(super) nodes: u64,
    pub(super) seldepth: u32,
    pub(super) aborted: bool,
    /// Hashes of the positions of the game and of the current search line, for repetitions.
    pub(super) path: Vec<u64>,
    /// The side the engine plays, for the contempt of draws.
    pub(super) root_side: Color,
}

impl Searcher<'_> {
    /// A draw, for the side to move at `pos`: a little worse than even for the engine.
    pub(super) fn draw_score(&self, pos: &Position) -> i32 {
        if pos.turn() == self.root_side {
            -CONTEMPT
        } else {
            CONTEMPT
        }
    }

    /// Counts a node and, every so often, checks the budget.
    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes & 1023 == 0 {
            let late = self.deadline.is_some_and(|d| Instant::now() >= d);
            let spent = self.limits.nodes.is_some_and(|n| self.nodes >= n);
            if late || spent || self.limits.stopped() {
                self.aborted = true;
            }
        }
        self.aborted
    }

    /// True if the position on top of the path occurred before since the last irreversible move.
    fn is_repetition(&self, pos: &Position) -> bool {
        let n = self.path.len();
        let window = (pos.halfmoves() as usize).min(n.saturating_sub(1));
        let hash = pos.hash();
        (2..=window).step_by(2).any(|back| self.path[n - 1 - back] == hash)
    }

    pub(super) fn negamax(&mut self, pos: &Position, mut depth: i32, mut alpha: i32, mut beta: i32, ply: usize) -> i32 {
        if self.tick() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply as u32);
        if pos.halfmoves() >= 100
            || self.is_repetition(pos)
            || (pos.variant() == Variant::Standard && insufficient_material(pos))
        {
            return self.draw_score(pos);
        }
        // No line from here can beat a mate already found nearer the root.
        alpha = alpha.max(-MATE + ply as i32);
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }
        let in_check = pos.is_check();
        if in_check {
            depth += 1;
        }
        if depth <= 0 {
            return self.quiesce(pos, alpha, beta, ply);
        }
        if ply >= MAX_PLY - 2 {
            return evaluate(pos);
        }

        let entry = self.table.probe(pos.hash());
        if let Some(e) = entry {
            if e.depth >= depth {
                let score = from_table(e.score, ply);
                let usable = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => score >= beta,
                    Bound::Upper => score <= alpha,
                };
                if usable {
                    return score;
                }
            }
        }
        let hash_move = entry.and_then(|e| e.best);

        // Null move: if passing still holds beta, a real move will too. Not in check, not near
        // mate scores, and only with pieces besides pawns (where zugzwang is rare).
        let pieces = pos.by_color(pos.turn()) & !pos.by_role(Role::Pawn) & !pos.by_role(Role::King);
        if !in_check && depth >= 3 && beta.abs() < MATE_BOUND && pieces.more_than_one() && evaluate(pos) >= beta {
            let reduction = 2 + depth / 6;
            let null = pos.null_move();
            self.path.push(null.hash());
            let score = -self.negamax(&null, depth - 1 - reduction, -beta, -beta + 1, ply + 1);
            self.path.pop();
            if self.aborted {
                return 0;
            }
            if score >= beta {
                return beta;
            }
        }

        let legal = pos.legal_moves();
        if legal.is_empty() {
            return terminal_score(pos, in_check, ply).unwrap_or_else(|| self.draw_score(pos));
        }
        let mut moves: Vec<(i32, Move)> =
            legal.iter().map(|&m| (ordering::score(pos, m, hash_move, self.heuristics, ply), m)).collect();
        let original_alpha = alpha;
        let mut best_score = -INFINITY;
        let mut best_move = None;
        for i in 0..moves.len() {
            let m = ordering::pick(&mut moves, i);
            let child = pos.after(m);
            let quiet = pos.capture(m).is_none() && m.promotion.is_none();
            let gives_check = child.is_check();
            self.path.push(child.hash());
            let mut score;
            if i == 0 {
                score = -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1);
            } else {
                // Late quiet moves are searched shallower first.
                let reduction = if depth >= 3 && i >= 3 && quiet && !in_check && !gives_check {
                    1 + i32::from(i >= 8) + i32::from(depth >= 8)
                } else {
                    0
                };
                score = -self.negamax(&child, depth - 1 - reduction, -alpha - 1, -alpha, ply + 1);
                if score > alpha && (reduction > 0 || score < beta) {
                    score = -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1);
                }
            }
            self.path.pop();
            if self.aborted {
                return 0;
            }
            if score > best_score {
                best_score = score;
                best_move = Some(m);
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                self.heuristics.record_cutoff(pos, m, ply, depth);
                break;
            }
        }
        let bound = if best_score >= beta {
            Bound::Lower
        } else if best_score > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.table.store(Entry { key: pos.hash(), best: best_move, score: to_table(best_score, ply), depth, bound });
        best_score
    }

    /// Searches captures (and, in check, every evasion) until the position is quiet.
    fn quiesce(&mut self, pos: &Position, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        if self.tick() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply as u32);
        if ply >= MAX_PLY - 2 {
            return evaluate(pos);
        }
        let in_check = pos.is_check();
        let legal = pos.legal_moves();
        if legal.is_empty() {
            return terminal_score(pos, in_check, ply).unwrap_or_else(|| self.draw_score(pos));
        }
        let stand_pat = if in_check { -INFINITY } else { evaluate(pos) };
        if stand_pat >= beta {
            return stand_pat;
        }
        alpha = alpha.max(stand_pat);
        let mut moves: Vec<(i32, Move)> = legal
            .iter()
            .filter(|&&m| in_check || pos.capture(m).is_some() || m.promotion == Some(Role::Queen))
            .filter(|&&m| {
                // Delta pruning: even winning this piece for free cannot lift us to alpha.
                in_check || m.promotion.is_some() || stand_pat + pos.capture(m).map_or(0, piece_value) + 200 >= alpha
            })
            .map(|&m| (ordering::score(pos, m, None, self.heuristics, ply), m))
            .collect();
        let mut best = stand_pat;
        for i in 0..moves.len() {
            let m = ordering::pick(&mut moves, i);
            let child = pos.after(m);
            let score = -self.quiesce(&child, -beta, -alpha, ply + 1);
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                break;
            }
        }
        best
    }

    /// The expected line after `first`, read from the transposition table, at most `depth` moves
    /// (deeper entries may be left over from earlier searches).
    pub(super) fn principal_variation(&self, pos: &Position, first: Move, depth: usize) -> Vec<Move> {
        let mut pv = vec![first];
        let mut pos = pos.after(first);
        let mut seen = vec![pos.hash()];
        while pv.len() < depth {
            let Some(m) = self.table.probe(pos.hash()).and_then(|e| e.best) else { break };
            if !pos.is_legal(m) {
                break;
            }
            pv.push(m);
            pos = pos.after(m);
            if seen.contains(&pos.hash()) {
                break;
            }
            seen.push(pos.hash());
        }
        pv
    }
}

/// The score of a position without legal moves, for the side to move: a loss, or None for a draw.
fn terminal_score(pos: &Position, in_check: bool, ply: usize) -> Option<i32> {
    let lost = Some(-MATE + ply as i32);
    if in_check {
        return lost;
    }
    match pos.variant() {
        Variant::Standard => None,
        // Minichess7: moves that all leave the king in check lose; no moves at all draws.
        Variant::Minichess7 if pos.has_pseudo_legal_move() => lost,
        Variant::Minichess7 => None,
    }
}

/// Mate scores are stored relative to the node, so they stay right wherever it is reached.
fn to_table(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score + ply as i32
    } else if score < -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn from_table(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score - ply as i32
    } else if score < -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}
