//! Several gambit nodes as one server (DESIGN.md §4, docs/cluster.md). PostgreSQL holds every
//! game and which node owns it (a lease, fenced by an epoch every write checks); Redis carries
//! messages only. Exactly one node runs a game's room. A command for a game reaches its owner
//! over the bus ([`rpc`]) and the answer comes back; the room publishes each event once on the
//! game's channel and every node that follows the game fans it out to its own sockets
//! ([`mirror`]). When a node dies its leases run out and the others take its games, rebuilt
//! from PostgreSQL ([`tasks`]).
//!
//! Every connection of a cluster node follows a game through a `GameRef` routed here: the
//! owner is looked up for each [`Command`], so the reference stays good when the game changes
//! hands.

mod bus;
mod mirror;
mod owners;
mod rpc;
mod tasks;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{mpsc, oneshot, Notify};

use self::mirror::Mirrors;
use self::rpc::{Answer, Envelope};
use super::accounts::Player;
use super::lobby::{seeks, ClusterHooks, Lobby, Taken, Taker};
use super::metrics::Metrics;
use super::notices::{Notice, Notices, RemoteOnline};
use super::room::{Command, Relay, Reply, RoomHandle, Seated, Subscription};
use super::store::{NodeInfo, PostgresStore, StoreError};
use super::tournaments::{Call, Wire};
use crate::protocol::{GameId, Refusal, SeekId};

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
/// The channel of players' notices (a challenge, a game started), for whichever node they are
/// connected to, and of who is online on each node.
const NOTICES_CHANNEL: &str = "gambit:notices";
/// How often a node says who is online on it.
const ONLINE_PERIOD: Duration = Duration::from_secs(2);
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
    pending: Mutex<HashMap<u64, oneshot::Sender<Answer>>>,
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
    /// The server's notices, once it has carried them over the bus ([`Cluster::carry_notices`]).
    notices: std::sync::OnceLock<Arc<Notices>>,
    /// Where other nodes' tournament calls go: the tournaments this node runs
    /// ([`Cluster::serve_tournaments`]).
    tournaments: std::sync::OnceLock<mpsc::UnboundedSender<TournamentCall>>,
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

/// Another node's call for a tournament of this node's, and where its answer goes (None: the
/// tournament does not run here).
pub type TournamentCall = (String, Call, oneshot::Sender<Option<Wire>>);

/// What nodes say on [`NOTICES_CHANNEL`], and which node says it.
#[derive(serde::Serialize, serde::Deserialize)]
struct NoticeEnvelope {
    node: String,
    message: NoticeMessage,
}

#[derive(serde::Serialize, serde::Deserialize)]
enum NoticeMessage {
    /// A notice for a player, wherever they are connected.
    Notice { account: i64, notice: Notice },
    /// Who is online on the sending node.
    Online { online: Vec<RemoteOnline> },
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
            notices: std::sync::OnceLock::new(),
            tournaments: std::sync::OnceLock::new(),
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

    /// Carries the server's notices over the bus: those told here go to the other nodes, theirs
    /// come here, and every node says who is online on it every [`ONLINE_PERIOD`].
    pub async fn carry_notices(self: &Arc<Self>, notices: Arc<Notices>) {
        if self.notices.set(notices.clone()).is_err() {
            return;
        }
        self.bus.subscribe(NOTICES_CHANNEL.to_string()).await;
        let (relay, mut relayed) = mpsc::unbounded_channel::<(i64, Notice)>();
        notices.relay_to(relay);
        let cluster = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut online = tokio::time::interval(ONLINE_PERIOD);
            loop {
                let message = tokio::select! {
                    told = relayed.recv() => match told {
                        Some((account, notice)) => NoticeMessage::Notice { account, notice },
                        None => return,
                    },
                    _ = online.tick() => NoticeMessage::Online { online: notices.here() },
                };
                let Some(cluster) = cluster.upgrade() else { return };
                let envelope = NoticeEnvelope { node: cluster.node.clone(), message };
                match serde_json::to_vec(&envelope) {
                    Ok(payload) => cluster.bus.publish(NOTICES_CHANNEL.to_string(), payload),
                    Err(e) => tracing::warn!(error = %e, "cannot encode a notice"),
                }
            }
        });
    }

    /// A notice or an online list from the bus.
    fn notice_arrived(&self, payload: &[u8]) {
        let Some(notices) = self.notices.get() else { return };
        match serde_json::from_slice::<NoticeEnvelope>(payload) {
            Ok(envelope) if envelope.node == self.node => {}
            Ok(NoticeEnvelope { message: NoticeMessage::Notice { account, notice }, .. }) => {
                notices.deliver(account, notice)
            }
            Ok(NoticeEnvelope { node, message: NoticeMessage::Online { online } }) => notices.remote(node, online),
            Err(e) => tracing::warn!(error = %e, "unreadable notice on the bus"),
        }
    }

    /// This node's name.
    pub fn node(&self) -> &str {
        &self.node
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, HashMap<u64, oneshot::Sender<Answer>>> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The live nodes, as PostgreSQL has them.
    pub async fn nodes(&self) -> Result<Vec<NodeInfo>, StoreError> {
        self.store.nodes().await
    }

    /// Carries out `command` on `game` wherever it is held, and answers its reply. A
    /// subscription's feed on this node is the game's mirror, fed from the bus and subscribed
    /// before the owner answers, so that it survives the game changing hands; what this node's
    /// connections hold in the game is noted, for its next owner.
    pub async fn call(self: &Arc<Self>, game: &str, command: Command) -> Result<Reply, Refusal> {
        let feed = if command.subscribes() { Some(self.follow(game).await) } else { None };
        let counted = matches!(command, Command::Watch { counted: true, .. });
        let reply = match self.route(game, command).await? {
            Answer::Reply { reply } => reply,
            other => return Err(unexpected(other)),
        };
        Ok(match (reply, feed) {
            (Reply::Seated(seated), Some(rx)) => {
                self.mirrors.note(game, seated.sub.v);
                self.note_attending(game, |a| a.tokens.push(seated.token.clone()));
                Reply::Seated(Seated { sub: seated.sub.attach(rx), ..seated })
            }
            (Reply::Subscribed(sub), Some(rx)) => {
                self.mirrors.note(game, sub.v);
                if counted {
                    self.note_attending(game, |a| a.watchers += 1);
                }
                Reply::Subscribed(sub.attach(rx))
            }
            (reply, _) => reply,
        })
    }

    /// Hands `command` to `game` without waiting for its answer (a connection of this node
    /// that leaves the game).
    pub fn tell(self: &Arc<Self>, game: &str, command: Command) {
        match &command {
            Command::Unwatch => self.note_attending(game, |a| a.watchers = a.watchers.saturating_sub(1)),
            Command::Leave { token } => self.note_attending(game, |a| {
                if let Some(i) = a.tokens.iter().position(|t| t == token) {
                    a.tokens.swap_remove(i);
                }
            }),
            _ => {}
        }
        let cluster = self.clone();
        let game = game.to_string();
        tokio::spawn(async move {
            let _ = cluster.route(&game, command).await;
        });
    }

    /// Carries out `command` wherever `game` is held, looking again when its holder does not
    /// answer or no longer has it.
    async fn route(&self, game: &str, command: Command) -> Result<Answer, Refusal> {
        let deadline = tokio::time::Instant::now() + CALL_DEADLINE;
        loop {
            let answer = match self.locate(game).await? {
                Place::Here(handle) => rpc::execute(&handle, command.clone()).await,
                Place::There(node) => {
                    let request =
                        |id, from| Envelope::Request { id, from, game: game.to_string(), command: command.clone() };
                    match self.request(&node, request).await {
                        Some(answer) => answer,
                        None => {
                            tracing::debug!(game, node, "no answer from the game's node");
                            Answer::NotHere
                        }
                    }
                }
            };
            match answer {
                Answer::NotHere => {}
                Answer::Refused { refusal } => return Err(refusal),
                answer => return Ok(answer),
            }
            self.owners().remove(game);
            if tokio::time::Instant::now() >= deadline {
                return Err(Refusal::server_error("the game's node does not answer; try again"));
            }
            tokio::time::sleep(RETRY).await;
        }
    }

    /// Sends the request `make` builds (from its id and this node's name) to `node`; None if
    /// it does not answer in time.
    async fn request(&self, node: &str, make: impl FnOnce(u64, String) -> Envelope) -> Option<Answer> {
        let id = self.next_request.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.pending().insert(id, tx);
        let envelope = make(id, self.node.clone());
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

    /// Answers another node's command for a game this node holds.
    async fn serve_request(&self, from: String, id: u64, game: GameId, command: Command) {
        let answer = match self.lobby.get(&game).await {
            Some(handle) => rpc::execute(&handle, command).await,
            None => Answer::NotHere,
        };
        self.respond(&from, id, answer);
    }

    /// Answers another node's player taking up one of this node's seeks.
    async fn serve_seek(&self, from: String, id: u64, seek: SeekId, player: Player) {
        let by = Taker { connection: None, account: player.account_id() };
        let played = match self.lobby.take_seek(seek, by).await {
            Ok(seek) => seeks::play(&self.lobby, seek, player).await,
            Err(Taken::Refused(refusal)) => Err(refusal),
            Err(Taken::Elsewhere(_)) => Err(Refusal::server_error("the seek moved while it was being taken")),
        };
        let answer = match played {
            Ok((game, token)) => Answer::Matched { game, token },
            Err(refusal) => Answer::Refused { refusal },
        };
        self.respond(&from, id, answer);
    }

    /// Hands other nodes' tournament calls to `desk` from now on.
    pub fn serve_tournaments(&self, desk: mpsc::UnboundedSender<TournamentCall>) {
        let _ = self.tournaments.set(desk);
    }

    /// Answers another node's call for a tournament this node runs.
    async fn serve_tournament(&self, from: String, id: u64, tournament: String, call: Call) {
        let (reply, answer) = oneshot::channel();
        let sent = self.tournaments.get().is_some_and(|desk| desk.send((tournament, call, reply)).is_ok());
        let answer = match if sent { answer.await.ok().flatten() } else { None } {
            Some(wire) => Answer::Tournament { wire },
            None => Answer::NotHere,
        };
        self.respond(&from, id, answer);
    }

    /// Asks `node` to carry out `call` for tournament `tournament`; None if it does not answer
    /// or no longer runs it.
    pub async fn call_tournament(&self, node: &str, tournament: &str, call: Call) -> Option<Wire> {
        let tournament = tournament.to_string();
        match self.request(node, |id, from| Envelope::Tournament { id, from, tournament, call }).await? {
            Answer::Tournament { wire } => Some(wire),
            _ => None,
        }
    }

    /// The cluster's store, for what is owned like games (tournaments).
    pub fn store(&self) -> &Arc<PostgresStore> {
        &self.store
    }

    fn respond(&self, to: &str, id: u64, answer: Answer) {
        match serde_json::to_vec(&Envelope::Response { id, answer }) {
            Ok(payload) => self.bus.publish(node_channel(to), payload),
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
        self.tell(game, Command::Attend { tokens, watchers });
    }

    /// Takes up seek `seek`, which `node` holds, for `player`: the game, and the token of the
    /// acceptor's seat.
    pub async fn accept_seek(&self, node: &str, seek: SeekId, player: Player) -> Result<(GameId, String), Refusal> {
        match self.request(node, |id, from| Envelope::Seek { id, from, seek, player }).await {
            Some(Answer::Matched { game, token }) => Ok((game, token)),
            Some(other) => Err(unexpected(other)),
            None => Err(Refusal::server_error("the node holding that seek does not answer; try again")),
        }
    }

    /// The feed of a game this node just created, as its creator follows it in a cluster: from
    /// the bus, starting where the room's own subscription `sub` left off.
    pub async fn created(
        &self,
        game: &str,
        handle: &RoomHandle,
        sub: Subscription,
        token: Option<&str>,
    ) -> Result<Subscription, Refusal> {
        let rx = self.follow(game).await;
        // Events the room published before the bus subscription was confirmed come as a replay.
        let since = handle.call(Command::Watch { v: Some(sub.v), counted: false }).await?.into_subscription()?;
        let mut initial = sub.initial;
        initial.extend(since.initial);
        self.mirrors.note(game, since.v);
        if let Some(token) = token {
            self.note_attending(game, |a| a.tokens.push(token.to_string()));
        }
        Ok(Subscription { rx, initial, v: since.v })
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

/// An answer that is not the one the request expects.
fn unexpected(answer: Answer) -> Refusal {
    match answer {
        Answer::Refused { refusal } => refusal,
        other => Refusal::server_error(format!("unexpected answer from the game's node: {other:?}")),
    }
}
