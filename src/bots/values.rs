//! Piece values in pawns, as levels 2–4 and the CS3243 agents count material (docs/bots.md).

use crate::chess::{Bitboard, Color, Move, Position, Role};

/// Pawn 1, knight 3, bishop 3, rook 5, queen 9; ferz 2 (a weak short-range piece, a little
/// better than a pawn), princess 7 (bishop + knight), empress 8 (rook + knight). The king is 0:
/// after a legal move it is never attacked, and it can never be captured.
pub const fn value(role: Role) -> i32 {
    match role {
        Role::Pawn => 1,
        Role::Knight | Role::Bishop => 3,
        Role::Rook => 5,
        Role::Queen => 9,
        Role::King => 0,
        Role::Empress => 8,
        Role::Princess => 7,
        Role::Ferz => 2,
    }
}

/// Our pieces that some opponent piece attacks (pins ignored), as if it were the opponent's turn.
pub fn attacked_pieces(pos: &Position, ours: Color) -> Bitboard {
    let occupied = pos.occupied();
    let mut attacked = Bitboard::EMPTY;
    for sq in pos.by_color(ours) {
        if pos.attackers(sq, !ours, occupied).any() {
            attacked = attacked.with(sq);
        }
    }
    attacked
}

/// The total value of a set of squares' pieces.
pub fn total_value(pos: &Position, squares: Bitboard) -> i32 {
    squares.into_iter().filter_map(|sq| pos.role_at(sq)).map(value).sum()
}

/// Facts about one move that the simple levels decide by.
#[derive(Clone, Copy, Debug)]
pub struct MoveFacts {
    pub mv: Move,
    pub gives_check: bool,
    /// The role of the piece captured, if any.
    pub captured: Option<Role>,
    /// The role of the moving piece (before promotion).
    pub mover: Role,
    /// True if, after the move, an opponent piece attacks the moved piece's square.
    pub lands_attacked: bool,
    /// After the move: the total value of our pieces that are attacked.
    pub attacked_value: i32,
}

impl MoveFacts {
    pub fn of(pos: &Position, mv: Move) -> MoveFacts {
        let us = pos.turn();
        let after = pos.after(mv);
        let attacked = attacked_pieces(&after, us);
        MoveFacts {
            mv,
            gives_check: after.is_check(),
            captured: pos.capture(mv),
            mover: pos.role_at(mv.from).unwrap_or(Role::Pawn),
            lands_attacked: attacked.contains(mv.to),
            attacked_value: total_value(&after, attacked),
        }
    }
}
