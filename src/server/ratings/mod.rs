//! Ratings: a player has one per [`Category`], estimated with Glicko-2 as lichess uses it
//! ([`glicko`]). The formula lives here, above the store: the store reads both players'
//! ratings, calls [`rate`] and writes what it returns, all in one transaction
//! (`store::RatingStore::rate`), so it persists a result it does not compute.

pub mod category;
pub mod glicko;

pub use category::Category;

use super::store::{RatedResult, RatingChange, RatingsAfter, RatingsBefore, StoredRating, StoredRatings};
use glicko::{Rating, LICHESS};

/// A new player's rating in `category`.
pub fn first(category: Category, now_ms: i64) -> StoredRating {
    stored(category, Rating::new(&LICHESS), 0, now_ms)
}

/// The rating as of `now_ms`: its deviation grown by the time since it last changed.
pub fn current(stored: &StoredRating, now_ms: i64) -> Rating {
    let rating = glicko_of(stored);
    if stored.games == 0 {
        return rating;
    }
    rating.aged(idle_days(stored.rated_ms, now_ms), &LICHESS)
}

/// How a rated game changes its players' ratings (a `store::RatingUpdate`): each is rated
/// against the other's rating before the game, each aged by its own days without one; a player
/// with no rated game in the category yet starts from a new player's rating.
pub fn rate(result: &RatedResult, before: RatingsBefore) -> RatingsAfter {
    let white = before.white.unwrap_or_else(|| first(result.category, result.at_ms));
    let black = before.black.unwrap_or_else(|| first(result.category, result.at_ms));
    let idle = |r: &StoredRating| if r.games == 0 { 0.0 } else { idle_days(r.rated_ms, result.at_ms) };
    let (w, b) = glicko::rate_game(
        glicko_of(&white),
        idle(&white),
        glicko_of(&black),
        idle(&black),
        result.white_score,
        &LICHESS,
    );
    let after = |before: &StoredRating, rating: Rating| {
        stored(result.category, rating, before.games.saturating_add(1), result.at_ms)
    };
    let change = |before: &StoredRating, after: &StoredRating| RatingChange {
        rating: after.rating.round() as i32,
        change: (after.rating.round() - before.rating.round()) as i32,
        provisional: glicko_of(after).provisional(),
    };
    let (white_after, black_after) = (after(&white, w), after(&black, b));
    let change = StoredRatings { white: change(&white, &white_after), black: change(&black, &black_after) };
    RatingsAfter { white: white_after, black: black_after, change }
}

/// The Glicko-2 rating a stored one holds.
fn glicko_of(stored: &StoredRating) -> Rating {
    Rating { rating: stored.rating, rd: stored.rd, volatility: stored.volatility }
}

/// A rating as the store keeps it.
fn stored(category: Category, rating: Rating, games: u32, rated_ms: i64) -> StoredRating {
    StoredRating { category, rating: rating.rating, rd: rating.rd, volatility: rating.volatility, games, rated_ms }
}

/// Days from `since_ms` to `now_ms` (never negative).
fn idle_days(since_ms: i64, now_ms: i64) -> f64 {
    (now_ms.saturating_sub(since_ms)).max(0) as f64 / 86_400_000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_first_rated_game_moves_both_new_players_by_the_same_amount() {
        let result = RatedResult { white: 1, black: 2, category: Category::Blitz, white_score: 1.0, at_ms: 0 };
        let after = rate(&result, RatingsBefore { white: None, black: None });
        assert_eq!((after.white.games, after.black.games), (1, 1));
        assert_eq!((after.white.category, after.white.rated_ms), (Category::Blitz, 0));
        let changes = after.change;
        assert!(changes.white.change > 0);
        assert_eq!(changes.white.change, -changes.black.change);
        assert!(changes.white.provisional && changes.black.provisional);
        assert_eq!(changes.white.rating, after.white.rating.round() as i32);
    }

    #[test]
    fn a_rating_grows_uncertain_only_after_a_rated_game() {
        let new = first(Category::Rapid, 0);
        assert_eq!(current(&new, 400 * 86_400_000), glicko_of(&new), "a new rating does not age");
        let played = StoredRating { games: 10, rd: 60.0, ..new };
        let year = current(&played, 365 * 86_400_000);
        assert!(year.rd > 60.0 && year.rating == played.rating, "{year:?}");
        assert_eq!(current(&played, -5), glicko_of(&played), "a clock that steps back changes nothing");
    }
}
