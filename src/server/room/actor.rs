//! The room task: applies commands to the game one at a time and turns each change into one
//! versioned event, serialised once and broadcast. The room holds the game, its parts, the
//! event log and what it needs of the server; it dispatches each command to the parts and takes
//! the steps they decide on: playing a move, taking moves back, ending the game.

use tokio::sync::mpsc::{self, WeakSender};
use tokio::time::Instant;

use super::actions::{self, Limits, Step};
use super::answer::{Answer, Response};
use super::bot::Bots;
use super::build::{self, CreatorSeat, Setup};
use super::chat::Chat;
use super::clock::{RoomClock, Turn};
use super::engine::Verdict;
use super::events::{Batch, EventLog};
use super::lag::Arrival;
use super::offers::{self, Offers};
use super::presence::{Idle, Presence};
use super::record::Record;
use super::seats::Seats;
use super::snapshot::{self, View};
use super::{Action, Command, LobbyNote, Reply, RoomCommand, RoomContext, Subscription};
use crate::chess::{Color, Game, Move, MoveError, Outcome};
use crate::protocol::{ChatRoom, ClaimView, ErrorCode, GameId, GameSummary, Refusal, ServerMessage, Status};
use crate::server::accounts::Player;
use crate::server::faults;
use crate::server::notices::GameStarted;
use crate::server::store::{AccountKey, StoreEvent, StoredGame};
use crate::timer::sleep_until;

/// One game, owned by its task.
pub(super) struct Room {
    id: GameId,
    game: Game,
    seats: Seats,
    presence: Presence,
    bots: Bots,
    offers: Offers,
    clock: RoomClock,
    chat: Chat,
    record: Record,
    /// Numbers, keeps, stores and publishes the game's events.
    events: EventLog,
    ctx: RoomContext,
    /// The players have been told the game started (see [`Room::tell_started`]).
    started: bool,
}

impl Room {
    /// Builds a room from a create request: the room, the creator's seat (side and token) if
    /// any, and the game as it is to be stored.
    pub(super) fn new(
        id: GameId,
        spec: crate::protocol::NewGame,
        player: Player,
        ctx: RoomContext,
        me: WeakSender<RoomCommand>,
    ) -> Result<(Room, CreatorSeat, StoredGame), Refusal> {
        let (setup, seat) = build::new(id, spec, &player, &ctx.config.engines)?;
        let mut room = Room::assemble(setup, ctx, me);
        // A game against the computer starts at once; whoever creates it tells its player,
        // once the lobby holds it (a notice now could arrive before the game can be found).
        room.started = room.seats.status(&room.game) == Status::Ongoing;
        let stored = build::stored(&room.view(), room.events.version());
        Ok((room, seat, stored))
    }

    /// Rebuilds the room of a stored game after a restart (see [`build::restore`]).
    pub(super) fn restore(stored: StoredGame, ctx: RoomContext, me: WeakSender<RoomCommand>) -> Result<Room, Refusal> {
        Ok(Room::assemble(build::restore(stored)?, ctx, me))
    }

    fn assemble(setup: Setup, ctx: RoomContext, me: WeakSender<RoomCommand>) -> Room {
        let Setup { id, game, seats, clock, record, chat, v } = setup;
        let events = EventLog::new(id.clone(), (v, game.is_over()), ctx.relay.clone(), ctx.store.clone());
        let (presence, offers) = (Presence::default(), Offers::default());
        let bots = Bots::new(id.clone(), ctx.config.clone(), me);
        // A game rebuilt from the store was started before: its players heard then.
        let mut room =
            Room { id, game, seats, presence, bots, offers, clock, chat, record, events, ctx, started: true };
        room.sync_clock();
        room
    }

    /// Tells each player with an account, wherever their event stream is, that the game has
    /// started: once, when its last open seat is taken.
    fn tell_started(&mut self) {
        if self.started || self.seats.status(&self.game) != Status::Ongoing {
            return;
        }
        self.started = true;
        let Some(notices) = &self.ctx.notices else { return };
        let accounts = self.seats.accounts();
        let views = self.seats.views();
        let started = GameStarted::new(self.id.clone(), (accounts.white, &views.white), (accounts.black, &views.black));
        notices.game_started(started);
    }

    /// The task: commands and the room's own timers one at a time, each followed by the one
    /// publish step for the events it caused, then by its answer.
    pub(super) async fn run(mut self, mut rx: mpsc::Receiver<RoomCommand>) {
        if self.events.version() > 0 {
            // A game rebuilt from the store (after a restart, or taken over from another node):
            // its first event is the game as it is now, so its followers start again from there.
            let mut out = self.events.batch();
            out.push(snapshot::state_event(&self.view()));
            self.publish(out);
        }
        self.maybe_start_bot();
        let mut closed = None;
        loop {
            let flush_at = self.presence.flush_at();
            let flag_at = self.clock.flag_at(&self.game);
            let claim_at = self.presence.claim_at(self.absent(), self.grace());
            let mut out = self.events.batch();
            let answer = tokio::select! {
                command = rx.recv() => match command {
                    None => break,
                    Some(RoomCommand::Shutdown { done }) => {
                        closed = done;
                        break;
                    }
                    Some(command) => self.handle(command, &mut out).await,
                },
                () = sleep_until(flush_at), if flush_at.is_some() => {
                    if self.presence.flush(&self.events) {
                        self.report();
                    }
                    Answer::Nothing
                }
                // The room's own timers: a flag falls, or an absent player's grace runs out,
                // with nobody sending anything.
                () = sleep_until(flag_at), if flag_at.is_some() => {
                    self.check_flag(&mut out).await;
                    Answer::Nothing
                }
                () = sleep_until(claim_at), if claim_at.is_some() => {
                    if self.presence.open_claim(self.absent()) {
                        out.push(snapshot::seats_event(&self.view()));
                    }
                    Answer::Nothing
                }
            };
            self.publish(out);
            if answer.send(|since, reader| self.subscribe(since, reader)).is_break() {
                break;
            }
        }
        self.bots.cancel();
        // The server stops: keep the clock's times as of now for the restart.
        if let Some(times) = self.clock.times(Instant::now()).filter(|_| !self.game.is_over()) {
            let _ = self.events.durable(StoreEvent::Times(times)).await;
        }
        if let Some(done) = closed {
            let _ = done.send(());
        }
        tracing::debug!(game = %self.id, "room closed");
    }

    /// Handles what the task received, adding the events it causes to `out`; what to answer
    /// is returned, to be sent once they are published.
    pub(super) async fn handle(&mut self, input: RoomCommand, out: &mut Batch) -> Answer {
        match input {
            RoomCommand::Call { command, reply } => Answer::To { reply, response: self.apply(command, out).await },
            RoomCommand::BotMove { job, mv, bot } => {
                let verdict = self.bots.bot_answered((job, mv), bot, &self.game, &self.seats);
                self.follow(verdict, out).await;
                Answer::Nothing
            }
            RoomCommand::EngineMove { job, side, answer, process } => {
                let verdict =
                    self.bots.engine_answered((job, side), (answer, process), &self.game, &self.seats, &self.clock);
                self.follow(verdict, out).await;
                Answer::Nothing
            }
            RoomCommand::IdleCheck => self.idle_check(out).await,
            RoomCommand::Shutdown { .. } => Answer::Close,
        }
    }

    /// Carries out one command: the one place each operation of the room's vocabulary is
    /// handled, whoever sent it.
    async fn apply(&mut self, command: Command, out: &mut Batch) -> Response {
        let done = |result: Result<(), Refusal>| Response::Ready(result.map(|()| Reply::Done));
        match command {
            Command::Join { color, player } => {
                let seat = self.seats.join(&self.events, &self.game, (color, &player), self.record.rated()).await;
                if seat.is_ok() {
                    out.push(snapshot::seats_event(&self.view()));
                    self.started(out);
                }
                Response::Seated { seat, since: None }
            }
            Command::Resume { token, account, v } => {
                let seat = self.resume(&token, account, out).map(|side| (side, token));
                Response::Seated { seat, since: v }
            }
            Command::Watch { v, counted } => {
                self.presence.watch(usize::from(counted), self.ctx.config.watcher_batch);
                self.wake(out);
                Response::Subscribed { since: v, reader: Some(false) }
            }
            Command::Observe { v } => {
                self.presence.observe();
                Response::Subscribed { since: v, reader: None }
            }
            Command::Chat { token, name, room, text, blocked_by } => {
                let side = token.and_then(|t| self.seats.side_of(&t));
                let opponent = side.and_then(|side| self.seats.seat(side.other()).account());
                if room == ChatRoom::Players && opponent.is_some_and(|o| blocked_by.contains(&o)) {
                    return done(Err(Refusal::new(
                        ErrorCode::BadRequest,
                        "your opponent does not accept chat from you",
                    )));
                }
                let seat = side.map(|side| self.seats.seat(side).view());
                done(self.chat.write((room, text), (seat, name), &self.game, &self.events).await)
            }
            Command::Unwatch => {
                self.presence.unwatch(self.ctx.config.watcher_batch);
                done(Ok(()))
            }
            Command::Attend { tokens, watchers } => {
                for token in tokens {
                    // A token that holds no seat here is simply not counted.
                    let _ = self.resume(&token, None, out);
                }
                if watchers > 0 {
                    self.presence.watch(watchers, self.ctx.config.watcher_batch);
                    self.wake(out);
                }
                done(Ok(()))
            }
            Command::Leave { token } => {
                if let Some(side) = self.seats.leave(&token) {
                    self.presence.came_or_went(side);
                    out.push(snapshot::seats_event(&self.view()));
                }
                done(Ok(()))
            }
            Command::Act { token, action, round_trip_ms } => {
                let round_trip = round_trip_ms.map(std::time::Duration::from_millis);
                done(self.act(&token, (action, round_trip), out).await)
            }
            Command::Snapshot => {
                let v = self.events.version();
                Response::Ready(Ok(Reply::Snapshot { v, text: snapshot::state_text(&self.view(), v) }))
            }
            Command::State => {
                let state = snapshot::state(&self.view(), self.events.version());
                Response::Ready(Ok(Reply::State { state: Box::new(state) }))
            }
            Command::Pgn => Response::Ready(Ok(Reply::Pgn { pgn: snapshot::pgn(&self.view()) })),
        }
    }

    /// Acts as the seat holding `token`: what the parts concerned decide, carried out.
    /// `round_trip`: the connection's measured round trip, for lag compensation.
    async fn act(
        &mut self,
        token: &str,
        (action, round_trip): (Action, Option<std::time::Duration>),
        out: &mut Batch,
    ) -> Result<(), Refusal> {
        let side = self.seats.side_of(token).ok_or_else(|| Refusal::not_a_player("you hold no seat in this game"))?;
        let limits = Limits {
            grace: self.grace(),
            takeback_cooldown: self.ctx.config.takeback_cooldown,
            deadline: self.clock.deadline(Instant::now()),
        };
        let step =
            actions::decide((action, side, round_trip), &self.game, &self.seats, &mut self.offers, &limits, out)?;
        self.take(step, out).await
    }

    /// Takes the step the parts decided on.
    async fn take(&mut self, step: Step, out: &mut Batch) -> Result<(), Refusal> {
        match step {
            Step::Nothing => {}
            Step::Play(mv, arrival) => return self.play(mv, arrival, out).await,
            Step::TakeBack(plies) => return self.take_back(plies, out).await,
            Step::End(outcome) => self.finish(outcome, out).await,
            Step::Rematch(side) => return self.rematch(side, out).await,
            Step::Ask => self.maybe_start_bot(),
            Step::Refresh => out.push(snapshot::state_event(&self.view())),
            Step::Berserk(side) => return self.berserk(side, out).await,
        }
        Ok(())
    }

    /// `side` berserks: its time halved, stored, and told to everyone.
    async fn berserk(&mut self, side: Color, out: &mut Batch) -> Result<(), Refusal> {
        // White's first move is ply 1, Black's ply 2.
        let moved = self.game.ply() > side.index();
        let before = self.clock.clone();
        self.clock.berserk(side, moved).map_err(build::bad)?;
        let now = Instant::now();
        if let Some(times) = self.clock.times(now) {
            if let Err(e) = self.events.durable(StoreEvent::Times(times)).await {
                self.clock = before;
                return Err(e);
            }
        }
        let clock = self.clock.view(now);
        out.push(move |game, v| ServerMessage::Berserk { game, v, color: side, clock });
        Ok(())
    }

    /// Plays a legal move: stores it, then adds its event (and the end's, if it ends the game).
    /// `arrival`: how a person's move came (None: the computer's), for lag compensation.
    async fn play(&mut self, mv: Move, arrival: Option<Arrival>, out: &mut Batch) -> Result<(), Refusal> {
        // The move counts as made when it arrives, before the store is written.
        let now = Instant::now();
        if self.clock.too_late(now, arrival) {
            // The timer has not fired yet, but the time is up: the flag falls first.
            self.check_flag(out).await;
            return Err(Refusal::game_over("your time ran out"));
        }
        let (uci, san) = match self.game.play(mv) {
            Ok(played) => (played.mv.to_string(), played.san.clone()),
            Err(MoveError::GameOver) => return Err(Refusal::game_over("the game is over")),
            Err(e) => return Err(Refusal::illegal_move(e.to_string())),
        };
        let ply = self.game.ply();
        // The clock as it will be after the move, stored with it.
        let pressed = self.clock.pressed(now, arrival, self.turn(), self.ctx.config.first_move_timeout);
        let (times, v) = (pressed.times(now), out.next_version());
        if let Err(e) = self.events.durable(StoreEvent::Move { ply, uci: uci.clone(), times, v }).await {
            // Not durable, so not visible: take it back as if it never happened.
            self.game.undo();
            return Err(e);
        }
        self.ctx.metrics.moves.inc();
        self.offers.clear();
        self.clock = pressed;
        // As of the move's arrival, so the side now to move shows its full time.
        let (clock, opening) = (self.clock.view(now), self.record.moved(&self.game).map(Into::into));
        out.push_stored(snapshot::move_event(&self.game, (uci, san), clock, opening));
        if let Some(outcome) = self.game.outcome() {
            self.announce_end(outcome, out).await;
        } else {
            self.tell_whose_move();
        }
        self.maybe_start_bot();
        Ok(())
    }

    /// In a correspondence game, tells the player now to move (if they have an account) that
    /// it is their move: they are rarely at the board when it comes.
    fn tell_whose_move(&self) {
        let (Some(notices), Some(_)) = (&self.ctx.notices, self.clock.days()) else { return };
        let side = self.game.turn();
        let Some(account) = self.seats.seat(side).account() else { return };
        let opponent = self.seats.seat(side.other()).view();
        notices.your_move(self.id.clone(), account, opponent.shown().unwrap_or("?").to_string());
    }

    async fn take_back(&mut self, plies: usize, out: &mut Batch) -> Result<(), Refusal> {
        // Durable first: if the store refuses, the moves stay and the game goes on unchanged.
        let times = self.clock.times(Instant::now());
        let ply = self.game.ply().saturating_sub(plies);
        self.events.durable(StoreEvent::Undo { ply, times, v: out.next_version() }).await?;
        self.bots.cancel();
        for _ in 0..plies {
            self.game.undo();
        }
        self.record.taken_back(&self.game);
        self.offers.clear();
        // Clocks are not rolled back (docs/protocol.md): the side to move now has its time running.
        self.sync_clock();
        out.push_stored(snapshot::state_event(&self.view()));
        self.maybe_start_bot();
        Ok(())
    }

    /// Ends the game for a reason off the board.
    async fn finish(&mut self, outcome: Outcome, out: &mut Batch) {
        self.game.end(outcome);
        self.announce_end(outcome, out).await;
    }

    /// Stops what runs (bots, clock), stores the end and adds its event.
    async fn announce_end(&mut self, outcome: Outcome, out: &mut Batch) {
        self.bots.end();
        self.offers.clear();
        let now = Instant::now();
        self.clock.stop(now);
        let (clock, times) = (self.clock.view(now), self.clock.times(now));
        let players = (self.seats.accounts(), (self.clock.spec(), self.clock.days().is_some()), self.game.variant());
        let event = self.record.stored_end(&self.game, players, outcome, (times, out.next_version()));
        let rated = matches!(event, StoreEvent::Ended { rated: Some(_), .. });
        faults::hit("end.before_store");
        // The end follows from what is already stored, so a store failure here only gets logged.
        let stored = self.events.durable(event).await;
        faults::hit("end.after_store");
        if stored.is_ok() && rated {
            self.record.read_ratings((&self.id, self.ctx.ratings.as_ref())).await;
        }
        // Its version is stored with it (or, if that write failed, it is not worth another).
        out.push_stored(snapshot::end_event(outcome, clock, &self.game, &self.record));
    }

    /// Ends the game if the running side's time is up.
    async fn check_flag(&mut self, out: &mut Batch) {
        if let Some(outcome) = self.clock.flag(&self.game, Instant::now()) {
            self.finish(outcome, out).await;
        }
    }

    /// Runs the clock of the side to move while the game is on, stops it otherwise: true if it
    /// started a clock that stood still.
    fn sync_clock(&mut self) -> bool {
        self.clock.sync(self.turn(), Instant::now(), self.ctx.config.first_move_timeout)
    }

    /// Where the game stands, as the clock needs to know it.
    fn turn(&self) -> Turn {
        Turn {
            ongoing: self.seats.status(&self.game) == Status::Ongoing && !self.game.is_over(),
            side: self.game.turn(),
            moves: self.game.ply(),
            human: !self.seats.seat(self.game.turn()).is_bot(),
        }
    }

    /// A seat holder comes back (or opens another connection): their side.
    fn resume(&mut self, token: &str, account: Option<AccountKey>, out: &mut Batch) -> Result<Color, Refusal> {
        let (side, came_online) = self.seats.resume(token, account)?;
        if came_online {
            self.presence.came_or_went(side);
            out.push(snapshot::seats_event(&self.view()));
        }
        Ok(side)
    }

    /// The player who is away, and since when, where that may lose them the game: not in a
    /// correspondence game, which is played with nobody at it.
    fn absent(&self) -> Option<(Color, Instant)> {
        if self.clock.days().is_some() {
            return None;
        }
        self.seats.absent(&self.game)
    }

    /// How long a player may be away before the opponent may claim the game.
    fn grace(&self) -> std::time::Duration {
        self.ctx.config.claim_grace.for_clock(self.clock.spec())
    }

    /// Ends an unfinished game left alone for the idle timeout, or closes the room of a game
    /// still waiting for a player; pauses a bot game nobody watches.
    async fn idle_check(&mut self, out: &mut Batch) -> Answer {
        if self.clock.days().is_some() {
            // A correspondence game is played over days with nobody at it: it ends by a
            // claim after a deadline, never by being left alone.
            return Answer::Nothing;
        }
        match self.presence.idle(&self.game, &self.seats, &self.events, &self.ctx.config) {
            Idle::No => {}
            Idle::Unwatched => {
                // A flag that fell meanwhile ends the game rather than freezing at zero.
                self.check_flag(out).await;
                self.bots.pause(&self.game, &self.seats, &mut self.clock);
            }
            Idle::Close => {
                // Nobody played it: it need not be kept, nor come back after a restart.
                let _ = self.events.durable(StoreEvent::Discarded).await;
                return Answer::Close;
            }
            Idle::Abandoned(outcome) => self.finish(outcome, out).await,
        }
        Answer::Nothing
    }

    /// Starts the computer to move, if it is one's turn.
    fn maybe_start_bot(&mut self) {
        self.bots.start(&self.game, &self.seats, &self.clock);
    }

    /// Someone watches: a paused bot game goes on, clock and all.
    fn wake(&mut self, out: &mut Batch) {
        if self.bots.wake() {
            self.started(out);
        }
    }

    /// The game runs (again): its clock starts if it stood still, and a fresh state tells
    /// everyone (a seats event carries no clock); the computer to move thinks.
    fn started(&mut self, out: &mut Batch) {
        if self.sync_clock() {
            out.push(snapshot::state_event(&self.view()));
        }
        self.maybe_start_bot();
    }

    /// Does what a computer's answer calls for (None: a stale answer, dropped).
    async fn follow(&mut self, verdict: Option<Verdict>, out: &mut Batch) {
        let Some(Verdict { say, step, who }) = verdict else { return };
        if let Some(text) = say {
            self.chat.system(text, &self.events);
        }
        if let Err(e) = self.take(step, out).await {
            tracing::error!(game = %self.id, error = %e, "{who} move refused");
        }
    }

    /// `side` offers a rematch, or accepts the opponent's: the lobby then makes it.
    async fn rematch(&mut self, side: Color, out: &mut Batch) -> Result<(), Refusal> {
        if self.offers.rematch(side, self.seats.seat(side.other()), self.game.is_over(), out)? {
            let next = offers::next_game(&self.view(), self.events.version());
            let next = self.offers.make_rematch(next, &self.ctx.lobby, out).await?;
            tracing::info!(game = %self.id, %next, "rematch");
        }
        Ok(())
    }

    /// The parts the game's views are made from.
    fn view(&self) -> View<'_> {
        let now = Instant::now();
        let claim = match self.clock.deadline(now) {
            // In a correspondence game the claim is the opponent's once the mover's time is up.
            Some((mover, left)) => {
                Some(ClaimView { by: mover.other(), in_ms: u64::try_from(left.as_millis()).unwrap_or(u64::MAX) })
            }
            None => Presence::claim_view(self.absent(), self.grace(), now),
        };
        let (id, game, seats, clock, offers, record) =
            (&self.id, &self.game, &self.seats, &self.clock, &self.offers, &self.record);
        View { id, game, seats, clock, offers, record, watchers: self.presence.watchers(), claim }
    }

    pub(super) fn summary(&self) -> GameSummary {
        snapshot::summary(&self.view())
    }

    /// A subscription brought up to date from version `since` (see [`snapshot::subscribe`]).
    pub(super) fn subscribe(&mut self, since: Option<u64>, reader: Option<bool>) -> Subscription {
        snapshot::subscribe(&self.events, &self.view(), &self.chat, since, reader)
    }

    /// The one publish step, run when a command or timer is done: the log numbers, keeps and
    /// broadcasts the events it caused (see [`EventLog::publish`]); once the end is out, the
    /// players may read the spectators' room; and the lobby hears of the game's new line.
    fn publish(&mut self, batch: Batch) {
        if batch.is_empty() {
            return;
        }
        if self.events.publish(batch, self.game.is_over()) {
            self.chat.open_spectators_room(&self.events);
        }
        self.tell_started();
        self.report();
    }

    /// Tells the lobby the games list may have changed.
    fn report(&self) {
        let _ = self.ctx.lobby.send(LobbyNote::Summary(self.summary()));
    }
}
