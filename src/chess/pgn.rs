//! PGN export: the Seven Tag Roster, `Variant` for minichess7, `SetUp`/`FEN` for games that did
//! not start from the initial position, and the moves in SAN.

use super::game::Game;

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
        tag("Variant", game.variant().name());
    }
    if game.is_custom_start() {
        tag("SetUp", "1");
        tag("FEN", &game.initial_position().fen());
    }
    if let Some(outcome) = game.outcome() {
        tag("Termination", outcome.reason.description());
    }
    out.push('\n');

    // Movetext: numbered moves ("12. Nf3 Nc6", or "12... Nc6" when Black starts), wrapped at 80.
    let start = game.initial_position();
    let mut tokens = Vec::with_capacity(game.ply() * 3 / 2 + 1);
    // A FEN may say fullmove 0 (python-chess accepts it, so do we); movetext counts from 1.
    let mut number = start.fullmoves().max(1);
    let mut white_to_move = start.turn() == super::piece::Color::White;
    for (i, played) in game.history().iter().enumerate() {
        if white_to_move {
            tokens.push(format!("{number}."));
        } else if i == 0 {
            tokens.push(format!("{number}..."));
        }
        tokens.push(played.san.clone());
        if !white_to_move {
            number += 1;
        }
        white_to_move = !white_to_move;
    }
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
