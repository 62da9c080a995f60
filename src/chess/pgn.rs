//! PGN export: the Seven Tag Roster, `Variant` for minichess7, `SetUp`/`FEN` for games that did
//! not start from the initial position, and the moves in SAN.

use super::game::Game;
use super::piece::Color;
use super::position::Position;

/// The tags a caller knows about a game; the result comes from the game itself.
#[derive(Clone, Debug)]
pub struct PgnTags {
    pub event: String,
    pub site: String,
    /// `YYYY.MM.DD`, with `??` for unknown parts.
    pub date: String,
    pub round: String,
    pub white: String,
    pub black: String,
}

/// The PGN `Date` (`YYYY.MM.DD`, UTC) of a moment.
pub fn pgn_date(at: std::time::SystemTime) -> String {
    // "2026-11-22T07:50:56Z" → "2026.11.22"
    let stamp = humantime::format_rfc3339_seconds(at).to_string();
    stamp.get(..10).map_or_else(|| "????.??.??".into(), |date| date.replace('-', "."))
}

impl Default for PgnTags {
    fn default() -> PgnTags {
        PgnTags {
            event: "?".into(),
            site: "?".into(),
            date: "????.??.??".into(),
            round: "?".into(),
            white: "?".into(),
            black: "?".into(),
        }
    }
}

/// Escapes a tag value: backslashes and quotes, and no line breaks.
fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"").replace(['\n', '\r'], " ")
}

/// The game as PGN text, ending with a newline.
pub fn write_pgn(game: &Game, tags: &PgnTags) -> String {
    let result = game.outcome().map_or("*", |o| o.result());
    let mut out = String::new();
    let mut tag = |name: &str, value: &str| out.push_str(&format!("[{name} \"{}\"]\n", escape(value)));
    tag("Event", &tags.event);
    tag("Site", &tags.site);
    tag("Date", &tags.date);
    tag("Round", &tags.round);
    tag("White", &tags.white);
    tag("Black", &tags.black);
    tag("Result", result);
    if game.variant() != super::rules::Variant::Standard {
        tag("Variant", game.variant().pgn_name());
    }
    // A Chess960 game always says where it started, even from position 518.
    if game.is_custom_start() || game.variant().king_takes_rook() {
        tag("SetUp", "1");
        tag("FEN", &game.initial_position().fen());
    }
    if let Some(opening) = super::openings::of_game(game) {
        tag("ECO", opening.eco);
        tag("Opening", opening.name);
    }
    if let Some(outcome) = game.outcome() {
        tag("Termination", outcome.reason.description());
    }
    out.push('\n');

    // Movetext: numbered moves ("12. Nf3 Nc6", or "12... Nc6" when Black starts), wrapped at 80.
    let numbers = MoveNumbers::from_start(game.initial_position());
    let mut tokens = numbers.tokens(game.history().iter().map(|p| p.san.as_str()));
    tokens.push(result.to_string());
    let mut line_len = 0;
    for token in tokens {
        if line_len > 0 && line_len + 1 + token.len() > 80 {
            out.push('\n');
            line_len = 0;
        } else if line_len > 0 {
            out.push(' ');
            line_len += 1;
        }
        out.push_str(&token);
        line_len += token.len();
    }
    out.push('\n');
    out
}

/// The numbers of a game's moves, counted from its start position, which may have Black to
/// move or a fullmove number other than 1. Every move list (PGN, the terminal, the text log)
/// numbers with this, so they agree.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct MoveNumbers {
    first: u32,
    black_starts: bool,
}

impl Default for MoveNumbers {
    /// From a start with White to move at move 1.
    fn default() -> MoveNumbers {
        MoveNumbers { first: 1, black_starts: false }
    }
}

impl MoveNumbers {
    /// Numbers for a game that started at `start`. A FEN may say fullmove 0 (python-chess
    /// accepts it, so do we); numbering starts at 1 then.
    pub fn from_start(start: &Position) -> MoveNumbers {
        MoveNumbers { first: start.fullmoves().max(1), black_starts: start.turn() == Color::Black }
    }

    /// The move number of the game's move `i` (0-based), and the side that plays it.
    pub fn of(self, i: usize) -> (u32, Color) {
        let k = i + usize::from(self.black_starts);
        let number = self.first.saturating_add(u32::try_from(k / 2).unwrap_or(u32::MAX));
        (number, if k.is_multiple_of(2) { Color::White } else { Color::Black })
    }

    /// Move `i` named on its own: "12." for White's, "12..." for Black's.
    pub fn prefix(self, i: usize) -> String {
        match self.of(i) {
            (number, Color::White) => format!("{number}."),
            (number, Color::Black) => format!("{number}..."),
        }
    }

    /// A move list as tokens: "1.", "e4", "e5", "2.", "Nf3" — or "7...", "e5", "8.", "Nf3"
    /// when Black moves first.
    pub fn tokens<'a>(self, moves: impl IntoIterator<Item = &'a str>) -> Vec<String> {
        let mut tokens = Vec::new();
        for (i, san) in moves.into_iter().enumerate() {
            if i == 0 || self.of(i).1 == Color::White {
                tokens.push(self.prefix(i));
            }
            tokens.push(san.to_string());
        }
        tokens
    }
}

#[cfg(test)]
mod numbering_tests {
    use super::*;
    use crate::chess::Variant;

    #[test]
    fn numbers_follow_the_start_position() {
        let moves = ["e4", "e5", "Nf3"];
        assert_eq!(MoveNumbers::default().tokens(moves).join(" "), "1. e4 e5 2. Nf3");
        let black = Position::from_fen("4k3/8/8/8/8/8/4P3/4K3 b - - 3 12", Variant::Standard).unwrap();
        let numbers = MoveNumbers::from_start(&black);
        assert_eq!(numbers.tokens(["Kd7", "e4", "Kd6"]).join(" "), "12... Kd7 13. e4 Kd6");
        assert_eq!(numbers.prefix(0), "12...");
        assert_eq!(numbers.of(1), (13, Color::White));
        let zero = Position::from_fen("4k3/8/8/8/8/8/4P3/4K3 w - - 0 0", Variant::Standard).unwrap();
        assert_eq!(MoveNumbers::from_start(&zero).prefix(0), "1.");
    }
}
