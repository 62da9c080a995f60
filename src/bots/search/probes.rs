//! Searches a node makes before its own, shallower, to learn whether it needs its own at all
//! (ProbCut) or whether its hash move deserves more depth (the singular-extension test).

use arrayvec::ArrayVec;

use super::node::{from_table, to_table, ScoredMoves, Searcher};
use super::ordering::{self, Context, Played};
use super::see::see_ge;
use super::tt::{Bound, Entry};
use super::MATE_BOUND;
use crate::chess::{Move, Position};

/// ProbCut is tried from this depth, with captures that stay this far above beta.
const PROBCUT_DEPTH: i32 = 5;
const PROBCUT_MARGIN: i32 = 200;

/// What the singular-extension test found for the hash move.
pub(super) enum Extension {
    None,
    One,
    /// Several moves hold beta: the node fails high with this score.
    Cut(i32),
}

impl Searcher<'_> {
    /// ProbCut: a capture that wins enough to stay a margin above beta when searched a few
    /// plies shallower would almost surely hold beta at full depth too, so the node cuts off.
    /// Captures are tried only if exchanges alone could get there, and each is first tested by
    /// the quiescence search, which costs little and turns most of them away. Not tried where
    /// a stored search nearly as deep (`entry`) already found the node short of the margin.
    pub(super) fn probcut(
        &mut self,
        pos: &Position,
        entry: Option<Entry>,
        depth: i32,
        beta: i32,
        static_eval: i32,
        ply: usize,
    ) -> Option<i32> {
        if !self.selective || depth < PROBCUT_DEPTH {
            return None;
        }
        let raised = beta + PROBCUT_MARGIN;
        let stored_short =
            entry.is_some_and(|e| e.depth >= depth - 3 && e.bound != Bound::Lower && from_table(e.score, ply) < raised);
        if stored_short {
            return None;
        }
        let mut moves: ScoredMoves = ArrayVec::new();
        pos.for_each_noisy_move(|m| {
            if see_ge(pos, m, raised - static_eval) {
                let _ = moves.try_push((ordering::score(pos, m, &Context::default(), self.heuristics, ply), m));
            }
        });
        for i in 0..moves.len() {
            let m = ordering::pick(&mut moves, i);
            let child = pos.after(m);
            self.table.prefetch(child.hash());
            self.played[ply] = Some(Played::new(pos, m));
            self.path.push(child.hash());
            let mut score = -self.quiesce(&child, -raised, -raised + 1, ply + 1);
            if score >= raised {
                score = -self.negamax(&child, depth - 4, -raised, -raised + 1, ply + 1);
            }
            self.path.pop();
            if self.aborted {
                return None;
            }
            if score >= raised {
                self.table.store(Entry {
                    key: pos.hash(),
                    best: Some(m),
                    score: to_table(score, ply),
                    depth: depth - 3,
                    bound: Bound::Lower,
                });
                return Some(score);
            }
        }
        None
    }

    /// Whether the hash move `m` is singular: searched without it, at half depth, does every
    /// other move fall clearly short of the score the table holds for it? Then it is extended a
    /// ply. If instead the others reach beta too, the node cuts off with no further search.
    pub(super) fn singular_extension(
        &mut self,
        pos: &Position,
        m: Move,
        e: Entry,
        depth: i32,
        beta: i32,
        ply: usize,
    ) -> Extension {
        let score = from_table(e.score, ply);
        let worth_testing = self.selective
            && depth >= 7
            && e.bound != Bound::Upper
            && e.depth >= depth - 3
            && score.abs() < MATE_BOUND
            && (ply as i32) < 2 * self.root_depth;
        if !worth_testing {
            return Extension::None;
        }
        let singular_beta = score - 2 * depth;
        self.excluded[ply] = Some(m);
        let without = self.negamax(pos, (depth - 1) / 2, singular_beta - 1, singular_beta, ply);
        self.excluded[ply] = None;
        if self.aborted {
            Extension::None
        } else if without < singular_beta {
            Extension::One
        } else if singular_beta >= beta {
            Extension::Cut(singular_beta)
        } else {
            Extension::None
        }
    }
}
