//! The room task: applies commands to the game one at a time and turns each change into one
//! versioned event, serialised once and broadcast.

use std::ops::ControlFlow;

use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use super::bot::PendingBot;
use super::build::bad;
use super::chat::ChatLog;
use super::clock::Clock;
use super::events::{Batch, EventLog};
use super::idle::IdleTracker;
use super::offers::Takebacks;
use super::seat::Seat;
use super::snapshot::game_ratings;
use super::{Action, Command, Reply, RoomCommand, RoomContext, Seated};
use crate::chess::openings::{self, Opening};
use crate::chess::{ByColor, Color, EndReason, Game, Move, MoveError, Outcome, UciMove, Variant};
use crate::protocol::{GameId, GameResult, MatchScore, OfferView, OpeningView, Refusal, ServerMessage, Status};
use crate::server::ratings::{self, Category};
use crate::server::store::{now_ms, RatedResult, StoreEvent, StoredRatings, StoredTimes};
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
    /// How soon each side may ask to take back again after being declined.
    pub(super) takebacks: Takebacks,
    /// When the game was created (Unix milliseconds), for the PGN's date.
    pub(super) created_ms: i64,
    /// A bot-vs-bot game nobody watches is paused: no bot thinks and the clock stands still
    /// until someone watches again.
    pub(super) paused: bool,
    /// The last lines of the two chat rooms.
    pub(super) chat: ChatLog,
    /// The score of the match before this game, as this game's colours see it.
    pub(super) score: MatchScore,
    /// The rematch of this game, once agreed.
    pub(super) next: Option<GameId>,
    /// The game's end has been published (the players may read the spectators' room).
    pub(super) ended_published: bool,
    /// The longest named opening the moves have reached.
    pub(super) opening: Option<Opening>,
    /// Whether the result changes the players' ratings ...
    pub(super) rated: bool,
    /// ... and, once it has, by how much.
    pub(super) ratings: Option<StoredRatings>,
    pub(super) ctx: RoomContext,
}

/// What a command's sender is answered, once the events the command caused are published:
/// a subscription then starts after them, so a joiner's first state shows their own seat.
pub(super) enum Answer {
    Nothing,
    /// The room is to close (a waiting game left alone, or the server stops).
    Close,
    To {
        reply: Option<oneshot::Sender<Result<Reply, Refusal>>>,
        outcome: Response,
    },
}

/// What a command came to, to be turned into its reply after the publish step.
pub(super) enum Response {
    Ready(Result<Reply, Refusal>),
    /// A seat (side and token), whose subscription starts after version `since` (or afresh).
    Seated {
        seat: Result<(Color, String), Refusal>,
        since: Option<u64>,
    },
    Subscribed {
        since: Option<u64>,
        /// Whose chat lines go with a fresh subscription (see [`Room::subscribe`]).
        reader: Option<bool>,
    },
}

impl Answer {
    /// Sends the answer; `Break` if the room is to close.
    fn send(self, room: &mut Room) -> ControlFlow<()> {
        match self {
            Answer::Nothing | Answer::To { reply: None, .. } => {}
            Answer::Close => return ControlFlow::Break(()),
            Answer::To { reply: Some(reply), outcome } => {
                let reply_with = match outcome {
                    Response::Ready(result) => result,
                    Response::Seated { seat, since } => seat.map(|(color, token)| {
                        Reply::Seated(Seated { color, token, sub: room.subscribe(since, Some(true)) })
                    }),
                    Response::Subscribed { since, reader } => Ok(Reply::Subscribed(room.subscribe(since, reader))),
                };
                let _ = reply.send(reply_with);
            }
        }
        ControlFlow::Continue(())
    }
}

impl Room {
    /// The task: commands and the room's own timers one at a time, each followed by the one
    /// publish step for the events it caused, then by its answer.
    pub(super) async fn run(mut self, mut rx: mpsc::Receiver<RoomCommand>) {
        if self.events.version() > 0 {
            // A game rebuilt from the store (a restart, or in a cluster a game taken over from
            // another node): its first event is the game as it is, at the new versions, so
            // anyone following it elsewhere starts again from there.
            let mut out = self.events.batch();
            out.push(self.state_event());
            self.publish(out);
        }
        self.maybe_start_bot();
        let mut closed = None;
        loop {
            let flush_at = self.flush_at;
            let flag_at = self.flag_at();
            let claim_at = self.claim_at();
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
                    self.flush_watchers();
                    Answer::Nothing
                }
                // The room's own timers: a flag falls, or an absent player's grace runs out,
                // with nobody sending anything.
                () = sleep_until(flag_at), if flag_at.is_some() => {
                    self.check_flag(&mut out).await;
                    Answer::Nothing
                }
                () = sleep_until(claim_at), if claim_at.is_some() => {
                    self.open_claims(&mut out);
                    Answer::Nothing
                }
            };
            self.publish(out);
            if answer.send(&mut self).is_break() {
                break;
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

    /// Handles what the task received, adding the events it causes to `out`; what to answer
    /// is returned, to be sent once they are published.
    pub(super) async fn handle(&mut self, input: RoomCommand, out: &mut Batch) -> Answer {
        match input {
            RoomCommand::Call { command, reply } => Answer::To { reply, outcome: self.apply(command, out).await },
            RoomCommand::BotMove { job, mv, bot } => {
                self.bot_answer(job, mv, bot, out).await;
                Answer::Nothing
            }
            RoomCommand::EngineMove { job, side, answer, process } => {
                self.engine_answer(job, side, answer, process, out).await;
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

    /// Carries out one command: the one place each operation of the room's vocabulary is
    /// handled, whoever sent it.
    async fn apply(&mut self, command: Command, out: &mut Batch) -> Response {
        let done = |result: Result<(), Refusal>| Response::Ready(result.map(|()| Reply::Done));
        match command {
            Command::Join { color, player } => {
                Response::Seated { seat: self.join(color, player, out).await, since: None }
            }
            Command::Resume { token, account, v } => {
                let seat = self.resume(&token, account, out).map(|side| (side, token));
                Response::Seated { seat, since: v }
            }
            Command::Watch { v, counted } => {
                if counted {
                    self.watchers += 1;
                    self.schedule_flush();
                }
                self.wake(out);
                Response::Subscribed { since: v, reader: Some(false) }
            }
            Command::Observe { v } => {
                self.observers += 1;
                Response::Subscribed { since: v, reader: None }
            }
            Command::Chat { token, name, room, text } => done(self.chat(token.as_deref(), name, room, text).await),
            Command::Unwatch => {
                self.watchers = self.watchers.saturating_sub(1);
                self.schedule_flush();
                done(Ok(()))
            }
            Command::Attend { tokens, watchers } => {
                for token in tokens {
                    // A token that holds no seat here is simply not counted.
                    let _ = self.resume(&token, None, out);
                }
                if watchers > 0 {
                    // A count from another node, over the bus: never trusted not to overflow.
                    self.watchers = self.watchers.saturating_add(watchers);
                    self.schedule_flush();
                    self.wake(out);
                }
                done(Ok(()))
            }
            Command::Leave { token } => {
                self.leave(&token, out);
                done(Ok(()))
            }
            Command::Act { token, action } => done(self.act(&token, action, out).await),
            Command::Snapshot => {
                Response::Ready(Ok(Reply::Snapshot { v: self.events.version(), text: self.state_text() }))
            }
            Command::State => Response::Ready(Ok(Reply::State { state: Box::new(self.state()) })),
            Command::Pgn => Response::Ready(Ok(Reply::Pgn { pgn: self.pgn() })),
        }
    }

    // ---- actions ---------------------------------------------------------------------------

    pub(super) async fn act(&mut self, token: &str, action: Action, out: &mut Batch) -> Result<(), Refusal> {
        let side = self.side_of(token).ok_or_else(|| Refusal::not_a_player("you hold no seat in this game"))?;
        if self.game.is_over() {
            // What is left to do after the end: play again, or say no to it.
            return match action {
                Action::Rematch => self.rematch(side, out).await,
                Action::Decline if self.offer.is_some() => self.decline(side, out),
                _ => Err(Refusal::game_over("the game is over")),
            };
        }
        // Waiting for an opponent, the creator may still call the game off.
        if self.status() == Status::Waiting && !matches!(action, Action::Move { .. } | Action::Abort) {
            return Err(Refusal::not_your_turn("the game has not started: a seat is still open"));
        }
        match action {
            Action::Move { uci } => self.human_move(side, &uci, out).await,
            Action::Undo => self.undo(side, out).await,
            Action::Draw => self.draw(side, out).await,
            Action::Decline => self.decline(side, out),
            Action::Resign => {
                self.finish(Outcome::win(side.other(), EndReason::Resignation), out).await;
                Ok(())
            }
            Action::Claim { result } => self.claim(side, result, out).await,
            Action::Abort => self.abort(out).await,
            Action::Rematch => Err(bad("a rematch can be offered once the game is over")),
        }
    }

    /// Calls the game off with no result, as lichess allows until both sides have moved: a
    /// game started by mistake need not be resigned (and, later, count against anyone).
    pub(super) async fn abort(&mut self, out: &mut Batch) -> Result<(), Refusal> {
        if self.game.ply() >= 2 {
            return Err(Refusal::bad_request(
                "a game can be aborted only before both sides have moved; you can offer a draw or resign",
            ));
        }
        self.finish(Outcome::ABORTED, out).await;
        Ok(())
    }

    pub(super) async fn human_move(&mut self, side: Color, uci: &str, out: &mut Batch) -> Result<(), Refusal> {
        if self.status() == Status::Waiting {
            return Err(Refusal::not_your_turn("the game has not started: a seat is still open"));
        }
        if self.game.turn() != side {
            return Err(Refusal::not_your_turn(format!("it is {}'s turn", self.game.turn())));
        }
        let parsed: UciMove = uci.parse().map_err(|e| Refusal::illegal_move(format!("{e}")))?;
        let mv = parsed.to_move(self.game.position()).map_err(|e| Refusal::illegal_move(e.to_string()))?;
        self.play(mv, out).await
    }

    /// Plays a legal move: stores it, then adds its event (and the end's, if it ends the game).
    pub(super) async fn play(&mut self, mv: Move, out: &mut Batch) -> Result<(), Refusal> {
        // The move counts as made when it arrives, before the store is written.
        let now = Instant::now();
        if self.clock.as_ref().and_then(|c| c.flagged(now)).is_some() {
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
        let mut pressed = self.clock.clone();
        if let Some(clock) = &mut pressed {
            clock.press(now);
            if self.game.is_over() {
                clock.stop(now);
            }
        }
        let times =
            pressed.as_ref().map(|c| c.view(now)).map(|v| StoredTimes { white_ms: v.white_ms, black_ms: v.black_ms });
        let v = out.next_version();
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
        self.opening = openings::after(self.opening, &self.game);
        let opening = self.opening.map(OpeningView::from);
        out.push_stored(move |game, v| ServerMessage::Move {
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
            opening,
        });
        if let Some(outcome) = self.game.outcome() {
            self.announce_end(outcome, out).await;
        }
        self.maybe_start_bot();
        Ok(())
    }

    /// Ends the game for a reason off the board.
    pub(super) async fn finish(&mut self, outcome: Outcome, out: &mut Batch) {
        self.game.end(outcome);
        self.announce_end(outcome, out).await;
    }

    /// Stops what runs (bot, clock), stores the end and adds its event.
    pub(super) async fn announce_end(&mut self, outcome: Outcome, out: &mut Batch) {
        self.cancel_bot();
        self.end_engines();
        self.paused = false;
        self.offer = None;
        if let Some(clock) = &mut self.clock {
            clock.stop(Instant::now());
        }
        let clock = self.clock_view();
        let (result, reason) = (GameResult::from(outcome), outcome.reason);
        let times = self.times(Instant::now());
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
        let score = self.score_now();
        let ratings = self.ratings.map(game_ratings);
        out.push_stored(move |game, v| ServerMessage::End { game, v, result, reason, clock, score, ratings });
    }

    /// Changes both players' ratings by the result of a rated game, before its end is shown,
    /// so the end can carry the change. A store failure leaves the ratings as they were: the
    /// game still ends, unrated, and the failure is logged.
    async fn rate(&mut self, outcome: Outcome) {
        let (Some(white), Some(black)) = (self.seat(Color::White).account(), self.seat(Color::Black).account()) else {
            return;
        };
        if !self.rated || white == black {
            return;
        }
        let Some(clock) = self.clock.as_ref().map(|c| c.spec()) else { return };
        let category = Category::of(self.game.variant() == Variant::Minichess7, clock.initial_ms, clock.increment_ms);
        let white_score = match outcome.winner {
            Some(Color::White) => 1.0,
            Some(Color::Black) => 0.0,
            None => 0.5,
        };
        let result = RatedResult { white, black, category, white_score, at_ms: now_ms() };
        match self.ctx.ratings.rate(&self.id, result, ratings::rate).await {
            Ok(ratings) => self.ratings = Some(ratings),
            Err(e) => tracing::error!(game = %self.id, error = %e, "could not change the ratings"),
        }
    }

    /// True for a game that ended with nothing worth keeping (no move played, or aborted): the
    /// store forgets it.
    pub(super) fn is_discarded(&self) -> bool {
        self.game.outcome().is_some_and(|o| self.game.ply() == 0 || o.is_aborted())
    }

    /// The match's score now: this game counts once it has ended with a result.
    pub(super) fn score_now(&self) -> MatchScore {
        match self.game.outcome() {
            Some(outcome) if !outcome.is_aborted() => self.score.plus(outcome.winner),
            _ => self.score,
        }
    }

    pub(super) fn opponent_is_bot(&self, side: Color) -> bool {
        self.seat(side.other()).is_bot()
    }
}
