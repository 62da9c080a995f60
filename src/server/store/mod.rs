//! Where games are kept. The room hands every change to a [`GameStore`] and waits for it before
//! broadcasting, so a move is durable before anyone sees it (DESIGN.md §4, "durable before
//! visible"); on start the server reads back every unfinished game. [`SqliteStore`] keeps them
//! in an SQLite file (or in memory), [`PostgresStore`] in a PostgreSQL database; [`NoStore`]
//! keeps nothing, for tests of the room alone.

mod accounts;
mod analyses;
mod postgres;
mod queue;
mod records;
mod sqlite;

use futures::future::BoxFuture;
use thiserror::Error;

use super::token::TokenHash;
use crate::chess::{Color, Outcome, Rules, Variant};
use crate::protocol::{ClockSpec, GameId, MatchScore, Points};

pub use accounts::{
    AccountKey, AccountStore, RatedResult, RatingChange, RatingPoint, Results, StoredAccount, StoredRating,
    StoredRatings,
};
pub use analyses::{AnalysisRecord, AnalysisWrite, StoredAnalysis, StoredEval};
pub use postgres::{NodeInfo, Owner, PostgresStore, LEASE, RENEW_EVERY};
/// The SQLite file's schema (its version is what `PRAGMA user_version` reads).
pub use sqlite::schema;
pub use sqlite::SqliteStore;

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
}

impl From<ClockSpec> for StoredClock {
    fn from(spec: ClockSpec) -> StoredClock {
        StoredClock { initial_ms: spec.initial_ms, increment_ms: spec.increment_ms }
    }
}

impl From<StoredClock> for ClockSpec {
    fn from(clock: StoredClock) -> ClockSpec {
        ClockSpec { initial_ms: clock.initial_ms, increment_ms: clock.increment_ms }
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
#[derive(Clone, Debug, PartialEq, Eq)]
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
    /// The game ended; `v` as for `Move`.
    Ended { outcome: Outcome, times: Option<StoredTimes>, v: u64 },
    /// The clock's times now (when the server stops, so a restart goes on from them).
    Times(StoredTimes),
    /// The room has sent the event of version `v` (one whose change is not stored).
    Version { v: u64 },
    /// A line was written in the game's chat (only the last [`CHAT_KEPT`] per room are kept).
    Chat(StoredChat),
    /// A game nobody joined was closed: forget it.
    Discarded,
}

/// A store refused or failed to do something.
#[derive(Debug, Clone, Error)]
pub enum StoreError {
    #[error("cannot open the database {path}: {message}")]
    Open { path: String, message: String },
    #[error("could not save the game: {0}")]
    Write(String),
    #[error("could not read the games: {0}")]
    Read(String),
    #[error("the store is closed")]
    Closed,
    #[error("the database {path} is in use by another gambit server{}; stop it first, or give this one another --db", holder(*pid))]
    Locked { path: String, pid: Option<u32> },
    /// One game's record cannot be read back; the others are not affected.
    #[error("game {game:?} is damaged in the store: {message}")]
    Damaged { game: String, message: String },
}

/// " (PID n)" when the process holding a database is known.
fn holder(pid: Option<u32>) -> String {
    pid.map(|pid| format!(" (PID {pid})")).unwrap_or_default()
}

/// Where rooms record their changes and the server finds its games again.
///
/// `record` puts the change in line at once (changes are applied in the order `record` is
/// called, across all games) and the future says when it is durable; dropping the future
/// still lets the change be written.
pub trait GameStore: Send + Sync + 'static {
    /// Records one change of game `game`.
    fn record(&self, game: &str, event: StoreEvent) -> BoxFuture<'static, Result<(), StoreError>>;
    /// Every game not yet ended, with its moves.
    fn unfinished(&self) -> BoxFuture<'static, Result<Vec<StoredGame>, StoreError>>;
    /// The `limit` games that ended most recently, newest first, with their moves.
    fn finished(&self, limit: usize) -> BoxFuture<'static, Result<Vec<StoredGame>, StoreError>>;
    /// One game, with its moves.
    fn load(&self, game: &str) -> BoxFuture<'static, Result<Option<StoredGame>, StoreError>>;
    /// Writes what is pending and closes; later calls fail with [`StoreError::Closed`].
    fn close(&self) -> BoxFuture<'static, ()>;
    /// Applies the result of the rated game `game` to both players' ratings, in one
    /// transaction, and keeps the change with the game. Rating a game again changes nothing
    /// and answers the first change (a restart may replay an ending).
    fn rate(&self, game: &str, result: RatedResult) -> BoxFuture<'static, Result<StoredRatings, StoreError>> {
        let _ = (game, result);
        Box::pin(async { Err(StoreError::Write("this store keeps no ratings".into())) })
    }
    /// The analysis of `game`, done or running; a running one whose runner has not touched it
    /// since `stale_before_ms` (Unix ms) counts as none.
    fn analysis(
        &self,
        game: &str,
        stale_before_ms: i64,
    ) -> BoxFuture<'static, Result<Option<AnalysisRecord>, StoreError>> {
        let _ = (game, stale_before_ms);
        Box::pin(async { Ok(None) })
    }
    /// Claims the analysis of `game` for `runner`: true unless one is done, or running and
    /// touched since `stale_before_ms`.
    fn claim_analysis(
        &self,
        game: &str,
        runner: &str,
        stale_before_ms: i64,
    ) -> BoxFuture<'static, Result<bool, StoreError>> {
        let _ = (game, runner, stale_before_ms);
        Box::pin(async { Err(StoreError::Write("this store keeps no analyses".into())) })
    }
    /// The runner's change to its claim (ignored once the claim is another's).
    fn write_analysis(
        &self,
        game: &str,
        runner: &str,
        write: AnalysisWrite,
    ) -> BoxFuture<'static, Result<(), StoreError>> {
        let _ = (game, runner, write);
        Box::pin(async { Err(StoreError::Write("this store keeps no analyses".into())) })
    }
}

/// True if `db` names a PostgreSQL database (`postgres://…` or `postgresql://…`) rather than an
/// SQLite file.
pub fn is_postgres(db: &str) -> bool {
    db.starts_with("postgres://") || db.starts_with("postgresql://")
}

/// A store's two faces: games, and accounts with their ratings (one database behind both).
pub type Stores = (std::sync::Arc<dyn GameStore>, std::sync::Arc<dyn AccountStore>);

/// Opens the store `db` names: a PostgreSQL database, or an SQLite file (or `:memory:`).
pub async fn open(db: &str) -> Result<Stores, StoreError> {
    if is_postgres(db) {
        Ok(both(std::sync::Arc::new(PostgresStore::connect(db).await?)))
    } else {
        Ok(both(std::sync::Arc::new(SqliteStore::open(db)?)))
    }
}

/// Both faces of one store.
pub fn both<S: GameStore + AccountStore>(store: std::sync::Arc<S>) -> Stores {
    (store.clone(), store)
}

/// `db` as logs may show it: a PostgreSQL URL without its password.
pub fn shown(db: &str) -> String {
    if is_postgres(db) {
        postgres::redact(db)
    } else {
        db.to_string()
    }
}

/// A store that keeps nothing: games live in memory only.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoStore;

impl GameStore for NoStore {
    fn record(&self, _game: &str, _event: StoreEvent) -> BoxFuture<'static, Result<(), StoreError>> {
        Box::pin(async { Ok(()) })
    }

    fn unfinished(&self) -> BoxFuture<'static, Result<Vec<StoredGame>, StoreError>> {
        Box::pin(async { Ok(Vec::new()) })
    }

    fn finished(&self, _limit: usize) -> BoxFuture<'static, Result<Vec<StoredGame>, StoreError>> {
        Box::pin(async { Ok(Vec::new()) })
    }

    fn load(&self, _game: &str) -> BoxFuture<'static, Result<Option<StoredGame>, StoreError>> {
        Box::pin(async { Ok(None) })
    }

    fn close(&self) -> BoxFuture<'static, ()> {
        Box::pin(async {})
    }
}

/// The current Unix time in milliseconds.
pub fn now_ms() -> i64 {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
}
