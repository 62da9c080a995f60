//! What is shown of a game: its state, its games-list line and its PGN, built from borrowed
//! parts — a live room's, or a stored game's when no room holds it (an archived game).

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::build;
use super::chat::Chat;
use super::clock::RoomClock;
use super::events::EventLog;
use super::offers::Offers;
use super::record::Record;
use super::seats::Seats;
use super::Subscription;
use crate::chess::{write_pgn, Color, Game, Move, Outcome, PgnTags};
use crate::protocol::{
    ClaimView, ClockView, GameId, GameRatings, GameResult, GameState, GameSummary, OpeningView, RatingChange, Refusal,
    ServerMessage,
};
use crate::server::store::{RatingChange as StoredRatingChange, StoredGame, StoredRatings};

/// The parts a game's views are made from.
#[derive(Clone, Copy)]
pub(super) struct View<'a> {
    pub(super) id: &'a GameId,
    pub(super) game: &'a Game,
    pub(super) seats: &'a Seats,
    pub(super) clock: &'a RoomClock,
    pub(super) offers: &'a Offers,
    pub(super) record: &'a Record,
    /// The counted spectators.
    pub(super) watchers: usize,
    /// Who may claim the game of an absent player, and in how long.
    pub(super) claim: Option<ClaimView>,
}

/// The state and PGN of a stored game no room holds: the game as a room restored from it would
/// show it, with nobody at it.
pub(super) fn archived(stored: &StoredGame) -> Result<(GameState, String), Refusal> {
    let setup = build::restore(stored.clone())?;
    let offers = Offers::default();
    let view = View {
        id: &setup.id,
        game: &setup.game,
        seats: &setup.seats,
        clock: &setup.clock,
        offers: &offers,
        record: &setup.record,
        watchers: 0,
        claim: None,
    };
    Ok((state(&view, setup.v), pgn(&view)))
}

/// The legal moves, in UCI.
pub(super) fn legal(game: &Game) -> Vec<String> {
    game.legal_moves().iter().map(Move::to_string).collect()
}

/// The state as the event of version `v` reports it.
pub(super) fn state(view: &View, v: u64) -> GameState {
    let View { id, game, seats, clock, offers, record, watchers, claim } = *view;
    let outcome = game.outcome();
    GameState {
        game: id.clone(),
        v,
        variant: game.variant().into(),
        initial_fen: game.initial_position().fen(),
        fen: game.position().fen(),
        moves: game.history().iter().map(|p| p.mv.to_string()).collect(),
        san: game.history().iter().map(|p| p.san.clone()).collect(),
        turn: game.turn(),
        status: seats.status(game),
        result: outcome.map(GameResult::from),
        reason: outcome.map(|o| o.reason),
        seats: seats.views(),
        legal: legal(game),
        check: game.position().is_check(),
        clock: clock.view(Instant::now()),
        watchers,
        offer: offers.offer(),
        claim,
        score: record.score_now(game),
        next: offers.next().cloned(),
        rated: record.rated(),
        ratings: record.ratings().map(game_ratings),
        opening: record.opening().map(Into::into),
    }
}

/// The `state` message of version `v`, serialised.
pub(super) fn state_text(view: &View, v: u64) -> Arc<str> {
    ServerMessage::State(Box::new(state(view, v))).to_json().into()
}

/// A fresh `state` event: the game as it is now, numbered when published.
pub(super) fn state_event(view: &View) -> impl FnOnce(GameId, u64) -> ServerMessage + Send + 'static {
    let state = state(view, 0);
    move |_, v| ServerMessage::State(Box::new(GameState { v, ..state }))
}

/// A `seats` event: who sits where, who is online, and any claim an absent player allows.
pub(super) fn seats_event(view: &View) -> impl FnOnce(GameId, u64) -> ServerMessage + Send + 'static {
    let (seats, claim) = (view.seats.views(), view.claim);
    move |game, v| ServerMessage::Seats { game, v, seats, claim }
}

/// The event of the move `game` has just played (`uci`, `san`), with the clock as of its
/// arrival and the opening it reached.
pub(super) fn move_event(
    game: &Game,
    (uci, san): (String, String),
    clock: Option<ClockView>,
    opening: Option<OpeningView>,
) -> impl FnOnce(GameId, u64) -> ServerMessage + Send + 'static {
    let (fen, turn, ply) = (game.position().fen(), game.turn(), game.ply());
    let (legal, check) = (legal(game), game.position().is_check());
    move |game, v| ServerMessage::Move { game, v, uci, san, fen, turn, ply, legal, check, clock, opening }
}

/// The `end` event of `game`, ended so, with the clock as it stopped, the match's score and
/// any rating changes.
pub(super) fn end_event(
    outcome: Outcome,
    clock: Option<ClockView>,
    game: &Game,
    record: &Record,
) -> impl FnOnce(GameId, u64) -> ServerMessage + Send + 'static {
    let (result, reason) = (GameResult::from(outcome), outcome.reason);
    let (score, ratings) = (record.score_now(game), record.ratings().map(game_ratings));
    move |game, v| ServerMessage::End { game, v, result, reason, clock, score, ratings }
}

/// A subscription to `events` brought up to date from version `since` (or from nothing). One
/// that starts afresh gets the chat lines `reader` may read after the state: a player's
/// (`Some(true)`), a spectator's (`Some(false)`), or none (the server's own observers).
pub(super) fn subscribe(
    events: &EventLog,
    view: &View,
    chat: &Chat,
    since: Option<u64>,
    reader: Option<bool>,
) -> Subscription {
    let over = view.game.is_over();
    events.subscribe(since, || {
        let mut fresh = vec![state_text(view, events.version())];
        if let Some(player) = reader {
            fresh.extend(chat.readable(player, over));
        }
        fresh
    })
}

/// The game's line in the games list.
pub(super) fn summary(view: &View) -> GameSummary {
    let seats = view.seats.views();
    GameSummary {
        game: view.id.clone(),
        variant: view.game.variant().into(),
        white: seats.white,
        black: seats.black,
        status: view.seats.status(view.game),
        plies: view.game.ply(),
        watchers: view.watchers,
        result: view.game.outcome().map(GameResult::from),
        clock: view.clock.spec(),
        rated: view.record.rated(),
        days: view.clock.days(),
    }
}

/// The game as PGN.
pub(super) fn pgn(view: &View) -> String {
    // PGN's "?" is an unknown player: a seat nobody took.
    let name = |side: Color| view.seats.seat(side).view().name().unwrap_or("?").to_string();
    let tags = PgnTags {
        event: format!("gambit game {}", view.id),
        site: "gambit".into(),
        date: pgn_date(view.record.created_ms()),
        white: name(Color::White),
        black: name(Color::Black),
        ..PgnTags::default()
    };
    write_pgn(view.game, &tags)
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
