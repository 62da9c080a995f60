//! One game slot of the `games` scenario: two players who create and join a game, play the
//! seeded moves at their interval, measure each move's round trips, and roll over to a new game
//! when one ends.

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
use crate::tools::loadtest::client::Ws;
use crate::tools::loadtest::stats::{Metric, Stats};
use crate::tools::loadtest::track::Versions;
use crate::tools::loadtest::wire::{self, Incoming};

/// One scripted player's connection.
struct Player {
    ws: Ws,
    /// Its view of the current game's versions.
    versions: Versions,
    /// The legal moves it was last told it has, with the ply they are for.
    legal: Option<(u64, Vec<String>)>,
    /// It received the current game's `end`.
    ended: bool,
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
        let player = |ws| Player { ws, versions: Versions::default(), legal: None, ended: false };
        Slot {
            index,
            players: [player(white), player(black)],
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
            && !mover.ended
            && mover.legal.as_ref().is_some_and(|(ply, legal)| *ply == self.ply && !legal.is_empty())
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
        let Some((_, legal)) = &self.players[self.to_move].legal else { return true };
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
        let Some(m) = Incoming::parse(text) else {
            self.stats.error("unreadable_message");
            return true;
        };
        match &*m.kind {
            "created" if player == 0 && self.phase == Phase::Creating && m.id == Some(self.request) => {
                let Some(game) = m.game.as_deref() else { return true };
                let round = Arc::new(Round::new(game.to_string()));
                self.round = Some(round.clone());
                self.players[0].versions = Versions::default();
                self.players[1].versions = Versions::default();
                for p in &mut self.players {
                    p.legal = None;
                    p.ended = false;
                }
                self.ply = 0;
                self.sent_ply = 0;
                self.to_move = 0;
                self.request = self.id();
                self.phase = Phase::Joining;
                let text = wire::join(&round.id, self.request);
                return self.send(1, text).await;
            }
            "ack" => {
                if let Some(at) = self.pending.iter().position(|(id, _)| Some(*id) == m.id) {
                    let (_, sent) = self.pending.swap_remove(at);
                    self.stats.record_since(Metric::Ack, self.index, sent);
                }
                return true;
            }
            "error" => {
                self.on_error(m.id, m.code.as_deref().unwrap_or("error"));
                return true;
            }
            _ => {}
        }
        let Some(round) = self.round.clone() else { return true };
        let (Some(v), true) = (m.v, m.game.as_deref() == Some(round.id.as_str())) else { return true };
        round.saw(v);
        if m.kind == "state" {
            if self.players[player].versions.snapshot(v) {
                Stats::bump(&self.stats.resyncs);
            }
            let ply = m.moves.as_ref().map_or(0, |moves| moves.len() as u64);
            self.ply = self.ply.max(ply);
            if m.turn == Some(side(player)) {
                self.players[player].legal = Some((ply, wire::legal_moves(text)));
            }
            if player == 1 && self.phase == Phase::Joining {
                self.publish(round);
            }
            return true;
        }
        Stats::bump(&self.stats.events);
        count(&self.stats, self.players[player].versions.event(v));
        match &*m.kind {
            "move" => {
                let ply = m.ply.unwrap_or(0);
                self.ply = self.ply.max(ply);
                if let Some(turn) = m.turn {
                    self.to_move = if turn == Color::White { 0 } else { 1 };
                }
                if m.turn == Some(side(player)) {
                    // The receiver is to move next, so the mover was its opponent.
                    if let Some(sent) = round.sent_at(ply) {
                        self.stats.record_since(Metric::Opponent, self.index, sent);
                    }
                    self.players[player].legal = Some((ply, wire::legal_moves(text)));
                }
            }
            "end" => {
                self.players[player].ended = true;
                if self.players.iter().all(|p| p.ended) {
                    Stats::bump(&self.stats.games_finished);
                    self.phase = Phase::Create(Instant::now());
                }
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
