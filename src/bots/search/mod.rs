//! Level 5: negamax alpha-beta with iterative deepening under a time, node or depth budget.
//!
//! Principal variation search with a transposition table, null-move pruning, late move
//! reductions, a check extension and a quiescence search over captures. Moves are ordered by
//! hash move, MVV-LVA, killers and history. Mate scores carry their distance. At the root,
//! every move that ties the best score gets an exact score, and one of them is picked at random
//! (seeded, so a seed makes the choice reproducible).

mod ordering;
mod tt;

use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;

use self::ordering::{Heuristics, MAX_PLY};
pub use self::tt::TablePool;
use self::tt::{Bound, Entry, Table};
use super::eval::{evaluate, piece_value};
use super::{Bot, Limits};
use crate::chess::game::insufficient_material;
use crate::chess::{Color, Game, Move, Position, Role, Variant};

/// The score of being mated now; mate in n plies scores `MATE - n`.
pub const MATE: i32 = 30_000;
const INFINITY: i32 = 32_000;
/// Scores beyond this are mates.
const MATE_BOUND: i32 = MATE - 1_000;
/// Without any limit, search this deep.
const DEFAULT_DEPTH: u32 = 6;
/// How much the engine dislikes a draw, in centipawns. Level 5 mostly meets weaker players,
/// so a slightly worse position is still worth playing on rather than repeating.
const CONTEMPT: i32 = 50;

/// A score as UCI reports it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Score {
    /// Centipawns for the side to move.
    Cp(i32),
    /// Mate in this many moves (negative: the side to move is mated).
    Mate(i32),
}

impl Score {
    fn from_internal(score: i32) -> Score {
        if score > MATE_BOUND {
            Score::Mate((MATE - score + 1) / 2)
        } else if score < -MATE_BOUND {
            Score::Mate(-(MATE + score + 1) / 2)
        } else {
            Score::Cp(score)
        }
    }
}

/// Progress after each completed iteration, for UCI `info` lines.
#[derive(Clone, Debug)]
pub struct SearchInfo {
    pub depth: u32,
    pub seldepth: u32,
    pub score: Score,
    pub nodes: u64,
    pub time: Duration,
    pub pv: Vec<Move>,
}

/// What a search found.
#[derive(Clone, Debug)]
pub struct SearchResult {
    pub best: Option<Move>,
    pub score: Score,
    pub depth: u32,
    pub nodes: u64,
    pub pv: Vec<Move>,
}

/// The level 5 engine. It keeps its move-ordering history between moves of a game, and its
/// transposition table too unless it borrows one from a [`TablePool`] for each search.
pub struct Level5 {
    tables: Tables,
    heuristics: Heuristics,
    rng: SmallRng,
}

/// Where an engine's transposition table comes from.
enum Tables {
    /// Its own, kept between searches.
    Own(Table),
    /// Borrowed for each search from a pool shared with other engines.
    Pooled(TablePool),
}

impl Level5 {
    pub fn new(seed: Option<u64>) -> Level5 {
        // 2^19 entries (about 12 MiB): plenty for searches of a second or two.
        Level5::with_table_bits(seed, 19)
    }

    /// An engine whose transposition table holds 2^bits entries (clamped to 10..=26), for
    /// hosts that run many engines at once. The table's memory is taken on the first search.
    pub fn with_table_bits(seed: Option<u64>, bits: u32) -> Level5 {
        let table = Table::new(bits.clamp(10, 26));
        Level5 { tables: Tables::Own(table), heuristics: Heuristics::new(), rng: super::rng(seed) }
    }

    /// An engine that borrows a table from `pool` for each search and holds none in between,
    /// for hosts that keep many engines that seldom think at once.
    pub fn with_pool(seed: Option<u64>, pool: TablePool) -> Level5 {
        Level5 { tables: Tables::Pooled(pool), heuristics: Heuristics::new(), rng: super::rng(seed) }
    }

    /// Searches the game's position within `limits`, reporting each finished iteration.
    pub fn search(&mut self, game: &Game, limits: &Limits, on_info: &mut dyn FnMut(&SearchInfo)) -> SearchResult {
        let start = Instant::now();
        let pos = *game.position();
        let none = SearchResult { best: None, score: Score::Cp(0), depth: 0, nodes: 0, pv: Vec::new() };
        if game.is_over() {
            return none;
        }
        let root_moves = pos.legal_moves();
        match root_moves.as_slice() {
            [] => return none,
            [only] if limits.depth.is_none() && limits.nodes.is_none() => {
                return SearchResult {
                    best: Some(*only),
                    score: Score::Cp(evaluate(&pos)),
                    depth: 0,
                    nodes: 0,
                    pv: vec![*only],
                };
            }
            _ => {}
        }
        let (deadline, soft_deadline) = match limits.movetime {
            Some(t) => {
                // Leave room to answer: a little for the last node check, a little for the caller.
                let hard = t.saturating_sub((t / 20).min(Duration::from_millis(20)) + Duration::from_millis(2));
                (Some(start + hard), Some(start + hard / 2))
            }
            None => (None, None),
        };
        let max_depth = limits.depth.unwrap_or(if limits.movetime.is_some() || limits.nodes.is_some() {
            MAX_PLY as u32 - 8
        } else {
            DEFAULT_DEPTH
        });
        self.heuristics.killers = [[None; 2]; MAX_PLY];
        let mut lent = None;
        let table = match &mut self.tables {
            Tables::Own(table) => table,
            Tables::Pooled(pool) => lent.insert(pool.take()),
        };
        table.allocate();
        let mut searcher = Searcher {
            table,
            heuristics: &mut self.heuristics,
            limits,
            deadline,
            nodes: 0,
            seldepth: 0,
            aborted: false,
            path: game.positions().iter().map(|p| p.hash()).collect(),
            root_side: pos.turn(),
        };

        let mut result = none;
        let mut order: Vec<Move> = root_moves.to_vec();
        for depth in 1..=max_depth.max(1) {
            searcher.seldepth = 0;
            let Some((score, ties)) = searcher.root(&pos, depth as i32, &mut order) else {
                // Out of time mid-iteration: keep the last complete one (or, at depth 1, any move).
                if result.best.is_none() {
                    result.best = order.first().copied();
                }
                break;
            };
            let best = *ties.choose(&mut self.rng).unwrap_or(&order[0]);
            // Search the chosen move first next time.
            if let Some(i) = order.iter().position(|&m| m == best) {
                order[..=i].rotate_right(1);
            }
            let pv = searcher.principal_variation(&pos, best, depth as usize);
            result =
                SearchResult { best: Some(best), score: Score::from_internal(score), depth, nodes: searcher.nodes, pv };
            on_info(&SearchInfo {
                depth,
                seldepth: searcher.seldepth.max(depth),
                score: result.score,
                nodes: searcher.nodes,
                time: start.elapsed(),
                pv: result.pv.clone(),
            });
            let mate_found = score.abs() > MATE_BOUND && (MATE - score.abs()) <= depth as i32;
            let past_soft = soft_deadline.is_some_and(|d| Instant::now() >= d);
            if mate_found || past_soft || limits.stopped() {
                break;
            }
        }
        result.nodes = searcher.nodes;
        if let (Some(table), Tables::Pooled(pool)) = (lent, &self.tables) {
            pool.give(table);
        }
        result
    }
}

impl Bot for Level5 {
    fn choose(&mut self, game: &Game, limits: &Limits) -> Option<Move> {
        self.search(game, limits, &mut |_| {}).best
    }

    fn new_game(&mut self) {
        if let Tables::Own(table) = &mut self.tables {
            table.clear();
        }
        self.heuristics.clear();
    }
}

/// The state of one search.
struct Searcher<'a> {
    table: &'a mut Table,
    heuristics: &'a mut Heuristics,
    limits: &'a Limits,
    deadline: Option<Instant>,
    nodes: u64,
    seldepth: u32,
    aborted: bool,
    /// Hashes of the positions of the game and of the current search line, for repetitions.
    path: Vec<u64>,
    /// The side the engine plays, for the contempt of draws.
    root_side: Color,
}

impl Searcher<'_> {
    /// A draw, for the side to move at `pos`: a little worse than even for the engine.
    fn draw_score(&self, pos: &Position) -> i32 {
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

    /// Searches every root move; returns the best score and the moves that reach it exactly,
    /// or None if the budget ran out first.
    fn root(&mut self, pos: &Position, depth: i32, order: &mut [Move]) -> Option<(i32, Vec<Move>)> {
        let mut best = -INFINITY;
        let mut ties = Vec::new();
        for (i, &m) in order.iter().enumerate() {
            let child = pos.after(m);
            self.path.push(child.hash());
            let score = if i == 0 {
                -self.negamax(&child, depth - 1, -INFINITY, INFINITY, 1)
            } else {
                // Is it at least as good as the best? Only then find its exact score.
                let probe = -self.negamax(&child, depth - 1, -best, -(best - 1), 1);
                if probe >= best && !self.aborted {
                    -self.negamax(&child, depth - 1, -INFINITY, -(best - 1), 1)
                } else {
                    probe
                }
            };
            self.path.pop();
            if self.aborted {
                return None;
            }
            if score > best {
                best = score;
                ties.clear();
                ties.push(m);
            } else if score == best {
                ties.push(m);
            }
        }
        // Keep the best-scoring moves in front for the next iteration.
        order.sort_by_key(|m| !ties.contains(m));
        self.table.store(Entry {
            key: pos.hash(),
            best: ties.first().copied(),
            score: best,
            depth,
            bound: Bound::Exact,
        });
        Some((best, ties))
    }

    /// True if the position on top of the path occurred before since the last irreversible move.
    fn is_repetition(&self, pos: &Position) -> bool {
        let n = self.path.len();
        let window = (pos.halfmoves() as usize).min(n.saturating_sub(1));
        let hash = pos.hash();
        (2..=window).step_by(2).any(|back| self.path[n - 1 - back] == hash)
    }

    fn negamax(&mut self, pos: &Position, mut depth: i32, mut alpha: i32, mut beta: i32, ply: usize) -> i32 {
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
    fn principal_variation(&self, pos: &Position, first: Move, depth: usize) -> Vec<Move> {
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

#[cfg(test)]
mod tests;
