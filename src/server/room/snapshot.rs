//! What a room shows of its game: the state, the games-list line, the PGN, subscriptions.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::actor::Room;
use super::seat::Seat;
use super::Subscription;
use crate::chess::{write_pgn, Color, Move, PgnTags};
use crate::protocol::{GameRatings, GameResult, GameState, GameSummary, RatingChange, Seats, ServerMessage, Status};
use crate::server::store::{RatingChange as StoredRatingChange, StoredRatings};

impl Room {
    // ---- snapshots -------------------------------------------------------------------------

    pub(super) fn seat(&self, side: Color) -> &Seat {
        &self.seats[side]
    }

    pub(super) fn seat_mut(&mut self, side: Color) -> &mut Seat {
        &mut self.seats[side]
    }

    pub(super) fn seat_views(&self) -> Seats {
        self.seats.as_ref().map(Seat::view)
    }

    pub(super) fn status(&self) -> Status {
        if self.game.is_over() {
            Status::Ended
        } else if self.seats.any(Seat::is_open) {
            Status::Waiting
        } else {
            Status::Ongoing
        }
    }

    pub(super) fn legal(&self) -> Vec<String> {
        self.game.legal_moves().iter().map(Move::to_string).collect()
    }

    pub(super) fn state(&self) -> GameState {
        self.state_as(self.events.version())
    }

    /// The state as the event of version `v` reports it.
    pub(super) fn state_as(&self, v: u64) -> GameState {
        let outcome = self.game.outcome();
        GameState {
            game: self.id.clone(),
            v,
            variant: self.game.variant().into(),
            initial_fen: self.game.initial_position().fen(),
            fen: self.game.position().fen(),
            moves: self.game.history().iter().map(|p| p.mv.to_string()).collect(),
            san: self.game.history().iter().map(|p| p.san.clone()).collect(),
            turn: self.game.turn(),
            status: self.status(),
            result: outcome.map(GameResult::from),
            reason: outcome.map(|o| o.reason),
            seats: self.seat_views(),
            legal: self.legal(),
            check: self.game.position().is_check(),
            clock: self.clock_view(),
            watchers: self.watchers,
            offer: self.offer,
            claim: self.claim_view(Instant::now()),
            score: self.score_now(),
            next: self.next.clone(),
            rated: self.rated,
            ratings: self.ratings.map(game_ratings),
            opening: self.opening.map(Into::into),
        }
    }

    pub(super) fn state_text(&self) -> Arc<str> {
        self.state_text_as(self.events.version())
    }

    pub(super) fn state_text_as(&self, v: u64) -> Arc<str> {
        ServerMessage::State(Box::new(self.state_as(v))).to_json().into()
    }

    pub(super) fn summary(&self) -> GameSummary {
        let seats = self.seat_views();
        GameSummary {
            game: self.id.clone(),
            variant: self.game.variant().into(),
            white: seats.white,
            black: seats.black,
            status: self.status(),
            plies: self.game.ply(),
            watchers: self.watchers,
            result: self.game.outcome().map(GameResult::from),
            clock: self.clock.as_ref().map(|c| c.spec()),
            rated: self.rated,
        }
    }

    pub(super) fn pgn(&self) -> String {
        // PGN's "?" is an unknown player: a seat nobody took.
        let name = |side: Color| self.seat(side).view().name().unwrap_or("?").to_string();
        let tags = PgnTags {
            event: format!("gambit game {}", self.id),
            site: "gambit".into(),
            date: pgn_date(self.created_ms),
            white: name(Color::White),
            black: name(Color::Black),
            ..PgnTags::default()
        };
        write_pgn(&self.game, &tags)
    }

    /// A subscription brought up to date from version `since` (or from nothing). One that
    /// starts afresh gets the chat lines `reader` may read after the state: a player's
    /// (`Some(true)`), a spectator's (`Some(false)`), or none (the server's own observers).
    pub(super) fn subscribe(&mut self, since: Option<u64>, reader: Option<bool>) -> Subscription {
        let over = self.game.is_over();
        self.events.subscribe(since, || {
            let mut fresh = vec![self.state_text()];
            if let Some(player) = reader {
                fresh.extend(self.chat.readable(player, over));
            }
            fresh
        })
    }
}

/// The PGN date (`YYYY.MM.DD`, UTC) of a Unix time in milliseconds.
fn pgn_date(unix_ms: i64) -> String {
    crate::chess::pgn_date(std::time::UNIX_EPOCH + Duration::from_millis(u64::try_from(unix_ms).unwrap_or(0)))
}

/// A rated game's rating changes as the protocol shows them.
pub(super) fn game_ratings(stored: StoredRatings) -> GameRatings {
    let change =
        |c: StoredRatingChange| RatingChange { rating: c.rating, change: c.change, provisional: c.provisional };
    GameRatings { white: change(stored.white), black: change(stored.black) }
}
