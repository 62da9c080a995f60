//! The room task: applies commands to the game one at a time and turns each change into one
//! versioned event, serialised once and broadcast.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::Instant;

use super::bot::{self, PendingBot};
use super::clock::{self, Clock};
use super::events::EventLog;
use super::idle::{self, IdleTracker};
use super::seat::Seat;
use super::{Action, ClaimKind, CreateSpec, RoomCommand, RoomContext, Seated, Subscription, RESTART_GAP};
use crate::bots::Level;
use crate::chess::{write_pgn, ByColor, Color, EndReason, Game, Move, MoveError, Outcome, PgnTags, UciMove, Variant};
use crate::protocol::{
    ClaimView, GameId, GameResult, GameState, GameSummary, OfferKind, OfferView, Refusal, SeatSpec, SeatView, Seats,
    ServerMessage, Status,
};
use crate::server::store::{now_ms, StoreEvent, StoredGame, StoredSeat, StoredTimes};
use crate::server::token::{new_token, TokenHash};

/// The state of one game, owned by its task.
pub(super) struct Room {
    id: GameId,
    game: Game,
    seats: ByColor<Seat>,
    offer: Option<OfferView>,
    /// Numbers, keeps and publishes the game's events.
    events: EventLog,
    /// The room's own command queue, for bot answers; weak so the room ends when its handles do.
    me: mpsc::WeakSender<RoomCommand>,
    watchers: usize,
    watchers_sent: usize,
    flush_at: Option<Instant>,
    job: Option<PendingBot>,
    next_job: u64,
    /// The chess clock of a timed game.
    clock: Option<Clock>,
    /// Subscribers that are the server's own (text logs): they do not attend the game.
    observers: usize,
    /// How long the game has been left alone.
    idle: IdleTracker,
    /// Whether the opponent of an absent player has been told they may now claim, by side of
    /// the absent player.
    claim_told: ByColor<bool>,
    /// When the game was created (Unix milliseconds), for the PGN's date.
    created_ms: i64,
    /// A bot-vs-bot game nobody watches is paused: no bot thinks and the clock stands still
    /// until someone watches again.
    paused: bool,
    ctx: RoomContext,
}

/// Whether the store has an event's version already: written with the change the event reports
/// (`Stored`), or to be written when the event is sent (`ToRecord`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Version {
    Stored,
    ToRecord,
}

/// What a room is made of, new or restored.
struct Setup {
    id: GameId,
    game: Game,
    seats: ByColor<Seat>,
    clock: Option<Clock>,
    created_ms: i64,
}

/// A room made by `create`, the creator's seat (side and token) if any, and the stored game.
pub(super) type NewRoom = (Room, Option<(Color, String)>, StoredGame);

fn bad(message: impl Into<String>) -> Refusal {
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
        spec: CreateSpec,
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
        if let (Some(result), Some(reason)) = (&stored.result, &stored.reason) {
            if !game.is_over() {
                let outcome = Outcome::from_result(result, reason)
                    .ok_or_else(|| bad(format!("stored result {result:?} for {reason:?}")))?;
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

    fn assemble(setup: Setup, events: EventLog, ctx: RoomContext, me: mpsc::WeakSender<RoomCommand>) -> Room {
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
    fn stored(&self) -> StoredGame {
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
            result: outcome.map(|o| o.result().to_string()),
            reason: outcome.map(|o| o.reason.name().to_string()),
            created_ms: self.created_ms,
            ended_ms: outcome.map(|_| self.created_ms),
        }
    }

    /// The clock's times at `now`, as stored.
    fn times(&self, now: Instant) -> Option<StoredTimes> {
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

    async fn handle(&mut self, command: RoomCommand) {
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

    // ---- snapshots -------------------------------------------------------------------------

    fn seat(&self, side: Color) -> &Seat {
        &self.seats[side]
    }

    fn seat_mut(&mut self, side: Color) -> &mut Seat {
        &mut self.seats[side]
    }

    fn seat_views(&self) -> Seats {
        self.seats.as_ref().map(Seat::view)
    }

    fn status(&self) -> Status {
        if self.game.is_over() {
            Status::Ended
        } else if self.seats.any(Seat::is_open) {
            Status::Waiting
        } else {
            Status::Ongoing
        }
    }

    fn legal(&self) -> Vec<String> {
        self.game.legal_moves().iter().map(Move::to_string).collect()
    }

    pub(super) fn state(&self) -> GameState {
        self.state_as(self.events.version())
    }

    /// The state as the event of version `v` reports it.
    fn state_as(&self, v: u64) -> GameState {
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
        }
    }

    fn state_text(&self) -> Arc<str> {
        self.state_text_as(self.events.version())
    }

    fn state_text_as(&self, v: u64) -> Arc<str> {
        ServerMessage::State(self.state_as(v)).to_json().into()
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
        }
    }

    pub(super) fn pgn(&self) -> String {
        let name = |side: Color| match self.seat(side).view() {
            SeatView::Bot { level } => format!("gambit level {level}"),
            _ => format!("{} player", side.name()),
        };
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

    /// A subscription brought up to date from version `since` (or from nothing).
    pub(super) fn subscribe(&mut self, since: Option<u64>) -> Subscription {
        self.events.subscribe(since, || self.state_text())
    }

    // ---- events ----------------------------------------------------------------------------

    /// Publishes the next event, made by `build` for its version.
    fn emit(&mut self, build: impl FnOnce(GameId, u64) -> ServerMessage) {
        self.emit_as(Version::ToRecord, build);
    }

    fn emit_as(&mut self, version: Version, build: impl FnOnce(GameId, u64) -> ServerMessage) {
        let text: Arc<str> = build(self.id.clone(), self.events.next_version()).to_json().into();
        self.publish(text, version);
    }

    /// Publishes a fresh `state` as the next event.
    fn emit_state(&mut self, version: Version) {
        let text = self.state_text_as(self.events.next_version());
        self.publish(text, version);
    }

    /// The one publish step: the log numbers, keeps and broadcasts the event; the store notes
    /// its version unless it has it already (without waiting: what the event reports is stored
    /// already, or is not kept across restarts).
    fn publish(&mut self, text: Arc<str>, version: Version) {
        let v = self.events.publish(text);
        if version == Version::ToRecord {
            drop(self.ctx.store.record(&self.id, StoreEvent::Version { v }));
        }
    }

    fn emit_seats(&mut self) {
        let seats = self.seat_views();
        let claim = self.claim_view(Instant::now());
        self.emit(|game, v| ServerMessage::Seats { game, v, seats, claim });
        self.report();
    }

    /// Tells the lobby the games list may have changed.
    fn report(&self) {
        let _ = self.ctx.lobby.send(self.summary());
    }

    fn schedule_flush(&mut self) {
        if self.flush_at.is_none() {
            self.flush_at = Some(Instant::now() + self.ctx.config.watcher_batch);
        }
    }

    fn flush_watchers(&mut self) {
        self.flush_at = None;
        if self.watchers != self.watchers_sent {
            self.watchers_sent = self.watchers;
            let text: Arc<str> =
                ServerMessage::Watchers { game: self.id.clone(), count: self.watchers }.to_json().into();
            self.events.announce(text);
            self.report();
        }
    }

    /// Records a change. The future does not borrow the room: a room is `Send` but not `Sync`
    /// (bots are not), so no `&Room` may live across an await.
    fn store(&self, event: StoreEvent) -> impl std::future::Future<Output = Result<(), Refusal>> + Send + 'static {
        let saving = self.ctx.store.record(&self.id, event);
        let id = self.id.clone();
        async move {
            saving.await.map_err(|e| {
                tracing::error!(game = %id, error = %e, "store failed");
                Refusal::server_error(e.to_string())
            })
        }
    }

    // ---- clock -----------------------------------------------------------------------------

    fn clock_view(&self) -> Option<crate::protocol::ClockView> {
        self.clock.as_ref().map(|c| c.view(Instant::now()))
    }

    /// When the running side's flag falls, while the game goes on.
    fn flag_at(&self) -> Option<Instant> {
        self.clock.as_ref().filter(|_| !self.game.is_over()).and_then(Clock::flag_at)
    }

    /// Runs the clock of the side to move while the game is on, stops it otherwise. True if this
    /// started the clock of a game whose clock was not running.
    fn sync_clock(&mut self) -> bool {
        let ongoing = self.status() == Status::Ongoing;
        let turn = self.game.turn();
        let Some(clock) = &mut self.clock else { return false };
        let now = Instant::now();
        let was_running = clock.running().is_some();
        if ongoing {
            clock.start(turn, now);
        } else {
            clock.stop(now);
        }
        ongoing && !was_running
    }

    /// Ends the game if the running side's time is up: a loss, or a draw when the opponent
    /// cannot mate (docs/rules.md, "Time controls").
    async fn check_flag(&mut self) {
        if self.game.is_over() {
            return;
        }
        let Some(flagged) = self.clock.as_ref().and_then(|c| c.flagged(Instant::now())) else { return };
        let outcome = clock::timeout_outcome(self.game.position(), flagged);
        let _ = self.finish(outcome).await;
    }

    // ---- seats ----------------------------------------------------------------------------

    async fn join(&mut self, color: Option<Color>) -> Result<Seated, Refusal> {
        let side = match color {
            Some(side) => side,
            None => [Color::White, Color::Black]
                .into_iter()
                .find(|s| self.seat(*s).is_open())
                .ok_or_else(|| Refusal::seat_taken("both seats are taken; you can watch"))?,
        };
        if !self.seat(side).is_open() {
            let who = if self.seat(side).is_bot() { "a bot" } else { "another player" };
            return Err(Refusal::seat_taken(format!("the {} seat is taken by {who}", side.name())));
        }
        let token = new_token();
        // The seat is the player's once the store has it: a restart must know their token.
        self.store(StoreEvent::Seat { side, token: TokenHash::of(&token) }).await?;
        *self.seat_mut(side) = Seat::taken(&token);
        self.emit_seats();
        if self.sync_clock() {
            // The seats event carries no clock: a fresh state tells everyone it is running.
            self.emit_state(Version::ToRecord);
        }
        self.maybe_start_bot();
        Ok(Seated { color: side, token, sub: self.subscribe(None) })
    }

    fn side_of(&self, token: &str) -> Option<Color> {
        // Hashed once, compared with both seats.
        let presented = TokenHash::of(token);
        [Color::White, Color::Black].into_iter().find(|s| self.seat(*s).held_by(&presented))
    }

    fn resume(&mut self, token: &str, v: Option<u64>) -> Result<Seated, Refusal> {
        let side = self.side_of(token).ok_or_else(|| Refusal::not_a_player("that token holds no seat in this game"))?;
        let came_online = match self.seat_mut(side) {
            Seat::Human { online, away_since, .. } => {
                *online += 1;
                *away_since = None;
                *online == 1
            }
            Seat::Bot { .. } => false,
        };
        if came_online {
            self.claim_told[side] = false;
            self.emit_seats();
        }
        Ok(Seated { color: side, token: token.to_string(), sub: self.subscribe(v) })
    }

    fn leave(&mut self, token: &str) {
        let Some(side) = self.side_of(token) else { return };
        let went_offline = match self.seat_mut(side) {
            Seat::Human { online, away_since, .. } if *online > 0 => {
                *online -= 1;
                if *online == 0 {
                    *away_since = Some(Instant::now());
                }
                *online == 0
            }
            _ => false,
        };
        if went_offline {
            self.claim_told[side] = false;
            self.emit_seats();
        }
    }

    // ---- presence: claims against an absent player ------------------------------------------

    /// How long a player may be away before the opponent may claim the game.
    fn grace(&self) -> Duration {
        self.ctx.config.claim_grace.for_clock(self.clock.as_ref().map(Clock::spec))
    }

    /// The side that is away from an ongoing game while its opponent is connected, and since when.
    fn absent(&self) -> Option<(Color, Instant)> {
        if self.status() != Status::Ongoing {
            return None;
        }
        [Color::White, Color::Black].into_iter().find_map(|side| {
            let since = self.seat(side).away_since()?;
            self.seat(side.other()).is_online().then_some((side, since))
        })
    }

    /// Who may claim the game and in how long, while a player is away.
    fn claim_view(&self, now: Instant) -> Option<ClaimView> {
        let (absent, since) = self.absent()?;
        let left = (since + self.grace()).saturating_duration_since(now);
        Some(ClaimView { by: absent.other(), in_ms: u64::try_from(left.as_millis()).unwrap_or(u64::MAX) })
    }

    /// When the opponent of an absent player is next to be told that they may claim.
    fn claim_at(&self) -> Option<Instant> {
        let (absent, since) = self.absent()?;
        (!self.claim_told[absent]).then(|| since + self.grace())
    }

    /// The grace has run out: a `seats` event tells the opponent they may claim now.
    fn open_claims(&mut self) {
        if let Some((absent, _)) = self.absent() {
            self.claim_told[absent] = true;
            self.emit_seats();
        }
    }

    /// `side` claims the game of an opponent who has been away for the grace period.
    async fn claim(&mut self, side: Color, kind: ClaimKind) -> Result<(), Refusal> {
        let opponent = self.seat(side.other());
        if opponent.is_bot() {
            return Err(bad("there is nothing to claim: your opponent is a computer player"));
        }
        if opponent.is_online() {
            return Err(bad("your opponent is connected; there is nothing to claim"));
        }
        let Some(since) = opponent.away_since() else {
            return Err(bad("your opponent is connected; there is nothing to claim"));
        };
        let left = (since + self.grace()).saturating_duration_since(Instant::now());
        if !left.is_zero() {
            let secs = left.as_millis().div_ceil(1000);
            return Err(bad(format!("your opponent may still come back: you can claim in {secs} s")));
        }
        let outcome = match kind {
            ClaimKind::Win => Outcome::win(side, EndReason::Abandoned),
            ClaimKind::Draw => Outcome::draw(EndReason::Abandoned),
        };
        self.finish(outcome).await
    }

    // ---- actions ---------------------------------------------------------------------------

    async fn act(&mut self, token: &str, action: Action) -> Result<(), Refusal> {
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
            Action::Resign => self.finish(Outcome::win(side.other(), EndReason::Resignation)).await,
            Action::Claim(kind) => self.claim(side, kind).await,
        }
    }

    async fn human_move(&mut self, side: Color, uci: &str) -> Result<(), Refusal> {
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
    async fn play(&mut self, mv: Move) -> Result<(), Refusal> {
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
    async fn finish(&mut self, outcome: Outcome) -> Result<(), Refusal> {
        self.game.end(outcome);
        self.announce_end(outcome).await;
        self.report();
        Ok(())
    }

    async fn announce_end(&mut self, outcome: Outcome) {
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
            StoreEvent::Ended { result: result.to_string(), reason: reason.name().to_string(), times, v }
        };
        // The end follows from what is already stored, so a store failure here only gets logged.
        let _ = self.store(event).await;
        // Its version is stored with it (or, if that write failed, it is not worth another).
        self.emit_as(Version::Stored, |game, v| ServerMessage::End { game, v, result, reason, clock });
    }

    fn opponent_is_bot(&self, side: Color) -> bool {
        self.seat(side.other()).is_bot()
    }

    async fn undo(&mut self, side: Color) -> Result<(), Refusal> {
        if self.opponent_is_bot(side) {
            let thinking = self.game.turn() != side;
            // While the bot thinks, only the player's own last move goes; else the bot's reply too.
            let plies = if thinking { 1 } else { 2 };
            if self.game.ply() < plies {
                return Err(bad("there is no move of yours to take back"));
            }
            return self.take_back(plies).await;
        }
        match self.offer {
            Some(OfferView { kind: OfferKind::Undo, by }) if by != side => {
                // Accepting: take back the offerer's last move (and the reply to it, if any).
                let plies = if self.game.turn() == by { 2 } else { 1 };
                self.take_back(plies).await
            }
            Some(OfferView { kind: OfferKind::Undo, .. }) => Err(bad("you have already offered to take back")),
            _ => {
                let plies = if self.game.turn() == side { 2 } else { 1 };
                if self.game.ply() < plies {
                    return Err(bad("there is no move of yours to take back"));
                }
                self.offer = Some(OfferView { kind: OfferKind::Undo, by: side });
                self.emit(|game, v| ServerMessage::Offer { game, v, kind: OfferKind::Undo, by: side });
                Ok(())
            }
        }
    }

    async fn take_back(&mut self, plies: usize) -> Result<(), Refusal> {
        // Durable first: if the store refuses, the moves stay and the game goes on unchanged.
        let times = self.times(Instant::now());
        let ply = self.game.ply().saturating_sub(plies);
        self.store(StoreEvent::Undo { ply, times, v: self.events.next_version() }).await?;
        self.cancel_bot();
        for _ in 0..plies {
            self.game.undo();
        }
        self.offer = None;
        // Clocks are not rolled back (docs/protocol.md): the side to move now has its time running.
        self.sync_clock();
        self.emit_state(Version::Stored);
        self.report();
        self.maybe_start_bot();
        Ok(())
    }

    async fn draw(&mut self, side: Color) -> Result<(), Refusal> {
        if self.opponent_is_bot(side) {
            // Bots decline draws at once: the offer and its refusal are both shown.
            self.emit(|game, v| ServerMessage::Offer { game, v, kind: OfferKind::Draw, by: side });
            self.emit(|game, v| ServerMessage::Declined { game, v, kind: OfferKind::Draw, by: side });
            return Ok(());
        }
        match self.offer {
            Some(OfferView { kind: OfferKind::Draw, by }) if by != side => {
                self.finish(Outcome::draw(EndReason::Agreement)).await
            }
            Some(OfferView { kind: OfferKind::Draw, .. }) => Err(bad("you have already offered a draw")),
            _ => {
                self.offer = Some(OfferView { kind: OfferKind::Draw, by: side });
                self.emit(|game, v| ServerMessage::Offer { game, v, kind: OfferKind::Draw, by: side });
                Ok(())
            }
        }
    }

    fn decline(&mut self, side: Color) -> Result<(), Refusal> {
        match self.offer {
            Some(OfferView { kind, by }) if by != side => {
                self.offer = None;
                self.emit(|game, v| ServerMessage::Declined { game, v, kind, by });
                Ok(())
            }
            _ => Err(bad("there is no offer to decline")),
        }
    }

    // ---- idle games ------------------------------------------------------------------------

    /// Someone is at the game: a seat holder online, a spectator, or another follower (such as
    /// the creator of a bot game).
    fn attended(&self) -> bool {
        let online = self.seats.any(|s| matches!(s, Seat::Human { online, .. } if *online > 0));
        online || self.watchers > 0 || self.events.subscribers() > self.observers
    }

    /// Ends an unfinished game left alone for the idle timeout. True if the room is to close
    /// (a game still waiting for a player simply goes); a game in progress ends and stays
    /// while finished games do.
    async fn idle_check(&mut self) -> bool {
        if self.game.is_over() {
            return false;
        }
        let alone = self.idle.unattended(self.attended(), Instant::now());
        if alone < self.ctx.config.idle_timeout {
            if alone >= self.ctx.config.unwatched_bot_pause {
                // A flag that fell meanwhile ends the game rather than freezing at zero.
                self.check_flag().await;
                self.pause();
            }
            return false;
        }
        if self.status() == Status::Waiting {
            tracing::info!(game = %self.id, "waiting game left alone; closed");
            // Nobody played it: it need not be kept, nor come back after a restart.
            let _ = self.store(StoreEvent::Discarded).await;
            return true;
        }
        let human = self.seats.as_ref().map(|seat| !seat.is_bot());
        let outcome = idle::abandoned_outcome(human, self.game.turn());
        tracing::info!(game = %self.id, %outcome, "unattended game ended");
        let _ = self.finish(outcome).await;
        false
    }

    // ---- bots ------------------------------------------------------------------------------

    fn cancel_bot(&mut self) {
        if let Some(job) = self.job.take() {
            job.cancel();
        }
    }

    /// Pauses a bot-vs-bot game that nobody watches: its moves would cost CPU for no one.
    fn pause(&mut self) {
        if self.paused || self.game.is_over() || !self.seats.all(Seat::is_bot) {
            return;
        }
        tracing::info!(game = %self.id, "bot game paused: nobody watches it");
        self.paused = true;
        self.cancel_bot();
        if let Some(clock) = &mut self.clock {
            clock.stop(Instant::now());
        }
    }

    /// Someone watches: a paused bot game goes on, clock and all.
    fn wake(&mut self) {
        if !self.paused {
            return;
        }
        tracing::info!(game = %self.id, "bot game resumed: someone watches it");
        self.paused = false;
        if self.sync_clock() {
            // Everyone, the newcomer included, learns that the clock runs again from now.
            self.emit_state(Version::ToRecord);
        }
        self.maybe_start_bot();
    }

    /// Starts the bot to move, if a bot is to move and is not already thinking.
    fn maybe_start_bot(&mut self) {
        if self.job.is_some() || self.paused || self.game.is_over() || self.status() != Status::Ongoing {
            return;
        }
        let turn = self.game.turn();
        if !self.seat(turn).is_bot() {
            return;
        }
        let both_bots = self.seats.all(Seat::is_bot);
        let config = self.ctx.config.clone();
        let (movetime, delay) = match &self.clock {
            Some(c) => {
                let remaining = c.remaining(turn, Instant::now());
                let budget = clock::think_budget(config.level5_movetime, remaining, c.increment());
                // The pause for spectators is charged too, so it shrinks with the time left.
                (budget, if both_bots { config.bot_delay.min(remaining / 20) } else { Duration::ZERO })
            }
            None => (config.level5_movetime, if both_bots { config.bot_delay } else { Duration::ZERO }),
        };
        let Seat::Bot { level, bot } = self.seat_mut(turn) else { return };
        let level = *level;
        // The bot may still be out with a cancelled search; a fresh one does the same job.
        let bot = bot.take().unwrap_or_else(|| bot::new_bot(level, &config.engine_tables));
        self.next_job += 1;
        self.job = Some(bot::start(
            self.next_job,
            bot,
            self.game.clone(),
            movetime,
            delay,
            self.ctx.config.bot_searches.clone(),
            self.me.clone(),
        ));
    }

    async fn bot_answer(&mut self, job: u64, mv: Option<Move>, returned: Box<dyn crate::bots::Bot>) {
        let current = self.job.as_ref().is_some_and(|j| j.job == job);
        let turn = self.game.turn();
        if let Seat::Bot { bot, .. } = self.seat_mut(turn) {
            if bot.is_none() {
                *bot = Some(returned);
            }
        }
        if !current {
            return; // Asked before an undo or the end: the position it answers is gone.
        }
        self.job = None;
        match mv {
            Some(mv) => {
                if let Err(e) = self.play(mv).await {
                    tracing::error!(game = %self.id, error = %e, "bot move refused");
                }
            }
            None => tracing::warn!(game = %self.id, "bot found no move"),
        }
    }
}

/// Sleeps until `at`, or forever when there is nothing scheduled (the select guard skips it).
async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// The PGN date (`YYYY.MM.DD`, UTC) of a Unix time in milliseconds.
fn pgn_date(unix_ms: i64) -> String {
    crate::chess::pgn_date(std::time::UNIX_EPOCH + Duration::from_millis(u64::try_from(unix_ms).unwrap_or(0)))
}
