//! Colours, piece kinds (`Role`) and pieces, including the 7x7 fairy pieces.

use std::fmt;
use std::ops::Not;

/// The side a piece belongs to, or the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Color {
    White = 0,
    Black = 1,
}

impl Color {
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// The colour named `"white"` or `"black"`.
    pub fn from_name(name: &str) -> Option<Color> {
        Color::ALL.into_iter().find(|c| c.name() == name)
    }

    pub const fn index(self) -> usize {
        self as usize
    }

    /// `"white"` or `"black"`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }

    /// The other colour (also `!color`).
    pub const fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// The FEN letter: `w` or `b`.
    pub const fn fen_char(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }

    /// Picks `white` for White and `black` for Black.
    pub fn fold<T>(self, white: T, black: T) -> T {
        match self {
            Color::White => white,
            Color::Black => black,
        }
    }
}

impl Not for Color {
    type Output = Color;
    #[inline]
    fn not(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One value for each colour (as shakmaty has it): the seats of a game, its clocks, anything
/// kept per side, read by colour instead of by index.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct ByColor<T> {
    pub white: T,
    pub black: T,
}

impl<T> ByColor<T> {
    /// The value of each colour, made by `f`.
    pub fn new_with(mut f: impl FnMut(Color) -> T) -> ByColor<T> {
        ByColor { white: f(Color::White), black: f(Color::Black) }
    }

    pub fn get(&self, color: Color) -> &T {
        match color {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }

    pub fn get_mut(&mut self, color: Color) -> &mut T {
        match color {
            Color::White => &mut self.white,
            Color::Black => &mut self.black,
        }
    }

    /// Each value changed by `f`.
    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> ByColor<U> {
        ByColor { white: f(self.white), black: f(self.black) }
    }

    /// References to both values.
    pub fn as_ref(&self) -> ByColor<&T> {
        ByColor { white: &self.white, black: &self.black }
    }

    /// The colours whose value passes `test`, White first.
    pub fn find(&self, mut test: impl FnMut(&T) -> bool) -> Option<Color> {
        Color::ALL.into_iter().find(|&c| test(self.get(c)))
    }

    /// Whether any value passes `test`.
    pub fn any(&self, mut test: impl FnMut(&T) -> bool) -> bool {
        test(&self.white) || test(&self.black)
    }

    /// Whether both values pass `test`.
    pub fn all(&self, mut test: impl FnMut(&T) -> bool) -> bool {
        test(&self.white) && test(&self.black)
    }
}

impl<T> std::ops::Index<Color> for ByColor<T> {
    type Output = T;
    fn index(&self, color: Color) -> &T {
        self.get(color)
    }
}

impl<T> std::ops::IndexMut<Color> for ByColor<T> {
    fn index_mut(&mut self, color: Color) -> &mut T {
        self.get_mut(color)
    }
}

/// A kind of piece. The last three exist only in minichess7.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Role {
    Pawn = 0,
    Knight,
    Bishop,
    Rook,
    Queen,
    King,
    /// Moves as a rook or a knight (the "chancellor"); FEN letter `c`.
    Empress,
    /// Moves as a bishop or a knight (the "archbishop"); FEN letter `a`.
    Princess,
    /// Steps one square diagonally; FEN letter `f`.
    Ferz,
}

impl Role {
    pub const COUNT: usize = 9;
    pub const ALL: [Role; Role::COUNT] = [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
        Role::Empress,
        Role::Princess,
        Role::Ferz,
    ];

    pub const fn index(self) -> usize {
        self as usize
    }

    /// The lowercase letter used in FEN, UCI promotions and (uppercased) SAN.
    pub const fn char(self) -> char {
        match self {
            Role::Pawn => 'p',
            Role::Knight => 'n',
            Role::Bishop => 'b',
            Role::Rook => 'r',
            Role::Queen => 'q',
            Role::King => 'k',
            Role::Empress => 'c',
            Role::Princess => 'a',
            Role::Ferz => 'f',
        }
    }

    /// The uppercase letter used in SAN (`N`, `C`, …).
    pub const fn upper_char(self) -> char {
        self.char().to_ascii_uppercase()
    }

    /// The role for a letter of either case.
    pub const fn from_char(c: char) -> Option<Role> {
        Some(match c.to_ascii_lowercase() {
            'p' => Role::Pawn,
            'n' => Role::Knight,
            'b' => Role::Bishop,
            'r' => Role::Rook,
            'q' => Role::Queen,
            'k' => Role::King,
            'c' => Role::Empress,
            'a' => Role::Princess,
            'f' => Role::Ferz,
            _ => return None,
        })
    }

    /// Lowercase English name.
    pub const fn name(self) -> &'static str {
        match self {
            Role::Pawn => "pawn",
            Role::Knight => "knight",
            Role::Bishop => "bishop",
            Role::Rook => "rook",
            Role::Queen => "queen",
            Role::King => "king",
            Role::Empress => "empress",
            Role::Princess => "princess",
            Role::Ferz => "ferz",
        }
    }
}

/// A piece: a colour and a role.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Piece {
    pub color: Color,
    pub role: Role,
}

impl Piece {
    pub const fn new(color: Color, role: Role) -> Piece {
        Piece { color, role }
    }

    /// The FEN letter: uppercase for White.
    pub const fn char(self) -> char {
        match self.color {
            Color::White => self.role.upper_char(),
            Color::Black => self.role.char(),
        }
    }

    /// The piece for a FEN letter (uppercase White, lowercase Black).
    pub const fn from_char(c: char) -> Option<Piece> {
        let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
        match Role::from_char(c) {
            Some(role) => Some(Piece { color, role }),
            None => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_round_trip() {
        for role in Role::ALL {
            for color in Color::ALL {
                let piece = Piece::new(color, role);
                assert_eq!(Piece::from_char(piece.char()), Some(piece));
            }
        }
        assert_eq!(Piece::from_char('x'), None);
        assert_eq!(Piece::from_char('C'), Some(Piece::new(Color::White, Role::Empress)));
    }
}
