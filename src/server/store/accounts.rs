//! What the store keeps of players with accounts: the accounts themselves, their sessions,
//! their ratings per category and each rated game's change. Kept in the same database as the
//! games (SQLite or PostgreSQL), so a game and the ratings it changed live and die together.
//! `AccountStore` is implemented in `sqlite/accounts.rs` and `postgres/accounts.rs`.

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

use super::{StoreError, StoredGame};
use crate::server::accounts::category::Category;
use crate::server::accounts::glicko::{self, Rating, LICHESS};
use crate::server::token::TokenHash;

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
}

/// One rating of one account, as of its last rated game.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StoredRating {
    pub category: Category,
    pub rating: Rating,
    pub games: u32,
    /// When it last changed (Unix ms): its deviation grows from then on.
    pub rated_ms: i64,
}

impl StoredRating {
    /// A new player's rating in `category`.
    pub fn new(category: Category, now_ms: i64) -> StoredRating {
        StoredRating { category, rating: Rating::new(&LICHESS), games: 0, rated_ms: now_ms }
    }

    /// The rating as of `now_ms`: its deviation grown by the time since it last changed.
    pub fn now(&self, now_ms: i64) -> Rating {
        if self.games == 0 {
            return self.rating;
        }
        self.rating.aged(idle_days(self.rated_ms, now_ms), &LICHESS)
    }
}

/// Days from `since_ms` to `now_ms` (never negative).
fn idle_days(since_ms: i64, now_ms: i64) -> f64 {
    (now_ms.saturating_sub(since_ms)).max(0) as f64 / 86_400_000.0
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

/// What a player has won, drawn and lost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Results {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

/// Where accounts, sessions and ratings are kept.
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

/// The ratings after `result`, from both players' ratings before it (None: no rated game yet).
pub(super) fn rated(
    result: &RatedResult,
    white: Option<StoredRating>,
    black: Option<StoredRating>,
) -> (StoredRating, StoredRating, StoredRatings) {
    let white = white.unwrap_or_else(|| StoredRating::new(result.category, result.at_ms));
    let black = black.unwrap_or_else(|| StoredRating::new(result.category, result.at_ms));
    let idle = |r: &StoredRating| if r.games == 0 { 0.0 } else { idle_days(r.rated_ms, result.at_ms) };
    let (w, b) =
        glicko::rate_game(white.rating, idle(&white), black.rating, idle(&black), result.white_score, &LICHESS);
    let after = |before: &StoredRating, rating: Rating| StoredRating {
        category: result.category,
        rating,
        games: before.games.saturating_add(1),
        rated_ms: result.at_ms,
    };
    let change = |before: &StoredRating, after: &StoredRating| RatingChange {
        rating: after.rating.rating.round() as i32,
        change: (after.rating.rating.round() - before.rating.rating.round()) as i32,
        provisional: after.rating.provisional(),
    };
    let (white_after, black_after) = (after(&white, w), after(&black, b));
    let changes = StoredRatings { white: change(&white, &white_after), black: change(&black, &black_after) };
    (white_after, black_after, changes)
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
    fn a_first_rated_game_moves_both_new_players_by_the_same_amount() {
        let result = RatedResult { white: 1, black: 2, category: Category::Blitz, white_score: 1.0, at_ms: 0 };
        let (white, black, changes) = rated(&result, None, None);
        assert_eq!(white.games, 1);
        assert_eq!(black.games, 1);
        assert!(changes.white.change > 0);
        assert_eq!(changes.white.change, -changes.black.change);
        assert!(changes.white.provisional && changes.black.provisional);
        assert_eq!(ratings_of(Some(&ratings_json(&changes))), Some(changes));
        assert_eq!(ratings_of(Some("garbage")), None);
    }
}
