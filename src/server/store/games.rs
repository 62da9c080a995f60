//! A game as the store holds it, and the changes rooms record: the store's own types, never
//! the wire's, so a change to the protocol cannot change what a stored game means.

use super::{AccountKey, RatedEnd, StoredRatings};
use crate::chess::{Color, Outcome, Rules, Variant};
use crate::protocol::{ClockSpec, GameId, MatchScore, Points};
use crate::server::token::TokenHash;

/// One seat of a stored game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoredSeat {
    /// A person's seat; `token` is the hash of its token, None while nobody has taken it;
    /// `name`, the display name they gave (None: none given); `account`, the account that
    /// holds it (None: an anonymous player).
    Human { token: Option<TokenHash>, name: Option<String>, account: Option<AccountKey> },
    /// A computer player of this level.
    Bot { level: u8 },
    /// An external UCI engine, by the name the server gives it, and its strength setting.
    Engine { name: String, options: std::collections::BTreeMap<String, i64> },
}

/// Times left on a game's clock, in milliseconds, as of the last change stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoredTimes {
    pub white_ms: u64,
    pub black_ms: u64,
}

/// A game's time control as the store holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoredClock {
    pub initial_ms: u64,
    pub increment_ms: u64,
    /// A correspondence game's days per move (then `initial_ms` is that long).
    pub days: Option<u32>,
    /// An arena game: each side may berserk (halve its time) before its first move.
    pub berserkable: bool,
}

impl StoredClock {
    /// The time control, for a game on a clock (None for a correspondence game).
    pub fn spec(&self) -> Option<ClockSpec> {
        self.days.is_none().then_some(ClockSpec { initial_ms: self.initial_ms, increment_ms: self.increment_ms })
    }

    /// The game's rating category in `variant` (minichess7, by the clock, or correspondence).
    pub fn category(&self, variant: crate::chess::Variant) -> crate::server::ratings::Category {
        let clock = self.spec().map(|c| (c.initial_ms, c.increment_ms));
        crate::server::ratings::Category::of_game(variant, clock)
    }
}

impl From<ClockSpec> for StoredClock {
    fn from(spec: ClockSpec) -> StoredClock {
        StoredClock { initial_ms: spec.initial_ms, increment_ms: spec.increment_ms, days: None, berserkable: false }
    }
}

/// The score of the match a game belongs to before it, from its own colours' point of view, in
/// half-points (see `protocol::MatchScore`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StoredScore {
    pub white: u32,
    pub black: u32,
    pub games: u32,
}

impl From<MatchScore> for StoredScore {
    fn from(score: MatchScore) -> StoredScore {
        StoredScore { white: score.white.0, black: score.black.0, games: score.games }
    }
}

impl From<StoredScore> for MatchScore {
    fn from(score: StoredScore) -> MatchScore {
        MatchScore { white: Points(score.white), black: Points(score.black), games: score.games }
    }
}

/// One line of a game's chat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredChat {
    /// The players' room (else the spectators').
    pub players: bool,
    pub from: String,
    pub text: String,
    /// Unix time in milliseconds.
    pub at_ms: i64,
}

/// How many lines of each chat room the store keeps per game.
pub const CHAT_KEPT: usize = 100;

/// A game as the store holds it: enough to rebuild its room exactly. Its types are the rules
/// core's and the store's own, never the wire's, so a change to the protocol cannot change
/// what a stored game means.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredGame {
    pub id: GameId,
    pub variant: Variant,
    pub initial_fen: String,
    pub rules: Rules,
    pub white: StoredSeat,
    pub black: StoredSeat,
    /// The time control; None for an untimed game.
    pub clock: Option<StoredClock>,
    /// Time left as of the last change; None before the first (then both have the initial time).
    pub times: Option<StoredTimes>,
    /// Every move from the initial position, in UCI.
    pub moves: Vec<String>,
    /// The last event version stored (versions of events that change nothing stored are
    /// written without waiting, so this may trail what clients saw by a few).
    pub v: u64,
    /// `"1-0"`, `"0-1"` or `"1/2-1/2"`, and the end reason's name, once the game has ended.
    pub outcome: Option<Outcome>,
    /// Unix time in milliseconds.
    pub created_ms: i64,
    pub ended_ms: Option<i64>,
    /// The match's score before this game (all zero for a first game).
    pub score: StoredScore,
    /// The last [`CHAT_KEPT`] lines of each chat room, oldest first.
    pub chat: Vec<StoredChat>,
    /// Whether the result changes the players' ratings.
    pub rated: bool,
    /// The rating change, once a rated game has ended.
    pub ratings: Option<StoredRatings>,
}

impl StoredGame {
    /// The seat on `side`.
    pub fn seat(&self, side: Color) -> &StoredSeat {
        match side {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }
}

/// A change to a game, to be made durable.
#[derive(Clone, Debug, PartialEq)]
pub enum StoreEvent {
    /// A new game (with no moves; with a result if its start position is already over).
    Created(Box<StoredGame>),
    /// A person took the open seat on `side`, under `name` if they gave one, with their
    /// account if they have one.
    Seat { side: Color, token: TokenHash, name: Option<String>, account: Option<AccountKey> },
    /// Move number `ply` (1-based) was played; the clock's times after it; `v`, the version of
    /// the event that will report it (so one write keeps both).
    Move { ply: usize, uci: String, times: Option<StoredTimes>, v: u64 },
    /// Moves were taken back; `ply` moves remain; `v` as for `Move`.
    Undo { ply: usize, times: Option<StoredTimes>, v: u64 },
    /// The game ended; `v` as for `Move`. A rated game's rating change (`rated`) is made in the
    /// same transaction: a result is never stored without its ratings, nor ratings without it.
    Ended { outcome: Outcome, times: Option<StoredTimes>, v: u64, rated: Option<RatedEnd> },
    /// The clock's times now (when the server stops, so a restart goes on from them).
    Times(StoredTimes),
    /// The room has sent the event of version `v` (one whose change is not stored).
    Version { v: u64 },
    /// A line was written in the game's chat (only the last [`CHAT_KEPT`] per room are kept).
    Chat(StoredChat),
    /// A game nobody joined was closed: forget it.
    Discarded,
}
