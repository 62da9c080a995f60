//! Legal move generation. One generator serves both variants: it works on the 8x8 grid and
//! masks targets with the variant's board.
//!
//! Moves come out in groups into a [`Sink`]: a piece with its set of target squares, or all
//! unpinned pawns' moves of one direction at once. Counting (perft's leaves, "has any move")
//! is then a popcount, and listing expands the groups.

use super::attacks;
use super::bitboard::Bitboard;
use super::moves::{Move, MoveList};
use super::piece::{Color, Role};
use super::position::Position;
use super::square::Square;

/// The pieces a pawn may promote to, in the order moves are listed.
pub const PROMOTION_ROLES: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

/// Receives legal moves in groups. Returning true stops the generation.
trait Sink {
    /// The piece `role` on `from` may move to each of `targets`.
    fn piece(&mut self, role: Role, from: Square, targets: Bitboard) -> bool;

    /// The only squares the king and the pieces other than pawns need be offered moves to, and
    /// whether castling is wanted: a sink that takes only some moves lets the generator skip
    /// working out the others (the king's safety on each square, the castling path's).
    #[inline]
    fn wanted(&self) -> (Bitboard, bool) {
        (Bitboard::FULL, true)
    }

    /// For each square of `targets`, a pawn may move there from `delta` squares back (in index order).
    #[inline]
    fn pawns(&mut self, targets: Bitboard, delta: i8) -> bool {
        targets.into_iter().any(|to| {
            let from = to.offset(-delta).unwrap_or(to); // the shift that made `targets` guarantees it
            self.piece(Role::Pawn, from, Bitboard::from_square(to))
        })
    }
}

/// Counts moves, a promotion square being four.
struct Counter {
    count: u64,
    promotion_rank: Bitboard,
}

impl Sink for Counter {
    #[inline]
    fn piece(&mut self, role: Role, _: Square, targets: Bitboard) -> bool {
        self.count += u64::from(targets.count());
        if role == Role::Pawn {
            self.count += 3 * u64::from((targets & self.promotion_rank).count());
        }
        false
    }

    #[inline]
    fn pawns(&mut self, targets: Bitboard, _: i8) -> bool {
        self.count += u64::from(targets.count()) + 3 * u64::from((targets & self.promotion_rank).count());
        false
    }
}

/// Expands groups into moves for a callback.
struct Expand<F> {
    f: F,
    promotion_rank: Bitboard,
}

impl<F: FnMut(Move)> Sink for Expand<F> {
    #[inline]
    fn piece(&mut self, role: Role, from: Square, targets: Bitboard) -> bool {
        for to in targets {
            if role == Role::Pawn && self.promotion_rank.contains(to) {
                for promo in PROMOTION_ROLES {
                    (self.f)(Move::with_promotion(from, to, promo));
                }
            } else {
                (self.f)(Move::new(from, to));
            }
        }
        false
    }
}

/// Expands only the moves that change material: captures (en passant too) and promotions,
/// to a queen only (an underpromotion is almost never the way to quiet a position).
struct Noisy<F> {
    f: F,
    /// Enemy pieces, and the en-passant square for pawns.
    victims: Bitboard,
    ep: Bitboard,
    promotion_rank: Bitboard,
}

impl<F: FnMut(Move)> Sink for Noisy<F> {
    #[inline]
    fn wanted(&self) -> (Bitboard, bool) {
        (self.victims, false)
    }

    #[inline]
    fn piece(&mut self, role: Role, from: Square, targets: Bitboard) -> bool {
        let noisy = if role == Role::Pawn { self.victims | self.ep | self.promotion_rank } else { self.victims };
        for to in targets & noisy {
            if role == Role::Pawn && self.promotion_rank.contains(to) {
                (self.f)(Move::with_promotion(from, to, Role::Queen));
            } else {
                (self.f)(Move::new(from, to));
            }
        }
        false
    }

    #[inline]
    fn pawns(&mut self, targets: Bitboard, delta: i8) -> bool {
        for to in targets & (self.victims | self.ep | self.promotion_rank) {
            let from = to.offset(-delta).unwrap_or(to); // the shift that made `targets` guarantees it
            self.piece(Role::Pawn, from, Bitboard::from_square(to));
        }
        false
    }
}

/// Stops at the first move.
struct AnyMove;

impl Sink for AnyMove {
    fn piece(&mut self, _: Role, _: Square, targets: Bitboard) -> bool {
        targets.any()
    }

    fn pawns(&mut self, targets: Bitboard, _: i8) -> bool {
        targets.any()
    }
}

/// Looks for one move.
struct Find {
    wanted: Move,
    promotion_rank: Bitboard,
    found: bool,
}

impl Sink for Find {
    fn piece(&mut self, role: Role, from: Square, targets: Bitboard) -> bool {
        let m = self.wanted;
        if from == m.from && targets.contains(m.to) {
            let promotes = role == Role::Pawn && self.promotion_rank.contains(m.to);
            self.found = match m.promotion {
                None => !promotes,
                Some(promo) => promotes && PROMOTION_ROLES.contains(&promo),
            };
        }
        self.found
    }
}

/// Shifts a set of squares `delta` steps in index order (8 = one rank up); bits leaving the
/// grid are dropped.
#[inline]
fn shift(bb: Bitboard, delta: i8) -> Bitboard {
    if delta >= 0 {
        Bitboard(bb.0 << delta)
    } else {
        Bitboard(bb.0 >> -delta)
    }
}

impl Position {
    /// Sends every legal move to `sink` until it asks to stop. Returns true if it stopped early.
    #[inline(always)]
    fn generate<S: Sink>(&self, sink: &mut S) -> bool {
        let us = self.turn;
        let them = !us;
        let ours = self.by_color[us.index()];
        let theirs = self.by_color[them.index()];
        let occupied = ours | theirs;
        let board = self.variant.board();
        let Some(king) = (self.by_role[Role::King.index()] & ours).first() else {
            return false;
        };
        let checkers = self.checkers;
        let (wanted, castling) = sink.wanted();

        // The king: every target that no enemy piece attacks once the king has left its square
        // (so a slider checking along a line also covers the square behind the king).
        let without_king = occupied.without(king);
        let mut safe = Bitboard::EMPTY;
        for to in attacks::king(king) & !ours & board & wanted {
            if !self.attacked(to, them, without_king) {
                safe = safe.with(to);
            }
        }
        if safe.any() && sink.piece(Role::King, king, safe) {
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
        let target = !ours & board & check_mask & wanted;

        // A piece alone between our king and an enemy slider is pinned to that line.
        let pinned = self.lone_blockers(king, them, us);

        macro_rules! pieces {
            ($role:expr, $attacks:expr) => {
                for from in self.by_role[$role.index()] & ours {
                    let mut to = $attacks(from) & target;
                    if pinned.contains(from) {
                        to &= attacks::line(king, from);
                    }
                    if to.any() && sink.piece($role, from, to) {
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
        // allows it, diagonal captures. Unpinned pawns move all at once, by shifting the set.
        let empty = !occupied & board;
        let (forward, third_rank): (i8, u8) = if us == Color::White { (8, 2) } else { (-8, 5) };
        let pawns = self.by_role[Role::Pawn.index()] & ours;
        let free = pawns & !pinned;
        let single = shift(free, forward) & empty;
        let double = if self.variant.has_double_step() {
            shift(single & Bitboard::rank(third_rank), forward) & empty
        } else {
            Bitboard::EMPTY
        };
        // Toward the a-file (from any file but a) and toward the h-file (from any file but h).
        let west = shift(free & !Bitboard::file(0), forward - 1) & theirs;
        let east = shift(free & !Bitboard::file(7), forward + 1) & theirs;
        if sink.pawns(single & check_mask, forward)
            || sink.pawns(double & check_mask, 2 * forward)
            || sink.pawns(west & check_mask, forward - 1)
            || sink.pawns(east & check_mask, forward + 1)
        {
            return true;
        }
        // Pinned pawns one by one, kept on their pin line.
        for from in pawns & pinned {
            let mut to = attacks::pawn(us, from) & theirs;
            if let Some(step) = from.offset(forward).filter(|s| empty.contains(*s)) {
                to = to.with(step);
                let may_jump = self.variant.has_double_step() && step.rank() == third_rank;
                if let Some(jump) = step.offset(forward).filter(|s| may_jump && empty.contains(*s)) {
                    to = to.with(jump);
                }
            }
            to &= check_mask & attacks::line(king, from);
            if to.any() && sink.piece(Role::Pawn, from, to) {
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
                        && sink.piece(Role::Pawn, from, Bitboard::from_square(ep))
                    {
                        return true;
                    }
                }
            }
        }

        // Castling: the king and rook on their squares (castling rights guarantee it), every
        // square either passes over or lands on empty but for the two of them, the king not in
        // check and not passing through or landing on an attacked square. Attacks are seen with
        // the rook gone: in Chess960 it may stand between an enemy slider and the king's path.
        if checkers.is_empty() && castling {
            for rook in self.castling & ours {
                let (king_to, rook_to) = Position::castling_ends(king, rook);
                let must_be_empty = (attacks::between(king, king_to).with(king_to)
                    | attacks::between(rook, rook_to).with(rook_to))
                .without(king)
                .without(rook);
                if must_be_empty.intersects(occupied) {
                    continue;
                }
                let king_path = attacks::between(king, king_to).with(king_to);
                let seen = occupied.without(rook);
                if king_path.into_iter().any(|sq| self.attacked(sq, them, seen)) {
                    continue;
                }
                let target = if self.variant.king_takes_rook() { rook } else { king_to };
                if sink.piece(Role::King, king, Bitboard::from_square(target)) {
                    return true;
                }
            }
        }
        false
    }

    /// Every legal move.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.for_each_legal_move(|m| list.push(m));
        list
    }

    /// Calls `f` with each legal move, without collecting them.
    #[inline]
    pub fn for_each_legal_move(&self, f: impl FnMut(Move)) {
        self.generate(&mut Expand { f, promotion_rank: self.promotion_targets() });
    }

    /// Calls `f` with each legal capture (en passant included) and each legal promotion to a
    /// queen: the moves a quiescence search looks at, without expanding the rest.
    #[inline]
    pub fn for_each_noisy_move(&self, f: impl FnMut(Move)) {
        let victims = self.by_color[(!self.turn).index()];
        let ep = self.ep_square.map_or(Bitboard::EMPTY, Bitboard::from_square);
        self.generate(&mut Noisy { f, victims, ep, promotion_rank: self.promotion_targets() });
    }

    /// The number of legal moves, without listing them.
    pub fn count_legal_moves(&self) -> u64 {
        let mut counter = Counter { count: 0, promotion_rank: self.promotion_targets() };
        self.generate(&mut counter);
        counter.count
    }

    pub fn has_legal_move(&self) -> bool {
        self.generate(&mut AnyMove)
    }

    /// True if `m` is legal here.
    pub fn is_legal(&self, m: Move) -> bool {
        let mut find = Find { wanted: m, promotion_rank: self.promotion_targets(), found: false };
        self.generate(&mut find);
        find.found
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
