//! Standard Algebraic Notation: `Nf3`, `exd6`, `O-O`, `e8=Q+`, `Qxf7#`, with the minimal
//! disambiguation. Parsing is forgiving in the usual ways (`0-0`, missing `x`, `+`, `!?`).

use thiserror::Error;

use super::moves::Move;
use super::piece::Role;
use super::position::Position;
use super::square::Square;

/// Why a SAN string does not name a legal move.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SanError {
    #[error("{0:?} is not a move in algebraic notation (e.g. e4, Nf3, exd5, O-O, e8=Q)")]
    Syntax(String),
    #[error("{0} is not a legal move in this position")]
    Illegal(String),
    #[error("{san} is ambiguous here: it could be {candidates}")]
    Ambiguous { san: String, candidates: String },
}

impl Position {
    /// The SAN of a legal move, with `+` or `#`.
    pub fn san(&self, m: Move) -> String {
        let mut san = self.san_without_suffix(m);
        let after = self.after(m);
        if after.is_check() {
            san.push(if after.has_legal_move() { '+' } else { '#' });
        }
        san
    }

    fn san_without_suffix(&self, m: Move) -> String {
        let Some(role) = self.role_at(m.from) else {
            return m.to_string();
        };
        if self.is_castling(m) {
            return if m.to.file() > m.from.file() { "O-O" } else { "O-O-O" }.to_string();
        }
        let capture = self.capture(m).is_some();
        let mut san = String::with_capacity(8);
        if role == Role::Pawn {
            if capture {
                san.push(file_char(m.from));
            }
        } else {
            san.push(role.upper_char());
            // Other pieces of the same kind that could also go to this square.
            let rivals: Vec<Square> = self
                .legal_moves()
                .iter()
                .filter(|o| o.to == m.to && o.from != m.from && self.role_at(o.from) == Some(role))
                .map(|o| o.from)
                .collect();
            if !rivals.is_empty() {
                if rivals.iter().all(|s| s.file() != m.from.file()) {
                    san.push(file_char(m.from));
                } else if rivals.iter().all(|s| s.rank() != m.from.rank()) {
                    san.push(rank_char(m.from));
                } else {
                    san.push(file_char(m.from));
                    san.push(rank_char(m.from));
                }
            }
        }
        if capture {
            san.push('x');
        }
        san.push_str(&m.to.to_string());
        if let Some(promo) = m.promotion {
            san.push('=');
            san.push(promo.upper_char());
        }
        san
    }

    /// The legal move a SAN string names.
    pub fn parse_san(&self, text: &str) -> Result<Move, SanError> {
        let pattern = SanPattern::parse(text).ok_or_else(|| SanError::Syntax(text.to_string()))?;
        let legal = self.legal_moves();
        let candidates: Vec<Move> = legal.iter().copied().filter(|&m| pattern.matches(self, m)).collect();
        match candidates.as_slice() {
            [m] => Ok(*m),
            [] => Err(SanError::Illegal(text.to_string())),
            many => Err(SanError::Ambiguous {
                san: text.to_string(),
                candidates: many.iter().map(|&m| self.san(m)).collect::<Vec<_>>().join(", "),
            }),
        }
    }
}

impl Position {
    /// The legal move SAN names, however it was capitalised (`nf3`, `EXD5`, `o-o`, `e8=q`): as
    /// written if that names a move; otherwise every reading of its letters as pieces or files,
    /// and the move if exactly one of them names one. `bc4` stays the pawn capture it is in SAN
    /// when that is legal; when only `Bc4` is, it is the bishop's move.
    pub fn parse_san_lenient(&self, text: &str) -> Result<Move, SanError> {
        let mut err = match self.parse_san(text) {
            Ok(mv) => return Ok(mv),
            Err(err @ SanError::Ambiguous { .. }) => return Err(err),
            Err(err) => err,
        };
        let lower = text.to_ascii_lowercase();
        let mut readings = vec![lower.replace('o', "O")];
        // A leading piece letter; and a promotion piece after the last digit.
        let mut piece = lower.clone();
        if let Some(first) = piece.get(..1).map(str::to_ascii_uppercase) {
            piece.replace_range(..1, &first);
        }
        readings.push(piece);
        let readings: Vec<String> = readings
            .into_iter()
            .flat_map(|r| {
                let promoted = match r.rfind(|c: char| c.is_ascii_digit()) {
                    Some(at) if at + 1 < r.len() => Some(format!("{}{}", &r[..=at], r[at + 1..].to_ascii_uppercase())),
                    _ => None,
                };
                std::iter::once(r).chain(promoted)
            })
            .collect();
        let mut found: Vec<Move> = Vec::new();
        for reading in &readings {
            match self.parse_san(reading) {
                Ok(mv) if !found.contains(&mv) => found.push(mv),
                Err(SanError::Ambiguous { .. }) => {
                    return Err(SanError::Ambiguous {
                        san: text.to_string(),
                        candidates: self.matching(reading).join(", "),
                    })
                }
                // A move, read so, but not a legal one: say that rather than "not a move".
                Err(SanError::Illegal(_)) => err = SanError::Illegal(text.to_string()),
                _ => {}
            }
        }
        match found.as_slice() {
            [mv] => Ok(*mv),
            [] => Err(err),
            many => Err(SanError::Ambiguous {
                san: text.to_string(),
                candidates: many.iter().map(|&m| self.san(m)).collect::<Vec<_>>().join(", "),
            }),
        }
    }

    /// The SAN of every legal move `text` could name.
    fn matching(&self, text: &str) -> Vec<String> {
        let Some(pattern) = SanPattern::parse(text) else { return Vec::new() };
        self.legal_moves().iter().copied().filter(|&m| pattern.matches(self, m)).map(|m| self.san(m)).collect()
    }
}

fn file_char(sq: Square) -> char {
    char::from(b'a' + sq.file())
}

fn rank_char(sq: Square) -> char {
    char::from(b'1' + sq.rank())
}

/// The parts a SAN string specifies; what it leaves out matches anything.
enum SanPattern {
    Castle { kingside: bool },
    Normal { role: Role, file: Option<u8>, rank: Option<u8>, to: Square, promotion: Option<Role> },
}

impl SanPattern {
    fn parse(text: &str) -> Option<SanPattern> {
        let core = text.trim_end_matches(['+', '#', '!', '?']);
        if !core.is_ascii() || core.is_empty() {
            return None;
        }
        match core {
            "O-O" | "0-0" => return Some(SanPattern::Castle { kingside: true }),
            "O-O-O" | "0-0-0" => return Some(SanPattern::Castle { kingside: false }),
            _ => {}
        }
        let mut rest = core;
        // Promotion: "=Q", or a bare piece letter after the destination ("e8Q", "e8q").
        let mut promotion = None;
        if let Some(last) = rest.chars().last().filter(|c| c.is_ascii_alphabetic()) {
            let role = Role::from_char(last)?;
            promotion = Some(role);
            rest = &rest[..rest.len() - 1];
            rest = rest.strip_suffix('=').unwrap_or(rest);
        }
        if rest.len() < 2 {
            return None;
        }
        let to: Square = rest[rest.len() - 2..].parse().ok()?;
        rest = &rest[..rest.len() - 2];
        let stripped = rest.strip_suffix('x').or_else(|| rest.strip_suffix(':'));
        let capture = stripped.is_some();
        rest = stripped.unwrap_or(rest);
        let mut chars = rest.chars().peekable();
        let role = match chars.peek() {
            Some(&c) if c.is_ascii_uppercase() => {
                chars.next();
                Role::from_char(c).filter(|r| *r != Role::Pawn)?
            }
            _ => Role::Pawn,
        };
        let (mut file, mut rank) = (None, None);
        for c in chars {
            match c {
                'a'..='h' if file.is_none() && rank.is_none() => file = Some(c as u8 - b'a'),
                '1'..='8' if rank.is_none() => rank = Some(c as u8 - b'1'),
                _ => return None,
            }
        }
        // "xe4" names no capturing pawn.
        if capture && role == Role::Pawn && file.is_none() {
            return None;
        }
        if promotion.is_some_and(|p| p == Role::Pawn || p == Role::King) {
            return None;
        }
        Some(SanPattern::Normal { role, file, rank, to, promotion })
    }

    fn matches(&self, pos: &Position, m: Move) -> bool {
        match *self {
            SanPattern::Castle { kingside } => pos.is_castling(m) && (m.to.file() > m.from.file()) == kingside,
            SanPattern::Normal { role, file, rank, to, promotion } => {
                m.to == to
                    && m.promotion == promotion
                    && pos.role_at(m.from) == Some(role)
                    && file.is_none_or(|f| m.from.file() == f)
                    && rank.is_none_or(|r| m.from.rank() == r)
                    // A king's two-square step is written O-O, never Kg1.
                    && !(role == Role::King && pos.is_castling(m))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lenient(fen: &str, text: &str) -> Result<String, SanError> {
        let pos = Position::from_fen(fen, crate::chess::Variant::Standard).expect("fen");
        pos.parse_san_lenient(text).map(|m| m.to_string())
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn any_capitalisation_names_the_one_move_it_can_be() {
        assert_eq!(lenient(START, "nf3").as_deref(), Ok("g1f3"));
        assert_eq!(lenient(START, "NF3").as_deref(), Ok("g1f3"));
        assert_eq!(lenient(START, "E4").as_deref(), Ok("e2e4"));
        let open = "r3k2r/pppq1ppp/2np1n2/2b1p1B1/2B1P1b1/2NP1N2/PPPQ1PPP/R3K2R w KQkq - 0 1";
        assert_eq!(lenient(open, "o-o").as_deref(), Ok("e1g1"));
        assert_eq!(lenient(open, "o-o-o").as_deref(), Ok("e1c1"));
        let capture = "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1";
        assert_eq!(lenient(capture, "EXD5").as_deref(), Ok("e4d5"));
        let promote = "8/4P2k/8/8/8/8/8/4K3 w - - 0 1";
        assert_eq!(lenient(promote, "e8=q").as_deref(), Ok("e7e8q"));
        assert_eq!(lenient(promote, "e8n").as_deref(), Ok("e7e8n"));
    }

    #[test]
    fn a_b_file_pawn_capture_stays_one_and_a_bishop_move_is_found_when_it_is_the_only_one() {
        // Both bxc4 (pawn) and Bxc4 (bishop) are legal: "bc4" is SAN for the pawn's.
        let both = "4k3/8/8/8/2p5/1P6/8/4KB2 w - - 0 1";
        assert_eq!(lenient(both, "bc4").as_deref(), Ok("b3c4"));
        assert_eq!(lenient(both, "Bc4").as_deref(), Ok("f1c4"));
        // Only the bishop can go to c4: "bc4" reads as its move.
        let bishop = "4k3/8/8/8/8/8/8/4KB2 w - - 0 1";
        assert_eq!(lenient(bishop, "bc4").as_deref(), Ok("f1c4"));
        // "BXC4" could be either: ambiguous, naming both.
        let err = lenient(both, "BXC4").unwrap_err();
        assert!(
            matches!(&err, SanError::Ambiguous { candidates, .. } if candidates.contains("bxc4") && candidates.contains("Bxc4")),
            "{err}"
        );
    }

    #[test]
    fn nonsense_and_illegal_moves_keep_their_errors() {
        assert!(matches!(lenient(START, "zz9"), Err(SanError::Syntax(_))));
        assert!(matches!(lenient(START, "nf6"), Err(SanError::Illegal(_))));
        let knights = "4k3/8/8/8/8/8/8/2N1K1N1 w - - 0 1";
        assert!(matches!(lenient(knights, "ne2"), Err(SanError::Ambiguous { .. })));
    }
}
