//! The root of the search: every root move, with an exact score for the best few (one per
//! principal variation asked for, and every move that ties the best).

use super::node::Searcher;
use super::ordering::Played;
use super::tt::{Bound, Entry};
use super::{INFINITY, MATE_BOUND};
use crate::chess::{Move, Position};

/// The first aspiration window's half-width, in centipawns; it doubles on each failure.
const ASPIRATION: i32 = 25;

/// What one iteration at the root found.
pub(super) struct Iteration {
    /// The moves that earned an exact score, best first.
    pub exact: Vec<(i32, Move)>,
    /// False if the budget ran out before every root move was searched.
    pub complete: bool,
}

impl Searcher<'_> {
    /// Searches every root move to `depth`. The moves that earn an exact score are at least
    /// the best `lines` of them (fewer only if there are fewer moves) and every move that ties
    /// the best. `guess` is the previous iteration's best score: the first move is searched in
    /// a narrow window around it, widened only if the score falls outside.
    ///
    /// A move earns an exact score only if a null-window probe shows it reaches the last of
    /// the `lines` best found so far; the others are known only to be worse.
    pub(super) fn root(
        &mut self,
        pos: &Position,
        depth: i32,
        order: &mut [Move],
        lines: usize,
        guess: Option<i32>,
    ) -> Iteration {
        let lines = lines.max(1);
        self.root_depth = depth;
        self.enter(pos, 0);
        self.evals[0] = if pos.is_check() { -INFINITY } else { self.evaluate(pos, 0) };
        let mut exact: Vec<(i32, Move)> = Vec::with_capacity(order.len());
        let mut complete = true;
        for &m in order.iter() {
            let child = pos.after(m);
            self.path.push(child.hash());
            self.played[0] = Some(Played::new(pos, m));
            // The score a move must reach to be one of the lines (ties with the best count).
            let floor = (exact.len() >= lines).then(|| exact[lines - 1].0);
            let score = match floor {
                None if exact.is_empty() => Some(self.aspirate(&child, depth, guess)),
                None => Some(-self.negamax(&child, depth - 1, -INFINITY, INFINITY, 1)),
                Some(floor) => {
                    let probe = -self.negamax(&child, depth - 1, -floor, -(floor - 1), 1);
                    (probe >= floor && !self.aborted)
                        .then(|| -self.negamax(&child, depth - 1, -INFINITY, -(floor - 1), 1))
                }
            };
            self.path.pop();
            if self.aborted {
                complete = false;
                break;
            }
            if let Some(score) = score.filter(|&s| floor.is_none_or(|f| s >= f)) {
                // After the equal ones already there, so the earlier-ordered move stays first.
                let at = exact.partition_point(|&(s, _)| s >= score);
                exact.insert(at, (score, m));
            }
        }
        // Search the exact moves first next time, best first; the rest keep their order.
        order.sort_by_key(|m| exact.iter().position(|&(_, e)| e == *m).unwrap_or(usize::MAX));
        if let (Some(&(best_score, best_move)), true) = (exact.first(), complete) {
            self.table.store(Entry {
                key: pos.hash(),
                best: Some(best_move),
                score: best_score,
                depth,
                bound: Bound::Exact,
            });
        }
        Iteration { exact, complete }
    }

    /// The exact score of the root move leading to `child`, searched first in a window around
    /// `guess` (aspiration), widened on the side it fails until the score falls inside.
    fn aspirate(&mut self, child: &Position, depth: i32, guess: Option<i32>) -> i32 {
        let mut delta = ASPIRATION;
        let (mut alpha, mut beta) = match guess {
            Some(g) if depth >= 4 && g.abs() < MATE_BOUND => (g - delta, g + delta),
            _ => (-INFINITY, INFINITY),
        };
        loop {
            let score = -self.negamax(child, depth - 1, -beta, -alpha, 1);
            if self.aborted {
                return score;
            }
            delta *= 2;
            if score <= alpha && alpha > -INFINITY {
                alpha = if score.abs() >= MATE_BOUND { -INFINITY } else { (score - delta).max(-INFINITY) };
            } else if score >= beta && beta < INFINITY {
                beta = if score.abs() >= MATE_BOUND { INFINITY } else { (score + delta).min(INFINITY) };
            } else {
                return score;
            }
        }
    }
}
