//! What a store does, one trait per need: games ([`GameStore`]), accounts and sessions
//! ([`AccountStore`]), rated games' changes to the ratings ([`RatingStore`]) and analyses
//! ([`AnalysisStore`]), and how it fails ([`StoreError`]). Whoever needs one holds that one;
//! SQLite and PostgreSQL implement all four over one database, [`NoStore`](super::NoStore)
//! only the first. No method has a default: a store without ratings is no `RatingStore`.

use futures::future::BoxFuture;
use thiserror::Error;

use super::{
    AccountKey, AnalysisRecord, AnalysisWrite, RatingPoint, Relation, Results, StoreEvent, StoredAccount,
    StoredApiToken, StoredChallenge, StoredGame, StoredNotification, StoredRating, StoredRatings, StoredTournament,
};
use crate::server::ratings::Category;
use crate::server::token::TokenHash;

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
}

/// Where accounts and sessions are kept, and read with their ratings and games.
pub trait AccountStore: Send + Sync + 'static {
    /// Adds an account; None when the name is taken (ignoring case).
    fn create_account(
        &self,
        username: String,
        password_hash: String,
        seat_key: Vec<u8>,
        now_ms: i64,
    ) -> BoxFuture<'static, Result<Option<StoredAccount>, StoreError>>;
    /// The account called `username`, ignoring case.
    fn account(&self, username: &str) -> BoxFuture<'static, Result<Option<StoredAccount>, StoreError>>;
    /// A username whose name key (`protocol::name_key`) is `name_key`: one a chosen name
    /// could be taken for.
    fn username_like(&self, name_key: &str) -> BoxFuture<'static, Result<Option<String>, StoreError>>;
    /// Opens a session for `account`, known by the hash of its token.
    fn create_session(
        &self,
        session: TokenHash,
        account: AccountKey,
        now_ms: i64,
    ) -> BoxFuture<'static, Result<(), StoreError>>;
    /// The account of a session used within `idle_ms` (and marks it used now); a session left
    /// longer is deleted and None.
    fn session(
        &self,
        session: TokenHash,
        now_ms: i64,
        idle_ms: i64,
    ) -> BoxFuture<'static, Result<Option<StoredAccount>, StoreError>>;
    /// Closes a session.
    fn end_session(&self, session: TokenHash) -> BoxFuture<'static, Result<(), StoreError>>;
    /// Closes every session of `account` but `keep` (log out everywhere else).
    fn end_sessions(&self, account: AccountKey, keep: Option<TokenHash>) -> BoxFuture<'static, Result<(), StoreError>>;
    /// Sets `account`'s password hash and closes every other session than `keep`, together.
    fn set_password(
        &self,
        account: AccountKey,
        password_hash: String,
        keep: Option<TokenHash>,
    ) -> BoxFuture<'static, Result<(), StoreError>>;
    /// Adds a personal API token of `account`, known by the hash of its text; its number.
    fn create_api_token(
        &self,
        token: TokenHash,
        account: AccountKey,
        description: String,
        scopes: String,
        now_ms: i64,
    ) -> BoxFuture<'static, Result<i64, StoreError>>;
    /// The API token whose text hashes to `token`, and its account.
    fn api_token(
        &self,
        token: TokenHash,
    ) -> BoxFuture<'static, Result<Option<(StoredApiToken, StoredAccount)>, StoreError>>;
    /// The account's API tokens, newest first.
    fn api_tokens(&self, account: AccountKey) -> BoxFuture<'static, Result<Vec<StoredApiToken>, StoreError>>;
    /// Revokes the account's token number `id`; false if the account has none such.
    fn delete_api_token(&self, account: AccountKey, id: i64) -> BoxFuture<'static, Result<bool, StoreError>>;
    /// Makes `account` a bot account if it has no game (lichess's rule); false if it has one.
    /// An account that is a bot already stays one (true).
    fn make_bot(&self, account: AccountKey) -> BoxFuture<'static, Result<bool, StoreError>>;
    /// Up to `limit` bot accounts, those with most rated games first.
    fn bots(&self, limit: u64) -> BoxFuture<'static, Result<Vec<StoredAccount>, StoreError>>;
    /// The unfinished games where the account holds a seat, newest first.
    fn playing(&self, account: AccountKey) -> BoxFuture<'static, Result<Vec<String>, StoreError>>;
    /// The account's ratings (only the categories it has played rated games in).
    fn ratings(&self, account: AccountKey) -> BoxFuture<'static, Result<Vec<StoredRating>, StoreError>>;
    /// The account's rating after each rated game, oldest first.
    fn rating_history(&self, account: AccountKey) -> BoxFuture<'static, Result<Vec<RatingPoint>, StoreError>>;
    /// What the account has won, drawn and lost, over every finished game.
    fn results(&self, account: AccountKey) -> BoxFuture<'static, Result<Results, StoreError>>;
    /// The account's finished games, newest first: `limit` of them from `offset`, and how
    /// many there are in all.
    fn games_of(
        &self,
        account: AccountKey,
        offset: u64,
        limit: u64,
    ) -> BoxFuture<'static, Result<(u64, Vec<StoredGame>), StoreError>>;
    /// The best-rated accounts of `category` whose stored deviation is at most `max_rd`, best
    /// first, with their names.
    fn leaderboard(
        &self,
        category: Category,
        max_rd: f64,
        limit: u64,
    ) -> BoxFuture<'static, Result<Vec<(String, StoredRating)>, StoreError>>;
}

/// Where rated games' rating changes are read back. They are made with the game's end
/// (`StoreEvent::Ended { rated, .. }`), in one transaction.
pub trait RatingStore: Send + Sync + 'static {
    /// How a rated game that has ended changed its players' ratings; None before its end is
    /// stored, or for a casual game.
    fn rating_change(&self, game: &str) -> BoxFuture<'static, Result<Option<StoredRatings>, StoreError>>;
}

/// Where challenges by name wait for their answer: in the database, so that one made on any
/// node of a cluster is answered on any other, and a restart forgets none. Each is taken out
/// once only (accepted, declined or withdrawn); those older than a cut-off count as gone.
pub trait ChallengeStore: Send + Sync + 'static {
    /// Adds `challenge` unless its challenger already has `max_open` waiting since
    /// `oldest_ms` (false then); forgets the expired ones.
    fn add_challenge(
        &self,
        challenge: StoredChallenge,
        max_open: u64,
        oldest_ms: i64,
    ) -> BoxFuture<'static, Result<bool, StoreError>>;
    /// The challenges made since `oldest_ms` to or by `account`, oldest first.
    fn challenges_of(
        &self,
        account: AccountKey,
        oldest_ms: i64,
    ) -> BoxFuture<'static, Result<Vec<StoredChallenge>, StoreError>>;
    /// One challenge made since `oldest_ms`.
    fn challenge(&self, id: &str, oldest_ms: i64) -> BoxFuture<'static, Result<Option<StoredChallenge>, StoreError>>;
    /// Takes challenge `id` out, if it is still there: of two callers, one gets it.
    fn take_challenge(&self, id: &str) -> BoxFuture<'static, Result<Option<StoredChallenge>, StoreError>>;
}

/// Where players' relations are kept: whom each follows and whom each blocks.
pub trait RelationStore: Send + Sync + 'static {
    /// Sets how `from` stands towards `to` (None: neither follows nor blocks).
    fn set_relation(
        &self,
        from: AccountKey,
        to: AccountKey,
        relation: Option<Relation>,
        now_ms: i64,
    ) -> BoxFuture<'static, Result<(), StoreError>>;
    /// How `from` stands towards `to`.
    fn relation(&self, from: AccountKey, to: AccountKey) -> BoxFuture<'static, Result<Option<Relation>, StoreError>>;
    /// The accounts `from` stands towards as `relation` (those it follows, or blocks), by name.
    fn related(
        &self,
        from: AccountKey,
        relation: Relation,
    ) -> BoxFuture<'static, Result<Vec<StoredAccount>, StoreError>>;
    /// The accounts that stand towards `to` as `relation` (its followers, or those blocking it).
    fn relating(&self, to: AccountKey, relation: Relation) -> BoxFuture<'static, Result<Vec<AccountKey>, StoreError>>;
}

/// Where notifications wait until their player reads them.
pub trait NotificationStore: Send + Sync + 'static {
    /// Adds a notification for `account`, keeping only its `keep` newest; its number.
    fn add_notification(
        &self,
        account: AccountKey,
        kind: String,
        body: String,
        now_ms: i64,
        keep: u64,
    ) -> BoxFuture<'static, Result<i64, StoreError>>;
    /// The account's `limit` newest notifications, newest first, and how many it has unread.
    fn notifications(
        &self,
        account: AccountKey,
        limit: u64,
    ) -> BoxFuture<'static, Result<(u64, Vec<StoredNotification>), StoreError>>;
    /// Marks the account's notifications `ids` read (all of them with None); how many it still
    /// has unread.
    fn read_notifications(
        &self,
        account: AccountKey,
        ids: Option<Vec<i64>>,
    ) -> BoxFuture<'static, Result<u64, StoreError>>;
}

/// Where tournaments are kept, whole, so that a restart goes on with them.
pub trait TournamentStore: Send + Sync + 'static {
    /// Writes `tournament` (a new one, or its latest state). False, writing nothing, when a
    /// cluster's node writes under an epoch no longer its own (another node has taken the
    /// tournament over).
    fn save_tournament(&self, tournament: StoredTournament) -> BoxFuture<'static, Result<bool, StoreError>>;
    /// One tournament.
    fn tournament(&self, id: &str) -> BoxFuture<'static, Result<Option<StoredTournament>, StoreError>>;
    /// Every tournament not finished, and the `finished` most recently made of those that are,
    /// newest first.
    fn tournaments(&self, finished: u64) -> BoxFuture<'static, Result<Vec<StoredTournament>, StoreError>>;
}

/// Where computer analyses of finished games are claimed, followed and kept.
pub trait AnalysisStore: Send + Sync + 'static {
    /// The analysis of `game`, done or running; a running one whose runner has not touched it
    /// since `stale_before_ms` (Unix ms) counts as none.
    fn analysis(
        &self,
        game: &str,
        stale_before_ms: i64,
    ) -> BoxFuture<'static, Result<Option<AnalysisRecord>, StoreError>>;
    /// Claims the analysis of `game` for `runner`: true unless one is done, or running and
    /// touched since `stale_before_ms`.
    fn claim_analysis(
        &self,
        game: &str,
        runner: &str,
        stale_before_ms: i64,
    ) -> BoxFuture<'static, Result<bool, StoreError>>;
    /// The runner's change to its claim (ignored once the claim is another's).
    fn write_analysis(
        &self,
        game: &str,
        runner: &str,
        write: AnalysisWrite,
    ) -> BoxFuture<'static, Result<(), StoreError>>;
}
