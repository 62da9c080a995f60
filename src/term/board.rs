//! Drawing a board as plain text: Unicode pieces, file letters and rank numbers, the last move
//! in brackets and a king in check in parentheses, from either side.

use crate::chess::{Color, Piece, Position, Role, Square};

/// What to mark on the board besides the pieces.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Marks {
    /// The from- and to-square of the last move, drawn as `[♘]`.
    pub last_move: Option<(Square, Square)>,
    /// The square of a king in check, drawn as `(♔)`.
    pub check: Option<Square>,
}

/// The character for a piece: the Unicode chess symbols for the six standard pieces, and for the
/// fairy pieces of minichess7 their FEN letters (uppercase White, lowercase Black). The Unicode
/// fairy symbols (U+1FA00 block) are missing from most terminal fonts, so letters are the safe
/// choice; `help` explains them.
pub fn glyph(piece: Piece) -> char {
    match (piece.color, piece.role) {
        (Color::White, Role::King) => '♔',
        (Color::White, Role::Queen) => '♕',
        (Color::White, Role::Rook) => '♖',
        (Color::White, Role::Bishop) => '♗',
        (Color::White, Role::Knight) => '♘',
        (Color::White, Role::Pawn) => '♙',
        (Color::Black, Role::King) => '♚',
        (Color::Black, Role::Queen) => '♛',
        (Color::Black, Role::Rook) => '♜',
        (Color::Black, Role::Bishop) => '♝',
        (Color::Black, Role::Knight) => '♞',
        (Color::Black, Role::Pawn) => '♟',
        (_, Role::Empress | Role::Princess | Role::Ferz) => piece.char(),
    }
}

/// Empty squares are a middle dot, so the grid stays readable without colours.
const EMPTY: char = '·';

/// The board of `pos` as text lines, with `bottom`'s side nearest the reader. Every square is
/// three columns wide, so the marks fit around a piece without shifting the grid.
pub fn render(pos: &Position, bottom: Color, marks: Marks) -> String {
    let size = pos.variant().size();
    let files: Vec<u8> = match bottom {
        Color::White => (0..size).collect(),
        Color::Black => (0..size).rev().collect(),
    };
    let ranks: Vec<u8> = match bottom {
        Color::White => (0..size).rev().collect(),
        Color::Black => (0..size).collect(),
    };
    let letters: String = files.iter().map(|&f| format!(" {} ", char::from(b'a' + f))).collect();
    let letters = format!("   {}\n", letters.trim_end());
    let mut out = letters.clone();
    for &rank in &ranks {
        let label = rank + 1;
        out.push_str(&format!("{label:>2} "));
        for &file in &files {
            let Some(sq) = Square::from_coords(file, rank) else { continue };
            let piece = pos.piece_at(sq).map_or(EMPTY, glyph);
            let (open, close) = if marks.check == Some(sq) {
                ('(', ')')
            } else if marks.last_move.is_some_and(|(from, to)| sq == from || sq == to) {
                ('[', ']')
            } else {
                (' ', ' ')
            };
            out.push(open);
            out.push(piece);
            out.push(close);
        }
        out.push_str(&format!(" {label}\n"));
    }
    out.push_str(&letters);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::{Game, Variant};

    fn sq(name: &str) -> Square {
        name.parse().unwrap()
    }

    #[test]
    fn initial_standard_board_from_white() {
        let pos = Position::new(Variant::Standard);
        let text = render(&pos, Color::White, Marks::default());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 10);
        assert_eq!(lines[0], "    a  b  c  d  e  f  g  h");
        assert_eq!(lines[1], " 8  ♜  ♞  ♝  ♛  ♚  ♝  ♞  ♜  8");
        assert_eq!(lines[2], " 7  ♟  ♟  ♟  ♟  ♟  ♟  ♟  ♟  7");
        assert_eq!(lines[5], " 4  ·  ·  ·  ·  ·  ·  ·  ·  4");
        assert_eq!(lines[8], " 1  ♖  ♘  ♗  ♕  ♔  ♗  ♘  ♖  1");
        assert_eq!(lines[9], lines[0]);
    }

    #[test]
    fn black_at_the_bottom_reverses_files_and_ranks() {
        let pos = Position::new(Variant::Standard);
        let text = render(&pos, Color::Black, Marks::default());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "    h  g  f  e  d  c  b  a");
        assert_eq!(lines[1], " 1  ♖  ♘  ♗  ♔  ♕  ♗  ♘  ♖  1");
        assert_eq!(lines[8], " 8  ♜  ♞  ♝  ♚  ♛  ♝  ♞  ♜  8");
    }

    #[test]
    fn last_move_in_brackets_and_check_in_parentheses() {
        let mut game = Game::new(Variant::Standard);
        for san in ["e4", "f5", "Qh5+"] {
            game.play_san(san).unwrap();
        }
        let pos = game.position();
        let marks = Marks { last_move: Some((sq("d1"), sq("h5"))), check: pos.king(Color::Black) };
        let text = render(pos, Color::White, marks);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1], " 8  ♜  ♞  ♝  ♛ (♚) ♝  ♞  ♜  8");
        assert_eq!(lines[4], " 5  ·  ·  ·  ·  ·  ♟  · [♕] 5");
        assert_eq!(lines[8], " 1  ♖  ♘  ♗ [·] ♔  ♗  ♘  ♖  1");
    }

    #[test]
    fn minichess_is_seven_by_seven_with_letters_for_fairy_pieces() {
        let pos = Position::new(Variant::Minichess7);
        let text = render(&pos, Color::White, Marks::default());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 9);
        assert_eq!(lines[0], "    a  b  c  d  e  f  g");
        assert_eq!(lines[1], " 7  ♞  ♝  ♛  ♚  a  c  ♜  7");
        assert_eq!(lines[2], " 6  f  ♟  ♟  ♟  ♟  ♟  f  6");
        assert_eq!(lines[6], " 2  F  ♙  ♙  ♙  ♙  ♙  F  2");
        assert_eq!(lines[7], " 1  ♘  ♗  ♕  ♔  A  C  ♖  1");
        let flipped = render(&pos, Color::Black, Marks::default());
        assert_eq!(flipped.lines().nth(1), Some(" 1  ♖  C  A  ♔  ♕  ♗  ♘  1"));
    }

    #[test]
    fn minichess_marks() {
        let mut game = Game::new(Variant::Minichess7);
        game.play_uci("c2c3").unwrap();
        let marks = Marks { last_move: Some((sq("c2"), sq("c3"))), check: None };
        let text = render(game.position(), Color::White, marks);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[5], " 3  ·  · [♙] ·  ·  ·  ·  3");
        assert_eq!(lines[6], " 2  F  ♙ [·] ♙  ♙  ♙  F  2");
    }
}
