//! Variants and the rule options chosen when a game is created (see docs/rules.md).

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use super::bitboard::Bitboard;
use super::piece::Color;

/// The games gambit plays.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum Variant {
    /// FIDE chess on the 8x8 board.
    #[default]
    Standard,
    /// 7x7 chess with empress, princess and ferz; no castling, en passant, double step or promotion.
    Minichess7,
    /// Fischer random chess: FIDE chess from one of 960 shuffled back ranks (see chess960.rs),
    /// castling with the king and rook on any files, written as the king taking its own rook.
    Chess960,
}

/// A variant name that is not one of ours.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown variant {0:?} (expected standard, chess960 or minichess7)")]
pub struct ParseVariantError(pub String);

/// The squares a–g × 1–7.
const BOARD_7X7: Bitboard = Bitboard(0x007f_7f7f_7f7f_7f7f);

impl Variant {
    pub const ALL: [Variant; 3] = [Variant::Standard, Variant::Minichess7, Variant::Chess960];

    pub const fn name(self) -> &'static str {
        match self {
            Variant::Standard => "standard",
            Variant::Minichess7 => "minichess7",
            Variant::Chess960 => "chess960",
        }
    }

    /// The name PGN's `Variant` tag carries (lichess's and python-chess's spelling).
    pub const fn pgn_name(self) -> &'static str {
        match self {
            Variant::Standard => "Standard",
            Variant::Minichess7 => "minichess7",
            Variant::Chess960 => "Chess960",
        }
    }

    /// The FIDE laws of play: standard chess and Chess960, which differ only in where the
    /// pieces start and how castling is written. Minichess7 has rules of its own.
    pub const fn fide_rules(self) -> bool {
        !matches!(self, Variant::Minichess7)
    }

    /// Files and ranks on the board: 8 or 7.
    pub const fn size(self) -> u8 {
        match self {
            Variant::Standard | Variant::Chess960 => 8,
            Variant::Minichess7 => 7,
        }
    }

    /// The squares that exist in this variant.
    pub const fn board(self) -> Bitboard {
        match self {
            Variant::Standard | Variant::Chess960 => Bitboard::FULL,
            Variant::Minichess7 => BOARD_7X7,
        }
    }

    /// The variant's starting position. Chess960 has 960; this is its number 518, the standard
    /// one, and games pick theirs when they are made (chess960.rs).
    pub const fn initial_fen(self) -> &'static str {
        match self {
            Variant::Standard | Variant::Chess960 => "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            Variant::Minichess7 => "nbqkacr/fpppppf/7/7/7/FPPPPPF/NBQKACR w - - 0 1",
        }
    }

    /// Castling is written as the king taking its own rook (`e1h1`), as UCI_Chess960 does,
    /// rather than as the king's two-square step (`e1g1`).
    pub const fn king_takes_rook(self) -> bool {
        matches!(self, Variant::Chess960)
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
        self.fide_rules()
    }

    /// Pawns may step two squares from their starting rank (and so en passant exists).
    pub const fn has_double_step(self) -> bool {
        self.fide_rules()
    }

    pub const fn has_castling(self) -> bool {
        self.fide_rules()
    }

    /// Standard chess resets the fifty-move counter on pawn moves too; minichess7 only on captures.
    pub const fn pawn_move_resets_clock(self) -> bool {
        self.fide_rules()
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
        assert_eq!("chess960".parse::<Variant>(), Ok(Variant::Chess960));
        assert!("atomic".parse::<Variant>().is_err());
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
