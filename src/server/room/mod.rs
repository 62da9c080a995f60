//! A room: one tokio task per game that alone owns the game, its seats, offers, version and
//! event history. Everyone else talks to it through a [`RoomHandle`] and follows it through a
//! broadcast [`Subscription`]. No lock guards a game: the task is the only owner.

mod actions;
mod actor;
mod answer;
mod bot;
mod build;
mod chat;
mod clock;
mod engine;
mod events;
mod history;
mod idle;
mod offers;
mod presence;
mod record;
mod seats;
mod snapshot;

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{broadcast, mpsc, oneshot};

use super::accounts::Player;
use super::cluster::Cluster;
use super::metrics::Metrics;
use super::store::{AccountKey, GameStore, StoreError, StoredGame};
use crate::bots::Bot;
use crate::chess::Color;
use crate::chess::Move;
use crate::protocol::{
    ChatRoom, ChatText, ClockSpec, ErrorCode, GameId, GameState, GameSummary, NewGame, PlayerName, Refusal,
};

pub use crate::protocol::ClaimKind;

/// How many recent events a room keeps to replay to clients that come back.
pub const HISTORY_LEN: usize = 256;
/// Capacity of a room's broadcast channel; a subscriber further behind lags and gets a state.
const BROADCAST_CAPACITY: usize = 256;
/// Capacity of a room's command queue.
const COMMAND_CAPACITY: usize = 256;
/// How far a room's version jumps when its game is reloaded after a restart. Versions of events
/// that store nothing are written without waiting, so the last few before a crash may be
/// missing from the store; the jump keeps every new event's version above any a client saw.
pub const RESTART_GAP: u64 = 100;

/// One message on a room's broadcast channel: the JSON text, serialised once, its version
/// (None for messages outside the event sequence, such as watcher counts), and who is to read
/// it (chat lines are for one room's members only).
#[derive(Clone, Debug)]
pub struct Broadcast {
    pub v: Option<u64>,
    pub text: Arc<str>,
    pub audience: Audience,
}

impl Broadcast {
    /// A message for everyone following the game.
    pub fn to_all(v: Option<u64>, text: Arc<str>) -> Broadcast {
        Broadcast { v, text, audience: Audience::Everyone }
    }
}

/// Who among a game's followers reads a message. Connections filter what they forward by it;
/// the room only says who it is for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Audience {
    Everyone,
    /// The seat holders' connections only.
    Players,
    /// Everyone but the seat holders' connections.
    Spectators,
}

impl Audience {
    /// True if a follower that holds a seat (`player`) or not reads it.
    pub fn reaches(self, player: bool) -> bool {
        match self {
            Audience::Everyone => true,
            Audience::Players => player,
            Audience::Spectators => !player,
        }
    }
}

/// A room's message on its way to a cluster's bus.
#[derive(Clone, Debug)]
pub struct Relayed {
    pub game: GameId,
    pub event: Broadcast,
}

/// Where rooms of a cluster node send every message they broadcast, for the other nodes.
pub type Relay = mpsc::UnboundedSender<Relayed>;

/// Timing options of rooms, and the limits they share.
#[derive(Clone, Debug)]
pub struct RoomConfig {
    /// Thinking time of a level 5–8 bot per move (levels 1–4 answer at once; 5–7 stop sooner, at their depth).
    pub engine_movetime: Duration,
    /// Pause before each move of a bot-vs-bot game, so people can follow it.
    pub bot_delay: Duration,
    /// Watcher counts are sent at most once per this period.
    pub watcher_batch: Duration,
    /// An unfinished game that nobody plays or watches for this long ends (see `idle`).
    pub idle_timeout: Duration,
    /// A bot-vs-bot game that nobody watches for this long pauses until someone does.
    pub unwatched_bot_pause: Duration,
    /// Permits for bot searches, shared by every room of a server: a search waits for one.
    pub bot_searches: Arc<tokio::sync::Semaphore>,
    /// Transposition tables lent to the engine levels' searches; as many as there are search permits.
    pub engine_tables: crate::bots::search::TablePool,
    /// How long a player may be away before the opponent may claim the game.
    pub claim_grace: ClaimGrace,
    /// After a player's takeback request is declined for the n-th time, they may ask again
    /// only after n² times this (lichess's courtesy: no pestering).
    pub takeback_cooldown: Duration,
    /// The UCI engines offered as seats (`--engine`).
    pub engines: Arc<super::engines::Engines>,
}

/// The grace period of an absent player: longer for longer time controls, as on lichess. A
/// twentieth of the game's expected length (initial time plus 40 increments), kept between
/// `min` and `max`; an untimed game gets `max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClaimGrace {
    pub min: Duration,
    pub max: Duration,
}

impl Default for ClaimGrace {
    fn default() -> ClaimGrace {
        ClaimGrace { min: Duration::from_secs(15), max: Duration::from_secs(120) }
    }
}

impl ClaimGrace {
    /// The grace for a game with this time control (None: untimed).
    pub fn for_clock(self, clock: Option<ClockSpec>) -> Duration {
        match clock {
            None => self.max,
            Some(c) => {
                let expected = c.initial_ms.saturating_add(c.increment_ms.saturating_mul(40));
                Duration::from_millis(expected / 20).clamp(self.min, self.max.max(self.min))
            }
        }
    }
}

impl RoomConfig {
    /// A pool of `n` bot search permits (at least one).
    pub fn bot_search_permits(n: usize) -> Arc<tokio::sync::Semaphore> {
        Arc::new(tokio::sync::Semaphore::new(n.max(1)))
    }

    /// This configuration with `n` concurrent bot searches, and engine tables for as many.
    pub fn with_bot_searches(self, n: usize) -> RoomConfig {
        RoomConfig { bot_searches: RoomConfig::bot_search_permits(n), engine_tables: bot::table_pool(n), ..self }
    }
}

impl Default for RoomConfig {
    fn default() -> RoomConfig {
        let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        RoomConfig {
            engine_movetime: Duration::from_millis(1000),
            bot_delay: Duration::from_millis(1000),
            watcher_batch: Duration::from_millis(500),
            idle_timeout: Duration::from_secs(1800),
            unwatched_bot_pause: Duration::from_secs(30),
            bot_searches: RoomConfig::bot_search_permits(cpus),
            engine_tables: bot::table_pool(cpus),
            claim_grace: ClaimGrace::default(),
            takeback_cooldown: Duration::from_secs(10),
            engines: Arc::default(),
        }
    }
}

/// What a room needs from the rest of the server.
#[derive(Clone)]
pub struct RoomContext {
    pub config: RoomConfig,
    pub metrics: Arc<Metrics>,
    pub store: Arc<dyn GameStore>,
    /// Where the room sends its summary whenever the games list would show a change, and asks
    /// for a rematch to be made.
    pub lobby: mpsc::UnboundedSender<LobbyNote>,
    /// In a cluster: the bus every broadcast is also published on.
    pub relay: Option<Relay>,
}

/// What a room tells the lobby.
pub enum LobbyNote {
    /// The game's line in the games list, whenever it may have changed.
    Summary(GameSummary),
    /// Make this game (a rematch; its id is the lobby's to give) and answer its id once it is
    /// stored.
    Rematch { game: Box<StoredGame>, reply: oneshot::Sender<Result<GameId, Refusal>> },
}

/// The refusal of a room that has ended meanwhile.
fn gone() -> Refusal {
    Refusal::new(ErrorCode::NoSuchGame, "that game is no longer on this server")
}

/// A live feed of a room: the receiver, the messages that bring the subscriber up to version
/// `v` (a replay of missed events, or one `state`), to be sent before anything received.
pub struct Subscription {
    pub rx: broadcast::Receiver<Broadcast>,
    pub initial: Vec<Arc<str>>,
    pub v: u64,
}

/// A human seat taken by `join`, `resume` or `create`.
pub struct Seated {
    pub color: Color,
    pub token: String,
    pub sub: Subscription,
}

/// The answer to a create: the new room and, if the creator took a seat, that seat.
pub struct Created {
    pub handle: RoomHandle,
    pub seat: Option<(Color, String)>,
    pub sub: Subscription,
    pub summary: GameSummary,
}

/// A room being created, and the store's answer on whether the game is saved; the creator
/// should hear of the game only once it is.
pub struct Creating {
    pub created: Created,
    pub saved: futures::future::BoxFuture<'static, Result<(), StoreError>>,
}

/// What a seat holder asks of the game. (Serialised only between the nodes of a cluster.)
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Move(String),
    Undo,
    Draw,
    Decline,
    Resign,
    /// Calls the game off before both sides have moved.
    Abort,
    /// After the end: offers or accepts a rematch.
    Rematch,
    /// Claims the game of an opponent away for longer than the grace period.
    Claim(ClaimKind),
}

/// The messages a room task handles. Questions carry a oneshot for the answer.
pub enum RoomCommand {
    Join {
        color: Option<Color>,
        player: Player,
        reply: oneshot::Sender<Result<Seated, Refusal>>,
    },
    Resume {
        token: String,
        /// A logged-in player's account, whose seat `token` is then made to open too.
        account: Option<AccountKey>,
        v: Option<u64>,
        reply: oneshot::Sender<Result<Seated, Refusal>>,
    },
    /// A line for one of the chat rooms, from the seat holding `token` (if any) or a spectator
    /// called `name`.
    Chat {
        token: Option<String>,
        name: Option<PlayerName>,
        room: ChatRoom,
        text: ChatText,
        reply: oneshot::Sender<Result<(), Refusal>>,
    },
    /// Subscribe; `counted` spectators are included in the watcher count.
    Watch {
        v: Option<u64>,
        counted: bool,
        reply: oneshot::Sender<Subscription>,
    },
    /// Subscribe as an observer of the server itself (the text log): not a spectator, and it
    /// does not keep an unattended game alive.
    Observe {
        v: Option<u64>,
        reply: oneshot::Sender<Subscription>,
    },
    /// A counted spectator left.
    Unwatch,
    /// In a cluster, after the game changed nodes: the seats (by token) and counted spectators
    /// another node's connections still hold, so the new room counts them as present.
    Attend {
        tokens: Vec<String>,
        watchers: usize,
    },
    /// A connection holding this token closed.
    Leave {
        token: String,
    },
    Act {
        token: String,
        action: Action,
        reply: oneshot::Sender<Result<(), Refusal>>,
    },
    /// The current `state` as JSON text, with its version.
    Snapshot {
        reply: oneshot::Sender<(u64, Arc<str>)>,
    },
    /// The current state as a value (HTTP API).
    State {
        reply: oneshot::Sender<GameState>,
    },
    /// The game as PGN.
    Pgn {
        reply: oneshot::Sender<String>,
    },
    /// A bot's answer to job `job`; stale answers are dropped.
    BotMove {
        job: u64,
        mv: Option<Move>,
        bot: Box<dyn Bot>,
    },
    /// An engine seat's answer to job `job`, with its process back (None if it could not be
    /// started); stale answers are dropped.
    EngineMove {
        job: u64,
        side: Color,
        answer: engine::EngineAnswer,
        process: Option<engine::EngineProcess>,
    },
    /// Time to see whether the game has been left alone too long (sent by the room's ticker).
    IdleCheck,
    /// Leave memory (the lobby has forgotten this game, or the server stops); `done` is told
    /// once the room has stored what it must.
    Shutdown {
        done: Option<oneshot::Sender<()>>,
    },
}

/// A cloneable address of a room: its task on this node, or, in a cluster, the game wherever
/// it is held (the cluster finds the owner for each command, so the handle outlives a change
/// of owner).
#[derive(Clone)]
pub struct RoomHandle {
    route: Route,
}

#[derive(Clone)]
enum Route {
    Local(mpsc::Sender<RoomCommand>),
    Cluster(Arc<Cluster>, GameId),
}

impl std::fmt::Debug for RoomHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.route {
            Route::Local(_) => f.write_str("RoomHandle(local)"),
            Route::Cluster(_, game) => write!(f, "RoomHandle(cluster, {game})"),
        }
    }
}

impl RoomHandle {
    /// A handle on `game` wherever the cluster holds it.
    pub fn routed(cluster: Arc<Cluster>, game: GameId) -> RoomHandle {
        RoomHandle { route: Route::Cluster(cluster, game) }
    }

    async fn ask<T>(&self, make: impl FnOnce(oneshot::Sender<T>) -> RoomCommand) -> Result<T, Refusal> {
        let Route::Local(tx) = &self.route else {
            return Err(Refusal::server_error("a routed handle is not a room task"));
        };
        let (reply, answer) = oneshot::channel();
        tx.send(make(reply)).await.map_err(|_| gone())?;
        answer.await.map_err(|_| gone())
    }

    /// Takes an open human seat under `name`.
    pub async fn join(&self, color: Option<Color>, player: Player) -> Result<Seated, Refusal> {
        match &self.route {
            Route::Local(_) => self.ask(|reply| RoomCommand::Join { color, player, reply }).await?,
            Route::Cluster(cluster, game) => Box::pin(cluster.join(game, color, player)).await,
        }
    }

    /// Takes back a seat by its token.
    ///
    /// With `account` (a logged-in player's, known from their session, and `token` the one
    /// derived from it for this game), the seat that account holds is taken back even when
    /// it was made with another token (a rematch keeps the first game's tokens), and `token`
    /// opens it from then on.
    pub async fn resume(&self, token: String, account: Option<AccountKey>, v: Option<u64>) -> Result<Seated, Refusal> {
        match &self.route {
            Route::Local(_) => self.ask(|reply| RoomCommand::Resume { token, account, v, reply }).await?,
            Route::Cluster(cluster, game) => Box::pin(cluster.resume(game, token, account, v)).await,
        }
    }

    /// Writes a chat line as the seat holding `token`, or as a spectator called `name`.
    pub async fn chat(
        &self,
        token: Option<String>,
        name: Option<PlayerName>,
        room: ChatRoom,
        text: ChatText,
    ) -> Result<(), Refusal> {
        match &self.route {
            Route::Local(_) => self.ask(|reply| RoomCommand::Chat { token, name, room, text, reply }).await?,
            Route::Cluster(cluster, game) => Box::pin(cluster.chat(game, token, name, room, text)).await,
        }
    }

    /// Subscribes to the room's events.
    pub async fn watch(&self, v: Option<u64>, counted: bool) -> Result<Subscription, Refusal> {
        match &self.route {
            Route::Local(_) => self.ask(|reply| RoomCommand::Watch { v, counted, reply }).await,
            Route::Cluster(cluster, game) => Box::pin(cluster.watch(game, v, counted)).await,
        }
    }

    /// Subscribes to the room's events as a server-side observer (see [`RoomCommand::Observe`]).
    pub async fn observe(&self, v: Option<u64>) -> Result<Subscription, Refusal> {
        match &self.route {
            Route::Local(_) => self.ask(|reply| RoomCommand::Observe { v, reply }).await,
            Route::Cluster(cluster, game) => Box::pin(cluster.observe(game, v)).await,
        }
    }

    /// Tells the room a counted spectator left.
    pub async fn unwatch(&self) {
        match &self.route {
            Route::Local(tx) => {
                let _ = tx.send(RoomCommand::Unwatch).await;
            }
            Route::Cluster(cluster, game) => cluster.unwatch(game),
        }
    }

    /// Tells the room (of this node) whom another node's connections hold there.
    pub async fn attend(&self, tokens: Vec<String>, watchers: usize) {
        if let Route::Local(tx) = &self.route {
            let _ = tx.send(RoomCommand::Attend { tokens, watchers }).await;
        }
    }

    /// Tells the room a connection of this seat closed.
    pub async fn leave(&self, token: String) {
        match &self.route {
            Route::Local(tx) => {
                let _ = tx.send(RoomCommand::Leave { token }).await;
            }
            Route::Cluster(cluster, game) => cluster.leave(game, token),
        }
    }

    /// Acts as the seat holding `token`.
    pub async fn act(&self, token: String, action: Action) -> Result<(), Refusal> {
        match &self.route {
            Route::Local(_) => self.ask(|reply| RoomCommand::Act { token, action, reply }).await?,
            Route::Cluster(cluster, game) => Box::pin(cluster.act(game, token, action)).await,
        }
    }

    /// The current `state` text and its version.
    pub async fn snapshot(&self) -> Result<(u64, Arc<str>), Refusal> {
        match &self.route {
            Route::Local(_) => self.ask(|reply| RoomCommand::Snapshot { reply }).await,
            Route::Cluster(cluster, game) => Box::pin(cluster.snapshot(game)).await,
        }
    }

    /// The current state.
    pub async fn state(&self) -> Result<GameState, Refusal> {
        match &self.route {
            Route::Local(_) => self.ask(|reply| RoomCommand::State { reply }).await,
            Route::Cluster(cluster, game) => Box::pin(cluster.state(game)).await,
        }
    }

    /// The game as PGN text.
    pub async fn pgn(&self) -> Result<String, Refusal> {
        match &self.route {
            Route::Local(_) => self.ask(|reply| RoomCommand::Pgn { reply }).await,
            Route::Cluster(cluster, game) => Box::pin(cluster.pgn(game)).await,
        }
    }

    /// Asks the room to end its task (a room of this node).
    pub async fn shutdown(&self) {
        if let Route::Local(tx) = &self.route {
            let _ = tx.send(RoomCommand::Shutdown { done: None }).await;
        }
    }

    /// Ends the room's task and waits until it has stored its clock for a restart.
    pub async fn close(&self) {
        if let Route::Local(tx) = &self.route {
            let (done, closed) = oneshot::channel();
            if tx.send(RoomCommand::Shutdown { done: Some(done) }).await.is_ok() {
                let _ = closed.await;
            }
        }
    }

    /// True once the room's task has ended (an idle game that was closed).
    pub fn is_closed(&self) -> bool {
        match &self.route {
            Route::Local(tx) => tx.is_closed(),
            Route::Cluster(..) => false,
        }
    }
}

/// Validates a create request, builds the room and starts its task. The game is put in the
/// store's queue before the room can record anything else, so it is stored first.
pub fn spawn(id: GameId, spec: NewGame, player: Player, ctx: RoomContext) -> Result<Creating, Refusal> {
    let (tx, rx) = mpsc::channel(COMMAND_CAPACITY);
    let (mut room, seat, stored) = actor::Room::new(id, spec, player, ctx.clone(), tx.downgrade())?;
    let id = stored.id.clone();
    let saved = ctx.store.record(&id, super::store::StoreEvent::Created(Box::new(stored)));
    let sub = room.subscribe(None, Some(true));
    let summary = room.summary();
    idle::start_ticker(ctx.config.idle_timeout.min(ctx.config.unwatched_bot_pause), tx.downgrade());
    tokio::spawn(room.run(rx));
    Ok(Creating { created: Created { handle: RoomHandle { route: Route::Local(tx) }, seat, sub, summary }, saved })
}

/// Refuses a game that cannot be played as asked (a bad FEN or clock, a decided position),
/// without making it: a seek is checked when it is posted, not when it is accepted.
pub fn check(spec: &NewGame) -> Result<(), Refusal> {
    build::playable(spec).map(|_| ())
}

/// Starts the room of a stored game again (after a restart): its handle and summary.
pub fn restore(stored: StoredGame, ctx: RoomContext) -> Result<(RoomHandle, GameSummary), Refusal> {
    let (tx, rx) = mpsc::channel(COMMAND_CAPACITY);
    let room = actor::Room::restore(stored, ctx.clone(), tx.downgrade())?;
    let summary = room.summary();
    idle::start_ticker(ctx.config.idle_timeout.min(ctx.config.unwatched_bot_pause), tx.downgrade());
    tokio::spawn(room.run(rx));
    Ok((RoomHandle { route: Route::Local(tx) }, summary))
}

/// The state and PGN of a stored game that no room holds (an archived, finished game): what a
/// room restored from it would show, with nobody at it, built by the same code; no room is made.
pub fn archived(stored: &StoredGame) -> Result<(GameState, String), Refusal> {
    snapshot::archived(stored)
}

/// A stored game replayed on the rules core: its moves from its initial position, ended as it
/// ended (a stored game whose moves do not replay is refused as damaged).
pub fn replay(stored: &StoredGame) -> Result<crate::chess::Game, Refusal> {
    build::replay(stored)
}

#[cfg(test)]
mod tests;
