//! Variants and the rule options chosen when a game is created (see docs/rules.md).

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use super::bitboard::Bitboard;
use super::piece::Color;

/// The two games gambit plays.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum Variant {
    /// FIDE chess on the 8x8 board.
    #[default]
    Standard,
    /// 7x7 chess with empress, princess and ferz; no castling, en passant, double step or promotion.
    Minichess7,
}

/// A variant name that is not one of ours.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown variant {0:?} (expected standard or minichess7)")]
pub struct ParseVariantError(pub String);

/// The squares a–g × 1–7.
const BOARD_7X7: Bitboard = Bitboard(0x007f_7f7f_7f7f_7f7f);

impl Variant {
    pub const ALL: [Variant; 2] = [Variant::Standard, Variant::Minichess7];

    pub const fn name(self) -> &'static str {
        match self {
            Variant::Standard => "standard",
            Variant::Minichess7 => "minichess7",
        }
    }

    /// Files and ranks on the board: 8 or 7.
    pub const fn size(self) -> u8 {
        match self {
            Variant::Standard => 8,
            Variant::Minichess7 => 7,
        }
    }

    /// The squares that exist in this variant.
    pub const fn board(self) -> Bitboard {
        match self {
            Variant::Standard => Bitboard::FULL,
            Variant::Minichess7 => BOARD_7X7,
        }
    }

    /// The variant's starting position.
    pub const fn initial_fen(self) -> &'static str {
        match self {
            Variant::Standard => "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            Variant::Minichess7 => "nbqkacr/fpppppf/7/7/7/FPPPPPF/NBQKACR w - - 0 1",
        }
    }

    /// Index of the last rank (from White's side): 7 or 6.
    pub const fn last_rank_index(self) -> u8 {
        self.size() - 1
    }

    /// The rank where `color`'s pawns would promote (the far rank), as a set.
    pub const fn promotion_rank(self, color: Color) -> Bitboard {
        match color {
            Color::White => Bitboard(Bitboard::rank(self.last_rank_index()).0 & self.board().0),
            Color::Black => Bitboard(Bitboard::rank(0).0 & self.board().0),
        }
    }

    /// `color`'s own back rank.
    pub const fn back_rank(self, color: Color) -> Bitboard {
        match color {
            Color::White => Bitboard(Bitboard::rank(0).0 & self.board().0),
            Color::Black => Bitboard(Bitboard::rank(self.last_rank_index()).0 & self.board().0),
        }
    }

    /// Standard chess promotes; in minichess7 a pawn on the last rank stays a pawn and is stuck.
    pub const fn has_promotion(self) -> bool {
        matches!(self, Variant::Standard)
    }

    /// Pawns may step two squares from their starting rank (and so en passant exists).
    pub const fn has_double_step(self) -> bool {
        matches!(self, Variant::Standard)
    }

    pub const fn has_castling(self) -> bool {
        matches!(self, Variant::Standard)
    }

    /// Standard chess resets the fifty-move counter on pawn moves too; minichess7 only on captures.
    pub const fn pawn_move_resets_clock(self) -> bool {
        matches!(self, Variant::Standard)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Variant {
    type Err = ParseVariantError;

    fn from_str(s: &str) -> Result<Variant, ParseVariantError> {
        Variant::ALL.into_iter().find(|v| v.name() == s).ok_or_else(|| ParseVariantError(s.to_string()))
    }
}

/// Which repetition rule ends a game in a draw.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum Repetition {
    /// The same position (same side to move, same castling and en passant possibilities) for the third time.
    #[default]
    Threefold,
    /// The last 8 plies are two identical 4-ply cycles of from/to squares, none of them a capture,
    /// promotion or pawn move.
    EightMove,
}

impl Repetition {
    pub const fn name(self) -> &'static str {
        match self {
            Repetition::Threefold => "threefold",
            Repetition::EightMove => "eight_move",
        }
    }
}

impl FromStr for Repetition {
    type Err = ParseRepetitionError;

    fn from_str(s: &str) -> Result<Repetition, ParseRepetitionError> {
        match s {
            "threefold" => Ok(Repetition::Threefold),
            "eight_move" => Ok(Repetition::EightMove),
            _ => Err(ParseRepetitionError(s.to_string())),
        }
    }
}

/// A repetition rule name that is not one of ours.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown repetition rule {0:?} (expected threefold or eight_move)")]
pub struct ParseRepetitionError(pub String);

/// The options a game is created with. They only ever take rules away from a variant:
/// turning castling on in minichess7 changes nothing.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Rules {
    pub castling: bool,
    pub en_passant: bool,
    pub repetition: Repetition,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules { castling: true, en_passant: true, repetition: Repetition::Threefold }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse() {
        for v in Variant::ALL {
            assert_eq!(v.name().parse::<Variant>(), Ok(v));
        }
        assert!("chess960".parse::<Variant>().is_err());
        assert_eq!("eight_move".parse::<Repetition>(), Ok(Repetition::EightMove));
        assert!("fivefold".parse::<Repetition>().is_err());
    }

    #[test]
    fn board_masks() {
        assert_eq!(Variant::Minichess7.board().count(), 49);
        assert_eq!(Variant::Minichess7.promotion_rank(Color::White).count(), 7);
        assert!(Variant::Minichess7.promotion_rank(Color::White).contains("g7".parse().unwrap()));
        assert!(!Variant::Minichess7.board().contains("h1".parse().unwrap()));
    }
}
