//! Making a room: a new game from a create request, a stored game restored after a restart,
//! and the game as the store is to hold it.

use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::Instant;

use super::actor::Room;
use super::chat::ChatLog;
use super::clock::Clock;
use super::events::EventLog;
use super::idle::IdleTracker;
use super::offers::Takebacks;
use super::seat::Seat;
use super::{RoomCommand, RoomContext, RESTART_GAP};
use crate::bots::Level;
use crate::chess::{ByColor, Color, Game, Variant};
use crate::protocol::{GameId, MatchScore, NewGame, PlayerName, Refusal, SeatSpec};
use crate::server::accounts::Player;
use crate::server::engines::Engines;
use crate::server::store::{now_ms, StoredGame, StoredSeat, StoredTimes};

/// What a room is made of, new or restored.
pub(super) struct Setup {
    pub(super) id: GameId,
    pub(super) game: Game,
    pub(super) seats: ByColor<Seat>,
    pub(super) clock: Option<Clock>,
    pub(super) created_ms: i64,
    /// The match's score before this game.
    pub(super) score: MatchScore,
    /// Whether the result changes the players' ratings.
    pub(super) rated: bool,
}

/// A room made by `create`, the creator's seat (side and token) if any, and the stored game.
pub(super) type NewRoom = (Room, Option<(Color, String)>, StoredGame);

pub(super) fn bad(message: impl Into<String>) -> Refusal {
    Refusal::bad_request(message)
}

/// The game and clock `spec` asks for, or why it cannot be played.
pub(super) fn playable(spec: &NewGame) -> Result<(Game, Option<Clock>), Refusal> {
    let variant = Variant::from(spec.variant);
    let fen = spec.fen.as_deref().unwrap_or(variant.initial_fen());
    let game = Game::from_fen(variant, fen, spec.rules.into()).map_err(|e| bad(format!("bad FEN: {e}")))?;
    if let Some(outcome) = game.outcome() {
        // A game born finished would be a room and a stored game with nothing to play.
        return Err(Refusal::game_over(format!(
            "that position is already decided ({outcome}); there is nothing to play"
        )));
    }
    let clock = spec.clock.map(Clock::new).transpose().map_err(|e| bad(e.to_string()))?;
    if spec.rated {
        rateable(spec, fen == variant.initial_fen())?;
    }
    Ok((game, clock))
}

/// Refuses a rated game that could not be rated fairly: untimed (no category), from a chosen
/// position, or with a computer in a seat.
fn rateable(spec: &NewGame, from_start: bool) -> Result<(), Refusal> {
    if spec.clock.is_none() {
        return Err(bad("a rated game needs a clock; untimed games are casual"));
    }
    if !from_start {
        return Err(bad("a rated game starts from the usual position; games from a FEN are casual"));
    }
    if !matches!((&spec.white, &spec.black), (SeatSpec::Human, SeatSpec::Human)) {
        return Err(bad("a rated game is between two people; games against the computer are casual"));
    }
    Ok(())
}

/// The seat `spec` asks for in a game of `variant`; an engine seat only with an engine the
/// server offers, in a variant it plays, at a strength it allows.
fn seat_from(spec: SeatSpec, variant: Variant, engines: &Engines) -> Result<Seat, Refusal> {
    match spec {
        SeatSpec::Human => Ok(Seat::open()),
        SeatSpec::Bot { level } => bot_seat(level),
        SeatSpec::Engine { name, options } => {
            let strength = engines.check_seat(&name, &options, variant)?;
            Ok(Seat::engine(name, strength))
        }
    }
}

fn bot_seat(level: u8) -> Result<Seat, Refusal> {
    Level::new(level).map(|level| Seat::Bot { level, bot: None }).map_err(|e| bad(format!("bad bot seat: {e}")))
}

impl Room {
    /// Builds a room from a create request: the room, the creator's seat (side and token) if
    /// any, and the game as it is to be stored.
    pub(super) fn new(
        id: GameId,
        spec: NewGame,
        player: Player,
        ctx: RoomContext,
        me: mpsc::WeakSender<RoomCommand>,
    ) -> Result<NewRoom, Refusal> {
        let (game, clock) = playable(&spec)?;
        let (variant, engines) = (game.variant(), &ctx.config.engines);
        let mut seats = ByColor {
            white: seat_from(spec.white.clone(), variant, engines)?,
            black: seat_from(spec.black.clone(), variant, engines)?,
        };
        let creator = match spec.as_side {
            Some(side) if seats[side].is_bot() => {
                return Err(bad(format!("\"as\": the {} seat is a bot's; take a human seat", side.name())))
            }
            Some(side) => Some(side),
            None => seats.find(|seat| !seat.is_bot()),
        };
        if spec.rated && player.account.is_none() {
            return Err(Refusal::login_required("log in to play rated games"));
        }
        let seat = creator.map(|side| {
            let token = player.seat_token(&id);
            seats[side] = Seat::taken(&token, &player);
            (side, token)
        });
        let rated = spec.rated;
        let setup = Setup { id, game, seats, clock, created_ms: now_ms(), score: MatchScore::default(), rated };
        let mut room = Room::assemble(setup, EventLog::new(0, ctx.relay.clone()), ctx, me);
        // A game with both seats filled at once (a bot opponent) starts now.
        room.sync_clock();
        let stored = room.stored();
        Ok((room, seat, stored))
    }

    /// Rebuilds the room of a stored game after a restart: the moves are played again, players
    /// are away until they resume, and the clock goes on from the times stored, starting now,
    /// so the downtime is charged to nobody.
    pub(super) fn restore(
        stored: StoredGame,
        ctx: RoomContext,
        me: mpsc::WeakSender<RoomCommand>,
    ) -> Result<Room, Refusal> {
        let game = replay(&stored)?;
        let now = Instant::now();
        let seat = |s: StoredSeat| match s {
            StoredSeat::Human { token, name, account } => Ok(Seat::Human {
                token,
                online: 0,
                away_since: token.map(|_| now),
                name: PlayerName::from_stored(name),
                account,
                also: None,
            }),
            StoredSeat::Bot { level } => bot_seat(level),
            // Not checked against the engines offered now: an engine no longer offered
            // resigns when it is to move, with the reason in the chat.
            StoredSeat::Engine { name, options } => Ok(Seat::engine(name, options)),
        };
        let seats = ByColor { white: seat(stored.white)?, black: seat(stored.black)? };
        let clock = match stored.clock {
            Some(spec) => {
                let mut clock = Clock::new(spec.into()).map_err(|e| bad(e.to_string()))?;
                if let Some(t) = stored.times {
                    clock.set_remaining(Duration::from_millis(t.white_ms), Duration::from_millis(t.black_ms));
                }
                Some(clock)
            }
            None => None,
        };
        // Events sent before the restart whose version was still being written are covered
        // by the gap: no client can hold a version the new room will give to another event.
        let v = stored.v + RESTART_GAP;
        let score = stored.score.into();
        let chat = ChatLog::restore(&stored.id, &stored.chat);
        let rated = stored.rated;
        let setup = Setup { id: stored.id, game, seats, clock, created_ms: stored.created_ms, score, rated };
        let mut room = Room::assemble(setup, EventLog::new(v, ctx.relay.clone()), ctx, me);
        room.chat = chat;
        room.ratings = stored.ratings;
        room.ended_published = room.game.is_over();
        room.sync_clock();
        Ok(room)
    }

    pub(super) fn assemble(
        setup: Setup,
        events: EventLog,
        ctx: RoomContext,
        me: mpsc::WeakSender<RoomCommand>,
    ) -> Room {
        let Setup { id, game, seats, clock, created_ms, score, rated } = setup;
        let opening = crate::chess::openings::of_game(&game);
        Room {
            id,
            game,
            seats,
            offer: None,
            events,
            me,
            watchers: 0,
            watchers_sent: 0,
            flush_at: None,
            job: None,
            next_job: 0,
            clock,
            observers: 0,
            idle: IdleTracker::default(),
            claim_told: ByColor::default(),
            takebacks: Takebacks::default(),
            created_ms,
            paused: false,
            chat: ChatLog::default(),
            score,
            next: None,
            ended_published: false,
            opening,
            rated,
            ratings: None,
            ctx,
        }
    }

    /// The game as the store is to hold it now.
    pub(super) fn stored(&self) -> StoredGame {
        let seat = |side: Color| self.seat(side).stored();
        let outcome = self.game.outcome();
        StoredGame {
            id: self.id.clone(),
            variant: self.game.variant(),
            initial_fen: self.game.initial_position().fen(),
            rules: self.game.rules(),
            white: seat(Color::White),
            black: seat(Color::Black),
            clock: self.clock.as_ref().map(|c| c.spec().into()),
            times: self.times(Instant::now()),
            moves: self.game.history().iter().map(|p| p.mv.to_string()).collect(),
            v: self.events.version(),
            outcome,
            created_ms: self.created_ms,
            ended_ms: outcome.map(|_| self.created_ms),
            score: self.score.into(),
            // A game is stored when it is made, before anyone has written anything.
            chat: Vec::new(),
            rated: self.rated,
            ratings: self.ratings,
        }
    }

    /// The clock's times at `now`, as stored.
    pub(super) fn times(&self, now: Instant) -> Option<StoredTimes> {
        self.clock.as_ref().map(|c| {
            let view = c.view(now);
            StoredTimes { white_ms: view.white_ms, black_ms: view.black_ms }
        })
    }
}

/// A stored game's moves played again from its initial position, ended as it ended.
pub(super) fn replay(stored: &StoredGame) -> Result<Game, Refusal> {
    let mut game = Game::from_fen(stored.variant, &stored.initial_fen, stored.rules)
        .map_err(|e| bad(format!("stored FEN: {e}")))?;
    for (i, uci) in stored.moves.iter().enumerate() {
        game.play_uci(uci).map_err(|e| bad(format!("stored move {} ({uci}): {e}", i + 1)))?;
    }
    if let Some(outcome) = stored.outcome {
        if !game.is_over() {
            game.end(outcome);
        }
    }
    Ok(game)
}
