//! The root of the search: every root move, with an exact score for the best few (one per
//! principal variation asked for, and every move that ties the best).

use super::node::Searcher;
use super::tt::{Bound, Entry};
use super::INFINITY;
use crate::chess::{Move, Position};

impl Searcher<'_> {
    /// Searches every root move to `depth`. Returns the moves that earned an exact score, best
    /// first: at least the best `lines` of them (fewer only if there are fewer moves) and every
    /// move that ties the best. None if the budget ran out first.
    ///
    /// A move earns an exact score only if a null-window probe shows it reaches the last of
    /// the `lines` best found so far; the others are known only to be worse.
    pub(super) fn root(
        &mut self,
        pos: &Position,
        depth: i32,
        order: &mut [Move],
        lines: usize,
    ) -> Option<Vec<(i32, Move)>> {
        let lines = lines.max(1);
        let mut exact: Vec<(i32, Move)> = Vec::with_capacity(order.len());
        for &m in order.iter() {
            let child = pos.after(m);
            self.path.push(child.hash());
            // The score a move must reach to be one of the lines (ties with the best count).
            let floor = (exact.len() >= lines).then(|| exact[lines - 1].0);
            let score = match floor {
                None => Some(-self.negamax(&child, depth - 1, -INFINITY, INFINITY, 1)),
                Some(floor) => {
                    let probe = -self.negamax(&child, depth - 1, -floor, -(floor - 1), 1);
                    (probe >= floor && !self.aborted)
                        .then(|| -self.negamax(&child, depth - 1, -INFINITY, -(floor - 1), 1))
                }
            };
            self.path.pop();
            if self.aborted {
                return None;
            }
            if let Some(score) = score.filter(|&s| floor.is_none_or(|f| s >= f)) {
                // After the equal ones already there, so the earlier-ordered move stays first.
                let at = exact.partition_point(|&(s, _)| s >= score);
                exact.insert(at, (score, m));
            }
        }
        // Search the exact moves first next time, best first; the rest keep their order.
        order.sort_by_key(|m| exact.iter().position(|&(_, e)| e == *m).unwrap_or(usize::MAX));
        let (best_score, best_move) = *exact.first()?;
        self.table.store(Entry {
            key: pos.hash(),
            best: Some(best_move),
            score: best_score,
            depth,
            bound: Bound::Exact,
        });
        Some(exact)
    }
}
