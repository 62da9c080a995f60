//! What the store keeps of players with accounts: the accounts themselves, their sessions,
//! their ratings per category and each rated game's change. Kept in the same database as the
//! games (SQLite or PostgreSQL), so a game and the ratings it changed live and die together.
//! Here: the records and formats both stores share; `AccountStore` and `RatingStore` are
//! implemented in `sqlite/accounts.rs` and `postgres/accounts.rs`.

use serde::{Deserialize, Serialize};

use super::StoreError;
use crate::server::accounts::category::Category;
use crate::server::accounts::glicko::{self, Rating, LICHESS};

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
