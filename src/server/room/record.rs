//! A game's record beyond its moves and seats: when it was made, the match it belongs to,
//! whether it is rated (and, once it has ended, how the ratings changed), and its opening.

use crate::chess::openings::{self, Opening};
use crate::chess::{ByColor, Color, Game, Outcome, Variant};
use crate::protocol::{ClockSpec, MatchScore};
use crate::server::ratings::{self, Category};
use crate::server::store::{
    now_ms, AccountKey, RatedEnd, RatedResult, RatingStore, StoreEvent, StoredRatings, StoredTimes,
};

/// The facts of a game a room keeps beside the game itself.
pub(super) struct Record {
    /// When the game was created (Unix milliseconds), for the PGN's date.
    created_ms: i64,
    /// The score of the match before this game, as this game's colours see it.
    score: MatchScore,
    /// Whether the result changes the players' ratings ...
    rated: bool,
    /// ... and, once it has, by how much.
    ratings: Option<StoredRatings>,
    /// The longest named opening the moves have reached.
    opening: Option<Opening>,
}

impl Record {
    /// The record of `game`, made at `created_ms` in a match standing at `score` (`ratings`:
    /// a stored game's rating changes, if it was rated and has ended).
    pub(super) fn new(
        game: &Game,
        created_ms: i64,
        score: MatchScore,
        rated: bool,
        ratings: Option<StoredRatings>,
    ) -> Record {
        Record { created_ms, score, rated, ratings, opening: openings::of_game(game) }
    }

    pub(super) fn created_ms(&self) -> i64 {
        self.created_ms
    }

    /// The score of the match before this game.
    pub(super) fn score(&self) -> MatchScore {
        self.score
    }

    /// The match's score now: this game counts once it has ended with a result.
    pub(super) fn score_now(&self, game: &Game) -> MatchScore {
        match game.outcome() {
            Some(outcome) if !outcome.is_aborted() => self.score.plus(outcome.winner),
            _ => self.score,
        }
    }

    pub(super) fn rated(&self) -> bool {
        self.rated
    }

    /// How the players' ratings changed, once they have.
    pub(super) fn ratings(&self) -> Option<StoredRatings> {
        self.ratings
    }

    /// What a rated game's `outcome` changes, between the players of these `accounts`, on this
    /// `clock`, in this `variant`: None for a casual game (or one between an account and itself).
    fn rated_result(
        &self,
        accounts: ByColor<Option<AccountKey>>,
        (clock, correspondence): (Option<ClockSpec>, bool),
        variant: Variant,
        outcome: Outcome,
    ) -> Option<RatedResult> {
        let (Some(white), Some(black)) = (accounts.white, accounts.black) else { return None };
        if !self.rated || white == black {
            return None;
        }
        // A correspondence game has days per move rather than a clock (and a casual untimed
        // game is never rated: `build::rateable`).
        let clock = clock.map(|c| (c.initial_ms, c.increment_ms));
        if clock.is_none() && !correspondence {
            return None;
        }
        let category = Category::of_game(variant, clock);
        let white_score = match outcome.winner {
            Some(Color::White) => 1.0,
            Some(Color::Black) => 0.0,
            None => 0.5,
        };
        Some(RatedResult { white, black, category, white_score, at_ms: now_ms() })
    }

    /// What the store keeps of the end of `game` with `outcome`, with the clock's `times` and
    /// the version `v` of the end's event: nothing ([`StoreEvent::Discarded`]) for a game that
    /// ended before a move was made (resigned, abandoned) or was called off, as the archive has
    /// no use for it (the room still shows the end while it is held); else the end, and for a
    /// rated game (see [`Record::rated_result`]) the rating change, made in the same
    /// transaction: a crash leaves both or neither.
    pub(super) fn stored_end(
        &self,
        game: &Game,
        (accounts, clock, variant): (ByColor<Option<AccountKey>>, (Option<ClockSpec>, bool), Variant),
        outcome: Outcome,
        (times, v): (Option<StoredTimes>, u64),
    ) -> StoreEvent {
        if discarded(game) {
            return StoreEvent::Discarded;
        }
        let rated = self.rated_result(accounts, clock, variant, outcome);
        StoreEvent::Ended { outcome, times, v, rated: rated.map(|result| RatedEnd { result, update: ratings::rate }) }
    }

    /// Reads back how the stored end of rated game `id` changed the ratings, so the end can
    /// carry the change. A failed read only leaves the change off the event (it is logged).
    pub(super) async fn read_ratings(&mut self, (id, store): (&str, &dyn RatingStore)) {
        match store.rating_change(id).await {
            Ok(ratings) => self.ratings = ratings,
            Err(e) => tracing::error!(game = %id, error = %e, "could not read the rating change"),
        }
    }

    /// The opening reached.
    pub(super) fn opening(&self) -> Option<Opening> {
        self.opening
    }

    /// `game` has one move more: the opening it has reached now.
    pub(super) fn moved(&mut self, game: &Game) -> Option<Opening> {
        self.opening = openings::after(self.opening, game);
        self.opening
    }

    /// Moves of `game` were taken back: its opening found again.
    pub(super) fn taken_back(&mut self, game: &Game) {
        self.opening = openings::of_game(game);
    }
}

/// True for a game that ended with nothing worth keeping (no move played, or aborted): the
/// store forgets it.
pub(super) fn discarded(game: &Game) -> bool {
    game.outcome().is_some_and(|o| game.ply() == 0 || o.is_aborted())
}
