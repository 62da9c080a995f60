//! Squares of the 8x8 board. The 7x7 board of minichess7 uses files a–g and ranks 1–7 of the same grid.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// One of the 64 squares, a1 = 0, b1 = 1, …, h8 = 63.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Square(u8);

/// A square name that does not parse, such as `i9` or `e`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{0:?} is not a square (expected a file a–h and a rank 1–8, like e4)")]
pub struct ParseSquareError(pub String);

impl Square {
    /// The square with this index, if it is below 64.
    pub const fn from_index(index: u8) -> Option<Square> {
        if index < 64 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// The square on `file` (0 = a) and `rank` (0 = rank 1), if both are below 8.
    pub const fn from_coords(file: u8, rank: u8) -> Option<Square> {
        if file < 8 && rank < 8 {
            Some(Square(rank * 8 + file))
        } else {
            None
        }
    }

    /// Callers guarantee `index < 64` (bit scans of a `u64` always satisfy it).
    pub(crate) const fn new_unchecked(index: u8) -> Square {
        debug_assert!(index < 64);
        Square(index & 63)
    }

    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// 0 for the a-file … 7 for the h-file.
    pub const fn file(self) -> u8 {
        self.0 & 7
    }

    /// 0 for rank 1 … 7 for rank 8.
    pub const fn rank(self) -> u8 {
        self.0 >> 3
    }

    /// The square `delta` steps away in index order (8 = one rank up), if on the 8x8 grid.
    /// Only used for vertical steps, where index arithmetic cannot wrap around a file.
    pub const fn offset(self, delta: i8) -> Option<Square> {
        let i = self.0 as i8 + delta;
        if i >= 0 && i < 64 {
            Some(Square(i as u8))
        } else {
            None
        }
    }

    /// True for the dark squares (a1 is dark).
    pub const fn is_dark(self) -> bool {
        (self.file() + self.rank()).is_multiple_of(2)
    }

    /// Every square, a1 first.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..64).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, (b'1' + self.rank()) as char)
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl FromStr for Square {
    type Err = ParseSquareError;

    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        match s.as_bytes() {
            [f @ b'a'..=b'h', r @ b'1'..=b'8'] => Ok(Square((r - b'1') * 8 + (f - b'a'))),
            _ => Err(ParseSquareError(s.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for sq in Square::all() {
            assert_eq!(sq.to_string().parse::<Square>(), Ok(sq));
        }
        assert_eq!("e4".parse::<Square>().map(|s| (s.file(), s.rank())), Ok((4, 3)));
        for bad in ["", "e", "e9", "i1", "e44", "E4", "4e"] {
            assert!(bad.parse::<Square>().is_err(), "{bad}");
        }
    }
}
