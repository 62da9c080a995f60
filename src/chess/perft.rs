//! Perft: the number of leaf nodes of the legal move tree to a given depth, the standard check
//! of a move generator. Counts the last ply in bulk, without playing its moves.

use super::moves::Move;
use super::position::Position;

/// Leaf nodes at `depth` plies below `pos` (1 at depth 0).
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal_moves(),
        _ => {
            let mut nodes = 0;
            pos.for_each_legal_move(|m| nodes += perft(&pos.after(m), depth - 1));
            nodes
        }
    }
}

/// Each legal root move with its subtree's leaf count at `depth` (depth 0 is treated as 1).
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    let below = depth.max(1) - 1;
    pos.legal_moves().iter().map(|&m| (m, perft(&pos.after(m), below))).collect()
}
