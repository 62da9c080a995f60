//! What players do around a game rather than on its board: chat lines and their two rooms, the
//! running score of a match of rematches, and open challenges ("seeks").

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use thiserror::Error;

use super::client::NewGame;
use super::values::{ClockSpec, PlayerName, RulesSpec, SeatSpec, VariantName};
use crate::chess::Color;

/// The longest chat line, in characters.
pub const CHAT_MAX: usize = 280;

/// The two chat rooms of a game, as on lichess.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatRoom {
    /// The two players; nobody else reads it.
    Players,
    /// Everyone watching; the players read it once the game is over.
    Spectators,
}

impl ChatRoom {
    pub fn name(self) -> &'static str {
        match self {
            ChatRoom::Players => "players",
            ChatRoom::Spectators => "spectators",
        }
    }
}

/// Why a chat line is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum ChatError {
    #[error("a chat line needs at least one character besides spaces")]
    Empty,
    #[error("a chat line has at most {CHAT_MAX} characters; this one has {0}")]
    TooLong(usize),
    #[error("{0:?} cannot be in a chat line (no control or direction-changing characters)")]
    BadCharacter(char),
}

/// One line of chat: trimmed, 1–[`CHAT_MAX`] characters, one line, with no control characters
/// and none that reorder what follows (so a line cannot disguise the lines around it). It is
/// text, never markup: every client shows it as typed.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ChatText(String);

impl ChatText {
    pub fn parse(text: &str) -> Result<ChatText, ChatError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(ChatError::Empty);
        }
        if let Some(bad) = text.chars().find(|&c| c.is_control() || is_direction_control(c)) {
            return Err(ChatError::BadCharacter(bad));
        }
        match text.chars().count() {
            n if n > CHAT_MAX => Err(ChatError::TooLong(n)),
            _ => Ok(ChatText(text.to_string())),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The Unicode characters that change the direction of the text after them.
fn is_direction_control(c: char) -> bool {
    matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{061c}')
}

impl TryFrom<String> for ChatText {
    type Error = ChatError;
    fn try_from(text: String) -> Result<ChatText, ChatError> {
        ChatText::parse(&text)
    }
}

impl From<ChatText> for String {
    fn from(text: ChatText) -> String {
        text.0
    }
}

/// A chat line as the server sends it (the `chat` message without its type).
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct ChatLine {
    pub room: ChatRoom,
    /// The writer's display name.
    pub from: String,
    pub text: String,
    /// When it was written, Unix milliseconds.
    pub at: i64,
    /// A line from the server itself (an engine seat failing), not from a person; clients
    /// show it apart. Left out when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub system: bool,
}

/// Points in a match, counted in halves (a draw is half a point each); a JSON number on the
/// wire (`1.5`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, PartialOrd, Ord)]
pub struct Points(pub u32);

impl Serialize for Points {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.0.is_multiple_of(2) {
            serializer.serialize_u32(self.0 / 2)
        } else {
            serializer.serialize_f64(f64::from(self.0) / 2.0)
        }
    }
}

impl<'de> Deserialize<'de> for Points {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Points, D::Error> {
        let points = f64::deserialize(deserializer)?;
        let halves = (points * 2.0).round();
        if !(0.0..=f64::from(u32::MAX)).contains(&halves) {
            return Err(serde::de::Error::custom(format!("{points} is not a number of points")));
        }
        // In range and whole: the cast is exact.
        Ok(Points(halves as u32))
    }
}

impl std::fmt::Display for Points {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.0 / 2, self.0 % 2) {
            (0, 1) => f.write_str("½"),
            (n, 1) => write!(f, "{n}½"),
            (n, _) => write!(f, "{n}"),
        }
    }
}

/// The running score of a match (games linked by rematches), from the point of view of the
/// current game's colours: `white` is what the player now playing White has scored.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub struct MatchScore {
    pub white: Points,
    pub black: Points,
    /// Games counted (aborted games are not).
    pub games: u32,
}

impl MatchScore {
    /// The score with one more game whose winner was `winner` (None: drawn).
    pub fn plus(self, winner: Option<Color>) -> MatchScore {
        let (white, black) = match winner {
            Some(Color::White) => (2, 0),
            Some(Color::Black) => (0, 2),
            None => (1, 1),
        };
        MatchScore {
            white: Points(self.white.0.saturating_add(white)),
            black: Points(self.black.0.saturating_add(black)),
            games: self.games.saturating_add(1),
        }
    }

    /// The same score seen with the colours swapped (the next game of the match).
    pub fn swapped(self) -> MatchScore {
        MatchScore { white: self.black, black: self.white, games: self.games }
    }
}

/// An open challenge's id.
pub type SeekId = String;

/// What a seek asks for: a game between two people. The creator's colour is `color` (None:
/// drawn at random when someone accepts).
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct NewSeek {
    pub variant: VariantName,
    pub fen: Option<String>,
    pub rules: RulesSpec,
    pub clock: Option<ClockSpec>,
    pub color: Option<Color>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<PlayerName>,
    /// A rated game (see [`NewGame::rated`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
}

impl NewSeek {
    /// The game the seek asks for: two people, the creator seated as `creator`.
    pub fn game(&self, creator: Color) -> NewGame {
        NewGame {
            variant: self.variant,
            fen: self.fen.clone(),
            rules: self.rules,
            white: SeatSpec::Human,
            black: SeatSpec::Human,
            clock: self.clock,
            as_side: Some(creator),
            name: self.name.clone(),
            rated: self.rated,
            open: false,
            days: None,
            berserkable: false,
        }
    }
}

/// An open challenge as the lobby lists it.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct SeekView {
    pub seek: SeekId,
    /// Who posted it.
    pub name: String,
    pub variant: VariantName,
    pub fen: Option<String>,
    pub rules: RulesSpec,
    pub clock: Option<ClockSpec>,
    /// The creator's colour; null: random.
    pub color: Option<Color>,
    #[serde(default)]
    pub rated: bool,
}

/// A TV channel (docs/protocol.md, `tv`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TvChannel {
    /// Games between people.
    Best,
    /// Games with a computer seat (a level, an engine) or a bot account.
    Bot,
}

impl TvChannel {
    pub const ALL: [TvChannel; 2] = [TvChannel::Best, TvChannel::Bot];

    pub fn name(self) -> &'static str {
        match self {
            TvChannel::Best => "best",
            TvChannel::Bot => "bot",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chat_lines_are_checked() {
        let text = |t: &str| ChatText::parse(t).map(String::from);
        assert_eq!(text("  hello <b>  "), Ok("hello <b>".into()));
        assert_eq!(text(""), Err(ChatError::Empty));
        assert_eq!(text(" \u{3000} "), Err(ChatError::Empty));
        assert_eq!(text(&"é".repeat(CHAT_MAX)).map(|t| t.chars().count()), Ok(CHAT_MAX));
        assert_eq!(text(&"x".repeat(CHAT_MAX + 1)), Err(ChatError::TooLong(CHAT_MAX + 1)));
        assert_eq!(text("a\nb"), Err(ChatError::BadCharacter('\n')));
        assert_eq!(text("a\u{202e}b"), Err(ChatError::BadCharacter('\u{202e}')));
    }

    #[test]
    fn points_read_as_numbers() {
        assert_eq!(serde_json::to_string(&Points(3)).unwrap(), "1.5");
        assert_eq!(serde_json::to_string(&Points(4)).unwrap(), "2");
        assert_eq!(serde_json::from_str::<Points>("2.5").unwrap(), Points(5));
        assert!(serde_json::from_str::<Points>("-1").is_err());
        assert_eq!(Points(5).to_string(), "2½");
        assert_eq!(Points(1).to_string(), "½");
        let score = MatchScore::default().plus(Some(Color::White)).plus(None);
        assert_eq!(serde_json::to_string(&score).unwrap(), r#"{"white":1.5,"black":0.5,"games":2}"#);
        assert_eq!(score.swapped().white, Points(1));
    }
}
