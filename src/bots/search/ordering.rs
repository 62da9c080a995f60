//! Move ordering, after the hash move (which the search puts first): captures that do not lose
//! material by most valuable victim / least valuable attacker, then the killer moves of this
//! ply, then quiet moves by the reply that last refuted the opponent's previous move (its
//! counter), then quiet moves by their history scores (of the move itself, and of the piece
//! going to its square after the moves one and two plies before: continuation history), and
//! last the captures that lose material.

use super::correction::Correction;
use super::see::see_ge;
use crate::bots::eval::piece_value;
use crate::chess::{Move, Position, Role, Square};

pub const MAX_PLY: usize = 128;

/// History scores stay within ±HISTORY_MAX: each update moves a score part of the way toward
/// the bound, so old lessons fade as new ones come.
const HISTORY_MAX: i32 = 16_384;

/// A move made on the current line, as continuation history knows it: the piece that moved
/// (after promotion) and the square it went to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Played {
    pub mv: Move,
    pub role: Role,
}

impl Played {
    pub fn new(pos: &Position, mv: Move) -> Played {
        Played { mv, role: mv.promotion.or_else(|| pos.role_at(mv.from)).unwrap_or(Role::Pawn) }
    }
}

/// Entries of a continuation table: [role][to] of an earlier move, then [role][to] of a quiet
/// move, for how often that move cut off after it.
const CONTINUATION: usize = Role::COUNT * 64 * Role::COUNT * 64;

/// The index of (`earlier`, then `role` to `to`) in a continuation table.
fn continuation_index(earlier: Played, role: Role, to: Square) -> usize {
    continuation_base(earlier) + role.index() * 64 + to.index()
}

/// Where the entries after `earlier` start in a continuation table.
fn continuation_base(earlier: Played) -> usize {
    (earlier.role.index() * 64 + earlier.mv.to.index()) * Role::COUNT * 64
}

/// What a node's ordering knows of the line that led to it.
#[derive(Clone, Copy, Default)]
pub struct Context {
    /// The quiet move that last refuted the previous move.
    pub counter: Option<Move>,
    /// The moves one and two plies before (None at the root's edge or after a null move).
    pub before: [Option<Played>; 2],
}

/// What the search learns as it goes: about quiet moves, and (the correction history) how far
/// its static evaluation is off.
pub struct Heuristics {
    /// Two quiet moves per ply that caused a cut-off.
    pub killers: [[Option<Move>; 2]; MAX_PLY],
    /// [colour][from][to]: how often a quiet move cut off (up) or was passed over by one (down).
    /// In 16 bits, as scores stay within ±HISTORY_MAX: half the memory to keep in the cache.
    history: Box<[[[i16; 64]; 64]; 2]>,
    /// [from][to] of a move: the quiet reply that last cut off after it.
    counters: Box<[[Option<Move>; 64]; 64]>,
    /// Continuation history after the move one ply before, and after the one two plies before.
    /// (Flat, and on the heap: each is too big for a stack.) Empty until [`Heuristics::allocate`],
    /// and emptied again by [`Heuristics::release`]: a server holds many idle bot seats.
    continuation: [Vec<i16>; 2],
    /// How far the static evaluation has been off, by pawn formation.
    pub correction: Correction,
}

impl Heuristics {
    pub fn new() -> Heuristics {
        Heuristics {
            killers: [[None; 2]; MAX_PLY],
            history: Box::new([[[0; 64]; 64]; 2]),
            counters: Box::new([[None; 64]; 64]),
            continuation: [Vec::new(), Vec::new()],
            correction: Correction::new(),
        }
    }

    pub fn clear(&mut self) {
        self.killers = [[None; 2]; MAX_PLY];
        self.history.iter_mut().flatten().flatten().for_each(|h| *h = 0);
        self.counters.iter_mut().flatten().for_each(|c| *c = None);
        for table in &mut self.continuation {
            table.iter_mut().for_each(|h| *h = 0);
        }
        self.correction.clear();
    }

    /// Takes the continuation tables' memory (1.3 MB) and the correction history's if they do
    /// not have it.
    pub fn allocate(&mut self) {
        self.correction.allocate();
        for table in &mut self.continuation {
            if table.is_empty() {
                *table = vec![0; CONTINUATION];
            }
        }
    }

    /// Frees the continuation tables' and the correction history's memory, forgetting what
    /// they learnt.
    pub fn release(&mut self) {
        self.continuation = [Vec::new(), Vec::new()];
        self.correction.release();
    }

    /// True while the continuation tables hold their memory.
    #[cfg(test)]
    pub fn holds_memory(&self) -> bool {
        self.continuation.iter().any(|t| !t.is_empty())
    }

    /// The quiet move that last refuted `previous`.
    pub fn counter(&self, previous: Move) -> Option<Move> {
        self.counters[previous.from.index()][previous.to.index()]
    }

    pub fn is_killer(&self, m: Move, ply: usize) -> bool {
        self.killers.get(ply).is_some_and(|k| k.contains(&Some(m)))
    }

    pub fn history(&self, pos: &Position, m: Move) -> i32 {
        i32::from(self.history[pos.turn().index()][m.from.index()][m.to.index()])
    }

    /// A quiet move's history: its own, plus its continuation history after the moves before.
    pub fn quiet_score(&self, pos: &Position, m: Move, context: &Context) -> i32 {
        Scorer::new(self, context, 0).quiet(pos, m)
    }

    /// `m` cut off at `depth`: it becomes a killer and the counter to the move before it
    /// (`before[0]`), and its history rises (its own and after the `before` moves), while the
    /// quiet moves tried before it (`passed`) sink.
    pub fn record_cutoff(
        &mut self,
        pos: &Position,
        m: Move,
        ply: usize,
        depth: i32,
        passed: &[Move],
        before: [Option<Played>; 2],
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
        if let Some(p) = before[0] {
            self.counters[p.mv.from.index()][p.mv.to.index()] = Some(m);
        }
        let bonus = (16 * depth * depth + 32 * depth).min(1_200);
        for &q in passed {
            self.reward(pos, q, -bonus, before);
        }
        self.reward(pos, m, bonus, before);
    }

    /// Moves the history scores of the quiet move `m` by `bonus`.
    fn reward(&mut self, pos: &Position, m: Move, bonus: i32, before: [Option<Played>; 2]) {
        update(&mut self.history[pos.turn().index()][m.from.index()][m.to.index()], bonus);
        let role = pos.role_at(m.from).unwrap_or(Role::Pawn);
        for (table, p) in self.continuation.iter_mut().zip(before) {
            if let Some(h) = p.and_then(|p| table.get_mut(continuation_index(p, role, m.to))) {
                update(h, bonus);
            }
        }
    }
}

/// Moves `h` by `bonus`, less the closer it already is to the bound in that direction. The
/// result stays within ±HISTORY_MAX (for |bonus| ≤ HISTORY_MAX), which fits an i16.
fn update(h: &mut i16, bonus: i32) {
    let wide = i32::from(*h);
    *h = (wide + bonus - wide * bonus.abs() / HISTORY_MAX) as i16;
}

impl Default for Heuristics {
    fn default() -> Heuristics {
        Heuristics::new()
    }
}

/// A sort key for `m`: higher is searched first.
pub fn score(pos: &Position, m: Move, context: &Context, heuristics: &Heuristics, ply: usize) -> i32 {
    Scorer::new(heuristics, context, ply).score(pos, m)
}

/// What scoring a node's moves asks of the heuristics that is the same for every move, looked
/// up once per node rather than once per move.
pub struct Scorer<'a> {
    heuristics: &'a Heuristics,
    /// The killers' and the counter move's squares ([`squares`]; [`NO_MOVE`] where there is none).
    killers: [u16; 2],
    counter: u16,
    /// Where the entries after the moves one and two plies before start in their continuation tables.
    continuation: [Option<usize>; 2],
}

impl<'a> Scorer<'a> {
    pub fn new(heuristics: &'a Heuristics, context: &Context, ply: usize) -> Scorer<'a> {
        Scorer {
            heuristics,
            killers: heuristics.killers.get(ply).copied().unwrap_or([None; 2]).map(squares),
            counter: squares(context.counter),
            continuation: context.before.map(|p| p.map(continuation_base)),
        }
    }

    /// A sort key for `m`: higher is searched first.
    pub fn score(&self, pos: &Position, m: Move) -> i32 {
        if let Some(victim) = pos.capture(m) {
            let mvv_lva = mvv_lva(pos, m, victim);
            return if see_ge(pos, m, 0) { WINNING_CAPTURE + mvv_lva } else { -(1 << 24) + mvv_lva };
        }
        if let Some(promo) = m.promotion {
            return (1 << 27) + piece_value(promo);
        }
        // Killers and counter moves are quiet moves without promotion (`record_cutoff`), as
        // `m` is by now, so their squares tell them apart.
        let m_squares = squares(Some(m));
        if self.killers[0] == m_squares {
            return 1 << 26;
        }
        if self.killers[1] == m_squares {
            return (1 << 26) - 1;
        }
        if self.counter == m_squares {
            return (1 << 26) - 2;
        }
        self.quiet(pos, m)
    }

    /// [`Heuristics::quiet_score`].
    fn quiet(&self, pos: &Position, m: Move) -> i32 {
        let h = self.heuristics;
        let offset = pos.role_at(m.from).unwrap_or(Role::Pawn).index() * 64 + m.to.index();
        let entry = |i: usize| {
            let base = self.continuation[i]?;
            h.continuation[i].get(base + offset).copied().map(i32::from)
        };
        h.history(pos, m) + entry(0).unwrap_or(0) + entry(1).unwrap_or(0)
    }
}

/// True if `score`, a sort key of [`Scorer::score`], is that of a capture that does not lose
/// material by the exchange's count (`see_ge` with threshold 0).
pub fn wins_material(score: i32) -> bool {
    score >= WINNING_CAPTURE
}

/// The sort keys of captures that do not lose material start here; every other key is lower.
const WINNING_CAPTURE: i32 = 1 << 28;

/// The sort key of a capture or promotion already known not to lose material (by
/// [`see_ge`] with threshold 0, or by being a promotion), as [`Scorer::score`] gives it: the
/// quiescence search tests every capture so before it keeps it, and need not test it again.
pub fn winning_score(pos: &Position, m: Move) -> i32 {
    match (pos.capture(m), m.promotion) {
        (Some(victim), _) => WINNING_CAPTURE + mvv_lva(pos, m, victim),
        (None, Some(promo)) => (1 << 27) + piece_value(promo),
        (None, None) => 0,
    }
}

/// Most valuable victim first, and of equal victims, the least valuable attacker first.
fn mvv_lva(pos: &Position, m: Move, victim: Role) -> i32 {
    let attacker = pos.role_at(m.from).unwrap_or(Role::Pawn);
    16 * piece_value(victim) - piece_value(attacker) / 16
}

/// A move's two squares as one number, or [`NO_MOVE`]: comparing the squares of the moves being
/// scored with the killers' as one number each is a comparison, where comparing `Option<Move>`s
/// is a branch per field, and those branches were among the search's most mispredicted.
fn squares(m: Option<Move>) -> u16 {
    m.map_or(NO_MOVE, |m| (m.from.index() * 64 + m.to.index()) as u16)
}

/// [`squares`] of no move: no pair of squares gives it.
const NO_MOVE: u16 = u16::MAX;

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
    let (mut best, mut best_score) = (i, moves[i].0);
    for (j, &(score, _)) in moves.iter().enumerate().skip(i + 1) {
        // Selects rather than branches (the compiler makes conditional moves of these): which
        // move scores best is data, and a branch on it was one of the search's most
        // mispredicted.
        let better = score > best_score;
        best = if better { j } else { best };
        best_score = if better { score } else { best_score };
    }
    moves.swap(i, best);
    moves[i].1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Variant;

    fn uci(pos: &Position, text: &str) -> Move {
        pos.parse_uci(text).unwrap()
    }

    #[test]
    fn a_cutoff_is_learnt_as_a_reply_to_the_moves_before_it() {
        let start = Position::new(Variant::Standard);
        let e4 = uci(&start, "e2e4");
        let pos = start.after(e4);
        let (nf6, a6) = (uci(&pos, "g8f6"), uci(&pos, "a7a6"));
        let after_e4 = Context { counter: None, before: [Some(Played::new(&start, e4)), None] };
        let d4 = uci(&start, "d2d4");
        let after_d4 = Context { counter: None, before: [Some(Played::new(&start, d4)), None] };

        let mut heuristics = Heuristics::new();
        heuristics.allocate();
        heuristics.record_cutoff(&pos, nf6, 1, 6, &[a6], after_e4.before);

        // The reply scores higher after the move it refuted than after another one, by its
        // continuation history; the move passed over for it scores lower.
        let own = heuristics.history(&pos, nf6);
        assert!(own > 0);
        assert!(heuristics.quiet_score(&pos, nf6, &after_e4) > heuristics.quiet_score(&pos, nf6, &after_d4));
        assert_eq!(heuristics.quiet_score(&pos, nf6, &after_d4), own);
        assert!(heuristics.quiet_score(&pos, a6, &after_e4) < heuristics.quiet_score(&pos, a6, &after_d4));
        assert_eq!(heuristics.counter(e4), Some(nf6));

        heuristics.clear();
        assert_eq!(heuristics.quiet_score(&pos, nf6, &after_e4), 0);

        // Without its memory it learns and answers only the move's own history.
        heuristics.release();
        heuristics.record_cutoff(&pos, nf6, 1, 6, &[a6], after_e4.before);
        assert_eq!(heuristics.quiet_score(&pos, nf6, &after_e4), heuristics.history(&pos, nf6));
    }
}
