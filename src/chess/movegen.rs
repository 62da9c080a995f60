//! Legal move generation. One generator serves both variants: it works on the 8x8 grid and
//! masks targets with the variant's board.
//!
//! Moves come out in groups — a piece, its square and a set of target squares — so counting
//! (perft's leaves, "has any move") is a popcount and listing expands the groups.

use super::attacks;
use super::bitboard::Bitboard;
use super::moves::{Move, MoveList};
use super::piece::{Color, Role};
use super::position::Position;
use super::square::Square;

/// The pieces a pawn may promote to, in the order moves are listed.
pub const PROMOTION_ROLES: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

impl Position {
    /// Calls `visit(role, from, targets)` for every group of legal moves until it returns true.
    /// Returns true if a visit stopped the generation.
    #[inline(always)]
    fn generate<F: FnMut(Role, Square, Bitboard) -> bool>(&self, mut visit: F) -> bool {
        let us = self.turn;
        let them = !us;
        let ours = self.by_color[us.index()];
        let theirs = self.by_color[them.index()];
        let occupied = ours | theirs;
        let board = self.variant.board();
        let Some(king) = (self.by_role[Role::King.index()] & ours).first() else {
            return false;
        };
        let checkers = self.attackers(king, them, occupied);

        // The king: every target that no enemy piece attacks once the king has left its square
        // (so a slider checking along a line also covers the square behind the king).
        let without_king = occupied.without(king);
        let mut safe = Bitboard::EMPTY;
        for to in attacks::king(king) & !ours & board {
            if self.attackers(to, them, without_king).is_empty() {
                safe = safe.with(to);
            }
        }
        if safe.any() && visit(Role::King, king, safe) {
            return true;
        }
        if checkers.more_than_one() {
            return false; // double check: only the king may move
        }

        // Other moves must capture the checker or block its line.
        let check_mask = match checkers.first() {
            Some(checker) => attacks::between(king, checker).with(checker),
            None => Bitboard::FULL,
        };
        let target = !ours & board & check_mask;

        // A piece alone between our king and an enemy slider is pinned to that line.
        let snipers = (attacks::rook(king, Bitboard::EMPTY) & self.rooklike()
            | attacks::bishop(king, Bitboard::EMPTY) & self.bishoplike())
            & theirs;
        let mut pinned = Bitboard::EMPTY;
        for sniper in snipers {
            let blockers = attacks::between(king, sniper) & occupied;
            if !blockers.more_than_one() {
                pinned |= blockers & ours;
            }
        }

        macro_rules! pieces {
            ($role:expr, $attacks:expr) => {
                for from in self.by_role[$role.index()] & ours {
                    let mut to = $attacks(from) & target;
                    if pinned.contains(from) {
                        to &= attacks::line(king, from);
                    }
                    if to.any() && visit($role, from, to) {
                        return true;
                    }
                }
            };
        }
        pieces!(Role::Knight, attacks::knight);
        pieces!(Role::Bishop, |sq| attacks::bishop(sq, occupied));
        pieces!(Role::Rook, |sq| attacks::rook(sq, occupied));
        pieces!(Role::Queen, |sq| attacks::queen(sq, occupied));
        let fairy = self.by_role[Role::Empress.index()]
            | self.by_role[Role::Princess.index()]
            | self.by_role[Role::Ferz.index()];
        if fairy.any() {
            pieces!(Role::Empress, |sq| attacks::rook(sq, occupied) | attacks::knight(sq));
            pieces!(Role::Princess, |sq| attacks::bishop(sq, occupied) | attacks::knight(sq));
            pieces!(Role::Ferz, attacks::ferz);
        }

        // Pawns: one step forward to an empty square, two from the start rank where the variant
        // allows it, diagonal captures.
        let empty = !occupied & board;
        let forward: i8 = if us == Color::White { 8 } else { -8 };
        let start_rank = if us == Color::White { 1 } else { 6 };
        let double_step = self.variant.has_double_step();
        let pawns = self.by_role[Role::Pawn.index()] & ours;
        for from in pawns {
            let mut to = attacks::pawn(us, from) & theirs;
            if let Some(step) = from.offset(forward).filter(|s| empty.contains(*s)) {
                to = to.with(step);
                if double_step && from.rank() == start_rank {
                    if let Some(jump) = step.offset(forward).filter(|s| empty.contains(*s)) {
                        to = to.with(jump);
                    }
                }
            }
            to &= check_mask;
            if pinned.contains(from) {
                to &= attacks::line(king, from);
            }
            if to.any() && visit(Role::Pawn, from, to) {
                return true;
            }
        }

        // En passant: rare, so test each capture the plain way, by looking at the king's safety
        // on the board after it. That covers pins, the captured pawn being the checker, and the
        // two pawns leaving a rank at once.
        if let Some(ep) = self.ep_square {
            if let Some(victim) = ep.offset(-forward) {
                for from in attacks::pawn(them, ep) & pawns {
                    let after = (occupied.without(from).without(victim)).with(ep);
                    if (self.attackers(king, them, after).without(victim)).is_empty()
                        && visit(Role::Pawn, from, Bitboard::from_square(ep))
                    {
                        return true;
                    }
                }
            }
        }

        // Castling: the king and rook on their squares (castling rights guarantee it), nothing
        // between them, the king not in check and not passing through or landing on an attacked square.
        if checkers.is_empty() {
            for rook in self.castling & ours {
                let kingside = rook.file() > king.file();
                let (king_to, rook_to) = if kingside { (6, 5) } else { (2, 3) };
                let (Some(king_to), Some(rook_to)) =
                    (Square::from_coords(king_to, king.rank()), Square::from_coords(rook_to, king.rank()))
                else {
                    continue;
                };
                let must_be_empty =
                    (attacks::between(king, rook) | Bitboard::from_square(king_to) | Bitboard::from_square(rook_to))
                        .without(king)
                        .without(rook);
                if must_be_empty.intersects(occupied) {
                    continue;
                }
                let king_path = attacks::between(king, king_to).with(king_to);
                if king_path.into_iter().any(|sq| self.attackers(sq, them, occupied).any()) {
                    continue;
                }
                if visit(Role::King, king, Bitboard::from_square(king_to)) {
                    return true;
                }
            }
        }
        false
    }

    /// Every legal move.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        let promotion_rank = self.promotion_targets();
        self.generate(|role, from, targets| {
            for to in targets {
                if role == Role::Pawn && promotion_rank.contains(to) {
                    for promo in PROMOTION_ROLES {
                        list.push(Move::with_promotion(from, to, promo));
                    }
                } else {
                    list.push(Move::new(from, to));
                }
            }
            false
        });
        list
    }

    /// The number of legal moves, without listing them.
    pub fn count_legal_moves(&self) -> u64 {
        let mut count = 0u64;
        let promotion_rank = self.promotion_targets();
        self.generate(|role, _, targets| {
            count += u64::from(targets.count());
            if role == Role::Pawn {
                // Each promotion square is four moves.
                count += 3 * u64::from((targets & promotion_rank).count());
            }
            false
        });
        count
    }

    pub fn has_legal_move(&self) -> bool {
        self.generate(|_, _, _| true)
    }

    /// True if `m` is legal here.
    pub fn is_legal(&self, m: Move) -> bool {
        let promotion_rank = self.promotion_targets();
        let mut found = false;
        self.generate(|role, from, targets| {
            if from == m.from && targets.contains(m.to) {
                found = match m.promotion {
                    None => !(role == Role::Pawn && promotion_rank.contains(m.to)),
                    Some(promo) => {
                        role == Role::Pawn && promotion_rank.contains(m.to) && PROMOTION_ROLES.contains(&promo)
                    }
                };
            }
            found
        });
        found
    }

    /// The squares where the side to move's pawns promote (none in minichess7).
    fn promotion_targets(&self) -> Bitboard {
        if self.variant.has_promotion() {
            self.variant.promotion_rank(self.turn)
        } else {
            Bitboard::EMPTY
        }
    }

    /// True if the side to move has any move at all by the pieces' movement, even one that
    /// leaves its own king in check. Minichess7 draws only when there is none.
    pub fn has_pseudo_legal_move(&self) -> bool {
        let us = self.turn;
        let ours = self.by_color[us.index()];
        let occupied = self.occupied();
        let board = self.variant.board();
        let forward: i8 = if us == Color::White { 8 } else { -8 };
        let theirs = self.by_color[(!us).index()];
        ours.into_iter().any(|from| match self.role_at(from) {
            Some(Role::Pawn) => {
                (attacks::pawn(us, from) & theirs).any()
                    || from.offset(forward).is_some_and(|s| board.contains(s) && !occupied.contains(s))
            }
            Some(role) => (Position::piece_attacks(role, us, from, occupied) & !ours & board).any(),
            None => false,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::chess::{Position, Variant};

    #[test]
    fn crowded_positions_fit_in_a_move_list() {
        // Fifteen queens: the kind of composed position FEN validation lets through.
        let fen = "6rk/6pp/Q1Q1Q1Q1/1Q1Q1Q1Q/Q1Q1Q1Q1/1Q1Q1Q2/8/K7 w - - 0 1";
        let pos = Position::from_fen(fen, Variant::Standard).unwrap();
        let moves = pos.legal_moves();
        assert_eq!(moves.len() as u64, pos.count_legal_moves());
        assert!(moves.iter().all(|&m| pos.is_legal(m)));
        // The record for a legal position (Petrović, 1964): 218 moves.
        let record = "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1";
        let pos = Position::from_fen(record, Variant::Standard).unwrap();
        assert_eq!(pos.legal_moves().len(), 218);
        assert_eq!(pos.count_legal_moves(), 218);
    }

    #[test]
    fn counts_promotions_four_times() {
        let pos = Position::from_fen("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1", Variant::Standard).unwrap();
        let promotions = pos.legal_moves().iter().filter(|m| m.promotion.is_some()).count();
        assert_eq!(promotions, 8); // a8 and axb8, four pieces each
        assert_eq!(pos.legal_moves().len() as u64, pos.count_legal_moves());
    }
}
