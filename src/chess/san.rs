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
