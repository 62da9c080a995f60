//! One game slot of the `games` scenario: two players who create and join a game, play the
//! seeded moves at their interval, measure each move's round trips, and roll over to a new game
//! when one ends. Each player follows its game with the protocol's [`Follower`], as the terminal
//! client does (and asks for a fresh state when it says so); the versions it receives are also
//! counted, for the report.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;

use super::{changed, classify, count, lost_connection, Control, Frame, Plan, Round, MOVE_RETRY, READY_TIMEOUT, RETRY};
use crate::chess::Color;
use crate::protocol::{Applied, Follower, ServerMessage, Status};
use crate::tools::loadtest::client::Ws;
use crate::tools::loadtest::stats::{Metric, Stats};
use crate::tools::loadtest::track::Versions;
use crate::tools::loadtest::wire;

/// One scripted player's connection.
struct Player {
    ws: Ws,
    /// The current game as this player follows it, from its first `state` on.
    game: Option<Follower>,
    /// Its seat's token in the current game, to resume with when it must resynchronise.
    token: Option<String>,
    /// The versions it received of the current game, counted for the report.
    versions: Versions,
}

impl Player {
    fn new(ws: Ws) -> Player {
        Player { ws, game: None, token: None, versions: Versions::default() }
    }

    /// A new game: nothing followed yet.
    fn reset(&mut self) {
        self.game = None;
        self.token = None;
        self.versions = Versions::default();
    }

    /// The moves the player may make now, if it is its turn in a game it is in step with.
    fn moves(&self, side: Color) -> Option<&[String]> {
        let state = self.game.as_ref().filter(|f| !f.awaiting())?.state();
        (state.status == Status::Ongoing && state.turn == side).then_some(state.legal.as_slice())
    }

    /// Moves played in its game, as it follows it.
    fn ply(&self) -> u64 {
        self.game.as_ref().map_or(0, |f| f.state().moves.len() as u64)
    }

    /// It has seen its game end.
    fn ended(&self) -> bool {
        self.game.as_ref().is_some_and(|f| f.state().status == Status::Ended)
    }
}

/// Where a slot is in its current game.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Phase {
    /// About to create a game (at this time).
    Create(Instant),
    /// `create` sent, waiting for `created`.
    Creating,
    /// `join` sent, waiting for black's `state`.
    Joining,
    /// The game is published; waiting for spectators' states (since this time).
    Watching(Instant),
    /// Moves are being made.
    Playing,
}

/// Two players playing game after game.
pub(super) struct Slot {
    index: usize,
    players: [Player; 2],
    stats: Arc<Stats>,
    rng: SmallRng,
    interval: Duration,
    rounds: watch::Sender<Option<Arc<Round>>>,
    alive: Arc<AtomicUsize>,
    round: Option<Arc<Round>>,
    ready: Option<watch::Receiver<usize>>,
    phase: Phase,
    /// Moves played in the current game, as far as the players know.
    ply: u64,
    /// The ply of the last move sent.
    sent_ply: u64,
    /// The player to move (0 white, 1 black).
    to_move: usize,
    /// Not before this may the next move go.
    next_at: Instant,
    /// Moves sent and not acknowledged yet: request id, send time.
    pending: Vec<(u64, u64)>,
    /// The id of the `create` or `join` awaiting its answer.
    request: u64,
    next_id: u64,
    first_round: bool,
    stopped: bool,
}

fn side(player: usize) -> Color {
    if player == 0 {
        Color::White
    } else {
        Color::Black
    }
}

impl Slot {
    pub(super) fn new(
        index: usize,
        [white, black]: [Ws; 2],
        rounds: watch::Sender<Option<Arc<Round>>>,
        alive: Arc<AtomicUsize>,
        plan: &Plan,
        stats: Arc<Stats>,
    ) -> Slot {
        Slot {
            index,
            players: [Player::new(white), Player::new(black)],
            stats,
            rng: SmallRng::seed_from_u64(plan.seed.wrapping_add(index as u64)),
            interval: plan.interval,
            rounds,
            alive,
            round: None,
            ready: None,
            phase: Phase::Create(Instant::now()),
            ply: 0,
            sent_ply: 0,
            to_move: 0,
            next_at: Instant::now(),
            pending: Vec::new(),
            request: 0,
            next_id: 1,
            first_round: true,
            stopped: false,
        }
    }

    pub(super) async fn run(mut self, mut control: Control) {
        loop {
            let deadline = self.deadline();
            let [white, black] = &mut self.players;
            let event = tokio::select! {
                frame = white.ws.next() => Some((0, frame)),
                frame = black.ws.next() => Some((1, frame)),
                () = tokio::time::sleep_until(deadline.unwrap_or_else(Instant::now)), if deadline.is_some() => None,
                () = changed(self.ready.as_mut()) => None,
                () = changed(Some(&mut control.stop)), if !self.stopped => {
                    self.stopped = true;
                    None
                }
                () = changed(Some(&mut control.close)) => break,
            };
            let alive = match event {
                Some((player, frame)) => match classify(&frame) {
                    Frame::Text(text) => self.on_text(player, &text).await,
                    Frame::Other => true,
                    Frame::Gone => {
                        lost_connection(&self.stats, "player", &frame);
                        false
                    }
                },
                None => self.on_time().await,
            };
            if !alive {
                return;
            }
        }
        if let Some(round) = &self.round {
            for player in &self.players {
                Stats::add(&self.stats.lost, player.versions.missing_up_to(round.last_v()));
            }
        }
    }

    /// When the slot next has something to do by itself, if anything.
    fn deadline(&self) -> Option<Instant> {
        match self.phase {
            Phase::Create(at) if !self.stopped => Some(at),
            Phase::Watching(since) => Some(since + READY_TIMEOUT),
            Phase::Playing if self.can_move() => Some(self.next_at),
            _ => None,
        }
    }

    /// True when the player to move knows its moves for this ply and nothing is on its way.
    fn can_move(&self) -> bool {
        let mover = &self.players[self.to_move];
        !self.stopped
            && self.sent_ply == self.ply
            && mover.ply() == self.ply
            && mover.moves(side(self.to_move)).is_some_and(|legal| !legal.is_empty())
    }

    fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    async fn send(&mut self, player: usize, text: String) -> bool {
        if self.players[player].ws.send(Message::text(text)).await.is_err() {
            self.stats.error("player_connection_failed");
            return false;
        }
        true
    }

    /// A timer or a spectator's readiness: create a game, start playing, or move.
    async fn on_time(&mut self) -> bool {
        let now = Instant::now();
        match self.phase {
            Phase::Create(at) if !self.stopped && now >= at => {
                self.request = self.id();
                self.phase = Phase::Creating;
                let text = wire::create(self.request);
                self.send(0, text).await
            }
            Phase::Watching(since) => {
                let ready = self.ready.as_ref().map_or(0, |r| *r.borrow());
                if ready >= self.alive.load(Ordering::Relaxed) || now >= since + READY_TIMEOUT {
                    if ready < self.alive.load(Ordering::Relaxed) {
                        self.stats.error("spectators_not_ready");
                    }
                    self.start_playing(now);
                }
                true
            }
            Phase::Playing if self.can_move() && now >= self.next_at => self.make_move().await,
            _ => true,
        }
    }

    fn start_playing(&mut self, now: Instant) {
        self.phase = Phase::Playing;
        self.ready = None;
        // Spread the first moves of all slots over one interval so the games do not move in step.
        let offset = if self.first_round {
            let interval = u64::try_from(self.interval.as_micros()).unwrap_or(u64::MAX).max(1);
            Duration::from_micros(self.rng.random_range(0..interval))
        } else {
            self.interval
        };
        self.first_round = false;
        self.next_at = now + offset;
    }

    async fn make_move(&mut self) -> bool {
        let Some(round) = self.round.clone() else { return true };
        let Some(legal) = self.players[self.to_move].moves(side(self.to_move)) else { return true };
        let Some(uci) = legal.choose(&mut self.rng).cloned() else { return true };
        let ply = self.ply + 1;
        let id = self.id();
        let text = wire::play(&round.id, &uci, id);
        let now = self.stats.now_us();
        round.record_send(ply, now);
        self.pending.push((id, now));
        self.sent_ply = ply;
        self.next_at = Instant::now() + self.interval;
        Stats::bump(&self.stats.moves);
        self.send(self.to_move, text).await
    }

    async fn on_text(&mut self, player: usize, text: &str) -> bool {
        let Ok(message) = serde_json::from_str::<ServerMessage>(text) else {
            self.stats.error("unreadable_message");
            return true;
        };
        match message {
            ServerMessage::Created { game, token, id, .. }
                if player == 0 && self.phase == Phase::Creating && id == Some(self.request) =>
            {
                self.new_round(game, token).await
            }
            ServerMessage::Joined { token, id, .. } => {
                if id.is_some() && id == Some(self.request) {
                    self.players[player].token = Some(token);
                }
                true
            }
            ServerMessage::Ack { id } => {
                if let Some(at) = self.pending.iter().position(|(pending, _)| *pending == id) {
                    let (_, sent) = self.pending.swap_remove(at);
                    self.stats.record_since(Metric::Ack, self.index, sent);
                }
                true
            }
            ServerMessage::Error { code, id, .. } => {
                self.on_error(id, &wire::code_name(code));
                true
            }
            message => self.on_game(player, &message).await,
        }
    }

    /// `create` answered: a new game, the creator seated as white; black joins it.
    async fn new_round(&mut self, game: String, token: Option<String>) -> bool {
        let round = Arc::new(Round::new(game));
        self.round = Some(round.clone());
        for p in &mut self.players {
            p.reset();
        }
        self.players[0].token = token;
        self.ply = 0;
        self.sent_ply = 0;
        self.to_move = 0;
        self.request = self.id();
        self.phase = Phase::Joining;
        let text = wire::join(&round.id, self.request);
        self.send(1, text).await
    }

    /// An event or state of a game: counted, then followed.
    async fn on_game(&mut self, player: usize, message: &ServerMessage) -> bool {
        let Some(round) = self.round.clone() else { return true };
        let (Some(v), true) = (message.version(), message.game().is_some_and(|game| *game == round.id)) else {
            return true;
        };
        round.saw(v);
        let is_state = matches!(message, ServerMessage::State(_));
        let me = &mut self.players[player];
        if is_state {
            if me.versions.snapshot(v) {
                Stats::bump(&self.stats.resyncs);
            }
        } else {
            Stats::bump(&self.stats.events);
            count(&self.stats, me.versions.event(v));
        }
        match Follower::follow(&mut me.game, message) {
            Applied::Applied => {}
            Applied::Ignored => return true,
            Applied::Resync => {
                // Out of step: a fresh state, as any client would ask for it.
                let Some(token) = me.token.clone() else { return true };
                return self.send(player, wire::resume(&round.id, &token)).await;
            }
        }
        let (ply, turn) = (me.ply(), me.game.as_ref().map(|f| f.state().turn));
        self.ply = self.ply.max(ply);
        if let Some(turn) = turn {
            self.to_move = if turn == Color::White { 0 } else { 1 };
        }
        match message {
            ServerMessage::State(_) if player == 1 && self.phase == Phase::Joining => self.publish(round),
            // The receiver is to move next, so the mover was its opponent.
            ServerMessage::Move { ply, turn, .. } if *turn == side(player) => {
                if let Some(sent) = round.sent_at(*ply as u64) {
                    self.stats.record_since(Metric::Opponent, self.index, sent);
                }
            }
            ServerMessage::End { .. } if self.players.iter().all(Player::ended) => {
                Stats::bump(&self.stats.games_finished);
                self.phase = Phase::Create(Instant::now());
            }
            _ => {}
        }
        true
    }

    /// Both players are seated: the spectators may watch, and the moves wait for them.
    fn publish(&mut self, round: Arc<Round>) {
        Stats::bump(&self.stats.games_started);
        self.ready = Some(round.ready.subscribe());
        self.rounds.send_replace(Some(round));
        self.phase = Phase::Watching(Instant::now());
        if self.alive.load(Ordering::Relaxed) == 0 {
            self.start_playing(Instant::now());
        }
    }

    fn on_error(&mut self, id: Option<u64>, code: &str) {
        self.stats.error(code);
        if id.is_some() && id == Some(self.request) && matches!(self.phase, Phase::Creating | Phase::Joining) {
            // No game this time (e.g. the server's game limit): try again a little later.
            self.phase = Phase::Create(Instant::now() + RETRY);
        } else if let Some(at) = self.pending.iter().position(|(pending, _)| Some(*pending) == id) {
            // The move was not made: try it (or another) again.
            self.pending.swap_remove(at);
            self.sent_ply = self.ply;
            self.next_at = Instant::now() + MOVE_RETRY;
        }
    }
}
