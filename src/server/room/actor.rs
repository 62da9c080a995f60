//! The room task: applies commands to the game one at a time and turns each change into one
//! versioned event, serialised once and broadcast.

use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::Instant;

use super::bot::PendingBot;
use super::clock::Clock;
use super::events::EventLog;
use super::idle::IdleTracker;
use super::seat::Seat;
use super::{Action, RoomCommand, RoomContext, RESTART_GAP};
use crate::bots::Level;
use crate::chess::{ByColor, Color, EndReason, Game, Move, MoveError, Outcome, UciMove, Variant};
use crate::protocol::{GameId, GameResult, NewGame, OfferView, Refusal, SeatSpec, ServerMessage, Status};
use crate::server::store::{now_ms, StoreEvent, StoredGame, StoredSeat, StoredTimes};
use crate::server::token::new_token;
use crate::timer::sleep_until;

/// The state of one game, owned by its task.
pub(super) struct Room {
    pub(super) id: GameId,
    pub(super) game: Game,
    pub(super) seats: ByColor<Seat>,
    pub(super) offer: Option<OfferView>,
    /// Numbers, keeps and publishes the game's events.
    pub(super) events: EventLog,
    /// The room's own command queue, for bot answers; weak so the room ends when its handles do.
    pub(super) me: mpsc::WeakSender<RoomCommand>,
    pub(super) watchers: usize,
    pub(super) watchers_sent: usize,
    pub(super) flush_at: Option<Instant>,
    pub(super) job: Option<PendingBot>,
    pub(super) next_job: u64,
    /// The chess clock of a timed game.
    pub(super) clock: Option<Clock>,
    /// Subscribers that are the server's own (text logs): they do not attend the game.
    pub(super) observers: usize,
    /// How long the game has been left alone.
    pub(super) idle: IdleTracker,
    /// Whether the opponent of an absent player has been told they may now claim, by side of
    /// the absent player.
    pub(super) claim_told: ByColor<bool>,
    /// When the game was created (Unix milliseconds), for the PGN's date.
    pub(super) created_ms: i64,
    /// A bot-vs-bot game nobody watches is paused: no bot thinks and the clock stands still
    /// until someone watches again.
    pub(super) paused: bool,
    pub(super) ctx: RoomContext,
}

/// Whether the store has an event's version already: written with the change the event reports
/// (`Stored`), or to be written when the event is sent (`ToRecord`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Version {
    Stored,
    ToRecord,
}

/// What a room is made of, new or restored.
pub(super) struct Setup {
    pub(super) id: GameId,
    pub(super) game: Game,
    pub(super) seats: ByColor<Seat>,
    pub(super) clock: Option<Clock>,
    pub(super) created_ms: i64,
}

/// A room made by `create`, the creator's seat (side and token) if any, and the stored game.
pub(super) type NewRoom = (Room, Option<(Color, String)>, StoredGame);

pub(super) fn bad(message: impl Into<String>) -> Refusal {
    Refusal::bad_request(message)
}

fn seat_from(spec: SeatSpec) -> Result<Seat, Refusal> {
    match spec {
        SeatSpec::Human => Ok(Seat::open()),
        SeatSpec::Bot { level } => {
            Level::new(level).map(|level| Seat::Bot { level, bot: None }).map_err(|e| bad(format!("bad bot seat: {e}")))
        }
    }
}

impl Room {
    /// Builds a room from a create request: the room, the creator's seat (side and token) if
    /// any, and the game as it is to be stored.
    pub(super) fn new(
        id: GameId,
        spec: NewGame,
        ctx: RoomContext,
        me: mpsc::WeakSender<RoomCommand>,
    ) -> Result<NewRoom, Refusal> {
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
        let mut seats = ByColor { white: seat_from(spec.white)?, black: seat_from(spec.black)? };
        let creator = match spec.as_side {
            Some(side) if seats[side].is_bot() => {
                return Err(bad(format!("\"as\": the {} seat is a bot's; take a human seat", side.name())))
            }
            Some(side) => Some(side),
            None => seats.find(|seat| !seat.is_bot()),
        };
        let seat = creator.map(|side| {
            let token = new_token();
            seats[side] = Seat::taken(&token);
            (side, token)
        });
        let setup = Setup { id, game, seats, clock, created_ms: now_ms() };
        let mut room = Room::assemble(setup, EventLog::new(0), ctx, me);
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
        let variant = stored.variant;
        let mut game =
            Game::from_fen(variant, &stored.initial_fen, stored.rules).map_err(|e| bad(format!("stored FEN: {e}")))?;
        for (i, uci) in stored.moves.iter().enumerate() {
            uci.parse::<UciMove>()
                .map_err(|e| e.to_string())
                .and_then(|m| m.to_move(game.position()).map_err(|e| e.to_string()))
                .and_then(|mv| game.play(mv).map(|_| ()).map_err(|e| e.to_string()))
                .map_err(|e| bad(format!("stored move {} ({uci}): {e}", i + 1)))?;
        }
        if let Some(outcome) = stored.outcome {
            if !game.is_over() {
                game.end(outcome);
            }
        }
        let now = Instant::now();
        let seat = |s: StoredSeat| match s {
            StoredSeat::Human { token } => Ok(Seat::Human { token, online: 0, away_since: token.map(|_| now) }),
            StoredSeat::Bot { level } => seat_from(SeatSpec::Bot { level }),
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
        let setup = Setup { id: stored.id, game, seats, clock, created_ms: stored.created_ms };
        let mut room = Room::assemble(setup, EventLog::new(v), ctx, me);
        room.sync_clock();
        Ok(room)
    }

    pub(super) fn assemble(
        setup: Setup,
        events: EventLog,
        ctx: RoomContext,
        me: mpsc::WeakSender<RoomCommand>,
    ) -> Room {
        let Setup { id, game, seats, clock, created_ms } = setup;
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
            created_ms,
            paused: false,
            ctx,
        }
    }

    /// The game as the store is to hold it now.
    pub(super) fn stored(&self) -> StoredGame {
        let seat = |side: Color| match self.seat(side) {
            Seat::Human { token, .. } => StoredSeat::Human { token: *token },
            Seat::Bot { level, .. } => StoredSeat::Bot { level: level.get() },
        };
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
        }
    }

    /// The clock's times at `now`, as stored.
    pub(super) fn times(&self, now: Instant) -> Option<StoredTimes> {
        self.clock.as_ref().map(|c| {
            let view = c.view(now);
            StoredTimes { white_ms: view.white_ms, black_ms: view.black_ms }
        })
    }

    /// The task: commands one at a time, and the batched watcher count.
    pub(super) async fn run(mut self, mut rx: mpsc::Receiver<RoomCommand>) {
        self.maybe_start_bot();
        let mut closed = None;
        loop {
            let flush_at = self.flush_at;
            let flag_at = self.flag_at();
            let claim_at = self.claim_at();
            tokio::select! {
                command = rx.recv() => match command {
                    None => break,
                    Some(RoomCommand::Shutdown { done }) => {
                        closed = done;
                        break;
                    }
                    Some(RoomCommand::IdleCheck) => {
                        if self.idle_check().await {
                            break;
                        }
                    }
                    Some(command) => self.handle(command).await,
                },
                () = sleep_until(flush_at), if flush_at.is_some() => self.flush_watchers(),
                // The room's own timers: a flag falls, or an absent player's grace runs out,
                // with nobody sending anything.
                () = sleep_until(flag_at), if flag_at.is_some() => self.check_flag().await,
                () = sleep_until(claim_at), if claim_at.is_some() => self.open_claims(),
            }
        }
        if let Some(job) = self.job.take() {
            job.cancel();
        }
        if !self.game.is_over() {
            // The server stops: keep the clock's times as of now for the restart.
            if let Some(times) = self.times(Instant::now()) {
                let _ = self.store(StoreEvent::Times(times)).await;
            }
        }
        if let Some(done) = closed {
            let _ = done.send(());
        }
        tracing::debug!(game = %self.id, "room closed");
    }

    pub(super) async fn handle(&mut self, command: RoomCommand) {
        match command {
            RoomCommand::Join { color, reply } => {
                let result = self.join(color).await;
                let _ = reply.send(result);
            }
            RoomCommand::Resume { token, v, reply } => {
                let _ = reply.send(self.resume(&token, v));
            }
            RoomCommand::Watch { v, counted, reply } => {
                if counted {
                    self.watchers += 1;
                    self.schedule_flush();
                }
                self.wake();
                let _ = reply.send(self.subscribe(v));
            }
            RoomCommand::Unwatch => {
                self.watchers = self.watchers.saturating_sub(1);
                self.schedule_flush();
            }
            RoomCommand::Leave { token } => self.leave(&token),
            RoomCommand::Act { token, action, reply } => {
                let result = self.act(&token, action).await;
                let _ = reply.send(result);
            }
            RoomCommand::Snapshot { reply } => {
                let _ = reply.send((self.events.version(), self.state_text()));
            }
            RoomCommand::State { reply } => {
                let _ = reply.send(self.state());
            }
            RoomCommand::Pgn { reply } => {
                let _ = reply.send(self.pgn());
            }
            RoomCommand::BotMove { job, mv, bot } => self.bot_answer(job, mv, bot).await,
            RoomCommand::Observe { v, reply } => {
                self.observers += 1;
                let _ = reply.send(self.subscribe(v));
            }
            RoomCommand::IdleCheck | RoomCommand::Shutdown { .. } => {}
        }
    }

    // ---- actions ---------------------------------------------------------------------------

    pub(super) async fn act(&mut self, token: &str, action: Action) -> Result<(), Refusal> {
        let side = self.side_of(token).ok_or_else(|| Refusal::not_a_player("you hold no seat in this game"))?;
        if self.game.is_over() {
            return Err(Refusal::game_over("the game is over"));
        }
        if self.status() == Status::Waiting && !matches!(action, Action::Move(_)) {
            return Err(Refusal::not_your_turn("the game has not started: a seat is still open"));
        }
        match action {
            Action::Move(uci) => self.human_move(side, &uci).await,
            Action::Undo => self.undo(side).await,
            Action::Draw => self.draw(side).await,
            Action::Decline => self.decline(side),
            Action::Resign => {
                self.finish(Outcome::win(side.other(), EndReason::Resignation)).await;
                Ok(())
            }
            Action::Claim(kind) => self.claim(side, kind).await,
        }
    }

    pub(super) async fn human_move(&mut self, side: Color, uci: &str) -> Result<(), Refusal> {
        if self.status() == Status::Waiting {
            return Err(Refusal::not_your_turn("the game has not started: a seat is still open"));
        }
        if self.game.turn() != side {
            return Err(Refusal::not_your_turn(format!("it is {}'s turn", self.game.turn())));
        }
        let parsed: UciMove = uci.parse().map_err(|e| Refusal::illegal_move(format!("{e}")))?;
        let mv = parsed.to_move(self.game.position()).map_err(|e| Refusal::illegal_move(e.to_string()))?;
        self.play(mv).await
    }

    /// Plays a legal move: stores it, then broadcasts it (and the end, if it ends the game).
    pub(super) async fn play(&mut self, mv: Move) -> Result<(), Refusal> {
        // The move counts as made when it arrives, before the store is written.
        let now = Instant::now();
        if self.clock.as_ref().and_then(|c| c.flagged(now)).is_some() {
            // The timer has not fired yet, but the time is up: the flag falls first.
            self.check_flag().await;
            return Err(Refusal::game_over("your time ran out"));
        }
        let (uci, san) = match self.game.play(mv) {
            Ok(played) => (played.mv.to_string(), played.san.clone()),
            Err(MoveError::GameOver) => return Err(Refusal::game_over("the game is over")),
            Err(e) => return Err(Refusal::illegal_move(e.to_string())),
        };
        let ply = self.game.ply();
        // The clock as it will be after the move, stored with it.
        let mut pressed = self.clock.clone();
        if let Some(clock) = &mut pressed {
            clock.press(now);
            if self.game.is_over() {
                clock.stop(now);
            }
        }
        let times =
            pressed.as_ref().map(|c| c.view(now)).map(|v| StoredTimes { white_ms: v.white_ms, black_ms: v.black_ms });
        let v = self.events.next_version();
        if let Err(e) = self.store(StoreEvent::Move { ply, uci: uci.clone(), times, v }).await {
            // Not durable, so not visible: take it back as if it never happened.
            self.game.undo();
            return Err(e);
        }
        self.ctx.metrics.moves.inc();
        self.offer = None;
        self.clock = pressed;
        // As of the move's arrival, so the side now to move shows its full time.
        let clock = self.clock.as_ref().map(|c| c.view(now));
        let fen = self.game.position().fen();
        let turn = self.game.turn();
        let legal = self.legal();
        let check = self.game.position().is_check();
        self.emit_as(Version::Stored, |game, v| ServerMessage::Move {
            game,
            v,
            uci,
            san,
            fen,
            turn,
            ply,
            legal,
            check,
            clock,
        });
        if let Some(outcome) = self.game.outcome() {
            self.announce_end(outcome).await;
        }
        self.report();
        self.maybe_start_bot();
        Ok(())
    }

    /// Ends the game for a reason off the board.
    pub(super) async fn finish(&mut self, outcome: Outcome) {
        self.game.end(outcome);
        self.announce_end(outcome).await;
        self.report();
    }

    pub(super) async fn announce_end(&mut self, outcome: Outcome) {
        self.cancel_bot();
        self.paused = false;
        self.offer = None;
        if let Some(clock) = &mut self.clock {
            clock.stop(Instant::now());
        }
        let clock = self.clock_view();
        let (result, reason) = (GameResult::from(outcome), outcome.reason);
        let times = self.times(Instant::now());
        let v = self.events.next_version();
        let event = if self.game.ply() == 0 {
            // Ended before a move was made (resigned, aborted, abandoned): nothing worth
            // keeping in the archive. The room still shows the end while it is held.
            StoreEvent::Discarded
        } else {
            StoreEvent::Ended { outcome, times, v }
        };
        // The end follows from what is already stored, so a store failure here only gets logged.
        let _ = self.store(event).await;
        // Its version is stored with it (or, if that write failed, it is not worth another).
        self.emit_as(Version::Stored, |game, v| ServerMessage::End { game, v, result, reason, clock });
    }

    pub(super) fn opponent_is_bot(&self, side: Color) -> bool {
        self.seat(side.other()).is_bot()
    }
}
