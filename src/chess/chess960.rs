//! The 960 starting positions of Chess960, by their standard numbers 0–959 (Scharnagl's
//! scheme, which lichess and python-chess use: 518 is the standard position).

use std::fmt;
use std::str::FromStr;

use rand::Rng;
use thiserror::Error;

use super::piece::Role;

/// One of the 960 starting positions, by number.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct StartPosition(u16);

/// A number that names no Chess960 starting position.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{0:?} is not a Chess960 position number (expected 0 to 959)")]
pub struct ParseStartError(pub String);

/// The two knights' places among the five squares left once bishops and queen stand, for
/// each of the ten values of the knights' digit.
const KNIGHTS: [(usize, usize); 10] = [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)];

impl StartPosition {
    pub const COUNT: u16 = 960;
    /// The standard starting position.
    pub const STANDARD: StartPosition = StartPosition(518);

    pub const fn new(number: u16) -> Option<StartPosition> {
        if number < StartPosition::COUNT {
            Some(StartPosition(number))
        } else {
            None
        }
    }

    /// A position drawn uniformly from the 960.
    pub fn random(rng: &mut impl Rng) -> StartPosition {
        StartPosition(rng.random_range(0..StartPosition::COUNT))
    }

    pub const fn number(self) -> u16 {
        self.0
    }

    /// White's back rank from the a-file to the h-file; Black's mirrors it.
    pub fn back_rank(self) -> [Role; 8] {
        let mut rank: [Option<Role>; 8] = [None; 8];
        let mut n = usize::from(self.0);
        // The light-squared bishop on b, d, f or h; the dark-squared one on a, c, e or g.
        rank[2 * (n % 4) + 1] = Some(Role::Bishop);
        n /= 4;
        rank[2 * (n % 4)] = Some(Role::Bishop);
        n /= 4;
        // The queen on the (n % 6)th free square, then the knights by the table.
        let free = |rank: &[Option<Role>; 8]| (0..8).filter(|&f| rank[f].is_none()).collect::<Vec<usize>>();
        let queen = free(&rank)[n % 6];
        rank[queen] = Some(Role::Queen);
        n /= 6;
        let squares = free(&rank);
        let (a, b) = KNIGHTS[n];
        rank[squares[a]] = Some(Role::Knight);
        rank[squares[b]] = Some(Role::Knight);
        // Rook, king, rook on the three squares left, in that order.
        for (file, role) in free(&rank).into_iter().zip([Role::Rook, Role::King, Role::Rook]) {
            rank[file] = Some(role);
        }
        rank.map(|r| r.unwrap_or(Role::Rook)) // every square was filled above
    }

    /// The position as FEN, castling rights written the X-FEN way (`KQkq`).
    pub fn fen(self) -> String {
        let white: String = self.back_rank().iter().map(|r| r.char().to_ascii_uppercase()).collect();
        let black = white.to_ascii_lowercase();
        format!("{black}/pppppppp/8/8/8/8/PPPPPPPP/{white} w KQkq - 0 1")
    }

    /// The number of a FEN's starting position, if its board is one of the 960 with both sides
    /// untouched (used to name a game's start, e.g. in PGN and on the API).
    pub fn of_board(fen: &str) -> Option<StartPosition> {
        let board = fen.split_whitespace().next()?;
        (0..StartPosition::COUNT).map(StartPosition).find(|p| p.fen().split_whitespace().next() == Some(board))
    }
}

impl fmt::Display for StartPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl FromStr for StartPosition {
    type Err = ParseStartError;

    fn from_str(s: &str) -> Result<StartPosition, ParseStartError> {
        s.trim().parse::<u16>().ok().and_then(StartPosition::new).ok_or_else(|| ParseStartError(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_name_the_published_positions() {
        // Numbers and back ranks from python-chess's chess.Board.from_chess960_pos.
        let known = [(0, "BBQNNRKR"), (1, "BQNBNRKR"), (518, "RNBQKBNR"), (534, "RNBKQBNR"), (959, "RKRNNQBB")];
        for (n, rank) in known {
            let pos = StartPosition::new(n).unwrap();
            let got: String = pos.back_rank().iter().map(|r| r.char().to_ascii_uppercase()).collect();
            assert_eq!(got, rank, "position {n}");
        }
        assert_eq!(StartPosition::STANDARD.fen(), crate::chess::Variant::Standard.initial_fen());
    }

    #[test]
    fn every_position_is_distinct_and_lawful() {
        let mut seen = std::collections::HashSet::new();
        for n in 0..StartPosition::COUNT {
            let rank = StartPosition(n).back_rank();
            assert!(seen.insert(rank), "position {n} repeats");
            let files = |role| (0..8).filter(|&f| rank[f] == role).collect::<Vec<_>>();
            let bishops = files(Role::Bishop);
            assert_eq!(bishops.len(), 2);
            assert_ne!(bishops[0] % 2, bishops[1] % 2, "position {n}: bishops on one colour");
            let (rooks, king) = (files(Role::Rook), files(Role::King));
            assert!(rooks[0] < king[0] && king[0] < rooks[1], "position {n}: king not between the rooks");
            assert_eq!(StartPosition::of_board(&StartPosition(n).fen()), Some(StartPosition(n)));
        }
    }

    #[test]
    fn parses_numbers_only_in_range() {
        assert_eq!("518".parse::<StartPosition>(), Ok(StartPosition::STANDARD));
        for bad in ["960", "-1", "x", ""] {
            assert!(bad.parse::<StartPosition>().is_err(), "{bad}");
        }
    }
}
