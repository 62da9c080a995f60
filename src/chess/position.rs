//! `Position`: pieces, side to move, castling rights, en passant square and clocks, with
//! make/unmake. A `Position` is always valid: the only ways to get one are the variant's start,
//! a FEN that passed validation (fen.rs), and playing legal moves.

use super::attacks;
use super::bitboard::Bitboard;
use super::castling;
use super::moves::Move;
use super::piece::{Color, Piece, Role};
use super::rules::{Rules, Variant};
use super::square::Square;
use super::zobrist;

/// A chess position of either variant.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Position {
    pub(crate) by_role: [Bitboard; Role::COUNT],
    pub(crate) by_color: [Bitboard; 2],
    /// The role on each square: the same facts as `by_role`, kept in step by `toggle`, so that
    /// `role_at` (asked for every move made, ordered and evaluated) is one lookup, not a scan.
    board: [Option<Role>; 64],
    pub(crate) turn: Color,
    /// The rooks (by square) that can still castle.
    pub(crate) castling: Bitboard,
    /// Set after a double step, and only when an enemy pawn stands ready to capture en passant.
    pub(crate) ep_square: Option<Square>,
    /// Plies since the last capture (or, in standard chess, pawn move).
    pub(crate) halfmoves: u32,
    pub(crate) fullmoves: u32,
    pub(crate) hash: u64,
    pub(crate) variant: Variant,
    pub(crate) rules: Rules,
    /// The enemy pieces giving check to the side to move, worked out once when the position
    /// arises: every node of a search asks (and its parent, whether the move checks), and so
    /// does the move generator.
    pub(crate) checkers: Bitboard,
}

/// The enemy king's square, the squares from which each kind of piece would check it, and the
/// pieces whose moving off their line would uncover a check: what deciding whether a move
/// checks takes, for a position (see [`Position::check_info`]).
#[derive(Clone, Copy, Debug)]
pub struct CheckInfo {
    king: Option<Square>,
    squares: [Bitboard; Role::COUNT],
    blockers: Bitboard,
}

/// What `play` changed beyond the move itself, so that `undo` can restore the position exactly.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Undo {
    /// The piece the move captured (a pawn, for en passant).
    pub captured: Option<Role>,
    castling: Bitboard,
    ep_square: Option<Square>,
    halfmoves: u32,
    hash: u64,
    checkers: Bitboard,
    /// The move castled (in Chess960 its `to` is the rook's square, which says nothing once played).
    castled: bool,
}

impl Position {
    /// The variant's starting position under the default rules.
    pub fn new(variant: Variant) -> Position {
        Position::from_fen(variant.initial_fen(), variant).expect("the initial FEN of every variant is valid")
    }

    /// A board with no pieces, for fen.rs to fill and validate.
    pub(crate) fn empty(variant: Variant) -> Position {
        Position {
            by_role: [Bitboard::EMPTY; Role::COUNT],
            by_color: [Bitboard::EMPTY; 2],
            board: [None; 64],
            turn: Color::White,
            castling: Bitboard::EMPTY,
            ep_square: None,
            halfmoves: 0,
            fullmoves: 1,
            hash: 0,
            variant,
            rules: Rules::default(),
            checkers: Bitboard::EMPTY,
        }
    }

    /// Applies game options: a rule switched off also clears the state it would use.
    pub fn with_rules(mut self, rules: Rules) -> Position {
        self.rules = rules;
        if !rules.castling {
            self.hash ^= zobrist::castling(self.castling);
            self.castling = Bitboard::EMPTY;
        }
        if !rules.en_passant {
            if let Some(ep) = self.ep_square.take() {
                self.hash ^= zobrist::en_passant(ep);
            }
        }
        self
    }

    pub fn variant(&self) -> Variant {
        self.variant
    }

    pub fn rules(&self) -> Rules {
        self.rules
    }

    pub fn turn(&self) -> Color {
        self.turn
    }

    /// The squares of the rooks that keep their castling right.
    pub fn castling_rights(&self) -> Bitboard {
        self.castling
    }

    pub fn ep_square(&self) -> Option<Square> {
        self.ep_square
    }

    /// Plies since the last capture (standard chess: or pawn move); the draw rule counts to 100.
    pub fn halfmoves(&self) -> u32 {
        self.halfmoves
    }

    pub fn fullmoves(&self) -> u32 {
        self.fullmoves
    }

    /// The Zobrist hash of pieces, side to move, castling rights and en passant square.
    pub fn hash(&self) -> u64 {
        self.hash
    }

    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    pub fn by_color(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    pub fn by_role(&self, role: Role) -> Bitboard {
        self.by_role[role.index()]
    }

    pub fn pieces(&self, color: Color, role: Role) -> Bitboard {
        self.by_role[role.index()] & self.by_color[color.index()]
    }

    #[inline]
    pub fn role_at(&self, sq: Square) -> Option<Role> {
        self.board[sq.index()]
    }

    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let role = self.role_at(sq)?;
        let color = if self.by_color[0].contains(sq) { Color::White } else { Color::Black };
        Some(Piece::new(color, role))
    }

    pub fn king(&self, color: Color) -> Option<Square> {
        self.pieces(color, Role::King).first()
    }

    /// Pieces that move like a rook: rooks, queens, empresses.
    #[inline]
    pub(crate) fn rooklike(&self) -> Bitboard {
        self.by_role[Role::Rook.index()] | self.by_role[Role::Queen.index()] | self.by_role[Role::Empress.index()]
    }

    /// Pieces that move like a bishop: bishops, queens, princesses.
    #[inline]
    pub(crate) fn bishoplike(&self) -> Bitboard {
        self.by_role[Role::Bishop.index()] | self.by_role[Role::Queen.index()] | self.by_role[Role::Princess.index()]
    }

    /// Pieces that jump like a knight: knights, empresses, princesses.
    #[inline]
    pub(crate) fn knightlike(&self) -> Bitboard {
        self.by_role[Role::Knight.index()] | self.by_role[Role::Empress.index()] | self.by_role[Role::Princess.index()]
    }

    /// The squares a `role` on `sq` attacks (pawns: of `color`), given the occupancy, on the 8x8 grid.
    #[inline(always)]
    pub fn piece_attacks(role: Role, color: Color, sq: Square, occupied: Bitboard) -> Bitboard {
        match role {
            Role::Pawn => attacks::pawn(color, sq),
            Role::Knight => attacks::knight(sq),
            Role::Bishop => attacks::bishop(sq, occupied),
            Role::Rook => attacks::rook(sq, occupied),
            Role::Queen => attacks::queen(sq, occupied),
            Role::King => attacks::king(sq),
            Role::Empress => attacks::rook(sq, occupied) | attacks::knight(sq),
            Role::Princess => attacks::bishop(sq, occupied) | attacks::knight(sq),
            Role::Ferz => attacks::ferz(sq),
        }
    }

    /// The squares the `pawns` (of `color`) attack together.
    #[inline(always)]
    pub fn pawn_attacks(color: Color, pawns: Bitboard) -> Bitboard {
        attacks::pawns(color, pawns)
    }

    /// The pieces of `by` that attack `sq` when the board holds `occupied` (pins ignored).
    #[inline]
    pub fn attackers(&self, sq: Square, by: Color, occupied: Bitboard) -> Bitboard {
        (attacks::pawn(!by, sq) & self.by_role[Role::Pawn.index()]
            | attacks::knight(sq) & self.knightlike()
            | attacks::king(sq) & self.by_role[Role::King.index()]
            | attacks::ferz(sq) & self.by_role[Role::Ferz.index()]
            | attacks::rook(sq, occupied) & self.rooklike()
            | attacks::bishop(sq, occupied) & self.bishoplike())
            & self.by_color[by.index()]
    }

    /// True if a piece of `by` attacks `sq` when the board holds `occupied`: `attackers` with
    /// early exits, cheapest tests first, for the move generator's king-safety checks.
    #[inline(always)]
    pub(crate) fn attacked(&self, sq: Square, by: Color, occupied: Bitboard) -> bool {
        let theirs = self.by_color[by.index()];
        (attacks::knight(sq) & self.knightlike() & theirs).any()
            || (attacks::pawn(!by, sq) & self.by_role[Role::Pawn.index()] & theirs).any()
            || (attacks::king(sq) & self.by_role[Role::King.index()] & theirs).any()
            || (attacks::ferz(sq) & self.by_role[Role::Ferz.index()] & theirs).any()
            || (attacks::rook(sq, occupied) & self.rooklike() & theirs).any()
            || (attacks::bishop(sq, occupied) & self.bishoplike() & theirs).any()
    }

    /// True if a piece of `by` attacks `sq` in this position.
    pub fn is_attacked(&self, sq: Square, by: Color) -> bool {
        self.attackers(sq, by, self.occupied()).any()
    }

    /// The enemy pieces giving check to the side to move.
    pub fn checkers(&self) -> Bitboard {
        self.checkers
    }

    /// [`Position::checkers`], from the pieces: for whatever makes a position.
    pub(crate) fn compute_checkers(&self) -> Bitboard {
        match self.king(self.turn) {
            Some(king) => self.attackers(king, !self.turn, self.occupied()),
            None => Bitboard::EMPTY,
        }
    }

    pub fn is_check(&self) -> bool {
        self.checkers().any()
    }

    /// True if the move is an en passant capture in this position.
    pub fn is_en_passant(&self, m: Move) -> bool {
        Some(m.to) == self.ep_square
            && self.pieces(self.turn, Role::Pawn).contains(m.from)
            && m.from.file() != m.to.file()
    }

    /// True if the legal move `m` checks the opponent: as cheap as a few attack lookups, so a
    /// search can decide to skip a move without making it.
    pub fn gives_check(&self, m: Move) -> bool {
        self.gives_check_with(m, &self.check_info())
    }

    /// What [`Position::gives_check_with`] needs to know about the enemy king, worked out once
    /// for all of a position's moves.
    pub fn check_info(&self) -> CheckInfo {
        let us = self.turn;
        let Some(king) = self.king(!us) else {
            return CheckInfo { king: None, squares: [Bitboard::EMPTY; Role::COUNT], blockers: Bitboard::EMPTY };
        };
        let occupied = self.occupied();
        // The squares a piece of ours must stand on to attack the king: those it attacks from
        // the king's square (for a pawn: an enemy pawn's attacks).
        let squares = Role::ALL.map(|role| Position::piece_attacks(role, !us, king, occupied));
        // Our pieces that alone stand between the king and one of our sliders.
        let blockers = self.lone_blockers(king, us, us);
        CheckInfo { king: Some(king), squares, blockers }
    }

    /// The pieces of `shields` that alone stand between `king` and a slider of `sliders` that
    /// looks along their line: pinned pieces (`shields` the king's side) or pieces whose
    /// moving away uncovers a check (`shields` the sliders' side).
    #[inline]
    pub(crate) fn lone_blockers(&self, king: Square, sliders: Color, shields: Color) -> Bitboard {
        let snipers = (attacks::rook(king, Bitboard::EMPTY) & self.rooklike()
            | attacks::bishop(king, Bitboard::EMPTY) & self.bishoplike())
            & self.by_color[sliders.index()];
        let occupied = self.occupied();
        let mut found = Bitboard::EMPTY;
        for sniper in snipers {
            let between = attacks::between(king, sniper) & occupied;
            if !between.more_than_one() {
                found |= between & self.by_color[shields.index()];
            }
        }
        found
    }

    /// [`Position::gives_check`] with the king's facts given (`info` is this position's).
    pub fn gives_check_with(&self, m: Move, info: &CheckInfo) -> bool {
        if self.is_castling(m) || self.is_en_passant(m) {
            return self.after(m).is_check(); // rare: the rook or a pawn beside the moved one
        }
        let Some(king) = info.king else { return false };
        let Some(role) = m.promotion.or_else(|| self.role_at(m.from)) else { return false };
        let direct = match m.promotion {
            // The new piece may look at the king through the square the pawn left, which the
            // check squares (worked out with it standing there) do not see.
            Some(_) => {
                let occupied = (self.occupied() & !Bitboard::from_square(m.from)) | Bitboard::from_square(m.to);
                Position::piece_attacks(role, self.turn, m.to, occupied).contains(king)
            }
            // Any other piece that gives check from `to` moved along no line through the
            // king (it would have been giving check already), so `from` standing empty
            // opens no line: the check squares answer.
            None => info.squares[role.index()].contains(m.to),
        };
        // A discovered check: the piece leaves the line on which it alone shielded the king.
        direct || (info.blockers.contains(m.from) && !attacks::line(king, m.from).contains(m.to))
    }

    /// The piece the move would capture, if any (a pawn for en passant).
    pub fn capture(&self, m: Move) -> Option<Role> {
        if self.is_en_passant(m) {
            Some(Role::Pawn)
        } else if self.by_color[(!self.turn).index()].contains(m.to) {
            self.role_at(m.to)
        } else {
            None
        }
    }

    /// Adds or removes a piece, keeping the hash in step.
    #[inline]
    fn toggle(&mut self, piece: Piece, sq: Square) {
        let bit = Bitboard::from_square(sq);
        self.by_role[piece.role.index()] ^= bit;
        self.by_color[piece.color.index()] ^= bit;
        self.board[sq.index()] = if self.by_role[piece.role.index()].contains(sq) { Some(piece.role) } else { None };
        self.hash ^= zobrist::piece(piece, sq);
    }

    /// Used while building a position from FEN.
    pub(crate) fn put(&mut self, piece: Piece, sq: Square) {
        self.toggle(piece, sq);
    }

    /// The square of the pawn an en passant capture to `to` removes.
    fn en_passant_victim(from: Square, to: Square) -> Square {
        Square::from_coords(to.file(), from.rank()).unwrap_or(to)
    }

    /// Plays a move that must be legal in this position (one from `legal_moves`) and returns
    /// what `undo` needs. Anything else leaves the position unspecified but never panics.
    pub fn play_unchecked(&mut self, m: Move) -> Undo {
        let us = self.turn;
        let them = !us;
        let mut undo = Undo {
            captured: None,
            castling: self.castling,
            ep_square: self.ep_square,
            halfmoves: self.halfmoves,
            hash: self.hash,
            checkers: self.checkers,
            castled: false,
        };
        let Some(role) = self.role_at(m.from) else {
            return undo;
        };

        if let Some(ep) = self.ep_square.take() {
            self.hash ^= zobrist::en_passant(ep);
        }
        if let Some(rook) = self.castling_rook(m) {
            // Both leave their squares before either lands: in Chess960 the king may land where
            // the rook stood, or stay where it is.
            let (king_to, rook_to) = Position::castling_ends(m.from, rook);
            self.toggle(Piece::new(us, Role::King), m.from);
            self.toggle(Piece::new(us, Role::Rook), rook);
            self.toggle(Piece::new(us, Role::King), king_to);
            self.toggle(Piece::new(us, Role::Rook), rook_to);
            undo.castled = true;
        } else if self.by_color[them.index()].contains(m.to) {
            if let Some(victim) = self.role_at(m.to) {
                self.toggle(Piece::new(them, victim), m.to);
                undo.captured = Some(victim);
            }
        } else if role == Role::Pawn && Some(m.to) == undo.ep_square && m.from.file() != m.to.file() {
            self.toggle(Piece::new(them, Role::Pawn), Position::en_passant_victim(m.from, m.to));
            undo.captured = Some(Role::Pawn);
        }
        if !undo.castled {
            self.toggle(Piece::new(us, role), m.from);
            self.toggle(Piece::new(us, m.promotion.unwrap_or(role)), m.to);
        }

        let mut castling = self.castling & !(Bitboard::from_square(m.from) | Bitboard::from_square(m.to));
        if role == Role::King {
            castling &= !self.variant.back_rank(us);
        }
        if castling != self.castling {
            self.hash ^= zobrist::castling(self.castling) ^ zobrist::castling(castling);
            self.castling = castling;
        }

        if role == Role::Pawn && m.from.rank().abs_diff(m.to.rank()) == 2 && self.rules.en_passant {
            // Record the square only if an enemy pawn could capture there: equal positions then
            // hash equally whether or not a double step led to them.
            if let Some(ep) = Square::from_coords(m.from.file(), (m.from.rank() + m.to.rank()) / 2) {
                if (attacks::pawn(us, ep) & self.pieces(them, Role::Pawn)).any() {
                    self.ep_square = Some(ep);
                    self.hash ^= zobrist::en_passant(ep);
                }
            }
        }

        let resets = undo.captured.is_some() || (role == Role::Pawn && self.variant.pawn_move_resets_clock());
        self.halfmoves = if resets { 0 } else { self.halfmoves.saturating_add(1) };
        if us == Color::Black {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.turn = them;
        self.hash ^= zobrist::turn(Color::Black);
        self.checkers = self.compute_checkers();
        undo
    }

    /// Takes back `m`, which was the last move played, given what `play_unchecked` returned.
    pub fn undo(&mut self, m: Move, undo: &Undo) {
        let them = self.turn;
        let us = !them;
        if undo.castled {
            let rook = castling::rook_square(self.variant, m).unwrap_or(m.to);
            let (king_to, rook_to) = Position::castling_ends(m.from, rook);
            self.toggle(Piece::new(us, Role::King), king_to);
            self.toggle(Piece::new(us, Role::Rook), rook_to);
            self.toggle(Piece::new(us, Role::King), m.from);
            self.toggle(Piece::new(us, Role::Rook), rook);
        } else {
            let Some(role_now) = self.role_at(m.to) else {
                return;
            };
            let role = if m.promotion.is_some() { Role::Pawn } else { role_now };
            self.toggle(Piece::new(us, role_now), m.to);
            self.toggle(Piece::new(us, role), m.from);
            if let Some(victim) = undo.captured {
                // The en passant square is always empty, so a pawn capturing onto it took en passant.
                let sq = if role == Role::Pawn && Some(m.to) == undo.ep_square {
                    Position::en_passant_victim(m.from, m.to)
                } else {
                    m.to
                };
                self.toggle(Piece::new(them, victim), sq);
            }
        }
        self.castling = undo.castling;
        self.ep_square = undo.ep_square;
        self.halfmoves = undo.halfmoves;
        self.hash = undo.hash;
        self.checkers = undo.checkers;
        self.turn = us;
        if us == Color::Black {
            self.fullmoves = self.fullmoves.saturating_sub(1).max(1);
        }
    }

    /// The position with the other side to move and nothing else changed but the en passant
    /// square (gone) and the halfmove clock: a "pass", for the search's null-move pruning.
    pub fn null_move(&self) -> Position {
        let mut next = *self;
        if let Some(ep) = next.ep_square.take() {
            next.hash ^= zobrist::en_passant(ep);
        }
        next.halfmoves = next.halfmoves.saturating_add(1);
        if next.turn == Color::Black {
            next.fullmoves = next.fullmoves.saturating_add(1);
        }
        next.turn = !next.turn;
        next.hash ^= zobrist::turn(Color::Black);
        next.checkers = next.compute_checkers();
        next
    }

    /// The position after a legal move (copy-make).
    pub fn after(&self, m: Move) -> Position {
        let mut next = *self;
        next.play_unchecked(m);
        next
    }

    /// Recomputes the hash from scratch; fen.rs uses it, tests compare it with the incremental one.
    pub(crate) fn compute_hash(&self) -> u64 {
        let mut hash = zobrist::castling(self.castling) ^ zobrist::turn(self.turn);
        if let Some(ep) = self.ep_square {
            hash ^= zobrist::en_passant(ep);
        }
        for color in Color::ALL {
            for role in Role::ALL {
                for sq in self.pieces(color, role) {
                    hash ^= zobrist::piece(Piece::new(color, role), sq);
                }
            }
        }
        hash
    }
}

impl Default for Position {
    fn default() -> Position {
        Position::new(Variant::Standard)
    }
}

/// A legal move picked at random, for tests that walk random games; `None` when the game is over.
#[cfg(test)]
pub(crate) fn random_move(pos: &Position, rng: &mut rand::rngs::SmallRng) -> Option<Move> {
    use rand::seq::IndexedRandom;
    pos.legal_moves().as_slice().choose(rng).copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// The square-indexed board and the incremental hash agree with the bitboards after every
    /// move and every undo of random games in both variants.
    #[test]
    fn the_board_and_hash_follow_every_move_and_undo() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
        for variant in Variant::ALL {
            for _ in 0..40 {
                let mut pos = Position::new(variant);
                for _ in 0..120 {
                    let Some(m) = random_move(&pos, &mut rng) else { break };
                    let before = pos;
                    let undo = pos.play_unchecked(m);
                    assert_consistent(&pos);
                    let mut back = pos;
                    back.undo(m, &undo);
                    assert_eq!(back, before, "{variant}: undo of {m:?}");
                    assert_eq!(back.board, before.board);
                }
            }
        }
    }

    /// A promoted piece looks at the king through the square its pawn left; a piece that steps
    /// off the line it alone blocked uncovers a check, and one that moves along it does not.
    #[test]
    fn checks_through_the_square_left_behind() {
        let cases = [
            ("7K/4P3/8/8/8/8/8/4k3 w - - 0 1", "e7e8q", true),
            ("7K/4P3/8/8/8/8/8/4k3 w - - 0 1", "e7e8n", false),
            ("3r4/4P3/8/6k1/8/8/8/7K w - - 0 1", "e7d8q", true),
            ("3r4/4P3/8/6k1/8/8/8/7K w - - 0 1", "e7d8r", false),
            ("4k3/8/8/4N3/8/8/8/4R2K w - - 0 1", "e5c4", true),
            ("4k3/8/8/8/4P3/8/8/4R2K w - - 0 1", "e4e5", false),
            ("4k3/8/8/4B3/8/8/8/4R2K w - - 0 1", "e5b2", true),
        ];
        for (fen, uci, checks) in cases {
            let pos = Position::from_fen(fen, Variant::Standard).unwrap();
            let m = pos.legal_moves().into_iter().find(|m| m.to_string() == uci).unwrap();
            assert_eq!(pos.after(m).is_check(), checks, "{fen} {uci}: the case itself");
            assert_eq!(pos.gives_check(m), checks, "{fen} {uci}");
        }
    }

    fn assert_consistent(pos: &Position) {
        for sq in Square::all() {
            let scanned = Role::ALL.into_iter().find(|r| pos.by_role(*r).contains(sq));
            assert_eq!(pos.role_at(sq), scanned, "{sq}");
        }
        assert_eq!(pos.hash(), pos.compute_hash());
        assert_eq!(pos.checkers(), pos.compute_checkers());
    }
}
