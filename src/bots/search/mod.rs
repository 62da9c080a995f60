//! The engine of levels 5–12: negamax alpha-beta with iterative deepening under a time, node or depth budget.
//!
//! Principal variation search with aspiration windows, a transposition table, reverse
//! futility, null-move, ProbCut, late move, futility and SEE pruning, late move reductions,
//! check and singular extensions, a correction history of the static evaluation by pawn
//! formation and a quiescence search over captures (docs/bots.md lists the details). Moves are
//! ordered by hash move, captures by SEE and MVV-LVA, killers, counter move and history (the
//! move's own and its continuation history). The held-back levels search without the pruning
//! (`Searcher::selective` in node.rs). Mate scores carry their distance. At the root, every
//! move that ties the best score gets an exact score, and one of them is picked at random
//! (seeded, so a seed makes the choice reproducible). With several principal variations asked
//! for (UCI `MultiPV`), the best few moves get exact scores too; a [`Skill`] picks among them
//! to play below full strength.

mod correction;
mod node;
mod ordering;
mod probes;
mod root;
mod see;
mod skill;
mod tt;

use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;

use self::node::Searcher;
use self::ordering::{Heuristics, MAX_PLY};
pub use self::skill::Skill;
use self::tt::Table;
pub use self::tt::{bits_for_megabytes, TablePool};
use super::eval::{evaluate, network};
use super::{Bot, Limits};
use crate::chess::{Game, Move};

/// The score of being mated now; mate in n plies scores `MATE - n`.
pub const MATE: i32 = 30_000;
const INFINITY: i32 = 32_000;
/// Scores beyond this are mates.
const MATE_BOUND: i32 = MATE - 1_000;
/// Without any limit, search this deep.
const DEFAULT_DEPTH: u32 = 6;
/// How much the engine dislikes a draw, in centipawns, unless told otherwise
/// ([`AlphaBeta::set_contempt`]). The engine mostly meets weaker players, so a slightly worse
/// position is still worth playing on rather than repeating.
pub const CONTEMPT: i32 = 50;

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

/// One principal variation: its score and the expected line, its move first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub score: Score,
    pub pv: Vec<Move>,
}

/// Progress after each completed iteration, for UCI `info` lines; and once more where an
/// iteration cut off by the budget had already found a better move, which is then played.
#[derive(Clone, Debug)]
pub struct SearchInfo {
    pub depth: u32,
    pub seldepth: u32,
    pub nodes: u64,
    pub time: Duration,
    /// The best lines, best first: as many as asked for ([`AlphaBeta::set_lines`]), or fewer
    /// when there are fewer legal moves.
    pub lines: Vec<Line>,
}

impl SearchInfo {
    /// The progress of `searcher`, started at `start`, at `depth`, with these lines.
    fn of(searcher: &Searcher, depth: u32, start: Instant, lines: Vec<Line>) -> SearchInfo {
        SearchInfo {
            depth,
            seldepth: searcher.seldepth.max(depth),
            nodes: searcher.nodes,
            time: start.elapsed(),
            lines,
        }
    }
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

/// The alpha-beta engine behind levels 5–12 and the analysis. It keeps its move-ordering
/// history between moves of a game, and its transposition table too unless it borrows one
/// from a [`TablePool`] for each search.
pub struct AlphaBeta {
    tables: Tables,
    heuristics: Heuristics,
    rng: SmallRng,
    /// How many principal variations to report (UCI `MultiPV`).
    lines: usize,
    /// Below full strength: how deep to search and how to pick among the best moves.
    skill: Option<Skill>,
    /// Below full strength: the most nodes a search may visit, whatever its limits allow.
    node_cap: Option<u64>,
    /// How much worse than even a draw is for the engine, in centipawns.
    contempt: i32,
}

/// Where an engine's transposition table comes from.
enum Tables {
    /// Its own, kept between searches.
    Own(Table),
    /// Borrowed for each search from a pool shared with other engines.
    Pooled(TablePool),
}

impl AlphaBeta {
    pub fn new(seed: Option<u64>) -> AlphaBeta {
        // 2^19 entries (8 MiB): plenty for searches of a second or two.
        AlphaBeta::with_table_bits(seed, 19)
    }

    /// An engine whose transposition table holds 2^bits entries (clamped to 10..=26), for
    /// hosts that run many engines at once. The table's memory is taken on the first search.
    pub fn with_table_bits(seed: Option<u64>, bits: u32) -> AlphaBeta {
        AlphaBeta::with_tables(seed, Tables::Own(Table::new(bits.clamp(10, 26))))
    }

    /// An engine that borrows a table from `pool` for each search and holds none in between,
    /// for hosts that keep many engines that seldom think at once.
    pub fn with_pool(seed: Option<u64>, pool: TablePool) -> AlphaBeta {
        AlphaBeta::with_tables(seed, Tables::Pooled(pool))
    }

    fn with_tables(seed: Option<u64>, tables: Tables) -> AlphaBeta {
        AlphaBeta {
            tables,
            heuristics: Heuristics::new(),
            rng: super::rng(seed),
            lines: 1,
            skill: None,
            node_cap: None,
            contempt: CONTEMPT,
        }
    }

    /// Plays below full strength (None: full strength).
    pub fn with_skill(mut self, skill: Option<Skill>) -> AlphaBeta {
        self.skill = skill;
        self
    }

    /// Stops every search after at most `nodes` nodes (None: only its limits stop it), a
    /// strength that stays the same on a fast machine, a slow one or a long clock.
    pub fn with_node_cap(mut self, nodes: Option<u64>) -> AlphaBeta {
        self.node_cap = nodes;
        self
    }

    /// Reports this many principal variations (at least one). Finding exact scores for more
    /// moves costs time, so the search reaches less deep in the same time.
    pub fn set_lines(&mut self, lines: usize) {
        self.lines = lines.max(1);
    }

    /// Scores a draw `contempt` centipawns worse than even for the engine (negative: better),
    /// from the next search on (UCI `Contempt`).
    pub fn set_contempt(&mut self, contempt: i32) {
        self.contempt = contempt;
    }

    /// A new transposition table of 2^bits entries (an own table; a pooled engine keeps its pool).
    pub fn resize_table(&mut self, bits: u32) {
        if let Tables::Own(table) = &mut self.tables {
            *table = Table::new(bits.clamp(10, 26));
        }
    }

    /// Forgets every stored position (UCI `Clear Hash`).
    pub fn clear_table(&mut self) {
        if let Tables::Own(table) = &mut self.tables {
            table.clear();
        }
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
                    score: Score::Cp(match self.skill {
                        // Full strength evaluates with the variant's network.
                        None => network::evaluate(&pos),
                        Some(_) => evaluate(&pos),
                    }),
                    depth: 0,
                    nodes: 0,
                    pv: vec![*only],
                };
            }
            _ => {}
        }
        let capped;
        let limits = match self.node_cap {
            Some(cap) if limits.nodes.is_none_or(|n| n > cap) => {
                capped = Limits { nodes: Some(cap), ..limits.clone() };
                &capped
            }
            _ => limits,
        };
        let (deadline, soft_deadline) = match limits.movetime {
            Some(t) => {
                // Leave room to answer: a little for the last node check, a little for the caller.
                let hard = t.saturating_sub((t / 20).min(Duration::from_millis(20)) + Duration::from_millis(2));
                (Some(start + hard), limits.early_stop.then(|| start + hard / 2))
            }
            None => (None, None),
        };
        let mut max_depth = limits.depth.unwrap_or(if limits.movetime.is_some() || limits.nodes.is_some() {
            MAX_PLY as u32 - 8
        } else {
            DEFAULT_DEPTH
        });
        if let Some(skill) = self.skill {
            max_depth = max_depth.min(skill.depth);
        }
        let lines = self.lines.max(self.skill.map_or(1, |s| s.lines));
        self.heuristics.killers = [[None; 2]; MAX_PLY];
        let mut lent = None;
        let table = match &mut self.tables {
            Tables::Own(table) => table,
            Tables::Pooled(pool) => lent.insert(pool.take()),
        };
        table.allocate();
        self.heuristics.allocate();
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
            contempt: self.contempt,
            network: network::Stack::new(MAX_PLY),
            evals: [-INFINITY; MAX_PLY],
            played: [None; MAX_PLY],
            excluded: [None; MAX_PLY],
            root_depth: 0,
            selective: self.skill.is_none(),
        };

        let mut result = none;
        let mut last: Vec<(i32, Move)> = Vec::new();
        let mut order: Vec<Move> = root_moves.to_vec();
        for depth in 1..=max_depth.max(1) {
            searcher.seldepth = 0;
            let guess = last.first().map(|&(s, _)| s);
            let iteration = searcher.root(&pos, depth as i32, &mut order, lines, guess);
            if !iteration.complete {
                // Out of time mid-iteration. At full strength, a move this iteration has
                // already scored exactly is better informed than the last iteration's choice
                // (the first move searched is that choice, and any move after it that earned
                // an exact score beat it); otherwise keep the last complete iteration.
                match iteration.exact.first() {
                    Some(&(score, best)) if lines == 1 && self.skill.is_none() && result.best != Some(best) => {
                        let pv = searcher.principal_variation(&pos, best, depth as usize);
                        result = SearchResult { best: Some(best), score: Score::from_internal(score), pv, ..result };
                        // The last line reported is the move played: a UCI host shows it as
                        // the engine's line, and one that ends on another move misleads.
                        let line = Line { score: result.score, pv: result.pv.clone() };
                        on_info(&SearchInfo::of(&searcher, depth, start, vec![line]));
                    }
                    _ => {}
                }
                if result.best.is_none() {
                    result.best = order.first().copied();
                }
                break;
            }
            let exact = iteration.exact;
            let Some(&(score, _)) = exact.first() else { break };
            let ties: Vec<Move> = exact.iter().take_while(|&&(s, _)| s == score).map(|&(_, m)| m).collect();
            let Some(&best) = ties.choose(&mut self.rng) else { break };
            // Search the chosen move first next time.
            if let Some(i) = order.iter().position(|&m| m == best) {
                order[..=i].rotate_right(1);
            }
            let pv = searcher.principal_variation(&pos, best, depth as usize);
            result =
                SearchResult { best: Some(best), score: Score::from_internal(score), depth, nodes: searcher.nodes, pv };
            let shown = exact.iter().filter(|&&(_, m)| m != best).take(self.lines - 1);
            let lines = std::iter::once(Line { score: result.score, pv: result.pv.clone() })
                .chain(shown.map(|&(s, m)| Line {
                    score: Score::from_internal(s),
                    pv: searcher.principal_variation(&pos, m, depth as usize),
                }))
                .collect();
            on_info(&SearchInfo::of(&searcher, depth, start, lines));
            last = exact;
            let mate_found = score.abs() > MATE_BOUND && (MATE - score.abs()) <= depth as i32;
            let past_soft = soft_deadline.is_some_and(|d| Instant::now() >= d);
            if mate_found || past_soft || limits.stopped() {
                break;
            }
        }
        result.nodes = searcher.nodes;
        if let (Some(table), Tables::Pooled(pool)) = (lent, &self.tables) {
            pool.give(table);
            // A pooled engine holds no large memory between searches (its continuation
            // history starts afresh each move; its table, borrowed, comes back with what it learnt).
            self.heuristics.release();
        }
        if let Some(skill) = self.skill {
            if let Some(pick) = skill.pick(&last, &mut self.rng).filter(|&m| Some(m) != result.best) {
                let score =
                    last.iter().find(|&&(_, m)| m == pick).map_or(result.score, |&(s, _)| Score::from_internal(s));
                result = SearchResult { best: Some(pick), score, pv: vec![pick], ..result };
            }
        }
        result
    }
}

impl Bot for AlphaBeta {
    fn choose(&mut self, game: &Game, limits: &Limits) -> Option<Move> {
        self.search(game, limits, &mut |_| {}).best
    }

    fn new_game(&mut self) {
        self.clear_table();
        self.heuristics.clear();
    }
}

#[cfg(test)]
mod tests;
