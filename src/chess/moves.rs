//! `Move` and `MoveList`, the fixed-capacity list the generator fills on the stack.

use std::fmt;

use arrayvec::ArrayVec;

use super::piece::Role;
use super::square::Square;

/// A move: from, to and the promotion piece. Castling is the king's two-square move (`e1g1`);
/// en passant is the pawn's diagonal step to the empty square. What a move captures or whether
/// it castles follows from the position it is played in.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    pub from: Square,
    pub to: Square,
    pub promotion: Option<Role>,
}

impl Move {
    pub const fn new(from: Square, to: Square) -> Move {
        Move { from, to, promotion: None }
    }

    pub const fn with_promotion(from: Square, to: Square, role: Role) -> Move {
        Move { from, to, promotion: Some(role) }
    }
}

/// UCI long algebraic: `e2e4`, `e7e8q`.
impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.to)?;
        if let Some(role) = self.promotion {
            write!(f, "{}", role.char())?;
        }
        Ok(())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Room for every legal move of any position that passes FEN validation. A side has at most 16
/// pieces: a king (at most 8 moves + 2 castlings) and 15 others of which none has more than 27
/// moves (a queen in the centre; a pawn has at most 12), so no position exceeds 8 + 2 + 15 × 27 = 415.
pub const MAX_MOVES: usize = 416;

/// The legal moves of a position, kept on the stack.
pub type MoveList = ArrayVec<Move, MAX_MOVES>;
