//! Move ordering: the hash move, then captures that do not lose material by most valuable
//! victim / least valuable attacker, then the killer moves of this ply, then quiet moves by
//! the reply that last refuted the opponent's previous move (its counter), then quiet moves by
//! their history score, and last the captures that lose material.

use super::see::see_ge;
use crate::bots::eval::piece_value;
use crate::chess::{Move, Position, Role};

pub const MAX_PLY: usize = 128;

/// History scores stay within ±HISTORY_MAX: each update moves a score part of the way toward
/// the bound, so old lessons fade as new ones come.
const HISTORY_MAX: i32 = 16_384;

/// What the search learns about quiet moves as it goes.
pub struct Heuristics {
    /// Two quiet moves per ply that caused a cut-off.
    pub killers: [[Option<Move>; 2]; MAX_PLY],
    /// [colour][from][to]: how often a quiet move cut off (up) or was passed over by one (down).
    history: Box<[[[i32; 64]; 64]; 2]>,
    /// [from][to] of a move: the quiet reply that last cut off after it.
    counters: Box<[[Option<Move>; 64]; 64]>,
}

impl Heuristics {
    pub fn new() -> Heuristics {
        Heuristics {
            killers: [[None; 2]; MAX_PLY],
            history: Box::new([[[0; 64]; 64]; 2]),
            counters: Box::new([[None; 64]; 64]),
        }
    }

    pub fn clear(&mut self) {
        self.killers = [[None; 2]; MAX_PLY];
        self.history.iter_mut().flatten().flatten().for_each(|h| *h = 0);
        self.counters.iter_mut().flatten().for_each(|c| *c = None);
    }

    /// The quiet move that last refuted `previous`.
    pub fn counter(&self, previous: Move) -> Option<Move> {
        self.counters[previous.from.index()][previous.to.index()]
    }

    pub fn is_killer(&self, m: Move, ply: usize) -> bool {
        self.killers.get(ply).is_some_and(|k| k.contains(&Some(m)))
    }

    pub fn history(&self, pos: &Position, m: Move) -> i32 {
        self.history[pos.turn().index()][m.from.index()][m.to.index()]
    }

    /// `m` cut off at `depth`: it becomes a killer and the counter to the `previous` move, and
    /// its history rises, while the quiet moves tried before it (`passed`) sink.
    pub fn record_cutoff(
        &mut self,
        pos: &Position,
        m: Move,
        ply: usize,
        depth: i32,
        passed: &[Move],
        previous: Option<Move>,
    ) {
        if pos.capture(m).is_some() || m.promotion.is_some() {
            return;
        }
        if let Some(killers) = self.killers.get_mut(ply) {
            if killers[0] != Some(m) {
                killers[1] = killers[0];
                killers[0] = Some(m);
            }
        }
        if let Some(p) = previous {
            self.counters[p.from.index()][p.to.index()] = Some(m);
        }
        let bonus = (16 * depth * depth + 32 * depth).min(1_200);
        let side = pos.turn().index();
        for &q in passed {
            update(&mut self.history[side][q.from.index()][q.to.index()], -bonus);
        }
        update(&mut self.history[side][m.from.index()][m.to.index()], bonus);
    }
}

/// Moves `h` by `bonus`, less the closer it already is to the bound in that direction.
fn update(h: &mut i32, bonus: i32) {
    *h += bonus - *h * bonus.abs() / HISTORY_MAX;
}

impl Default for Heuristics {
    fn default() -> Heuristics {
        Heuristics::new()
    }
}

/// A sort key for `m`: higher is searched first.
pub fn score(
    pos: &Position,
    m: Move,
    hash_move: Option<Move>,
    counter: Option<Move>,
    heuristics: &Heuristics,
    ply: usize,
) -> i32 {
    if Some(m) == hash_move {
        return 1 << 30;
    }
    if let Some(victim) = pos.capture(m) {
        let attacker = pos.role_at(m.from).unwrap_or(Role::Pawn);
        let mvv_lva = 16 * piece_value(victim) - piece_value(attacker) / 16;
        return if see_ge(pos, m, 0) { (1 << 28) + mvv_lva } else { -(1 << 24) + mvv_lva };
    }
    if let Some(promo) = m.promotion {
        return (1 << 27) + piece_value(promo);
    }
    let killers = heuristics.killers.get(ply).copied().unwrap_or([None; 2]);
    if killers[0] == Some(m) {
        return 1 << 26;
    }
    if killers[1] == Some(m) {
        return (1 << 26) - 1;
    }
    if counter == Some(m) {
        return (1 << 26) - 2;
    }
    heuristics.history(pos, m)
}

/// How many moves [`next`] picks one at a time before it sorts the rest.
const PICKED: usize = 4;

/// The move to search `i`-th: picked one at a time for the first few (a cut-off usually comes
/// early), after which the rest are sorted at once, since a node that got this far likely
/// goes through most of its moves (if only to prune them).
pub fn next(moves: &mut [(i32, Move)], i: usize) -> Move {
    if i < PICKED {
        return pick(moves, i);
    }
    if i == PICKED {
        moves[i..].sort_unstable_by_key(|&(score, _)| std::cmp::Reverse(score));
    }
    moves[i].1
}

/// Picks the best-scored remaining move into position `i` (selection sort, one step at a time:
/// a cut-off usually comes early, so sorting the whole list would be wasted).
pub fn pick(moves: &mut [(i32, Move)], i: usize) -> Move {
    let mut best = i;
    for j in i + 1..moves.len() {
        if moves[j].0 > moves[best].0 {
            best = j;
        }
    }
    moves.swap(i, best);
    moves[i].1
}
