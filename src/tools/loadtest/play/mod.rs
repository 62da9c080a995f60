//! The engine behind `fanout` and `games`: slots of two scripted players that play game after
//! game at a set pace, each game followed by spectators, every receipt checked for its version
//! and timed against the send of its move.
//!
//! One task drives both players of a slot (creating, joining, moving); one task per spectator
//! reads its connection. They share only the current [`Round`] (the game being played: its id,
//! when each ply was sent, its last version) and the run's [`Stats`].

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::{self, Message};

mod slot;

use self::slot::Slot;
use super::client::{Connector, Ws};
use super::stats::{Metric, Stats};
use super::track::{Seen, Versions};
use super::wire::{self, Incoming};

/// How a run plays.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Games played at once (slots of two players).
    pub games: usize,
    /// Spectators following each slot's game.
    pub spectators: usize,
    /// Time between two moves of a game (so each player moves every other interval).
    pub interval: Duration,
    /// How long moves are made, once every connection is open.
    pub duration: Duration,
    /// Seed of the players' move choices.
    pub seed: u64,
}

/// What the engine did, besides the counters in [`Stats`].
#[derive(Clone, Copy, Debug)]
pub struct Played {
    /// Connections the plan asked for.
    pub planned: usize,
    /// Slots that had both players connected and played.
    pub slots: usize,
    /// Spectators that got connected.
    pub spectators: usize,
    /// From the first game's setup to the moment moves stopped.
    pub elapsed: Duration,
}

/// Handshakes in flight at once while connecting: enough to connect thousands in seconds,
/// few enough not to overflow the server's accept backlog.
const PARALLEL_CONNECTS: usize = 128;

/// Longest wait for a game's spectators to have its state before the moves start anyway.
const READY_TIMEOUT: Duration = Duration::from_secs(60);

/// After the moves stop, how long the event stream must stay quiet ...
const QUIET: Duration = Duration::from_secs(1);
/// ... or how long at most to wait for it, before the counts are final.
const DRAIN_MAX: Duration = Duration::from_secs(15);

/// Wait after a failed `create` or `join` before trying again.
const RETRY: Duration = Duration::from_secs(1);

/// Wait before a move refused by the server (e.g. `rate_limited`) is tried again.
const MOVE_RETRY: Duration = Duration::from_millis(100);

/// One game on the server, as its slot's connections follow it.
pub struct Round {
    /// The game id.
    id: String,
    /// When each ply's move was sent (µs on the [`Stats`] clock; index ply − 1; 0 if not sent).
    sent: Mutex<Vec<u64>>,
    /// The last version the players saw: what every follower should have received.
    last_v: AtomicU64,
    /// How many spectators have the game's state (the moves wait for them).
    ready: watch::Sender<usize>,
}

impl Round {
    fn new(id: String) -> Round {
        Round { id, sent: Mutex::new(Vec::new()), last_v: AtomicU64::new(0), ready: watch::channel(0).0 }
    }

    fn record_send(&self, ply: u64, at_us: u64) {
        let Ok(index) = usize::try_from(ply.saturating_sub(1)) else { return };
        let mut sent = self.sent.lock().unwrap_or_else(|p| p.into_inner());
        if sent.len() <= index {
            sent.resize(index + 1, 0);
        }
        sent[index] = at_us;
    }

    fn sent_at(&self, ply: u64) -> Option<u64> {
        let index = usize::try_from(ply.checked_sub(1)?).ok()?;
        let sent = self.sent.lock().unwrap_or_else(|p| p.into_inner());
        sent.get(index).copied().filter(|&t| t > 0)
    }

    fn saw(&self, v: u64) {
        self.last_v.fetch_max(v, Ordering::Relaxed);
    }

    fn last_v(&self) -> u64 {
        self.last_v.load(Ordering::Relaxed)
    }
}

/// The run's two signals: stop moving, then close everything.
#[derive(Clone)]
struct Control {
    stop: watch::Receiver<bool>,
    close: watch::Receiver<bool>,
}

/// Opens `count` connections, a bounded number at a time, counting failures by kind.
pub async fn open_all(connector: &Connector, count: usize, stats: &Stats) -> Vec<Ws> {
    let mut opened = Vec::with_capacity(count);
    // In order (`buffered`), so connection n is on server n % servers: a game's white and
    // black, consecutive connections, sit on different nodes of a cluster.
    let mut attempts = futures::stream::iter(0..count).map(|n| connector.connect(n)).buffered(PARALLEL_CONNECTS);
    while let Some(result) = attempts.next().await {
        match result {
            Ok(ws) => {
                Stats::bump(&stats.open);
                opened.push(ws);
            }
            Err(e) => {
                Stats::bump(&stats.failed);
                stats.error(&e.kind());
            }
        }
    }
    opened
}

/// Runs `plan`: connects, plays for its duration, waits for the last events, closes.
pub async fn run(connector: &Connector, plan: &Plan, stats: Arc<Stats>) -> Played {
    let planned = plan.games * (2 + plan.spectators);
    let connections = open_all(connector, planned, &stats).await;
    // Players first: a slot without both players cannot play; spectators go round the slots.
    let slots = plan.games.min(connections.len() / 2);
    let mut connections = connections.into_iter();
    let (stop_tx, stop) = watch::channel(false);
    let (close_tx, close) = watch::channel(false);
    let control = Control { stop, close };
    let mut feeds = Vec::with_capacity(slots);
    let mut players = Vec::with_capacity(slots);
    for _ in 0..slots {
        let (Some(white), Some(black)) = (connections.next(), connections.next()) else { break };
        let (round_tx, round_rx) = watch::channel(None);
        feeds.push((round_rx, Arc::new(AtomicUsize::new(0))));
        players.push((white, black, round_tx));
    }
    let mut tasks: Vec<JoinHandle<()>> = Vec::new();
    let mut spectators = 0;
    for (n, ws) in connections.enumerate() {
        let Some((round_rx, alive)) = feeds.get(n % slots.max(1)) else { break };
        alive.fetch_add(1, Ordering::Relaxed);
        let spectator = Spectator {
            key: n,
            ws,
            rounds: round_rx.clone(),
            alive: alive.clone(),
            tracks: Vec::new(),
            stats: stats.clone(),
        };
        tasks.push(tokio::spawn(spectator.run(control.clone())));
        spectators += 1;
    }
    let started = Instant::now();
    for (index, ((white, black, rounds), (_, alive))) in players.into_iter().zip(&feeds).enumerate() {
        let slot = Slot::new(index, [white, black], rounds, alive.clone(), plan, stats.clone());
        tasks.push(tokio::spawn(slot.run(control.clone())));
    }
    tokio::time::sleep(plan.duration).await;
    let _ = stop_tx.send(true);
    let elapsed = started.elapsed();
    drain(&stats).await;
    let _ = close_tx.send(true);
    for task in tasks {
        let _ = task.await;
    }
    Played { planned, slots, spectators, elapsed }
}

/// Waits until no event has arrived for [`QUIET`] (or [`DRAIN_MAX`] has passed), so that
/// slow receivers are not counted as losing what is still on its way.
async fn drain(stats: &Stats) {
    let deadline = Instant::now() + DRAIN_MAX;
    let mut last = Stats::get(&stats.events);
    while Instant::now() < deadline {
        tokio::time::sleep(QUIET).await;
        let now = Stats::get(&stats.events);
        if now == last {
            return;
        }
        last = now;
    }
}

/// Waits for a change of `rx`, or forever once the sender is gone (or there is none).
async fn changed<T>(rx: Option<&mut watch::Receiver<T>>) {
    let Some(rx) = rx else { return std::future::pending().await };
    if rx.changed().await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// Counts a connection's end as an error: the server closed it, or it failed.
fn lost_connection(stats: &Stats, who: &str, frame: &Option<Result<Message, tungstenite::Error>>) {
    let how = match frame {
        None | Some(Ok(Message::Close(_))) => "closed",
        Some(Err(_)) => "failed",
        Some(Ok(_)) => "ended",
    };
    stats.error(&format!("{who}_connection_{how}"));
}

/// What a frame is to a client of the load test.
enum Frame {
    Text(tungstenite::Utf8Bytes),
    /// Ping, pong: tungstenite answers pings itself.
    Other,
    /// The connection is over.
    Gone,
}

fn classify(frame: &Option<Result<Message, tungstenite::Error>>) -> Frame {
    match frame {
        Some(Ok(Message::Text(text))) => Frame::Text(text.clone()),
        Some(Ok(Message::Close(_))) | Some(Err(_)) | None => Frame::Gone,
        Some(Ok(_)) => Frame::Other,
    }
}

// ---- spectators --------------------------------------------------------------------------

/// One spectator's view of one game.
struct Track {
    round: Arc<Round>,
    versions: Versions,
}

/// A connection that watches its slot's game, and the next one when that ends.
struct Spectator {
    key: usize,
    ws: Ws,
    rounds: watch::Receiver<Option<Arc<Round>>>,
    alive: Arc<AtomicUsize>,
    /// The games followed: the current one, and the previous one until its `end` arrives.
    tracks: Vec<Track>,
    stats: Arc<Stats>,
}

impl Spectator {
    async fn run(mut self, mut control: Control) {
        loop {
            tokio::select! {
                frame = self.ws.next() => {
                    match classify(&frame) {
                        Frame::Text(text) => self.on_text(&text).await,
                        Frame::Other => {}
                        Frame::Gone => {
                            lost_connection(&self.stats, "spectator", &frame);
                            self.leave();
                            return;
                        }
                    }
                }
                () = changed(Some(&mut self.rounds)) => {
                    let round = self.rounds.borrow_and_update().clone();
                    if let Some(round) = round {
                        if self.ws.send(Message::text(wire::watch(&round.id))).await.is_err() {
                            self.stats.error("spectator_connection_failed");
                            self.leave();
                            return;
                        }
                        self.tracks.push(Track { round, versions: Versions::default() });
                    }
                }
                () = changed(Some(&mut control.close)) => break,
            }
        }
        for track in &self.tracks {
            Stats::add(&self.stats.lost, track.versions.missing_up_to(track.round.last_v()));
        }
    }

    /// Gone for good: the slot no longer waits for this spectator to be ready.
    fn leave(&self) {
        self.alive.fetch_sub(1, Ordering::Relaxed);
        if let Some(round) = self.rounds.borrow().as_ref() {
            round.ready.send_modify(|_| {});
        }
    }

    async fn on_text(&mut self, text: &str) {
        let Some(m) = Incoming::parse(text) else {
            self.stats.error("unreadable_message");
            return;
        };
        if m.kind == "error" {
            self.stats.error(m.code.as_deref().unwrap_or("error"));
            return;
        }
        let (Some(game), Some(v)) = (m.game.as_deref(), m.v) else { return };
        // Events of a game no longer followed (after its `end`) are not counted.
        let Some(at) = self.tracks.iter().position(|t| t.round.id == game) else { return };
        let track = &mut self.tracks[at];
        if m.kind == "state" {
            if track.versions.snapshot(v) {
                Stats::bump(&self.stats.resyncs);
            } else {
                track.round.ready.send_modify(|n| *n += 1);
            }
            return;
        }
        Stats::bump(&self.stats.events);
        count(&self.stats, track.versions.event(v));
        match &*m.kind {
            "move" => {
                if let Some(sent) = m.ply.and_then(|ply| track.round.sent_at(ply)) {
                    self.stats.record_since(Metric::Spectator, self.key, sent);
                }
            }
            "end" => {
                // The game is over: stop following it, so rounds do not pile up on the server.
                let done = self.tracks.remove(at);
                let _ = self.ws.send(Message::text(wire::unwatch(&done.round.id))).await;
            }
            _ => {}
        }
    }
}

/// Adds what one event's version says to the counters.
fn count(stats: &Stats, seen: Seen) {
    match seen {
        Seen::Gap(n) => Stats::add(&stats.lost, n),
        Seen::OutOfOrder => Stats::bump(&stats.out_of_order),
        Seen::InOrder | Seen::First => {}
    }
}

// ---- players -----------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_remembers_send_times_by_ply() {
        let round = Round::new("abc".into());
        assert_eq!(round.sent_at(1), None);
        round.record_send(3, 42);
        assert_eq!(round.sent_at(3), Some(42));
        assert_eq!(round.sent_at(2), None);
        assert_eq!(round.sent_at(0), None);
        round.saw(5);
        round.saw(4);
        assert_eq!(round.last_v(), 5);
    }
}
