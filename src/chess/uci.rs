//! UCI move notation: `e2e4`, `e7e8q`, null move `0000`; castling as the king's two-square move
//! `e1g1` in standard chess and as the king taking its own rook (`UCI_Chess960`) in Chess960.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use super::moves::Move;
use super::piece::{Color, Role};
use super::position::Position;
use super::square::Square;

/// A move as written in UCI, before it is checked against a position.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum UciMove {
    Normal {
        from: Square,
        to: Square,
        promotion: Option<Role>,
    },
    /// `0000`: "no move", used by engines when there is none. Never legal to play.
    Null,
}

/// Text that is not UCI move notation at all.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{text:?} is not a move in UCI notation ({reason}); write moves like e2e4, or e7e8q to promote")]
pub struct ParseUciError {
    pub text: String,
    pub reason: &'static str,
}

/// A well-formed move that cannot be played in the position at hand.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum IllegalMoveError {
    #[error("the null move 0000 cannot be played")]
    NullMove,
    #[error("{0} is not on the board of this variant")]
    OffBoard(Square),
    #[error("there is no piece on {0}")]
    NoPiece(Square),
    #[error("the piece on {square} is {owner}'s, and it is {turn}'s move")]
    NotYourPiece { square: Square, owner: Color, turn: Color },
    #[error("{0} needs a promotion piece, e.g. {0}q")]
    MissingPromotion(Move),
    #[error("{0} is not a legal move in this position")]
    Illegal(Move),
}

impl FromStr for UciMove {
    type Err = ParseUciError;

    fn from_str(text: &str) -> Result<UciMove, ParseUciError> {
        let err = |reason| ParseUciError { text: text.to_string(), reason };
        if text == "0000" {
            return Ok(UciMove::Null);
        }
        if !text.is_ascii() {
            return Err(err("unexpected characters"));
        }
        if text.len() != 4 && text.len() != 5 {
            return Err(err("expected 4 or 5 characters"));
        }
        let from = text[0..2].parse().map_err(|_| err("bad from-square"))?;
        let to = text[2..4].parse().map_err(|_| err("bad to-square"))?;
        let promotion = match text.as_bytes().get(4) {
            None => None,
            Some(&c) => match Role::from_char(c as char) {
                Some(role @ (Role::Queen | Role::Rook | Role::Bishop | Role::Knight)) if c.is_ascii_lowercase() => {
                    Some(role)
                }
                _ => return Err(err("the promotion piece must be one of q, r, b, n")),
            },
        };
        if from == to {
            return Err(err("from- and to-square are the same"));
        }
        Ok(UciMove::Normal { from, to, promotion })
    }
}

impl fmt::Display for UciMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UciMove::Normal { from, to, promotion } => Move { from: *from, to: *to, promotion: *promotion }.fmt(f),
            UciMove::Null => f.write_str("0000"),
        }
    }
}

impl UciMove {
    /// The legal move this notation stands for in `pos`, or why there is none.
    pub fn to_move(self, pos: &Position) -> Result<Move, IllegalMoveError> {
        let UciMove::Normal { from, to, promotion } = self else {
            return Err(IllegalMoveError::NullMove);
        };
        let m = Move { from, to, promotion };
        let board = pos.variant().board();
        for sq in [from, to] {
            if !board.contains(sq) {
                return Err(IllegalMoveError::OffBoard(sq));
            }
        }
        let piece = pos.piece_at(from).ok_or(IllegalMoveError::NoPiece(from))?;
        if piece.color != pos.turn() {
            return Err(IllegalMoveError::NotYourPiece { square: from, owner: piece.color, turn: pos.turn() });
        }
        if pos.is_legal(m) {
            return Ok(m);
        }
        if let Some(castle) = castling_alias(pos, m).filter(|&c| pos.is_legal(c)) {
            return Ok(castle);
        }
        if promotion.is_none() && pos.is_legal(Move::with_promotion(from, to, Role::Queen)) {
            return Err(IllegalMoveError::MissingPromotion(m));
        }
        Err(IllegalMoveError::Illegal(m))
    }
}

/// The other way of writing a castling move, which each variant also accepts: in standard
/// chess the king onto its own rook (`e1h1`, as a board lets one castle and lichess's API
/// accepts); in Chess960 the king's two-square step from e1/e8 towards its corner rook (`e1g1`,
/// as programs that know only standard chess write it, and python-chess reads it).
fn castling_alias(pos: &Position, m: Move) -> Option<Move> {
    if m.promotion.is_some() || pos.king(pos.turn()) != Some(m.from) || m.from.rank() != m.to.rank() {
        return None;
    }
    let kingside = m.to.file() > m.from.file();
    if pos.variant().king_takes_rook() {
        let corner = Square::from_coords(if kingside { 7 } else { 0 }, m.from.rank())?;
        (m.from.file() == 4 && m.from.file().abs_diff(m.to.file()) == 2).then_some(Move::new(m.from, corner))
    } else {
        let two = Square::from_coords(
            if kingside { m.from.file() + 2 } else { m.from.file().checked_sub(2)? },
            m.from.rank(),
        )?;
        pos.pieces(pos.turn(), Role::Rook).contains(m.to).then_some(Move::new(m.from, two))
    }
}

impl From<Move> for UciMove {
    fn from(m: Move) -> UciMove {
        UciMove::Normal { from: m.from, to: m.to, promotion: m.promotion }
    }
}

/// Either way a UCI move can fail: bad text or not legal here.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum UciError {
    #[error(transparent)]
    Parse(#[from] ParseUciError),
    #[error(transparent)]
    Illegal(#[from] IllegalMoveError),
}

impl Position {
    /// Parses a UCI move and checks that it is legal here.
    pub fn parse_uci(&self, text: &str) -> Result<Move, UciError> {
        Ok(text.parse::<UciMove>()?.to_move(self)?)
    }
}
