//! Reading PGN: the games of a file, each with its tags and its moves played out on our own
//! board (so an illegal or unreadable move is an error naming the move). Comments (`{…}`,
//! `; …`), variations (`(…)`), NAGs (`$2`), move numbers and move suffixes (`!?`) are skipped:
//! what is read is the main line. `[Variant "minichess7"]` and `[FEN]` are honoured.

use std::str::FromStr;

use thiserror::Error;

use super::game::Game;
use super::rules::{Rules, Variant};

/// One game of a PGN file.
#[derive(Clone, Debug)]
pub struct PgnGame {
    /// The tags in file order: `("White", "Alice")`.
    pub tags: Vec<(String, String)>,
    /// The game with its main line played.
    pub game: Game,
    /// The movetext's result token (`"1-0"`, `"*"`…), if it had one.
    pub result: Option<String>,
}

impl PgnGame {
    /// The value of tag `name`, if present.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// Why a PGN file could not be read.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum PgnError {
    #[error("game {game}: bad tag line {line:?}")]
    BadTag { game: usize, line: String },
    #[error("game {game}: unknown variant {variant:?}")]
    Variant { game: usize, variant: String },
    #[error("game {game}: bad FEN: {message}")]
    Fen { game: usize, message: String },
    #[error("game {game}: move {number} ({san}) cannot be played: {message}")]
    Move { game: usize, number: usize, san: String, message: String },
    #[error("game {game}: unclosed {what}")]
    Unclosed { game: usize, what: &'static str },
    #[error("there is no game in this PGN")]
    Empty,
}

const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

/// Every game in `text`.
pub fn read_pgn(text: &str) -> Result<Vec<PgnGame>, PgnError> {
    let mut games = Vec::new();
    let mut tags: Vec<(String, String)> = Vec::new();
    let mut movetext = String::new();
    let mut in_moves = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') && !in_moves_open(&movetext) {
            if in_moves {
                games.push(game(games.len() + 1, std::mem::take(&mut tags), &std::mem::take(&mut movetext))?);
                in_moves = false;
            }
            tags.push(tag(games.len() + 1, line)?);
        } else if !line.is_empty() || in_moves {
            in_moves |= !line.is_empty();
            movetext.push_str(line);
            movetext.push('\n');
        }
    }
    if in_moves || !tags.is_empty() {
        games.push(game(games.len() + 1, tags, &movetext)?);
    }
    if games.is_empty() {
        return Err(PgnError::Empty);
    }
    Ok(games)
}

/// True while a `{` comment of the movetext is still open (a `[` inside it is not a tag).
fn in_moves_open(movetext: &str) -> bool {
    movetext.matches('{').count() > movetext.matches('}').count()
}

/// `[Name "value"]`, with `\"` and `\\` escapes.
fn tag(game: usize, line: &str) -> Result<(String, String), PgnError> {
    let bad = || PgnError::BadTag { game, line: line.to_string() };
    let inner = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')).ok_or_else(bad)?;
    let (name, rest) = inner.split_once(char::is_whitespace).ok_or_else(bad)?;
    let value = rest.trim().strip_prefix('"').and_then(|v| v.strip_suffix('"')).ok_or_else(bad)?;
    Ok((name.to_string(), value.replace("\\\"", "\"").replace("\\\\", "\\")))
}

/// The movetext's tokens of the main line: SAN moves and the result.
fn tokens(game: usize, movetext: &str) -> Result<Vec<String>, PgnError> {
    let mut out = Vec::new();
    let mut chars = movetext.chars().peekable();
    let mut depth = 0usize;
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut Vec<String>, depth: usize| {
        if depth == 0 && !word.is_empty() {
            out.push(std::mem::take(word));
        }
        word.clear();
    };
    while let Some(c) = chars.next() {
        match c {
            '{' => {
                flush(&mut word, &mut out, depth);
                if !chars.by_ref().any(|c| c == '}') {
                    return Err(PgnError::Unclosed { game, what: "comment" });
                }
            }
            ';' => {
                flush(&mut word, &mut out, depth);
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '(' => {
                flush(&mut word, &mut out, depth);
                depth += 1;
            }
            ')' => {
                flush(&mut word, &mut out, depth);
                depth = depth.saturating_sub(1);
            }
            c if c.is_whitespace() => flush(&mut word, &mut out, depth),
            c => word.push(c),
        }
    }
    flush(&mut word, &mut out, depth);
    if depth > 0 {
        return Err(PgnError::Unclosed { game, what: "variation" });
    }
    Ok(out
        .into_iter()
        .filter(|t| !t.starts_with('$'))
        // "12." and "12..." stand alone or stick to the move: "12.e4" (but "1-0" is a result).
        .map(|t| match t.trim_start_matches(|c: char| c.is_ascii_digit()).strip_prefix('.') {
            Some(rest) => rest.trim_start_matches('.').to_string(),
            None => t,
        })
        .map(|t| t.trim_end_matches(['!', '?']).to_string())
        .filter(|t| !t.is_empty())
        .collect())
}

fn game(number: usize, tags: Vec<(String, String)>, movetext: &str) -> Result<PgnGame, PgnError> {
    let find = |name: &str| tags.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
    let variant = match find("Variant") {
        None => Variant::Standard,
        Some(v) => match v.to_lowercase().as_str() {
            // The spellings python-chess reads as Chess960.
            "chess960" | "chess 960" | "fischerandom" | "fischerrandom" | "fischer random" => Variant::Chess960,
            name => Variant::from_str(name).map_err(|_| PgnError::Variant { game: number, variant: v.clone() })?,
        },
    };
    let mut game = match find("FEN") {
        Some(fen) => Game::from_fen(variant, &fen, Rules::default())
            .map_err(|e| PgnError::Fen { game: number, message: e.to_string() })?,
        None => Game::new(variant),
    };
    let mut result = None;
    for (i, token) in tokens(number, movetext)?.into_iter().enumerate() {
        if RESULTS.contains(&token.as_str()) {
            result = Some(token);
            break;
        }
        game.play_san(&token).map_err(|e| PgnError::Move {
            game: number,
            number: i + 1,
            san: token.clone(),
            message: e.to_string(),
        })?;
    }
    Ok(PgnGame { tags, game, result })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::pgn::{write_pgn, PgnTags};

    #[test]
    fn what_we_write_reads_back() {
        let mut game = Game::new(Variant::Standard);
        for san in ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O"] {
            game.play_san(san).expect("legal");
        }
        let text = write_pgn(&game, &PgnTags { white: "A \"b\"".into(), ..PgnTags::default() });
        let read = read_pgn(&format!("{text}\n{text}")).expect("reads");
        assert_eq!(read.len(), 2);
        assert_eq!(read[0].game.position().fen(), game.position().fen());
        assert_eq!(read[0].tag("White"), Some("A \"b\""));
        assert_eq!(read[0].result.as_deref(), Some("*"));
    }

    #[test]
    fn comments_variations_nags_and_suffixes_are_skipped() {
        let text = "[Event \"x\"]\n[Result \"1-0\"]\n\n1. e4 {best by test} e5 (1... c5 2. Nf3 (2. c3)) 2. Nf3!? $1 Nc6?? ; a comment [not a tag]\n3.Bb5 1-0\n";
        let read = read_pgn(text).expect("reads");
        let history: Vec<&str> = read[0].game.history().iter().map(|p| p.san.as_str()).collect();
        assert_eq!(history, ["e4", "e5", "Nf3", "Nc6", "Bb5"]);
        assert_eq!(read[0].result.as_deref(), Some("1-0"));
    }

    #[test]
    fn minichess_from_a_fen_and_the_errors() {
        let fen = Variant::Minichess7.initial_fen();
        let mut game = Game::new(Variant::Minichess7);
        let m = game.legal_moves()[0];
        let san = game.position().san(m);
        game.play(m).expect("legal");
        let text = format!("[Variant \"Minichess7\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n\n1. {san} *\n");
        let read = read_pgn(&text).expect("reads");
        assert_eq!(read[0].game.position().fen(), game.position().fen());
        assert!(matches!(read_pgn("1. e4 e5 2. Ke3 *"), Err(PgnError::Move { number: 3, .. })));
        assert!(matches!(read_pgn("[Variant \"atomic\"]\n1. e4 *"), Err(PgnError::Variant { .. })));
        assert!(matches!(read_pgn("[Event x]\n1. e4"), Err(PgnError::BadTag { .. })));
        assert!(matches!(read_pgn("1. e4 {open"), Err(PgnError::Unclosed { what: "comment", .. })));
        assert_eq!(read_pgn("  \n").err(), Some(PgnError::Empty));
    }
}
