//! The room task: applies commands to the game one at a time and turns each change into one
//! versioned event, serialised once and broadcast. The room holds the game, its parts (seats,
//! presence, bot seats, offers, clock, chat), the event log and what it needs of the server; it
//! dispatches each command to the parts and carries out what they answer: playing a move,
//! taking moves back, ending the game (lichess's Finisher).

use std::future::Future;

use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use super::answer::Answer;
use super::bot::Bots;
use super::build::{self, bad, Setup};
use super::chat::{self, Chat};
use super::clock::RoomClock;
use super::engine::Verdict;
use super::events::{self, Batch, EventLog};
use super::offers::{self, Offers};
use super::presence::{Idle, Presence};
use super::record::Record;
use super::seats::Seats;
use super::snapshot::{self, game_ratings, View};
use super::{Action, LobbyNote, RoomCommand, RoomContext, Subscription};
use crate::chess::{Color, EndReason, Game, Move, MoveError, Outcome, UciMove, Variant};
use crate::protocol::{
    ChatRoom, ChatText, GameId, GameResult, GameSummary, PlayerName, Refusal, ServerMessage, Status,
};
use crate::server::accounts::category::Category;
use crate::server::accounts::Player;
use crate::server::store::{now_ms, AccountKey, RatedResult, StoreEvent, StoredGame};
use crate::server::token::TokenHash;
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
    /// Numbers, keeps and publishes the game's events.
    events: EventLog,
    /// The game's end has been published (the players may read the spectators' room).
    ended_published: bool,
    ctx: RoomContext,
}

/// A room made by `create`, the creator's seat (side and token) if any, and the stored game.
pub(super) type NewRoom = (Room, Option<(Color, String)>, StoredGame);

impl Room {
    /// Builds a room from a create request: the room, the creator's seat (side and token) if
    /// any, and the game as it is to be stored.
    pub(super) fn new(
        id: GameId,
        spec: crate::protocol::NewGame,
        player: Player,
        ctx: RoomContext,
        me: mpsc::WeakSender<RoomCommand>,
    ) -> Result<NewRoom, Refusal> {
        let (setup, seat) = build::new(id, spec, &player, &ctx.config.engines)?;
        let room = Room::assemble(setup, ctx, me);
        let stored = build::stored(&room.view(), room.events.version());
        Ok((room, seat, stored))
    }

    /// Rebuilds the room of a stored game after a restart (see [`build::restore`]).
    pub(super) fn restore(
        stored: StoredGame,
        ctx: RoomContext,
        me: mpsc::WeakSender<RoomCommand>,
    ) -> Result<Room, Refusal> {
        Ok(Room::assemble(build::restore(stored)?, ctx, me))
    }

    fn assemble(setup: Setup, ctx: RoomContext, me: mpsc::WeakSender<RoomCommand>) -> Room {
        let Setup { id, game, seats, clock, record, chat, v } = setup;
        let (events, ended_published) = (EventLog::new(v, ctx.relay.clone()), game.is_over());
        let (presence, bots, offers) = (Presence::default(), Bots::new(ctx.config.clone(), me), Offers::default());
        Room { id, game, seats, presence, bots, offers, clock, chat, record, events, ended_published, ctx }
    }

    /// The task: commands and the room's own timers one at a time, each followed by the one
    /// publish step for the events it caused, then by its answer.
    pub(super) async fn run(mut self, mut rx: mpsc::Receiver<RoomCommand>) {
        if self.events.version() > 0 {
            // A game rebuilt from the store (a restart, or in a cluster a game taken over from
            // another node): its first event is the game as it is, at the new versions, so
            // anyone following it elsewhere starts again from there.
            let mut out = self.events.batch();
            out.push(snapshot::state_event(&self.view()));
            self.publish(out);
        }
        self.maybe_start_bot();
        let mut closed = None;
        loop {
            let flush_at = self.presence.flush_at();
            let flag_at = self.clock.flag_at(&self.game);
            let claim_at = self.presence.claim_at(self.seats.absent(&self.game), self.grace());
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
                    if let Some(text) = self.presence.flush(&self.id) {
                        self.events.announce(&self.id, text);
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
                    if self.presence.open_claim(self.seats.absent(&self.game)) {
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
        if !self.game.is_over() {
            // The server stops: keep the clock's times as of now for the restart.
            if let Some(times) = self.clock.times(Instant::now()) {
                let _ = self.store(StoreEvent::Times(times)).await;
            }
        }
        if let Some(done) = closed {
            let _ = done.send(());
        }
        tracing::debug!(game = %self.id, "room closed");
    }

    /// Applies a command, adding the events it causes to `out`; what to answer is returned,
    /// to be sent once they are published.
    pub(super) async fn handle(&mut self, command: RoomCommand, out: &mut Batch) -> Answer {
        match command {
            RoomCommand::Join { color, player, reply } => {
                Answer::Seated { reply, seat: self.join(color, player, out).await, since: None }
            }
            RoomCommand::Resume { token, account, v, reply } => {
                let seat = self.resume(&token, account, out).map(|side| (side, token));
                Answer::Seated { reply, seat, since: v }
            }
            RoomCommand::Watch { v, counted, reply } => {
                if counted {
                    self.presence.watch(1, self.ctx.config.watcher_batch);
                }
                self.wake(out);
                Answer::Subscribed { reply, since: v, reader: Some(false) }
            }
            RoomCommand::Observe { v, reply } => {
                self.presence.observe();
                Answer::Subscribed { reply, since: v, reader: None }
            }
            RoomCommand::Chat { token, name, room, text, reply } => {
                Answer::Done { reply, result: self.chat(token.as_deref(), name, room, text).await }
            }
            RoomCommand::Unwatch => {
                self.presence.unwatch(self.ctx.config.watcher_batch);
                Answer::Nothing
            }
            RoomCommand::Attend { tokens, watchers } => {
                for token in tokens {
                    // A token that holds no seat here is simply not counted.
                    let _ = self.resume(&token, None, out);
                }
                if watchers > 0 {
                    self.presence.watch(watchers, self.ctx.config.watcher_batch);
                    self.wake(out);
                }
                Answer::Nothing
            }
            RoomCommand::Leave { token } => {
                if let Some(side) = self.seats.leave(&token) {
                    self.presence.came_or_went(side);
                    out.push(snapshot::seats_event(&self.view()));
                }
                Answer::Nothing
            }
            RoomCommand::Act { token, action, reply } => {
                Answer::Done { reply, result: self.act(&token, action, out).await }
            }
            RoomCommand::Snapshot { reply } => {
                let _ = reply.send((self.events.version(), snapshot::state_text(&self.view(), self.events.version())));
                Answer::Nothing
            }
            RoomCommand::State { reply } => {
                let _ = reply.send(snapshot::state(&self.view(), self.events.version()));
                Answer::Nothing
            }
            RoomCommand::Pgn { reply } => {
                let _ = reply.send(snapshot::pgn(&self.view()));
                Answer::Nothing
            }
            RoomCommand::BotMove { job, mv, bot } => {
                let verdict = self.bots.bot_answered((job, mv), bot, &self.game, &self.seats);
                self.follow(verdict, out).await;
                Answer::Nothing
            }
            RoomCommand::EngineMove { job, side, answer, process } => {
                let timed = self.clock.is_timed();
                let verdict = self.bots.engine_answered((job, side), answer, process, &self.game, &self.seats, timed);
                self.follow(verdict, out).await;
                Answer::Nothing
            }
            RoomCommand::IdleCheck => {
                if self.idle_check(out).await {
                    Answer::Close
                } else {
                    Answer::Nothing
                }
            }
            RoomCommand::Shutdown { .. } => Answer::Close,
        }
    }

    async fn act(&mut self, token: &str, action: Action, out: &mut Batch) -> Result<(), Refusal> {
        let side = self.seats.side_of(token).ok_or_else(|| Refusal::not_a_player("you hold no seat in this game"))?;
        if self.game.is_over() {
            // What is left to do after the end: play again, or say no to it.
            return match action {
                Action::Rematch => self.rematch(side, out).await,
                Action::Decline if self.offers.offer().is_some() => {
                    self.offers.decline(side, self.ctx.config.takeback_cooldown, out)
                }
                _ => Err(Refusal::game_over("the game is over")),
            };
        }
        // Waiting for an opponent, the creator may still call the game off.
        let waiting = self.status() == Status::Waiting;
        if waiting && !matches!(action, Action::Move(_) | Action::Abort) {
            return Err(Refusal::not_your_turn("the game has not started: a seat is still open"));
        }
        let vs_bot = self.seats.seat(side.other()).is_bot();
        let end = match action {
            Action::Move(_) if waiting => Err(Refusal::not_your_turn("the game has not started: a seat is still open")),
            Action::Move(uci) => return self.human_move(side, &uci, out).await,
            Action::Undo => match self.offers.undo(side, &self.game, vs_bot, out)? {
                Some(plies) => return self.take_back(plies, out).await,
                None => Ok(None),
            },
            Action::Draw => self.offers.draw(side, vs_bot, out),
            Action::Decline => self.offers.decline(side, self.ctx.config.takeback_cooldown, out).map(|()| None),
            Action::Resign => Ok(Some(Outcome::win(side.other(), EndReason::Resignation))),
            Action::Claim(kind) => Presence::claim(side, kind, &self.seats, self.grace()).map(Some),
            // Called off with no result, as lichess allows until both sides have moved: a game
            // started by mistake need not be resigned (and, later, count against anyone).
            Action::Abort if self.game.ply() >= 2 => Err(Refusal::bad_request(
                "a game can be aborted only before both sides have moved; you can offer a draw or resign",
            )),
            Action::Abort => Ok(Some(Outcome::ABORTED)),
            Action::Rematch => Err(bad("a rematch can be offered once the game is over")),
        };
        if let Some(outcome) = end? {
            self.finish(outcome, out).await;
        }
        Ok(())
    }

    async fn human_move(&mut self, side: Color, uci: &str, out: &mut Batch) -> Result<(), Refusal> {
        if self.game.turn() != side {
            return Err(Refusal::not_your_turn(format!("it is {}'s turn", self.game.turn())));
        }
        let parsed: UciMove = uci.parse().map_err(|e| Refusal::illegal_move(format!("{e}")))?;
        let mv = parsed.to_move(self.game.position()).map_err(|e| Refusal::illegal_move(e.to_string()))?;
        self.play(mv, out).await
    }

    /// Plays a legal move: stores it, then adds its event (and the end's, if it ends the game).
    async fn play(&mut self, mv: Move, out: &mut Batch) -> Result<(), Refusal> {
        // The move counts as made when it arrives, before the store is written.
        let now = Instant::now();
        if self.clock.flagged(now) {
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
        let pressed = self.clock.pressed(now, self.game.is_over());
        let (times, v) = (pressed.times(now), out.next_version());
        if let Err(e) = self.store(StoreEvent::Move { ply, uci: uci.clone(), times, v }).await {
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
        }
        self.maybe_start_bot();
        Ok(())
    }

    async fn take_back(&mut self, plies: usize, out: &mut Batch) -> Result<(), Refusal> {
        // Durable first: if the store refuses, the moves stay and the game goes on unchanged.
        let times = self.clock.times(Instant::now());
        let ply = self.game.ply().saturating_sub(plies);
        self.store(StoreEvent::Undo { ply, times, v: out.next_version() }).await?;
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
        let (result, reason) = (GameResult::from(outcome), outcome.reason);
        let event = if self.is_discarded() {
            // Ended before a move was made (resigned, abandoned), or called off: nothing worth
            // keeping in the archive. The room still shows the end while it is held.
            StoreEvent::Discarded
        } else {
            self.rate(outcome).await;
            StoreEvent::Ended { outcome, times, v: out.next_version() }
        };
        // The end follows from what is already stored, so a store failure here only gets logged.
        let _ = self.store(event).await;
        // Its version is stored with it (or, if that write failed, it is not worth another).
        let (score, ratings) = (self.record.score_now(&self.game), self.record.ratings().map(game_ratings));
        out.push_stored(move |game, v| ServerMessage::End { game, v, result, reason, clock, score, ratings });
    }

    /// Changes both players' ratings by the result of a rated game, before its end is shown,
    /// so the end can carry the change. A store failure leaves the ratings as they were: the
    /// game still ends, unrated, and the failure is logged.
    async fn rate(&mut self, outcome: Outcome) {
        let (Some(white), Some(black)) =
            (self.seats.seat(Color::White).account(), self.seats.seat(Color::Black).account())
        else {
            return;
        };
        if !self.record.rated() || white == black {
            return;
        }
        let Some(clock) = self.clock.spec() else { return };
        let category = Category::of(self.game.variant() == Variant::Minichess7, clock.initial_ms, clock.increment_ms);
        let white_score = match outcome.winner {
            Some(Color::White) => 1.0,
            Some(Color::Black) => 0.0,
            None => 0.5,
        };
        let result = RatedResult { white, black, category, white_score, at_ms: now_ms() };
        match self.ctx.store.rate(&self.id, result).await {
            Ok(ratings) => self.record.rated_by(ratings),
            Err(e) => tracing::error!(game = %self.id, error = %e, "could not change the ratings"),
        }
    }

    /// True for a game that ended with nothing worth keeping (no move played, or aborted): the
    /// store forgets it.
    fn is_discarded(&self) -> bool {
        self.game.outcome().is_some_and(|o| self.game.ply() == 0 || o.is_aborted())
    }

    /// Ends the game if the running side's time is up.
    async fn check_flag(&mut self, out: &mut Batch) {
        if let Some(outcome) = self.clock.flag(&self.game, Instant::now()) {
            self.finish(outcome, out).await;
        }
    }

    /// Runs the clock of the side to move while the game is on, stops it otherwise. True if this
    /// started the clock of a game whose clock was not running.
    fn sync_clock(&mut self) -> bool {
        self.clock.sync(self.status() == Status::Ongoing, self.game.turn(), Instant::now())
    }

    // Seats and presence.

    /// Seats a new player: their side and token.
    async fn join(
        &mut self,
        color: Option<Color>,
        player: Player,
        out: &mut Batch,
    ) -> Result<(Color, String), Refusal> {
        let side = self.seats.joinable(&self.game, color, &player, self.record.rated())?;
        let token = player.seat_token(&self.id);
        // The seat is the player's once the store has it: a restart must know their token.
        let name = player.name.as_ref().map(|n| n.as_str().to_string());
        let account = player.account_id();
        self.store(StoreEvent::Seat { side, token: TokenHash::of(&token), name, account }).await?;
        self.seats.take(side, &token, &player);
        out.push(snapshot::seats_event(&self.view()));
        if self.sync_clock() {
            // The seats event carries no clock: a fresh state tells everyone it is running.
            out.push(snapshot::state_event(&self.view()));
        }
        self.maybe_start_bot();
        Ok((side, token))
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

    /// How long a player may be away before the opponent may claim the game.
    fn grace(&self) -> std::time::Duration {
        self.ctx.config.claim_grace.for_clock(self.clock.spec())
    }

    /// Ends an unfinished game left alone for the idle timeout. True if the room is to close
    /// (a game still waiting for a player simply goes); a game in progress ends and stays
    /// while finished games do.
    async fn idle_check(&mut self, out: &mut Batch) -> bool {
        let subscribers = self.events.subscribers();
        match self.presence.idle(&self.game, &self.seats, subscribers, Instant::now(), &self.ctx.config) {
            Idle::No => false,
            Idle::Unwatched => {
                // A flag that fell meanwhile ends the game rather than freezing at zero.
                self.check_flag(out).await;
                if self.bots.pause(&self.game, &self.seats) {
                    tracing::info!(game = %self.id, "bot game paused: nobody watches it");
                    self.clock.stop(Instant::now());
                }
                false
            }
            Idle::Close => {
                tracing::info!(game = %self.id, "waiting game left alone; closed");
                // Nobody played it: it need not be kept, nor come back after a restart.
                let _ = self.store(StoreEvent::Discarded).await;
                true
            }
            Idle::Abandoned(outcome) => {
                tracing::info!(game = %self.id, %outcome, "unattended game ended");
                self.finish(outcome, out).await;
                false
            }
        }
    }

    // Bot seats.

    /// Starts the computer to move, if it is one's turn.
    fn maybe_start_bot(&mut self) {
        self.bots.start(&self.game, &self.seats, &self.clock);
    }

    /// Someone watches: a paused bot game goes on, clock and all.
    fn wake(&mut self, out: &mut Batch) {
        if !self.bots.wake() {
            return;
        }
        tracing::info!(game = %self.id, "bot game resumed: someone watches it");
        if self.sync_clock() {
            // Everyone, the newcomer included, learns that the clock runs again from now.
            out.push(snapshot::state_event(&self.view()));
        }
        self.maybe_start_bot();
    }

    /// Does what a computer's answer calls for (None: a stale answer, dropped).
    async fn follow(&mut self, verdict: Option<Verdict>, out: &mut Batch) {
        match verdict {
            None => {}
            Some(Verdict::Play(mv, who)) => {
                if let Err(e) = self.play(mv, out).await {
                    tracing::error!(game = %self.id, error = %e, "{who} move refused");
                }
            }
            Some(Verdict::NoMove) => tracing::warn!(game = %self.id, "bot found no move"),
            Some(Verdict::Retry(text)) => {
                self.chat.system(&self.id, text, &self.events);
                self.maybe_start_bot();
            }
            Some(Verdict::Lose(text, outcome)) => {
                self.chat.system(&self.id, text, &self.events);
                self.finish(outcome, out).await;
            }
        }
    }

    // Offers and chat.

    /// `side` offers a rematch, or accepts the opponent's offer.
    async fn rematch(&mut self, side: Color, out: &mut Batch) -> Result<(), Refusal> {
        let opponent = self.seats.seat(side.other());
        let (over, open, vs_bot) = (self.game.is_over(), opponent.is_open(), opponent.is_bot());
        if !self.offers.rematch(side, over, open, vs_bot, out)? {
            return Ok(());
        }
        // Agreed: the lobby makes the new game, stored before anyone hears of it.
        let (reply, made) = oneshot::channel();
        let this = build::stored(&self.view(), self.events.version());
        let game = Box::new(offers::next_game(this, self.record.score_now(&self.game)));
        self.ctx.lobby.send(LobbyNote::Rematch { game, reply }).map_err(|_| Refusal::shutting_down())?;
        let next = made.await.map_err(|_| Refusal::shutting_down())??;
        tracing::info!(game = %self.id, %next, "rematch");
        self.offers.rematched(next, out);
        Ok(())
    }

    /// A chat line from the seat holding `token`, or from a spectator called `name`: checked,
    /// stored, kept and sent to the room's members.
    async fn chat(
        &mut self,
        token: Option<&str>,
        name: Option<PlayerName>,
        room: ChatRoom,
        text: ChatText,
    ) -> Result<(), Refusal> {
        let seat = token.and_then(|t| self.seats.side_of(t)).map(|side| self.seats.seat(side).view());
        let over = self.game.is_over();
        let line = Chat::line(room, seat, name, text, over)?;
        // Kept with the game before anyone reads it, as moves are (a game the store has
        // forgotten keeps its chat in memory only, while the room lasts).
        if !self.is_discarded() {
            self.store(StoreEvent::Chat(chat::stored(&line))).await?;
        }
        self.chat.post(&self.id, line, over, &self.events);
        Ok(())
    }

    // Views, and the one publish step.

    fn status(&self) -> Status {
        self.seats.status(&self.game)
    }

    /// The parts the game's views are made from.
    fn view(&self) -> View<'_> {
        let claim = Presence::claim_view(self.seats.absent(&self.game), self.grace(), Instant::now());
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
    /// broadcasts the events it caused (each change they report is stored already: durable
    /// before visible); the store notes the last version it does not have yet, without waiting
    /// (what those events report is not kept across restarts, see `RESTART_GAP`); and the
    /// lobby hears of the game's new line in the list.
    fn publish(&mut self, batch: Batch) {
        if batch.is_empty() {
            return;
        }
        let was_over = self.ended_published;
        if let Some(v) = self.events.publish(&self.id, batch) {
            drop(self.ctx.store.record(&self.id, StoreEvent::Version { v }));
        }
        self.ended_published = self.game.is_over();
        if self.ended_published && !was_over {
            self.chat.open_spectators_room(&self.id, &self.events);
        }
        self.report();
    }

    /// Tells the lobby the games list may have changed.
    fn report(&self) {
        let _ = self.ctx.lobby.send(LobbyNote::Summary(self.summary()));
    }

    /// Records a change (see [`events::durable`]).
    fn store(&self, event: StoreEvent) -> impl Future<Output = Result<(), Refusal>> + Send + 'static {
        events::durable(&self.ctx.store, &self.id, event)
    }
}
