//! The search below the root: negamax alpha-beta with a transposition table, reverse
//! futility, null-move, ProbCut, late move, futility and SEE pruning, late move reductions,
//! check and singular extensions (ProbCut's and the singular test's own searches are in
//! probes.rs), an evaluation corrected by what searches found (correction.rs) and a
//! quiescence search over captures.

use std::sync::LazyLock;
use std::time::Instant;

use arrayvec::ArrayVec;

use super::ordering::{self, Context, Heuristics, Played, MAX_PLY};
use super::probes::Extension;
use super::see::see_ge;
use super::tt::{Bound, Entry, Table};
use super::{INFINITY, MATE, MATE_BOUND};
use crate::bots::eval::{evaluate_cached, network, piece_value};
use crate::bots::Limits;
use crate::chess::game::insufficient_material;
use crate::chess::moves::MAX_MOVES;
use crate::chess::{Color, Move, Position, Role, Variant};

/// A node's moves with their ordering scores.
pub(super) type ScoredMoves = ArrayVec<(i32, Move), MAX_MOVES>;

/// Sets the evaluation table's keys of the network's evaluations apart from the written one's.
/// Its low 16 bits are 0, so that both keys of a position share the slot the table prefetches.
const NETWORK_KEY: u64 = 0x9E37_79B9_7F4A_0000;

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
    /// The network's first layer along the current line.
    pub(super) network: network::Stack,
    /// The side the engine plays, for the contempt of draws.
    pub(super) root_side: Color,
    /// How much worse than even a draw is for the engine's side.
    pub(super) contempt: i32,
    /// The static evaluation at each ply of the current line (-INFINITY in check).
    pub(super) evals: [i32; MAX_PLY],
    /// Full strength: prune and reduce as hard as pays. The held-back levels search without
    /// the pruning, so that their depth limit means what it did when they were calibrated.
    pub(super) selective: bool,
    /// The move made at each ply of the current line (None: a null move).
    pub(super) played: [Option<Played>; MAX_PLY],
    /// The move a node at this ply leaves out: set while testing whether the hash move is
    /// singular (the only good one), by searching the node again without it.
    pub(super) excluded: [Option<Move>; MAX_PLY],
    /// The depth of the current iteration, which bounds how far extensions may go.
    pub(super) root_depth: i32,
}

impl Searcher<'_> {
    /// A draw, for the side to move at `pos`: a little worse than even for the engine.
    pub(super) fn draw_score(&self, pos: &Position) -> i32 {
        if pos.turn() == self.root_side {
            -self.contempt
        } else {
            self.contempt
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

    /// The static evaluation of `pos`, from the table's evaluations if it is there.
    pub(super) fn evaluate(&mut self, pos: &Position, ply: usize) -> i32 {
        let learnt = self.learnt();
        // Full strength's network and the written evaluation share the table (a server lends
        // one table to every level in turn), so their keys are kept apart.
        let key = if learnt { pos.hash() ^ NETWORK_KEY } else { pos.hash() };
        if let Some(eval) = self.table.eval(key) {
            return eval;
        }
        let eval = if learnt { self.network.evaluate(ply, pos) } else { evaluate_cached(pos, &mut self.table.pawns) };
        self.table.store_eval(key, eval);
        eval
    }

    /// True where the network evaluates: at full strength.
    fn learnt(&self) -> bool {
        self.selective
    }

    /// A node at `ply` is entered with `pos`: the network's accumulators learn where its pieces stand.
    pub(super) fn enter(&mut self, pos: &Position, ply: usize) {
        if self.learnt() {
            self.network.enter(ply, pos);
        }
    }

    /// A static evaluation moved by the correction history (at full strength; the held-back
    /// levels evaluate as they did when they were calibrated). In check there is none to move.
    fn corrected(&self, pos: &Position, eval: i32) -> i32 {
        if !self.selective || eval == -INFINITY {
            return eval;
        }
        (eval + self.heuristics.correction.get(pos)).clamp(-MATE_BOUND + 1, MATE_BOUND - 1)
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
            || (pos.variant().fide_rules() && insufficient_material(pos))
        {
            return self.draw_score(pos);
        }
        // No line from here can beat a mate already found nearer the root.
        alpha = alpha.max(-MATE + ply as i32);
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }
        // A node on the principal variation has an open window; the others only test a bound.
        let pv_node = beta - alpha > 1;
        let in_check = pos.is_check();
        if in_check {
            depth += 1;
        }
        if depth <= 0 {
            return self.quiesce(pos, alpha, beta, ply);
        }
        // Here, not on entry: a node that goes straight to the quiescence search is entered
        // there, and one that returns before this evaluates nothing and has no children.
        self.enter(pos, ply);
        if ply >= MAX_PLY - 2 {
            return self.evaluate(pos, ply);
        }

        // Evaluated before the table is read: the slot, prefetched by the parent, is on its way
        // from memory meanwhile, where reading it first stalled the search (about a ninth of
        // its time, by `perf record`). Only a few nodes (6%) then cut off by the table and do not
        // need the evaluation.
        let raw_eval = if in_check { -INFINITY } else { self.evaluate(pos, ply) };
        let static_eval = self.corrected(pos, raw_eval);
        let excluded = self.excluded[ply];
        // A search without the hash move must not be cut short or remembered as this node's.
        let entry = if excluded.is_some() { None } else { self.table.probe(pos.hash()) };
        if let Some(e) = entry.filter(|e| e.depth >= depth && !pv_node) {
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
        let hash_move = if excluded.is_some() { excluded } else { entry.and_then(|e| e.best) };
        // Without a stored move this node is probably new and badly ordered: spend less on it.
        if self.selective && hash_move.is_none() && depth >= 4 {
            depth -= 1;
        }

        self.evals[ply] = static_eval;
        // Better than two plies ago: prune this node's moves less.
        let improving = !in_check && ply >= 2 && static_eval > self.evals[ply - 2];
        // For pruning, a stored search result says more than the static evaluation, where its
        // bound points the way the evaluation is off.
        let eval = match entry.map(|e| (e.bound, from_table(e.score, ply))) {
            Some((bound, score)) if !in_check && score.abs() < MATE_BOUND && self.selective => match bound {
                Bound::Exact => score,
                Bound::Lower => score.max(static_eval),
                Bound::Upper => score.min(static_eval),
            },
            _ => static_eval,
        };

        if !pv_node && !in_check && beta.abs() < MATE_BOUND && excluded.is_none() {
            // Reverse futility: so far above beta that a shallow search will not come back down.
            if self.selective && depth <= 6 && eval - 90 * (depth - i32::from(improving)) >= beta {
                return eval;
            }
            // Null move: if passing still holds beta, a real move will too. Not twice in a row,
            // and only with pieces besides pawns (where zugzwang is rare).
            let pieces = pos.by_color(pos.turn()) & !pos.by_role(Role::Pawn) & !pos.by_role(Role::King);
            let after_null = ply > 0 && self.played[ply - 1].is_none();
            if depth >= 3 && eval >= beta && pieces.more_than_one() && !after_null {
                let reduction =
                    if self.selective { 3 + depth / 4 + ((eval - beta) / 200).min(3) } else { 2 + depth / 6 };
                let null = pos.null_move();
                self.table.prefetch(null.hash());
                self.path.push(null.hash());
                self.played[ply] = None;
                let score = -self.negamax(&null, depth - 1 - reduction, -beta, -beta + 1, ply + 1);
                self.path.pop();
                if self.aborted {
                    return 0;
                }
                if score >= beta {
                    return if score > MATE_BOUND { beta } else { score };
                }
            }
            if let Some(score) = self.probcut(pos, entry, depth, beta, static_eval, ply) {
                return score;
            }
            // A budget that ran out inside ProbCut ends this node too, before it generates moves.
            if self.aborted {
                return 0;
            }
        }

        let before = [1, 2].map(|back| ply.checked_sub(back).and_then(|p| self.played[p]));
        let context = Context { counter: before[0].and_then(|p| self.heuristics.counter(p.mv)), before };
        // On the stack, not the heap: a node is too short-lived to pay for an allocation.
        let mut moves: ScoredMoves = ArrayVec::new();
        // MAX_MOVES bounds every position's moves, so the list never fills.
        pos.for_each_legal_move(|m| {
            let _ = moves.try_push((0, m));
        });
        if moves.is_empty() {
            return terminal_score(pos, in_check, ply).unwrap_or_else(|| self.draw_score(pos));
        }
        // The hash move goes first, and the others are scored only if it does not cut off:
        // at most nodes where it is there, it does, and scoring every move would be wasted.
        let mut unscored = 0;
        if let Some(k) = hash_move.and_then(|h| moves.iter().position(|&(_, m)| m == h)) {
            moves.swap(0, k);
            unscored = 1;
        }
        let original_alpha = alpha;
        let mut best_score = -INFINITY;
        let mut best_move = None;
        let mut quiets: ArrayVec<Move, MAX_MOVES> = ArrayVec::new();
        let mut searched = 0usize;
        // Worked out when the first move to prune is asked whether it checks.
        let mut check_info = None;
        for i in 0..moves.len() {
            if i == unscored {
                let scorer = ordering::Scorer::new(self.heuristics, &context, ply);
                for entry in &mut moves[i..] {
                    entry.0 = scorer.score(pos, entry.1);
                }
            }
            let m = if i < unscored { moves[i].1 } else { ordering::next(&mut moves, i) };
            if Some(m) == excluded {
                continue;
            }
            let quiet = pos.capture(m).is_none() && m.promotion.is_none();
            // Near the leaves, once a move has been found and no mate threatens, skip moves
            // that cannot matter: late quiet ones, quiet ones far below alpha, and ones that
            // lose material; but never a check.
            if self.selective && !in_check && best_score > -MATE_BOUND && depth <= 8 {
                let skip = if quiet {
                    quiets.len() >= late_move_limit(depth, improving)
                        || (!pv_node && eval + 100 + 90 * depth <= alpha)
                        || !see_ge(pos, m, -60 * depth)
                } else {
                    // A capture ordered as winning material passed a stricter test already.
                    let known_good = i >= unscored && ordering::wins_material(moves[i].0);
                    !(known_good || see_ge(pos, m, -120 * depth))
                };
                if skip && !pos.gives_check_with(m, check_info.get_or_insert_with(|| pos.check_info())) {
                    continue;
                }
            }
            let extension = match entry.filter(|_| i < unscored) {
                Some(e) => self.singular_extension(pos, m, e, depth, beta, ply),
                None => Extension::None,
            };
            if self.aborted {
                return 0;
            }
            let extension = match extension {
                Extension::Cut(score) => return score,
                Extension::One => 1,
                Extension::None => 0,
            };
            let child = pos.after(m);
            self.table.prefetch(child.hash());
            self.played[ply] = Some(Played::new(pos, m));
            self.path.push(child.hash());
            let mut score;
            if searched == 0 {
                score = -self.negamax(&child, depth - 1 + extension, -beta, -alpha, ply + 1);
            } else {
                // Late quiet moves are searched shallower first, the more so the later. At full
                // strength a quiet check is one of them: a check that matters fails high at the
                // reduced depth and is searched again at full depth; dropping the exemption all
                // checks had measured +55 Elo at equal nodes (docs/bots.md, "Quiet checks
                // reduced"). The held-back levels, calibrated as they are, keep their checks at
                // full depth.
                let reduction = if depth < 3 || !quiet || in_check {
                    0
                } else if self.selective {
                    let mut r = reduction(depth, searched);
                    r += i32::from(!pv_node) + i32::from(!improving);
                    r -= i32::from(self.heuristics.is_killer(m, ply));
                    r -= self.heuristics.quiet_score(pos, m, &context) / 10_000;
                    r.clamp(0, depth - 2)
                } else if i >= 3 && !child.is_check() {
                    1 + i32::from(i >= 8) + i32::from(depth >= 8)
                } else {
                    0
                };
                score = -self.negamax(&child, depth - 1 - reduction, -alpha - 1, -alpha, ply + 1);
                if score > alpha && reduction > 0 {
                    score = -self.negamax(&child, depth - 1, -alpha - 1, -alpha, ply + 1);
                }
                if score > alpha && score < beta {
                    score = -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1);
                }
            }
            self.path.pop();
            if self.aborted {
                return 0;
            }
            searched += 1;
            if score > best_score {
                best_score = score;
                best_move = Some(m);
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                self.heuristics.record_cutoff(pos, m, ply, depth, &quiets, before);
                break;
            }
            if quiet {
                let _ = quiets.try_push(m);
            }
        }
        if searched == 0 {
            // Without the excluded move, nothing here reaches the bound being tested.
            if excluded.is_some() {
                return alpha;
            }
            // Every move was pruned (possible only when not in check): stand on the evaluation.
            return static_eval;
        }
        let bound = if best_score >= beta {
            Bound::Lower
        } else if best_score > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        // Where the search proved the static evaluation wrong (by an exact score, or a bound
        // on the far side of it), the correction history learns by how much. A capture's or
        // promotion's win says little about the pawns' evaluation.
        let proven = match bound {
            Bound::Exact => true,
            Bound::Lower => best_score > static_eval,
            Bound::Upper => best_score < static_eval,
        };
        let quiet_best = best_move.is_some_and(|m| pos.capture(m).is_none() && m.promotion.is_none());
        if self.selective && proven && quiet_best && !in_check && excluded.is_none() && best_score.abs() < MATE_BOUND {
            self.heuristics.correction.learn(pos, depth, best_score, raw_eval);
        }
        if excluded.is_none() {
            self.table.store(Entry {
                key: pos.hash(),
                best: best_move,
                score: to_table(best_score, ply),
                depth,
                bound,
            });
        }
        best_score
    }

    /// Searches captures (and, in check, every evasion) until the position is quiet.
    pub(super) fn quiesce(&mut self, pos: &Position, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        if self.tick() {
            return 0;
        }
        self.enter(pos, ply);
        self.seldepth = self.seldepth.max(ply as u32);
        if ply >= MAX_PLY - 2 {
            return self.evaluate(pos, ply);
        }
        let in_check = pos.is_check();
        let stand_pat = if in_check { -INFINITY } else { self.evaluate(pos, ply) };
        let stand_pat = self.corrected(pos, stand_pat);
        // Standing pat needs no moves: a stalemate this misses is rare in standard chess, and
        // the full-width search above sees it. In minichess7 being left without a legal move
        // loses, which is the variant's usual way to win, so it is always looked for there.
        if stand_pat >= beta && pos.variant().fide_rules() {
            return stand_pat;
        }
        // In check, the evasions generated below tell whether there is a legal move, and in
        // standard chess so do the captures, unless there are none.
        if !in_check && !pos.variant().fide_rules() && !pos.has_legal_move() {
            return terminal_score(pos, in_check, ply).unwrap_or_else(|| self.draw_score(pos));
        }
        if stand_pat >= beta {
            return stand_pat;
        }
        alpha = alpha.max(stand_pat);
        let mut moves: ScoredMoves = ArrayVec::new();
        let mut generated = false;
        let mut consider = |m: Move| {
            generated = true;
            // Delta pruning: even winning this piece for free cannot lift us to alpha; and
            // a capture that loses material is no way to quiet the position.
            if in_check {
                let _ = moves.try_push((ordering::score(pos, m, &Context::default(), self.heuristics, ply), m));
            } else if m.promotion.is_some()
                || (stand_pat + pos.capture(m).map_or(0, piece_value) + 200 >= alpha && see_ge(pos, m, 0))
            {
                // A promotion never loses material by the exchange's count (see_ge), so what is
                // kept here needs no second exchange test to be ordered.
                let _ = moves.try_push((ordering::winning_score(pos, m), m));
            }
        };
        if in_check {
            pos.for_each_legal_move(&mut consider);
            if moves.is_empty() {
                return terminal_score(pos, in_check, ply).unwrap_or_else(|| self.draw_score(pos));
            }
        } else {
            pos.for_each_noisy_move(&mut consider);
            if !generated && pos.variant().fide_rules() && !pos.has_legal_move() {
                return terminal_score(pos, in_check, ply).unwrap_or_else(|| self.draw_score(pos));
            }
        }
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

/// How many quiet moves a node at `depth` searches before it skips the rest.
fn late_move_limit(depth: i32, improving: bool) -> usize {
    let limit = 3 + depth * depth;
    (if improving { limit } else { limit / 2 }) as usize
}

/// The base reduction of the `searched`-th move (counting from 0) at `depth`: it grows with
/// both, slowly (their logarithms), as in most engines since Stockfish.
fn reduction(depth: i32, searched: usize) -> i32 {
    static TABLE: LazyLock<[[u8; 64]; 64]> = LazyLock::new(|| {
        let mut table = [[0u8; 64]; 64];
        for (d, row) in table.iter_mut().enumerate().skip(1) {
            for (n, r) in row.iter_mut().enumerate().skip(1) {
                *r = (0.25 + (d as f64).ln() * (n as f64).ln() / 2.25) as u8;
            }
        }
        table
    });
    i32::from(TABLE[(depth as usize).min(63)][searched.min(63)])
}

/// The score of a position without legal moves, for the side to move: a loss, or None for a draw.
fn terminal_score(pos: &Position, in_check: bool, ply: usize) -> Option<i32> {
    let lost = Some(-MATE + ply as i32);
    if in_check {
        return lost;
    }
    match pos.variant() {
        Variant::Standard | Variant::Chess960 => None,
        // Minichess7: moves that all leave the king in check lose; no moves at all draws.
        Variant::Minichess7 if pos.has_pseudo_legal_move() => lost,
        Variant::Minichess7 => None,
    }
}

/// Mate scores are stored relative to the node, so they stay right wherever it is reached.
pub(super) fn to_table(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score + ply as i32
    } else if score < -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

pub(super) fn from_table(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score - ply as i32
    } else if score < -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}
