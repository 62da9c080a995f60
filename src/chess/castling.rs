//! Castling, as Chess960 defines it and standard chess is a case of: which rook a king's move
//! castles with, and where king and rook end up. The generator (movegen.rs) decides when it is
//! legal; `Position::play_unchecked` and `undo` move the two pieces.

use super::moves::Move;
use super::piece::Role;
use super::position::Position;
use super::rules::Variant;
use super::square::Square;

/// The square of the rook a castling move `m` names, by how `variant` writes castling: the
/// corner on the side of the king's two-square step in standard chess, the king's target in
/// Chess960 (the king takes its own rook). None for a king move that is no castling's shape.
/// It reads the move alone, so `undo` can ask it after the move was played.
pub(crate) fn rook_square(variant: Variant, m: Move) -> Option<Square> {
    if variant.king_takes_rook() {
        Some(m.to)
    } else if m.from.file().abs_diff(m.to.file()) == 2 && m.from.rank() == m.to.rank() {
        Square::from_coords(if m.to.file() > m.from.file() { 7 } else { 0 }, m.from.rank())
    } else {
        None
    }
}

impl Position {
    /// True if the move is a castling move in this position: the king's two-square step in
    /// standard chess, the king onto its own rook that may castle in Chess960.
    pub fn is_castling(&self, m: Move) -> bool {
        self.castling_rook(m).is_some()
    }

    /// The rook `m` castles with, if it castles: the king's move towards a rook that keeps
    /// its right (in standard chess the rights are the corners', so the step names it).
    pub(crate) fn castling_rook(&self, m: Move) -> Option<Square> {
        if !self.pieces(self.turn, Role::King).contains(m.from) {
            return None;
        }
        let rook = rook_square(self.variant, m)?;
        (self.castling_rights() & self.by_color(self.turn)).contains(rook).then_some(rook)
    }

    /// Where the king and the rook stand after castling, from `king` with the rook on `rook`:
    /// on the g- and f-files when the rook is on the king's h-side, else on the c- and d-files,
    /// whatever files they started on (Chess960's rule, which standard chess is a case of).
    pub(crate) fn castling_ends(king: Square, rook: Square) -> (Square, Square) {
        let (king_file, rook_file) = if rook.file() > king.file() { (6, 5) } else { (2, 3) };
        match (Square::from_coords(king_file, king.rank()), Square::from_coords(rook_file, king.rank())) {
            (Some(king_to), Some(rook_to)) => (king_to, rook_to),
            _ => (king, rook), // unreachable: the rank and both files are on the board
        }
    }
}
