//! Several gambit nodes as one server (DESIGN.md §4, docs/cluster.md). PostgreSQL holds every
//! game and which node owns it (a lease, fenced by an epoch every write checks); Redis carries
//! messages only. Exactly one node runs a game's room. A command for a game reaches its owner
//! over the bus ([`rpc`]) and the answer comes back; the room publishes each event once on the
//! game's channel and every node that follows the game fans it out to its own sockets
//! ([`mirror`]). When a node dies its leases run out and the others take its games, rebuilt
//! from PostgreSQL ([`tasks`]).
//!
//! Every connection of a cluster node follows a game through a routed [`RoomHandle`]: the
//! owner is looked up for each command, so a handle stays good when the game changes hands.

mod bus;
mod mirror;
mod rpc;
mod tasks;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{mpsc, oneshot, Notify};

use self::mirror::Mirrors;
use self::rpc::{Call, Envelope, Reply};
use super::accounts::Player;
use super::lobby::{ClusterHooks, Lobby, Taken, Taker};
use super::metrics::Metrics;
use super::room::{Action, Created, Relay, RoomHandle, Seated, Subscription};
use super::seeks;
use super::store::{NodeInfo, Owner, PostgresStore, StoreError};
use crate::chess::Color;
use crate::protocol::{ChatRoom, ChatText, GameId, GameState, PlayerName, Refusal};

pub use bus::{Bus, BusError};

/// How long a node waits for another's answer before it looks for the game's owner again.
const RPC_TIMEOUT: Duration = Duration::from_secs(2);
/// How long a command keeps looking for a game's owner (a dead owner's lease must run out and
/// a survivor take the game) before it is refused.
const CALL_DEADLINE: Duration = Duration::from_secs(10);
/// The pause between two looks.
const RETRY: Duration = Duration::from_millis(200);

/// The channel of a node's requests and answers.
fn node_channel(node: &str) -> String {
    format!("gambit:node:{node}")
}
/// The channel of every node's games list.
const LOBBY_CHANNEL: &str = "gambit:lobby";
/// The channel on which a stopping node says its games are free to take.
const HANDOFF_CHANNEL: &str = "gambit:handoff";
/// How long a stopping node waits for Redis to take its hand-off message.
const HANDOFF_WAIT: Duration = Duration::from_secs(1);

/// Where a game is held.
enum Place {
    Here(RoomHandle),
    There(String),
}

/// This node's part in the cluster.
pub struct Cluster {
    node: String,
    store: Arc<PostgresStore>,
    bus: Bus,
    lobby: Lobby,
    mirrors: Mirrors,
    metrics: Arc<Metrics>,
    /// Requests sent to other nodes, waiting for their answer.
    pending: Mutex<HashMap<u64, oneshot::Sender<Reply>>>,
    next_request: AtomicU64,
    /// Owners of games held elsewhere, as last found (dropped when one does not answer).
    owners: Mutex<HashMap<GameId, String>>,
    /// Nodes that did not answer lately, until when they are passed over: a game whose lease
    /// such a node still holds is waited for (until the lease runs out and the game is taken)
    /// rather than asked of it again.
    silent: Mutex<HashMap<String, tokio::time::Instant>>,
    /// Who this node's connections are in each game they follow (seat tokens, counted
    /// spectators), told to the game's new room when it changes nodes.
    attending: Mutex<HashMap<GameId, Attending>>,
    /// Wakes the lease task at once (another node handed its games over).
    wake: Notify,
    /// Set when this node stops: it takes no more games.
    stopping: AtomicBool,
    /// Held while this node claims games and starts their rooms, so that it takes a game
    /// once: a game it has claimed but whose room is not up yet looks, to a request arriving
    /// meanwhile, like one of its own whose room is gone, and a second claim would start a
    /// second room. That room would restart from the same stored version, so its events
    /// would carry versions the first room's had already used, and followers would drop them
    /// as seen (a move acknowledged, never shown), while the first room's moves would fail
    /// to store against the newer epoch.
    taking: tokio::sync::Mutex<()>,
}

/// The seats and counted spectators of one game held by this node's connections.
#[derive(Default)]
struct Attending {
    /// One entry per connection holding a seat (a token may be held twice).
    tokens: Vec<String>,
    watchers: usize,
}

/// What a node needs to join a cluster, made before its lobby (which needs the relay and the
/// hooks) and handed to [`Cluster::start`] after.
pub struct Joining {
    pub node: String,
    pub store: Arc<PostgresStore>,
    pub bus: Bus,
    /// For the rooms' context.
    pub relay: Relay,
    /// For the lobby.
    pub hooks: Option<ClusterHooks>,
    parts: tasks::Parts,
}

impl Joining {
    /// Connects to Redis (`url`) as node `node` of the store's cluster.
    pub async fn connect(url: &str, node: &str, store: Arc<PostgresStore>) -> Result<Joining, BusError> {
        let (incoming_tx, incoming) = mpsc::unbounded_channel();
        let bus = Bus::connect(url, incoming_tx).await?;
        let (relay, relayed) = mpsc::unbounded_channel();
        let (share, shared) = mpsc::unbounded_channel();
        let (forgotten_tx, forgotten) = mpsc::unbounded_channel();
        let hooks = Some(ClusterHooks { share, forgotten: forgotten_tx });
        let parts = tasks::Parts { incoming, relayed, shared, forgotten };
        Ok(Joining { node: node.to_string(), store, bus, relay, hooks, parts })
    }
}

impl Cluster {
    /// Starts the node's part: its channels are subscribed before this returns, then its tasks
    /// run (bus, leases, list sharing) for as long as the server does.
    pub async fn start(joining: Joining, lobby: Lobby, metrics: Arc<Metrics>) -> Arc<Cluster> {
        let Joining { node, store, bus, parts, .. } = joining;
        let cluster = Arc::new(Cluster {
            node,
            store,
            bus,
            lobby,
            mirrors: Mirrors::default(),
            metrics,
            pending: Mutex::new(HashMap::new()),
            next_request: AtomicU64::new(1),
            owners: Mutex::new(HashMap::new()),
            silent: Mutex::new(HashMap::new()),
            attending: Mutex::new(HashMap::new()),
            wake: Notify::new(),
            stopping: AtomicBool::new(false),
            taking: tokio::sync::Mutex::new(()),
        });
        for channel in [node_channel(&cluster.node), LOBBY_CHANNEL.to_string(), HANDOFF_CHANNEL.to_string()] {
            cluster.bus.subscribe(channel).await;
        }
        // The lease runs before the first game is made: a game of a node with no heartbeat yet
        // would look free to take.
        if let Err(e) = cluster.store.heartbeat(0, 0).await {
            tracing::warn!(error = %e, "cannot renew this node's lease yet");
        }
        tasks::spawn(&cluster, parts);
        tracing::info!(node = %cluster.node, "joined the cluster");
        cluster
    }

    /// This node's name.
    pub fn node(&self) -> &str {
        &self.node
    }

    fn owners(&self) -> std::sync::MutexGuard<'_, HashMap<GameId, String>> {
        self.owners.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn silent(&self) -> std::sync::MutexGuard<'_, HashMap<String, tokio::time::Instant>> {
        self.silent.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// True if `node` did not answer lately.
    fn is_silent(&self, node: &str) -> bool {
        let mut silent = self.silent();
        match silent.get(node) {
            Some(until) if *until > tokio::time::Instant::now() => true,
            Some(_) => {
                silent.remove(node);
                false
            }
            None => false,
        }
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, HashMap<u64, oneshot::Sender<Reply>>> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A handle on `game` wherever it is held; refused if there is no such live game. An
    /// unfinished game nobody holds is taken by this node on the way.
    pub async fn handle(self: &Arc<Self>, game: &str) -> Result<RoomHandle, Refusal> {
        self.locate(game).await?;
        Ok(RoomHandle::routed(self.clone(), game.to_string()))
    }

    /// The node that holds `game` now, if any node does.
    pub async fn owner_of(&self, game: &str) -> Option<String> {
        match self.locate(game).await.ok()? {
            Place::Here(_) => Some(self.node.clone()),
            Place::There(node) => Some(node),
        }
    }

    /// The live nodes, as PostgreSQL has them.
    pub async fn nodes(&self) -> Result<Vec<NodeInfo>, StoreError> {
        self.store.nodes().await
    }

    /// Finds where `game` is held: here, at another node, or nowhere yet (then this node takes
    /// it, rebuilt from the store).
    async fn locate(&self, game: &str) -> Result<Place, Refusal> {
        let deadline = tokio::time::Instant::now() + CALL_DEADLINE;
        loop {
            if let Some(handle) = self.lobby.get(game).await {
                return Ok(Place::Here(handle));
            }
            let cached = self.owners().get(game).cloned();
            if let Some(node) = cached.filter(|node| !self.is_silent(node)) {
                return Ok(Place::There(node));
            }
            let owner = self.store.owner(game).await.map_err(|e| Refusal::server_error(e.to_string()))?;
            match owner {
                Owner::Missing | Owner::Archived => return Err(Refusal::no_such_game(game)),
                // Its node does not answer: wait for its lease to run out.
                Owner::Node(node) if self.is_silent(&node) => {}
                Owner::Node(node) if node != self.node => {
                    self.owners().insert(game.to_string(), node.clone());
                    return Ok(Place::There(node));
                }
                // Nobody holds it, or this node's lease is still on record for a room it no
                // longer has (it is stopping, or it let the room go): take it afresh.
                Owner::Node(_) | Owner::Orphan => {
                    if let Some(handle) = self.take(game).await? {
                        return Ok(Place::Here(handle));
                    }
                }
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(Refusal::server_error(
                    "the game's node does not answer and its lease still runs; try again",
                ));
            }
            tokio::time::sleep(RETRY).await;
        }
    }

    /// Takes `game` (if nobody holds it) and starts its room here.
    async fn take(&self, game: &str) -> Result<Option<RoomHandle>, Refusal> {
        if self.stopping.load(Ordering::Acquire) {
            return Err(Refusal::shutting_down());
        }
        let _taking = self.taking.lock().await;
        // Another request, or the lease task, may have taken it while this one waited.
        if let Some(handle) = self.lobby.get(game).await {
            return Ok(Some(handle));
        }
        let Some(stored) = self.store.claim(game).await.map_err(|e| Refusal::server_error(e.to_string()))? else {
            return Ok(None);
        };
        match self.lobby.adopt(stored).await {
            Some(handle) => Ok(Some(handle)),
            None => {
                self.store.release(vec![game.to_string()]).await;
                Err(Refusal::too_many("this node holds all the games it may; try again later"))
            }
        }
    }

    /// Carries out `call` wherever `game` is held, looking again when its holder does not
    /// answer or no longer has it.
    async fn call(&self, game: &str, call: Call) -> Result<Reply, Refusal> {
        let deadline = tokio::time::Instant::now() + CALL_DEADLINE;
        loop {
            let reply = match self.locate(game).await? {
                Place::Here(handle) => rpc::execute(&handle, call.clone()).await,
                Place::There(node) => match self.request(&node, game, call.clone()).await {
                    Some(reply) => reply,
                    None => {
                        tracing::debug!(game, node, "no answer from the game's node");
                        Reply::NotHere
                    }
                },
            };
            if !matches!(reply, Reply::NotHere) {
                return Ok(reply);
            }
            self.owners().remove(game);
            if tokio::time::Instant::now() >= deadline {
                return Err(Refusal::server_error("the game's node does not answer; try again"));
            }
            tokio::time::sleep(RETRY).await;
        }
    }

    /// Sends `call` to `node`; None if it does not answer in time.
    async fn request(&self, node: &str, game: &str, call: Call) -> Option<Reply> {
        let id = self.next_request.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.pending().insert(id, tx);
        let envelope = Envelope::Request { id, from: self.node.clone(), game: game.to_string(), call };
        let heard = match serde_json::to_vec(&envelope) {
            Ok(payload) => self.bus.publish_now(node_channel(node), payload).await,
            Err(e) => {
                tracing::error!(error = %e, "request not serialisable");
                None
            }
        };
        let answer = match heard {
            // Nobody subscribes to the node's channel: it is gone, no need to wait.
            Some(0) => None,
            _ => tokio::time::timeout(RPC_TIMEOUT, rx).await.ok().and_then(Result::ok),
        };
        self.pending().remove(&id);
        if answer.is_none() {
            self.silent().insert(node.to_string(), tokio::time::Instant::now() + super::store::LEASE);
        }
        answer
    }

    /// Answers another node's request for a game this node holds (or for one of its seeks).
    async fn serve_request(&self, from: String, id: u64, game: GameId, call: Call) {
        let reply = if let Call::AcceptSeek { seek, player } = call {
            let by = Taker { connection: None, account: player.account_id() };
            let played = match self.lobby.take_seek(seek, by).await {
                Ok(seek) => seeks::play(&self.lobby, seek, player).await,
                Err(Taken::Refused(refusal)) => Err(refusal),
                Err(Taken::Elsewhere(_)) => Err(Refusal::server_error("the seek moved while it was being taken")),
            };
            match played {
                Ok((game, token)) => Reply::Matched { game, token },
                Err(refusal) => Reply::Refused { code: refusal.code, message: refusal.message },
            }
        } else {
            match self.lobby.get(&game).await {
                Some(handle) => rpc::execute(&handle, call).await,
                None => Reply::NotHere,
            }
        };
        match serde_json::to_vec(&Envelope::Response { id, reply }) {
            Ok(payload) => self.bus.publish(node_channel(&from), payload),
            Err(e) => tracing::error!(error = %e, "reply not serialisable"),
        }
    }

    /// A receiver of `game`'s events on this node, subscribed on the bus before it returns.
    async fn follow(&self, game: &str) -> tokio::sync::broadcast::Receiver<super::room::Broadcast> {
        let rx = self.mirrors.receiver(game);
        self.bus.subscribe(mirror::channel(game)).await;
        rx
    }

    fn attending(&self) -> std::sync::MutexGuard<'_, HashMap<GameId, Attending>> {
        self.attending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Changes what this node's connections hold in `game`.
    fn note_attending(&self, game: &str, change: impl FnOnce(&mut Attending)) {
        let mut attending = self.attending();
        let entry = attending.entry(game.to_string()).or_default();
        change(entry);
        if entry.tokens.is_empty() && entry.watchers == 0 {
            attending.remove(game);
        }
    }

    /// `game` was rebuilt on another node: tell its new room whom this node's connections hold
    /// there, so their seats show online and the spectators are counted.
    fn attend(self: &Arc<Self>, game: &str) {
        let Some((tokens, watchers)) = self.attending().get(game).map(|a| (a.tokens.clone(), a.watchers)) else {
            return;
        };
        self.tell(game, Call::Attend { tokens, watchers });
    }

    /// A seat's subscription: the bus feed, started before the owner's answer.
    async fn seat(&self, game: &str, call: Call) -> Result<Seated, Refusal> {
        let rx = self.follow(game).await;
        match self.call(game, call).await? {
            Reply::Seated { color, token, initial, v } => {
                self.mirrors.note(game, v);
                self.note_attending(game, |a| a.tokens.push(token.clone()));
                Ok(Seated { color, token, sub: Subscription { rx, initial: rpc::initial(initial), v } })
            }
            other => Err(rpc::unexpected(&other)),
        }
    }

    async fn subscribe(&self, game: &str, call: Call) -> Result<Subscription, Refusal> {
        let rx = self.follow(game).await;
        match self.call(game, call).await? {
            Reply::Subscribed { initial, v } => {
                self.mirrors.note(game, v);
                Ok(Subscription { rx, initial: rpc::initial(initial), v })
            }
            other => Err(rpc::unexpected(&other)),
        }
    }

    pub async fn join(&self, game: &str, color: Option<Color>, player: Player) -> Result<Seated, Refusal> {
        self.seat(game, Call::Join { color, player }).await
    }

    pub async fn resume(
        &self,
        game: &str,
        token: String,
        account: Option<super::store::AccountKey>,
        v: Option<u64>,
    ) -> Result<Seated, Refusal> {
        self.seat(game, Call::Resume { token, account, v }).await
    }

    pub async fn watch(&self, game: &str, v: Option<u64>, counted: bool) -> Result<Subscription, Refusal> {
        let sub = self.subscribe(game, Call::Watch { v, counted }).await?;
        if counted {
            self.note_attending(game, |a| a.watchers += 1);
        }
        Ok(sub)
    }

    pub async fn observe(&self, game: &str, v: Option<u64>) -> Result<Subscription, Refusal> {
        self.subscribe(game, Call::Observe { v }).await
    }

    /// Tells the game a counted spectator left, without waiting.
    pub fn unwatch(self: &Arc<Self>, game: &str) {
        self.note_attending(game, |a| a.watchers = a.watchers.saturating_sub(1));
        self.tell(game, Call::Unwatch);
    }

    /// Tells the game a seat's connection closed, without waiting.
    pub fn leave(self: &Arc<Self>, game: &str, token: String) {
        self.note_attending(game, |a| {
            if let Some(i) = a.tokens.iter().position(|t| *t == token) {
                a.tokens.swap_remove(i);
            }
        });
        self.tell(game, Call::Leave { token });
    }

    fn tell(self: &Arc<Self>, game: &str, call: Call) {
        let cluster = self.clone();
        let game = game.to_string();
        tokio::spawn(async move {
            let _ = cluster.call(&game, call).await;
        });
    }

    pub async fn act(&self, game: &str, token: String, action: Action) -> Result<(), Refusal> {
        match self.call(game, Call::Act { token, action }).await? {
            Reply::Done => Ok(()),
            other => Err(rpc::unexpected(&other)),
        }
    }

    pub async fn chat(
        &self,
        game: &str,
        token: Option<String>,
        name: Option<PlayerName>,
        room: ChatRoom,
        text: ChatText,
    ) -> Result<(), Refusal> {
        match self.call(game, Call::Chat { token, name, room, text }).await? {
            Reply::Done => Ok(()),
            other => Err(rpc::unexpected(&other)),
        }
    }

    pub async fn snapshot(&self, game: &str) -> Result<(u64, Arc<str>), Refusal> {
        match self.call(game, Call::Snapshot).await? {
            Reply::Snapshot { v, text } => Ok((v, Arc::from(text))),
            other => Err(rpc::unexpected(&other)),
        }
    }

    pub async fn state(&self, game: &str) -> Result<GameState, Refusal> {
        match self.call(game, Call::State).await? {
            Reply::State { state } => Ok(*state),
            other => Err(rpc::unexpected(&other)),
        }
    }

    pub async fn pgn(&self, game: &str) -> Result<String, Refusal> {
        match self.call(game, Call::Pgn).await? {
            Reply::Pgn { pgn } => Ok(pgn),
            other => Err(rpc::unexpected(&other)),
        }
    }

    /// Takes up seek `seek`, which `node` holds, for `player`: the game, and the token of the
    /// acceptor's seat.
    pub async fn accept_seek(&self, node: &str, seek: String, player: Player) -> Result<(GameId, String), Refusal> {
        let call = Call::AcceptSeek { seek: seek.clone(), player };
        match self.request(node, &seek, call).await {
            Some(Reply::Matched { game, token }) => Ok((game, token)),
            Some(other) => Err(rpc::unexpected(&other)),
            None => Err(Refusal::server_error("the node holding that seek does not answer; try again")),
        }
    }

    /// A game this node just created, as its creator follows it in a cluster: a routed handle,
    /// and a subscription fed from the bus that starts where the room's own left off.
    pub async fn created(self: &Arc<Self>, game: &str, created: Created) -> Result<Created, Refusal> {
        let rx = self.follow(game).await;
        // Events the room published before the bus subscription was confirmed come as a replay.
        let since = created.handle.watch(Some(created.sub.v), false).await?;
        let mut initial = created.sub.initial;
        initial.extend(since.initial);
        self.mirrors.note(game, since.v);
        if let Some((_, token)) = &created.seat {
            self.note_attending(game, |a| a.tokens.push(token.clone()));
        }
        Ok(Created {
            handle: RoomHandle::routed(self.clone(), game.to_string()),
            seat: created.seat,
            sub: Subscription { rx, initial, v: since.v },
            summary: created.summary,
        })
    }

    /// Stops taking games (the node is shutting down).
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::Release);
    }

    /// Once the rooms have closed: lets go of every game at once and tells the other nodes,
    /// so they take them over without waiting for the leases to run out; then leaves the list
    /// of nodes.
    pub async fn hand_off(&self) {
        let held = self.store.held();
        let n = held.len();
        self.store.release(held).await;
        // Sent now and waited for, so it is out before the process ends (a Redis that does not
        // answer only costs the others the lease's expiry).
        let handoff = self.bus.publish_now(HANDOFF_CHANNEL.to_string(), self.node.as_bytes().to_vec());
        if tokio::time::timeout(HANDOFF_WAIT, handoff).await.ok().flatten().is_none() {
            tracing::warn!("could not announce the hand-off; the other nodes take the games when the lease runs out");
        }
        self.store.leave_cluster().await;
        tracing::info!(games = n, "games handed over to the other nodes");
    }
}
