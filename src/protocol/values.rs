//! The values messages carry: variants, rules, seats, clocks, offers, results, the games list
//! and the full snapshot of a game.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};
use unicode_security::GeneralSecurityProfile;

use crate::bots::Level;
use crate::chess::{ByColor, Color, EndReason, Outcome, Repetition, Rules, Variant};

/// A game's id on the wire: 8 characters of lowercase base32.
pub type GameId = String;

/// The variant names of the wire, `"standard"`, `"chess960"` or `"minichess7"`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VariantName {
    #[default]
    Standard,
    Minichess7,
    Chess960,
}

impl From<VariantName> for Variant {
    fn from(v: VariantName) -> Variant {
        match v {
            VariantName::Standard => Variant::Standard,
            VariantName::Minichess7 => Variant::Minichess7,
            VariantName::Chess960 => Variant::Chess960,
        }
    }
}

impl From<Variant> for VariantName {
    fn from(v: Variant) -> VariantName {
        match v {
            Variant::Standard => VariantName::Standard,
            Variant::Minichess7 => VariantName::Minichess7,
            Variant::Chess960 => VariantName::Chess960,
        }
    }
}

/// The repetition rule names of the wire.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RepetitionName {
    #[default]
    Threefold,
    EightMove,
}

/// The rule options of `create`; every field may be left out (defaults: all on, threefold).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct RulesSpec {
    pub castling: bool,
    pub en_passant: bool,
    pub repetition: RepetitionName,
}

impl Default for RulesSpec {
    fn default() -> RulesSpec {
        RulesSpec { castling: true, en_passant: true, repetition: RepetitionName::Threefold }
    }
}

impl From<Rules> for RulesSpec {
    fn from(rules: Rules) -> RulesSpec {
        RulesSpec {
            castling: rules.castling,
            en_passant: rules.en_passant,
            repetition: match rules.repetition {
                Repetition::Threefold => RepetitionName::Threefold,
                Repetition::EightMove => RepetitionName::EightMove,
            },
        }
    }
}

impl From<RulesSpec> for Rules {
    fn from(spec: RulesSpec) -> Rules {
        Rules {
            castling: spec.castling,
            en_passant: spec.en_passant,
            repetition: match spec.repetition {
                RepetitionName::Threefold => Repetition::Threefold,
                RepetitionName::EightMove => Repetition::EightMove,
            },
        }
    }
}

/// SEAT: who is to sit on a side, as asked for in `create`.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SeatSpec {
    /// A person, holding the seat with a secret token.
    #[default]
    Human,
    /// A computer player of level 1 to 12.
    Bot { level: u8 },
    /// An external UCI engine the server was started with (`GET /api/engines` lists them),
    /// with at most one strength setting: `{"Skill Level":3}` or `{"UCI_Elo":1500}`. The
    /// values are kept as JSON so that a non-integer is refused with a clear error rather
    /// than as a malformed message.
    Engine {
        name: String,
        #[serde(default)]
        options: BTreeMap<String, serde_json::Value>,
    },
}

/// What everyone sees of an engine seat: the engine's name, its strength setting, and the
/// label the board shows ("Stockfish · Skill Level 3").
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct EngineSeatView {
    pub name: String,
    #[serde(default)]
    pub options: BTreeMap<String, i64>,
    pub label: String,
}

impl EngineSeatView {
    pub fn new(name: &str, options: &BTreeMap<String, i64>) -> EngineSeatView {
        EngineSeatView { name: name.to_string(), options: options.clone(), label: engine_label(name, options) }
    }
}

/// "Stockfish", or "Stockfish · Skill Level 3" with a strength setting.
pub fn engine_label(name: &str, options: &BTreeMap<String, i64>) -> String {
    let mut label = name.to_string();
    for (option, value) in options {
        label.push_str(&format!(" · {option} {value}"));
    }
    label
}

/// A player's display name: 1 to 24 characters once trimmed, each a letter or digit (of any
/// script, with its combining marks), a space, `_`, `-` or `.`. Made only by
/// [`PlayerName::parse`], so every name the server holds is valid; on the wire a bad one is
/// refused while the message is read. Letters, digits and marks must be allowed in identifiers
/// by Unicode's General Security Profile (UTS 39): no invisible characters (the combining
/// grapheme joiner, variation selectors, Hangul fillers, …), none that NFKC would change
/// (fullwidth letters, ligatures), no obsolete scripts.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct PlayerName(String);

/// The longest display name, in characters.
pub const NAME_MAX: usize = 24;

/// The most combining marks a name's letter may carry.
const MARKS_MAX: usize = 3;

/// Why a display name is refused.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum NameError {
    #[error("a name needs at least one character besides spaces")]
    Empty,
    #[error("a name has at most {NAME_MAX} characters; this one has {0}")]
    TooLong(usize),
    #[error("{0:?} cannot be in a name: use letters, digits, spaces, '_', '-' and '.'")]
    BadCharacter(char),
}

impl PlayerName {
    /// The name a person shows when they gave none.
    pub const ANONYMOUS: &'static str = "Anonymous";

    /// `text` trimmed and composed (NFC, so "é" is one character however it was typed), if it
    /// is a valid name. A combining mark is part of the letter before it (scripts such as
    /// Devanagari need them), up to [`MARKS_MAX`] in a row, so a name cannot pile up marks.
    pub fn parse(text: &str) -> Result<PlayerName, NameError> {
        let name: String = text.trim().nfc().collect();
        let mut marks = 0;
        let mut after_letter = false;
        for c in name.chars() {
            let punctuation = matches!(c, ' ' | '_' | '-' | '.');
            if !punctuation && !c.identifier_allowed() {
                return Err(NameError::BadCharacter(c));
            }
            let mark = matches!(c.general_category(), GeneralCategory::NonspacingMark | GeneralCategory::SpacingMark);
            let ok = if mark {
                marks += 1;
                after_letter && marks <= MARKS_MAX
            } else {
                marks = 0;
                after_letter = c.is_alphanumeric();
                after_letter || punctuation
            };
            if !ok {
                return Err(NameError::BadCharacter(c));
            }
        }
        match name.chars().count() {
            0 => Err(NameError::Empty),
            n if n > NAME_MAX => Err(NameError::TooLong(n)),
            _ => Ok(PlayerName(name)),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// A name as a store kept it. Stored names were checked when given; one that no longer
    /// passes (the rule changed since) is dropped rather than shown.
    pub fn from_stored(text: Option<String>) -> Option<PlayerName> {
        text.and_then(|t| PlayerName::parse(&t).ok())
    }

    /// What a human seat shows for a name given or not.
    pub fn shown(name: Option<&PlayerName>) -> String {
        name.map_or(PlayerName::ANONYMOUS, PlayerName::as_str).to_string()
    }

    /// The name a bot of `level` plays under.
    pub fn of_bot(level: u8) -> String {
        format!("Level {level}")
    }
}

/// The key two names share when people could take one for the other (UTS 39's confusable
/// skeleton of the name in NFKC, ignoring case): "Alicе" with a Cyrillic "е", "ALICE" and
/// "Alice" all have the key of "alice". Registered usernames are kept with theirs, so a chosen
/// name that looks like one is found (docs/accounts.md).
pub fn name_key(text: &str) -> String {
    let folded: String = text.nfkc().flat_map(char::to_lowercase).collect();
    unicode_security::skeleton(&folded).flat_map(char::to_lowercase).collect()
}

impl TryFrom<String> for PlayerName {
    type Error = NameError;
    fn try_from(text: String) -> Result<PlayerName, NameError> {
        PlayerName::parse(&text)
    }
}

impl From<PlayerName> for String {
    fn from(name: PlayerName) -> String {
        name.0
    }
}

/// SEATVIEW: who sits on a side, as everyone may see it. Tokens are never shown.
///
/// `{"kind":"human","online":true,"name":"Alice","account":true}` — a person holds the seat
/// (online: at least one of their connections is open; `"Anonymous"` if they gave no name;
/// `account` only when they are logged in: the name is then their username, not one chosen);
/// `{"kind":"bot","level":6,"name":"Level 6","rating":1000,"label":"Level 6 · ~1000"}` (the
/// level's calibrated rating, docs/bots.md); `{"kind":"engine","name":"Stockfish",
/// "options":{"Skill Level":3},"label":"Stockfish · Skill Level 3"}` — a UCI engine;
/// `{"kind":"open"}` — a human seat nobody has taken yet (`join` takes it).
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SeatView {
    Human {
        online: bool,
        name: String,
        /// A logged-in player's seat: the name is their account's. Left out when false, so an
        /// anonymous seat reads as it always has.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        account: bool,
    },
    Bot {
        level: u8,
        name: String,
        /// The level's rating; 0 from a server older than the ratings.
        #[serde(default)]
        rating: u16,
        /// How people see the bot: "Level 6 · ~1000".
        #[serde(default)]
        label: String,
    },
    Engine(Box<EngineSeatView>),
    Open,
}

impl SeatView {
    /// A person's seat; `account`: they are logged in.
    pub fn human(online: bool, name: Option<&PlayerName>, account: bool) -> SeatView {
        SeatView::Human { online, name: PlayerName::shown(name), account }
    }

    /// A bot's seat.
    pub fn bot(level: u8) -> SeatView {
        let name = PlayerName::of_bot(level);
        match Level::new(level) {
            Ok(known) => SeatView::Bot { level, name, rating: known.rating(), label: known.label() },
            Err(_) => SeatView::Bot { level, label: name.clone(), name, rating: 0 },
        }
    }

    /// How people see the seat's occupant: a bot's label ("Level 6 · ~1000"), else the name;
    /// None for an open seat.
    pub fn shown(&self) -> Option<&str> {
        match self {
            SeatView::Bot { label, .. } if !label.is_empty() => Some(label),
            _ => self.name(),
        }
    }

    /// An engine's seat.
    pub fn engine(name: &str, options: &BTreeMap<String, i64>) -> SeatView {
        SeatView::Engine(Box::new(EngineSeatView::new(name, options)))
    }

    /// Who sits there, as the board and PGN name them; None for an open seat.
    pub fn name(&self) -> Option<&str> {
        match self {
            SeatView::Human { name, .. } | SeatView::Bot { name, .. } => Some(name),
            SeatView::Engine(engine) => Some(&engine.label),
            SeatView::Open => None,
        }
    }
}

/// Both seats of a game: `{"white": SEATVIEW, "black": SEATVIEW}`.
pub type Seats = ByColor<SeatView>;

/// A Fischer time control, as asked for in `create` and shown in the games list: each side
/// starts with `initial_ms` and gains `increment_ms` after each of its moves.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct ClockSpec {
    pub initial_ms: u64,
    pub increment_ms: u64,
}

/// A game's clock as of an event: the setting, both sides' time left, and the side whose time
/// is running (null while the game waits for a player or once it has ended). Clients count
/// the running side down locally from the event.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct ClockView {
    pub initial_ms: u64,
    pub increment_ms: u64,
    pub white_ms: u64,
    pub black_ms: u64,
    pub running: Option<Color>,
    /// While a timed game waits for a side's first move (fewer than two moves played, no clock
    /// running): the time the side to move has left to make it, as of the event; then the game
    /// is aborted. Left out otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_move_ms: Option<u64>,
    /// A correspondence game's days per move: each move has that long (`initial_ms`), the side
    /// to move's time left is what remains until its deadline, and a move gives the mover the
    /// whole time again. When it runs out the game does not end by itself: the opponent may
    /// claim it. Left out for a clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub days: Option<u32>,
    /// An arena's game: a side may berserk (`{"type":"berserk"}`) before its first move, which
    /// halves its time. Left out otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub berserkable: bool,
}

/// Where a game is in its life.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// A human seat is still open.
    Waiting,
    Ongoing,
    Ended,
}

/// What an offer asks for.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OfferKind {
    Draw,
    Undo,
    /// After the end: play again, colours swapped.
    Rematch,
}

/// A pending offer, as shown in `state`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct OfferView {
    pub kind: OfferKind,
    pub by: Color,
}

/// What a player claims when the opponent has been away for the grace period.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimKind {
    /// The game, as won by abandonment.
    Win,
    /// A draw.
    Draw,
}

/// While a player is away from an ongoing game and the opponent is connected: who may claim
/// the game (`by`), and in how many milliseconds (0: now). Clients count it down locally.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct ClaimView {
    pub by: Color,
    pub in_ms: u64,
}

/// One line of the `games` list.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct GameSummary {
    pub game: GameId,
    pub variant: VariantName,
    pub white: SeatView,
    pub black: SeatView,
    pub status: Status,
    pub plies: usize,
    pub watchers: usize,
    /// Set once ended.
    pub result: Option<GameResult>,
    /// The time control; null for an untimed game.
    #[serde(default)]
    pub clock: Option<ClockSpec>,
    #[serde(default)]
    pub rated: bool,
    /// A correspondence game's days per move (its `clock` is then null).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub days: Option<u32>,
}

/// A full snapshot of a game: sent on joining, watching, resuming, after an undo and to a
/// subscriber that fell behind.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct GameState {
    pub game: GameId,
    pub v: u64,
    pub variant: VariantName,
    pub initial_fen: String,
    pub fen: String,
    /// Every move from the initial position, in UCI.
    pub moves: Vec<String>,
    /// The same moves in SAN.
    pub san: Vec<String>,
    pub turn: Color,
    pub status: Status,
    pub result: Option<GameResult>,
    pub reason: Option<EndReason>,
    pub seats: Seats,
    /// The legal moves now, in UCI; empty once the game is over.
    pub legal: Vec<String>,
    pub check: bool,
    /// The clock as of this snapshot; null for an untimed game.
    #[serde(default)]
    pub clock: Option<ClockView>,
    pub watchers: usize,
    /// The pending draw or undo offer, if any.
    pub offer: Option<OfferView>,
    /// Whether a player may claim the game of an absent opponent (see [`ClaimView`]).
    #[serde(default)]
    pub claim: Option<ClaimView>,
    /// The running score of the match this game is part of, this game counted once it ended.
    #[serde(default, rename = "match")]
    pub score: super::social::MatchScore,
    /// The game a rematch of this one was made as, once agreed.
    #[serde(default)]
    pub next: Option<GameId>,
    /// Whether the result changes the players' ratings.
    #[serde(default)]
    pub rated: bool,
    /// Once a rated game has ended: both players' new ratings and their changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratings: Option<GameRatings>,
    /// The longest named opening the moves reached (standard games from the usual start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opening: Option<OpeningView>,
}

/// The named opening a game has reached (lichess's table: ECO code and name).
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct OpeningView {
    pub eco: String,
    pub name: String,
}

impl From<crate::chess::openings::Opening> for OpeningView {
    fn from(opening: crate::chess::openings::Opening) -> OpeningView {
        OpeningView { eco: opening.eco.to_string(), name: opening.name.to_string() }
    }
}

/// One player's rating after a rated game: the new rating, how much it moved, and whether it
/// is still provisional (shown as "1500?").
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct RatingChange {
    pub rating: i32,
    pub change: i32,
    pub provisional: bool,
}

/// Both players' rating changes of a rated game.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct GameRatings {
    pub white: RatingChange,
    pub black: RatingChange,
}

impl std::ops::Index<Color> for GameRatings {
    type Output = RatingChange;

    fn index(&self, side: Color) -> &RatingChange {
        match side {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }
}

/// How a game ended, as PGN writes it: `"1-0"`, `"0-1"`, `"1/2-1/2"`, or `"*"` for an aborted
/// game.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum GameResult {
    #[serde(rename = "1-0")]
    WhiteWins,
    #[serde(rename = "0-1")]
    BlackWins,
    #[serde(rename = "1/2-1/2")]
    Draw,
    /// An aborted game: no result.
    #[serde(rename = "*")]
    NoResult,
}

impl GameResult {
    /// The result of a game won by `winner` (None: drawn).
    pub fn of(winner: Option<Color>) -> GameResult {
        match winner {
            Some(Color::White) => GameResult::WhiteWins,
            Some(Color::Black) => GameResult::BlackWins,
            None => GameResult::Draw,
        }
    }

    /// The side that won, if either did.
    pub fn winner(self) -> Option<Color> {
        match self {
            GameResult::WhiteWins => Some(Color::White),
            GameResult::BlackWins => Some(Color::Black),
            GameResult::Draw | GameResult::NoResult => None,
        }
    }

    /// `"1-0"`, `"0-1"`, `"1/2-1/2"` or `"*"`.
    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::NoResult => "*",
        }
    }
}

impl From<Outcome> for GameResult {
    fn from(outcome: Outcome) -> GameResult {
        if outcome.is_aborted() {
            GameResult::NoResult
        } else {
            GameResult::of(outcome.winner)
        }
    }
}

impl std::fmt::Display for GameResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
