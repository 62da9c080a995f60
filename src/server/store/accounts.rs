//! What the store keeps of players with accounts: the accounts themselves, their sessions,
//! their ratings per category and each rated game's change. Kept in the same database as the
//! games (SQLite or PostgreSQL), so a game and the ratings it changed live and die together.
//! Here: the records and formats both stores share; `AccountStore` and `RatingStore` are
//! implemented in `sqlite/accounts.rs` and `postgres/accounts.rs`.

use serde::{Deserialize, Serialize};

use super::StoreError;
use crate::server::ratings::Category;

/// An account's number in the store.
pub type AccountKey = i64;

/// An account as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredAccount {
    pub id: AccountKey,
    /// As the player typed it at sign-up (looked up ignoring case).
    pub username: String,
    /// Argon2id, in the PHC string format (it carries its salt and parameters).
    pub password_hash: String,
    /// The secret from which the account's seat tokens are derived (see `accounts::Account`).
    pub seat_key: Vec<u8>,
    pub created_ms: i64,
    /// A bot account: it plays through the Bot API only (docs/api.md).
    pub bot: bool,
}

/// A challenge as stored: its parties (by account, to find a player's) and the rest as JSON
/// (`challenges::Challenge`, which only `server::challenges` reads).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredChallenge {
    pub id: String,
    pub challenger: AccountKey,
    pub dest: AccountKey,
    pub body: String,
    pub created_ms: i64,
}

/// How one account stands towards another (lichess's relations): it follows them, or it blocks
/// them. One at most per pair and direction: blocking someone ends following them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Relation {
    Follow,
    Block,
}

impl Relation {
    /// The name the store keeps.
    pub fn name(self) -> &'static str {
        match self {
            Relation::Follow => "follow",
            Relation::Block => "block",
        }
    }

    /// The relation a stored name stands for.
    pub fn parse(name: &str) -> Result<Relation, StoreError> {
        match name {
            "follow" => Ok(Relation::Follow),
            "block" => Ok(Relation::Block),
            other => Err(StoreError::Read(format!("unknown relation {other:?}"))),
        }
    }
}

/// A notification as stored: whose it is, its kind and the rest as JSON (`server::notifications`
/// reads it), when it came and whether its account has read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredNotification {
    pub id: i64,
    pub account: AccountKey,
    pub kind: String,
    pub body: String,
    pub created_ms: i64,
    pub read: bool,
}

/// A tournament as stored: its kind and status (to find the unfinished ones) and the rest as
/// JSON (`server::tournaments` reads it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredTournament {
    pub id: String,
    pub kind: String,
    pub status: String,
    pub body: String,
    pub created_ms: i64,
    /// The owner's lease in a cluster (a write under an older epoch is refused); 1 elsewhere.
    pub epoch: i64,
}

/// A personal API token as stored: its number, whose it is, what it is for and may do. The
/// token itself is known by its SHA-256 only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredApiToken {
    pub id: i64,
    pub account: AccountKey,
    pub description: String,
    /// lichess's scope names, comma-separated (`accounts::Scopes`' text).
    pub scopes: String,
    pub created_ms: i64,
}

/// One rating of one account, as of its last rated game: Glicko-2's three numbers, on the
/// Glicko scale, as its `ratings` row holds them (what they mean and how a game moves them is
/// `server::ratings`').
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StoredRating {
    pub category: Category,
    pub rating: f64,
    /// The rating deviation.
    pub rd: f64,
    pub volatility: f64,
    pub games: u32,
    /// When it last changed (Unix ms): its deviation grows from then on.
    pub rated_ms: i64,
}

/// One point of a rating's history: after a rated game.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingPoint {
    pub category: Category,
    pub at_ms: i64,
    pub rating: f64,
}

/// A rated game to apply: who played and how it ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RatedResult {
    pub white: AccountKey,
    pub black: AccountKey,
    pub category: Category,
    /// 1 (White won), 0.5 or 0.
    pub white_score: f64,
    pub at_ms: i64,
}

/// Whether a session last used at `used_ms` should have its use written again at `now_ms`:
/// at most once a hundredth of the idle limit, and at least once a minute. A logged-in socket
/// checks its session before each use of the account; writing every check would put a write on
/// each such message, while a 30-day idle limit needs no finer clock than that.
pub fn session_needs_touch(used_ms: i64, now_ms: i64, idle_ms: i64) -> bool {
    now_ms.saturating_sub(used_ms) >= (idle_ms / 100).min(60_000)
}

/// A rated game's end as the store applies it, with the end itself, in one transaction: the
/// result, and how the new ratings follow from the old (`ratings::rate`; the store does no
/// arithmetic of its own).
#[derive(Clone, Copy, Debug)]
pub struct RatedEnd {
    pub result: RatedResult,
    pub update: RatingUpdate,
}

impl PartialEq for RatedEnd {
    /// The same result; the update is the server's one rule either way (function pointers
    /// do not compare reliably).
    fn eq(&self, other: &RatedEnd) -> bool {
        self.result == other.result
    }
}

/// One player's rating after a rated game and how much it moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RatingChange {
    pub rating: i32,
    pub change: i32,
    pub provisional: bool,
}

/// Both players' changes of a rated game (stored with the game as JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredRatings {
    pub white: RatingChange,
    pub black: RatingChange,
}

/// Both players' ratings in a rated game's category before it (None: no rated game in it yet),
/// as the store reads them in the game's transaction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RatingsBefore {
    pub white: Option<StoredRating>,
    pub black: Option<StoredRating>,
}

/// What a rated game changes: both players' ratings after it, and the change kept with it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RatingsAfter {
    pub white: StoredRating,
    pub black: StoredRating,
    pub change: StoredRatings,
}

/// The rating formula (`server::ratings::rate`), which the store calls inside its transaction,
/// between reading both players' ratings and writing the new ones: the store persists a result
/// without computing it.
pub type RatingUpdate = fn(&RatedResult, RatingsBefore) -> RatingsAfter;

/// What a player has won, drawn and lost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Results {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

/// Wins, draws and losses of account `?1`, over its finished games.
pub(super) const RESULTS: &str = "
    SELECT sum(CASE WHEN (white_account = ?1 AND result = '1-0') OR (black_account = ?1 AND result = '0-1')
                    THEN 1 ELSE 0 END),
           sum(CASE WHEN result = '1/2-1/2' THEN 1 ELSE 0 END),
           sum(CASE WHEN (white_account = ?1 AND result = '0-1') OR (black_account = ?1 AND result = '1-0')
                    THEN 1 ELSE 0 END)
    FROM games WHERE status = 'ended' AND (white_account = ?1 OR black_account = ?1)";

/// The rating change column's text.
pub(super) fn ratings_json(ratings: &StoredRatings) -> String {
    serde_json::to_string(ratings).unwrap_or_default()
}

/// A rating change column read back (None when empty or unreadable: shown as unrated).
pub(super) fn ratings_of(text: Option<&str>) -> Option<StoredRatings> {
    text.and_then(|t| serde_json::from_str(t).ok())
}

/// A category column read back.
pub(super) fn category_of(name: &str) -> Result<Category, StoreError> {
    Category::parse(name).ok_or_else(|| StoreError::Read(format!("unknown rating category {name:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rating_change_reads_back_as_written() {
        let change = |rating, change| RatingChange { rating, change, provisional: true };
        let changes = StoredRatings { white: change(1662, 162), black: change(1338, -162) };
        assert_eq!(ratings_of(Some(&ratings_json(&changes))), Some(changes));
        assert_eq!(ratings_of(Some("garbage")), None);
        assert_eq!(ratings_of(None), None);
    }
}
