//! Move ordering: the hash move, then captures by most valuable victim / least valuable
//! attacker, then the killer moves of this ply, then quiet moves by their history score.

use crate::bots::eval::piece_value;
use crate::chess::{Move, Position, Role};

pub const MAX_PLY: usize = 128;

/// What the search learns about quiet moves as it goes.
pub struct Heuristics {
    /// Two quiet moves per ply that caused a cut-off.
    pub killers: [[Option<Move>; 2]; MAX_PLY],
    /// [colour][from][to]: how often a quiet move cut off, weighted by depth.
    pub history: Box<[[[i32; 64]; 64]; 2]>,
}

impl Heuristics {
    pub fn new() -> Heuristics {
        Heuristics { killers: [[None; 2]; MAX_PLY], history: Box::new([[[0; 64]; 64]; 2]) }
    }

    pub fn clear(&mut self) {
        self.killers = [[None; 2]; MAX_PLY];
        self.history.iter_mut().flatten().flatten().for_each(|h| *h = 0);
    }

    pub fn record_cutoff(&mut self, pos: &Position, m: Move, ply: usize, depth: i32) {
        if pos.capture(m).is_some() || m.promotion.is_some() {
            return;
        }
        if let Some(killers) = self.killers.get_mut(ply) {
            if killers[0] != Some(m) {
                killers[1] = killers[0];
                killers[0] = Some(m);
            }
        }
        let h = &mut self.history[pos.turn().index()][m.from.index()][m.to.index()];
        *h = (*h + depth * depth).min(1 << 20);
    }
}

impl Default for Heuristics {
    fn default() -> Heuristics {
        Heuristics::new()
    }
}

/// A sort key for `m`: higher is searched first.
pub fn score(pos: &Position, m: Move, hash_move: Option<Move>, heuristics: &Heuristics, ply: usize) -> i32 {
    if Some(m) == hash_move {
        return 1 << 30;
    }
    if let Some(victim) = pos.capture(m) {
        let attacker = pos.role_at(m.from).unwrap_or(Role::Pawn);
        return (1 << 28) + 16 * piece_value(victim) - piece_value(attacker) / 16;
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
    heuristics.history[pos.turn().index()][m.from.index()][m.to.index()]
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
