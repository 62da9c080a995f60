//! FEN: parse (with validation) and emit, for both variants. Minichess7 writes ranks of seven
//! squares and uses `C`/`A`/`F` for empress, princess and ferz.

use thiserror::Error;

use super::bitboard::Bitboard;
use super::piece::{Color, Piece, Role};
use super::position::Position;
use super::rules::Variant;
use super::square::Square;

/// Why a FEN does not describe a position we accept; each variant names the bad field.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParseFenError {
    #[error("empty FEN")]
    Empty,
    #[error("expected 6 fields (board, side to move, castling, en passant, halfmove clock, fullmove number; the two clocks may be left out), found {found}")]
    FieldCount { found: usize },
    #[error("bad board field: {0}")]
    Board(#[from] BoardError),
    #[error("bad side-to-move field {0:?}: expected w or b")]
    Turn(String),
    #[error("bad castling field {found:?}: {reason}")]
    Castling { found: String, reason: &'static str },
    #[error("bad en passant field {found:?}: {reason}")]
    EnPassant { found: String, reason: String },
    #[error("bad halfmove clock {0:?}: expected a whole number from 0")]
    HalfmoveClock(String),
    #[error("bad fullmove number {0:?}: expected a whole number")]
    FullmoveNumber(String),
    #[error("impossible position: {0}")]
    Position(#[from] PositionError),
}

/// A malformed board field.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BoardError {
    #[error("{found} ranks, expected {expected} separated by '/'")]
    RankCount { found: usize, expected: u8 },
    #[error("rank {rank} has {found} squares, expected {expected}")]
    RankLength { rank: u8, found: usize, expected: u8 },
    #[error("unknown piece letter {0:?}")]
    UnknownPiece(char),
    #[error("{0:?} ({1}) is not a piece of {2}")]
    PieceNotInVariant(char, &'static str, Variant),
}

/// A well-formed FEN whose position cannot be played.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PositionError {
    #[error("{0} has no king")]
    MissingKing(Color),
    #[error("{0} has more than one king")]
    TooManyKings(Color),
    #[error("{0} is in check but it is not {0}'s turn")]
    OppositeCheck(Color),
    #[error("pawn on {0}, a back rank")]
    PawnOnBackRank(Square),
    #[error("{color} has {count} pawns, at most {max} allowed")]
    TooManyPawns { color: Color, count: u32, max: u32 },
    #[error("{color} has {count} pieces, at most 16 allowed")]
    TooManyPieces { color: Color, count: u32 },
    #[error("castling right {right} needs {needs}")]
    CastlingRight { right: char, needs: String },
    #[error("castling right {right} names a side {color} can already castle on")]
    CastlingSideTwice { right: char, color: Color },
}

impl Position {
    /// Parses and validates a FEN for `variant`. The halfmove clock and fullmove number may be
    /// left out (they default to 0 and 1).
    pub fn from_fen(fen: &str, variant: Variant) -> Result<Position, ParseFenError> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        match fields.len() {
            0 => return Err(ParseFenError::Empty),
            4..=6 => {}
            found => return Err(ParseFenError::FieldCount { found }),
        }
        let mut pos = Position::empty(variant);
        parse_board(&mut pos, fields[0])?;
        pos.turn = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => return Err(ParseFenError::Turn(other.to_string())),
        };
        let castling = parse_castling(variant, fields[2])?;
        pos.ep_square = parse_en_passant(variant, fields[3])?;
        if let Some(field) = fields.get(4) {
            pos.halfmoves = field.parse().map_err(|_| ParseFenError::HalfmoveClock(field.to_string()))?;
        }
        if let Some(field) = fields.get(5) {
            // Some tools write 0 before the first move; accept it as python-chess does.
            pos.fullmoves = field.parse().map_err(|_| ParseFenError::FullmoveNumber(field.to_string()))?;
        }

        validate_material(&pos)?;
        pos.castling = validate_castling(&pos, &castling)?;
        if let Some(ep) = pos.ep_square {
            validate_en_passant(&pos, ep)?;
        }
        let them = !pos.turn;
        if let Some(king) = pos.king(them) {
            if pos.attackers(king, pos.turn, pos.occupied()).any() {
                return Err(PositionError::OppositeCheck(them).into());
            }
        }
        pos.hash = pos.compute_hash();
        pos.checkers = pos.compute_checkers();
        Ok(pos)
    }

    /// The position as FEN (six fields).
    pub fn fen(&self) -> String {
        let size = self.variant.size();
        let mut out = String::with_capacity(90);
        for rank in (0..size).rev() {
            let mut empty = 0;
            for file in 0..size {
                match Square::from_coords(file, rank).and_then(|sq| self.piece_at(sq)) {
                    Some(piece) => {
                        if empty > 0 {
                            out.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        out.push(piece.char());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                out.push(char::from(b'0' + empty));
            }
            if rank > 0 {
                out.push('/');
            }
        }
        out.push(' ');
        out.push(self.turn.fen_char());
        out.push(' ');
        out.push_str(&self.castling_field(false));
        out.push(' ');
        match self.ep_square {
            Some(ep) => out.push_str(&ep.to_string()),
            None => out.push('-'),
        }
        out.push_str(&format!(" {} {}", self.halfmoves, self.fullmoves));
        out
    }

    /// The position as Shredder-FEN: castling rights by their rooks' files (`HAha`) whatever
    /// the variant, as some Chess960 tools want them.
    pub fn shredder_fen(&self) -> String {
        let mut fields: Vec<String> = self.fen().split(' ').map(str::to_string).collect();
        fields[2] = self.castling_field(true);
        fields.join(" ")
    }

    /// The castling field: White's rights then Black's, the h-side first. A right is `K`/`Q`
    /// (X-FEN) when its rook is the outermost on that side of the king, as always in standard
    /// chess, else the rook's file; `files` writes every right as its file (Shredder-FEN).
    fn castling_field(&self, files: bool) -> String {
        let mut field = String::new();
        for color in Color::ALL {
            let Some(king) = self.king(color) else { continue };
            let rights = self.castling & self.by_color(color);
            for kingside in [true, false] {
                let Some(rook) = rights.into_iter().find(|r| (r.file() > king.file()) == kingside) else { continue };
                let letter = if !files && outermost_rook(self, color, king, kingside) == Some(rook) {
                    if kingside {
                        'k'
                    } else {
                        'q'
                    }
                } else {
                    char::from(b'a' + rook.file())
                };
                field.push(if color == Color::White { letter.to_ascii_uppercase() } else { letter });
            }
        }
        if field.is_empty() {
            field.push('-');
        }
        field
    }
}

/// `color`'s rook on its back rank farthest from `king` on the given side, the one `K`/`Q` name.
fn outermost_rook(pos: &Position, color: Color, king: Square, kingside: bool) -> Option<Square> {
    let rooks = pos.pieces(color, Role::Rook) & pos.variant.back_rank(color);
    let on_side = rooks.into_iter().filter(|r| (r.file() > king.file()) == kingside);
    if kingside {
        on_side.max_by_key(|r| r.file())
    } else {
        on_side.min_by_key(|r| r.file())
    }
}

fn parse_board(pos: &mut Position, field: &str) -> Result<(), BoardError> {
    let size = pos.variant.size();
    let ranks: Vec<&str> = field.split('/').collect();
    if ranks.len() != usize::from(size) {
        return Err(BoardError::RankCount { found: ranks.len(), expected: size });
    }
    for (i, text) in ranks.iter().enumerate() {
        let rank = size - 1 - i as u8;
        let mut file = 0usize;
        for c in text.chars() {
            if let Some(skip) = c.to_digit(10).filter(|d| (1..=9).contains(d)) {
                file += skip as usize;
                continue;
            }
            let piece = Piece::from_char(c).ok_or(BoardError::UnknownPiece(c))?;
            if pos.variant.fide_rules() && matches!(piece.role, Role::Empress | Role::Princess | Role::Ferz) {
                return Err(BoardError::PieceNotInVariant(c, piece.role.name(), pos.variant));
            }
            if let Some(sq) = Square::from_coords(file as u8, rank).filter(|_| file < usize::from(size)) {
                pos.put(piece, sq);
            }
            file += 1;
        }
        if file != usize::from(size) {
            return Err(BoardError::RankLength { rank: rank + 1, found: file, expected: size });
        }
    }
    Ok(())
}

/// A castling right as the FEN writes it: its letter, whose it is, and which rook it names.
#[derive(Clone, Copy)]
struct RightName {
    letter: char,
    color: Color,
    rook: RookName,
}

#[derive(Clone, Copy)]
enum RookName {
    /// `K`/`Q` (X-FEN): the outermost rook on that side of the king.
    Side { kingside: bool },
    /// `A`–`H` (Shredder-FEN, and X-FEN for an inner rook): the rook on that file.
    File(u8),
}

/// The rights named in the field, checked for form; which rooks they mean needs the board.
fn parse_castling(variant: Variant, field: &str) -> Result<Vec<RightName>, ParseFenError> {
    let err = |reason| ParseFenError::Castling { found: field.to_string(), reason };
    if field == "-" {
        return Ok(Vec::new());
    }
    if !variant.has_castling() {
        return Err(err("minichess7 has no castling; use -"));
    }
    let mut names: Vec<RightName> = Vec::new();
    for letter in field.chars() {
        let color = if letter.is_ascii_uppercase() { Color::White } else { Color::Black };
        let rook = match letter.to_ascii_lowercase() {
            'k' => RookName::Side { kingside: true },
            'q' => RookName::Side { kingside: false },
            f @ 'a'..='h' => RookName::File(f as u8 - b'a'),
            _ => return Err(err("expected - or some of KQkq, or rook files such as HAha")),
        };
        if names.iter().any(|n| n.letter == letter) {
            return Err(err("a right is repeated"));
        }
        names.push(RightName { letter, color, rook });
    }
    Ok(names)
}

/// The rooks the named rights belong to. Standard chess castles only from the king on e1/e8
/// with the corner rooks; Chess960 from the king anywhere on its back rank with a rook on the
/// same rank, one a side.
fn validate_castling(pos: &Position, names: &[RightName]) -> Result<Bitboard, PositionError> {
    let mut rooks = Bitboard::EMPTY;
    for name in names {
        let (color, back) = (name.color, pos.variant.back_rank(name.color));
        let needs = |what: String| PositionError::CastlingRight { right: name.letter, needs: what };
        let standard = !pos.variant.king_takes_rook();
        let king = pos.king(color).filter(|&k| back.contains(k) && (!standard || k.file() == 4));
        let Some(king) = king else {
            let home = if standard { sq(4, back_rank_index(color)).to_string() } else { "its back rank".into() };
            return Err(needs(format!("the {color} king on {home}")));
        };
        let rook = match name.rook {
            RookName::Side { kingside } => outermost_rook(pos, color, king, kingside)
                .filter(|r| !standard || r.file() == if kingside { 7 } else { 0 })
                .ok_or_else(|| match standard {
                    true => needs(format!("a {color} rook on {}", sq(if kingside { 7 } else { 0 }, king.rank()))),
                    false => {
                        needs(format!("a {color} rook on the {} side of the king", if kingside { "h" } else { "a" }))
                    }
                })?,
            RookName::File(file) => {
                let rook = sq(file, king.rank());
                let corner = file == 0 || file == 7;
                if !pos.pieces(color, Role::Rook).contains(rook) || rook == king || (standard && !corner) {
                    return Err(needs(format!("a {color} rook on {rook}")));
                }
                rook
            }
        };
        let same_side = |r: Square| r.rank() == rook.rank() && (r.file() > king.file()) == (rook.file() > king.file());
        if rooks.into_iter().any(same_side) {
            return Err(PositionError::CastlingSideTwice { right: name.letter, color });
        }
        rooks = rooks.with(rook);
    }
    Ok(rooks)
}

fn back_rank_index(color: Color) -> u8 {
    color.fold(0, 7)
}

const fn sq(file: u8, rank: u8) -> Square {
    Square::new_unchecked(rank * 8 + file)
}

fn parse_en_passant(variant: Variant, field: &str) -> Result<Option<Square>, ParseFenError> {
    if field == "-" {
        return Ok(None);
    }
    let err = |reason: &str| ParseFenError::EnPassant { found: field.to_string(), reason: reason.to_string() };
    if !variant.has_double_step() {
        return Err(err("minichess7 has no en passant; use -"));
    }
    field.parse::<Square>().map(Some).map_err(|_| err("expected - or a square such as e3"))
}

/// The same limits as python-chess: a king each, at most 16 pieces and 8 pawns a side, pawns
/// where pawns can stand. Extra queens and the like are allowed, as after promotions (or in a
/// composed minichess7 study).
fn validate_material(pos: &Position) -> Result<(), PositionError> {
    let variant = pos.variant;
    for color in Color::ALL {
        let count = |role| pos.pieces(color, role).count();
        match count(Role::King) {
            0 => return Err(PositionError::MissingKing(color)),
            1 => {}
            _ => return Err(PositionError::TooManyKings(color)),
        }
        let total = pos.by_color(color).count();
        if total > 16 {
            return Err(PositionError::TooManyPieces { color, count: total });
        }
        let pawns = count(Role::Pawn);
        if pawns > 8 {
            return Err(PositionError::TooManyPawns { color, count: pawns, max: 8 });
        }
        // A pawn can never stand on its own back rank; in standard chess it cannot stay on the last one either.
        let mut forbidden = variant.back_rank(color);
        if variant.has_promotion() {
            forbidden |= variant.promotion_rank(color);
        }
        if let Some(sq) = (pos.pieces(color, Role::Pawn) & forbidden).first() {
            return Err(PositionError::PawnOnBackRank(sq));
        }
    }
    Ok(())
}

fn validate_en_passant(pos: &Position, ep: Square) -> Result<(), ParseFenError> {
    let err = |reason: String| ParseFenError::EnPassant { found: ep.to_string(), reason };
    let (rank, dir) = match pos.turn {
        Color::White => (5, 8),
        Color::Black => (2, -8),
    };
    if ep.rank() != rank {
        return Err(err(format!("with {} to move it must be on rank {}", pos.turn, rank + 1)));
    }
    let pawn = ep.offset(-dir);
    let origin = ep.offset(dir);
    let double_stepped = pawn.is_some_and(|p| pos.pieces(!pos.turn, Role::Pawn).contains(p));
    let clear = !pos.occupied().contains(ep) && origin.is_some_and(|o| !pos.occupied().contains(o));
    if !double_stepped || !clear {
        return Err(err(format!("no {} pawn can just have stepped two squares past {ep}", !pos.turn)));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initial_positions_round_trip() {
        for variant in Variant::ALL {
            let pos = Position::new(variant);
            assert_eq!(pos.fen(), variant.initial_fen());
        }
    }

    #[test]
    fn shredder_fen_names_the_same_rights() {
        let start = Position::new(Variant::Standard);
        let shredder =
            Position::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1", Variant::Standard);
        assert_eq!(shredder, Ok(start));
        assert_eq!(start.shredder_fen(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1");
        // In Chess960 an inner rook is named by its file, the outermost by K/Q.
        let inner = Position::from_fen("1r2k1rr/8/8/8/8/8/8/RR2K2R w BHgb - 0 1", Variant::Chess960).unwrap();
        assert_eq!(inner.fen(), "1r2k1rr/8/8/8/8/8/8/RR2K2R w KBgq - 0 1");
        let twice = Position::from_fen("4k3/8/8/8/8/8/8/RR2K3 w QB - 0 1", Variant::Chess960);
        assert!(matches!(twice, Err(ParseFenError::Position(PositionError::CastlingSideTwice { right: 'B', .. }))));
    }

    #[test]
    fn clocks_may_be_left_out() {
        let pos = Position::from_fen("4k3/8/8/8/8/8/8/4K3 b - -", Variant::Standard).unwrap();
        assert_eq!(pos.fen(), "4k3/8/8/8/8/8/8/4K3 b - - 0 1");
    }
}
