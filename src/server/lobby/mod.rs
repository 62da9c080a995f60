//! The lobby: the registry `GameId -> RoomHandle`, owned by one task, and the games list with
//! its own broadcast for `list` subscribers. Finished games stay listed for a while, then the
//! lobby forgets them and their rooms end.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use rand::Rng;
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio::time::Instant;

mod limits;
mod listing;

pub use limits::{Creator, LobbyLimits};
pub use listing::NodeList;

use super::accounts::Player;
use super::room::{self, Created, LobbyNote, RoomContext, RoomHandle};
use super::seeks::{Seek, Seeker, Seeks};
use super::store::{StoreEvent, StoredGame};
use crate::protocol::{GameId, GameSummary, NewGame, NewSeek, Refusal, SeekId, SeekView, Status};

/// Letters of game ids: lowercase base32 without the look-alikes 0/o and 1/l.
const ID_ALPHABET: &[u8; 32] = b"abcdefghijkmnpqrstuvwxyz23456789";
/// Length of a game id: 40 bits, plenty for the games one server holds.
const ID_LEN: usize = 8;
/// The most games a lobby holds unless told otherwise.
pub const DEFAULT_MAX_ROOMS: usize = 2000;
/// The games list is broadcast at most this often.
const LIST_PERIOD: Duration = Duration::from_millis(250);
/// In a cluster, a node shares its games at least this often, even when nothing changed…
const SHARE_PERIOD: Duration = Duration::from_secs(2);
/// …and another node's list is dropped when it has not been heard of for this long.
const REMOTE_TTL: Duration = Duration::from_secs(6);

/// What a cluster node's lobby tells the cluster.
pub struct ClusterHooks {
    /// This node's games and seeks, whenever they change (and every `SHARE_PERIOD`).
    pub share: mpsc::UnboundedSender<NodeList>,
    /// A game whose room this node let go of (finished and forgotten, or closed).
    pub forgotten: mpsc::UnboundedSender<GameId>,
}

/// A new random game id.
pub fn new_game_id() -> GameId {
    let mut rng = rand::rng();
    (0..ID_LEN).map(|_| ID_ALPHABET[rng.random_range(0..ID_ALPHABET.len())] as char).collect()
}

enum LobbyCommand {
    Create {
        spec: NewGame,
        /// Who asks, for the counts of unfinished games per connection and per address.
        creator: Option<Creator>,
        /// Who sits down in the creator's seat.
        player: Player,
        reply: oneshot::Sender<Result<(GameId, Created), Refusal>>,
    },
    Get {
        game: GameId,
        reply: oneshot::Sender<Option<RoomHandle>>,
    },
    List {
        reply: oneshot::Sender<Vec<GameSummary>>,
    },
    /// The games list and the seeks now, and the feed of their changes.
    Subscribe {
        reply: oneshot::Sender<Listing>,
    },
    Seeks {
        reply: oneshot::Sender<Vec<SeekView>>,
    },
    /// Post a seek (replacing the connection's earlier one).
    PostSeek {
        spec: NewSeek,
        seeker: Seeker,
        reply: oneshot::Sender<SeekId>,
    },
    /// Withdraw a connection's seek.
    CancelSeek {
        connection: u64,
        reply: oneshot::Sender<bool>,
    },
    /// Take a seek out to play it; `by` is the accepting connection (of this node).
    TakeSeek {
        seek: SeekId,
        by: Taker,
        reply: oneshot::Sender<Result<Seek, Taken>>,
    },
    /// A created room's game is stored (`saved`) or could not be: keep it or let it go.
    Saved {
        id: GameId,
        saved: bool,
    },
    /// Start the room of a game this node has just taken over (cluster); None if the lobby is
    /// full.
    Adopt {
        stored: Box<StoredGame>,
        reply: oneshot::Sender<Option<RoomHandle>>,
    },
    /// Drop the rooms of games this node no longer owns (cluster): another node holds them.
    Drop {
        games: Vec<GameId>,
    },
    /// Another node's games and seeks, for the cluster-wide list.
    Remote {
        node: String,
        list: NodeList,
    },
    /// Every room stores what it must and ends; then the lobby ends.
    Close {
        reply: oneshot::Sender<()>,
    },
}

/// A cloneable handle on the lobby task.
#[derive(Clone)]
pub struct Lobby {
    tx: mpsc::Sender<LobbyCommand>,
}

fn gone() -> Refusal {
    Refusal::shutting_down()
}

/// The games list and the seeks now, and the feed of `games` and `seeks` messages as they change.
pub type Listing = (Vec<GameSummary>, Vec<SeekView>, broadcast::Receiver<Arc<str>>);

/// Who takes up a seek: their connection (None when another node asks for its player) and
/// their account, if they are logged in.
#[derive(Clone, Copy, Debug, Default)]
pub struct Taker {
    pub connection: Option<u64>,
    pub account: Option<crate::server::store::AccountKey>,
}

/// Why a seek could not be taken here.
#[derive(Debug)]
pub enum Taken {
    /// Another node of the cluster holds it.
    Elsewhere(String),
    Refused(Refusal),
}

impl Lobby {
    /// Starts the lobby task. Rooms it creates get `ctx` (its `lobby` field is replaced by the
    /// lobby's own update channel). `retention`: how long finished games stay listed. At most
    /// `DEFAULT_MAX_ROOMS` games are held; see [`Lobby::start_limited`].
    pub fn start(ctx: RoomContext, retention: Duration) -> Lobby {
        Lobby::start_limited(ctx, retention, DEFAULT_MAX_ROOMS)
    }

    /// [`Lobby::start`], holding at most `max_rooms` games: a create beyond gets `too_many`.
    pub fn start_limited(ctx: RoomContext, retention: Duration, max_rooms: usize) -> Lobby {
        let limits = LobbyLimits {
            max_rooms,
            max_unfinished_per_address: usize::MAX,
            max_unfinished_per_connection: usize::MAX,
        };
        Lobby::start_with(ctx, retention, limits, Vec::new())
    }

    /// [`Lobby::start_limited`], starting the rooms of `restored` games first (unfinished games
    /// read back from the store after a restart). A game that cannot be rebuilt is logged and
    /// left in the store as it is.
    pub fn start_with(ctx: RoomContext, retention: Duration, limits: LobbyLimits, restored: Vec<StoredGame>) -> Lobby {
        Lobby::start_node(ctx, retention, limits, restored, None)
    }

    /// [`Lobby::start_with`] for a node of a cluster when `hooks` are given.
    pub fn start_node(
        ctx: RoomContext,
        retention: Duration,
        limits: LobbyLimits,
        restored: Vec<StoredGame>,
        hooks: Option<ClusterHooks>,
    ) -> Lobby {
        let (tx, rx) = mpsc::channel(256);
        let (updates_tx, updates) = mpsc::unbounded_channel();
        let (list_tx, _) = broadcast::channel(16);
        let mut task = LobbyTask {
            games: HashMap::new(),
            ctx: RoomContext { lobby: updates_tx, ..ctx },
            retention,
            limits,
            list_tx,
            dirty: false,
            me: tx.downgrade(),
            hooks,
            changed: true,
            shared_at: Instant::now(),
            remote: HashMap::new(),
            seeks: Seeks::default(),
            seeks_dirty: false,
        };
        for stored in restored {
            task.restore(stored, "stored game could not be restored");
        }
        if !task.games.is_empty() {
            tracing::info!(games = task.games.len(), "unfinished games restored");
        }
        task.ctx.metrics.live_games.set(task.games.len() as i64);
        tokio::spawn(task.run(rx, updates));
        Lobby { tx }
    }

    /// Closes every room (each stores its clock) and the lobby, for a clean stop.
    pub async fn close(&self) {
        self.ask(|reply| LobbyCommand::Close { reply }).await;
    }

    async fn ask<T>(&self, make: impl FnOnce(oneshot::Sender<T>) -> LobbyCommand) -> Option<T> {
        let (reply, answer) = oneshot::channel();
        self.tx.send(make(reply)).await.ok()?;
        answer.await.ok()
    }

    /// Creates a game and its room, for `creator` (None: not counted).
    pub async fn create(
        &self,
        spec: NewGame,
        creator: Option<Creator>,
        player: Player,
    ) -> Result<(GameId, Created), Refusal> {
        self.ask(|reply| LobbyCommand::Create { spec, creator, player, reply }).await.unwrap_or_else(|| Err(gone()))
    }

    /// The room of a game, if the lobby holds it.
    pub async fn get(&self, game: &str) -> Option<RoomHandle> {
        self.ask(|reply| LobbyCommand::Get { game: game.to_string(), reply }).await.flatten()
    }

    /// The games list now.
    pub async fn list(&self) -> Vec<GameSummary> {
        self.ask(|reply| LobbyCommand::List { reply }).await.unwrap_or_default()
    }

    /// Starts the room of a game this node took over; None if it holds all it may.
    pub async fn adopt(&self, stored: StoredGame) -> Option<RoomHandle> {
        self.ask(|reply| LobbyCommand::Adopt { stored: Box::new(stored), reply }).await.flatten()
    }

    /// Drops the rooms of games another node now owns.
    pub async fn drop_games(&self, games: Vec<GameId>) {
        let _ = self.tx.send(LobbyCommand::Drop { games }).await;
    }

    /// Another node's games and seeks.
    pub async fn remote(&self, node: String, list: NodeList) {
        let _ = self.tx.send(LobbyCommand::Remote { node, list }).await;
    }

    /// The games list and the seeks now, and a feed of `games` and `seeks` messages as they
    /// change.
    pub async fn subscribe(&self) -> Option<Listing> {
        self.ask(|reply| LobbyCommand::Subscribe { reply }).await
    }

    /// The open seeks now (of the whole cluster).
    pub async fn seeks(&self) -> Vec<SeekView> {
        self.ask(|reply| LobbyCommand::Seeks { reply }).await.unwrap_or_default()
    }

    /// Posts a seek for `seeker` (replacing its connection's earlier one); its id.
    pub async fn post_seek(&self, spec: NewSeek, seeker: Seeker) -> Result<SeekId, Refusal> {
        self.ask(|reply| LobbyCommand::PostSeek { spec, seeker, reply }).await.ok_or_else(gone)
    }

    /// Withdraws the seek of `connection`; true if it had one.
    pub async fn cancel_seek(&self, connection: u64) -> bool {
        self.ask(|reply| LobbyCommand::CancelSeek { connection, reply }).await.unwrap_or(false)
    }

    /// Takes seek `seek` out to play it, for `by` (a connection of this node, or another node's
    /// player): once only, whoever asks first.
    pub async fn take_seek(&self, seek: SeekId, by: Taker) -> Result<Seek, Taken> {
        self.ask(|reply| LobbyCommand::TakeSeek { seek, by, reply })
            .await
            .unwrap_or_else(|| Err(Taken::Refused(gone())))
    }
}

struct Entry {
    handle: RoomHandle,
    summary: GameSummary,
    /// When the game was first seen finished.
    ended_at: Option<Instant>,
    /// Who created the game (None for games restored after a restart).
    creator: Option<Creator>,
}

struct LobbyTask {
    games: HashMap<GameId, Entry>,
    ctx: RoomContext,
    retention: Duration,
    limits: LobbyLimits,
    list_tx: broadcast::Sender<Arc<str>>,
    /// The list changed since it was last broadcast.
    dirty: bool,
    /// The lobby's own queue, for the store's answers on created games.
    me: mpsc::WeakSender<LobbyCommand>,
    /// In a cluster: where this node's list goes, and games let go of.
    hooks: Option<ClusterHooks>,
    /// This node's own games changed since they were last shared.
    changed: bool,
    shared_at: Instant,
    /// Other nodes' games and seeks, by node, and when each list came.
    remote: HashMap<String, (NodeList, Instant)>,
    /// This node's open seeks.
    seeks: Seeks,
    /// The seeks changed since they were last broadcast.
    seeks_dirty: bool,
}

impl LobbyTask {
    async fn run(mut self, mut rx: mpsc::Receiver<LobbyCommand>, mut updates: mpsc::UnboundedReceiver<LobbyNote>) {
        let mut tick = tokio::time::interval(LIST_PERIOD);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                command = rx.recv() => match command {
                    Some(command) => {
                        if let Some(closed) = self.handle(command) {
                            self.close_rooms().await;
                            let _ = closed.send(());
                            return;
                        }
                    }
                    None => break,
                },
                Some(note) = updates.recv() => match note {
                    LobbyNote::Summary(summary) => self.update(summary),
                    LobbyNote::Rematch { game, reply } => self.rematch(*game, reply),
                },
                _ = tick.tick() => {
                    self.sweep();
                    self.flush();
                }
            }
        }
        for entry in self.games.values() {
            entry.handle.shutdown().await;
        }
    }

    /// Closes every room at once and waits (a little) for each to store its clock.
    async fn close_rooms(&mut self) {
        let closing = self.games.drain().map(|(_, entry)| async move { entry.handle.close().await });
        let all = futures::future::join_all(closing);
        if tokio::time::timeout(Duration::from_secs(10), all).await.is_err() {
            tracing::warn!("some games did not close in time");
        }
    }

    /// Carries out one command; for `Close`, hands back who waits for the rooms to close.
    fn handle(&mut self, command: LobbyCommand) -> Option<oneshot::Sender<()>> {
        match command {
            LobbyCommand::Create { spec, creator, player, reply } => self.create(spec, creator, player, reply),
            LobbyCommand::Saved { id, saved } => {
                if !saved {
                    if let Some(entry) = self.games.remove(&id) {
                        tokio::spawn(async move { entry.handle.shutdown().await });
                        self.forgot(&id);
                    }
                }
            }
            LobbyCommand::Adopt { stored, reply } => {
                let _ = reply.send(self.adopt(*stored));
            }
            LobbyCommand::Drop { games } => {
                for id in games {
                    if let Some(entry) = self.games.remove(&id) {
                        tracing::warn!(game = %id, "another node owns this game now; its room here is dropped");
                        tokio::spawn(async move { entry.handle.shutdown().await });
                        self.touched();
                    }
                }
                self.ctx.metrics.live_games.set(self.games.len() as i64);
            }
            LobbyCommand::Remote { node, list } => self.remote(node, list),
            LobbyCommand::Seeks { reply } => {
                let _ = reply.send(self.seek_views());
            }
            LobbyCommand::PostSeek { spec, seeker, reply } => {
                let _ = reply.send(self.seeks.post(spec, seeker));
                self.seeks_changed();
            }
            LobbyCommand::CancelSeek { connection, reply } => {
                let cancelled = self.seeks.cancel(connection);
                if cancelled {
                    self.seeks_changed();
                }
                let _ = reply.send(cancelled);
            }
            LobbyCommand::TakeSeek { seek, by, reply } => {
                let _ = reply.send(self.take_seek(&seek, &by));
            }
            LobbyCommand::Close { reply } => return Some(reply),
            LobbyCommand::Get { game, reply } => {
                let _ = reply.send(self.games.get(&game).map(|e| e.handle.clone()));
            }
            LobbyCommand::List { reply } => {
                let _ = reply.send(self.summaries());
            }
            LobbyCommand::Subscribe { reply } => {
                let _ = reply.send((self.summaries(), self.seek_views(), self.list_tx.subscribe()));
            }
        }
        None
    }

    /// Creates a game; the creator hears of it once the store has it.
    fn create(
        &mut self,
        spec: NewGame,
        creator: Option<Creator>,
        player: Player,
        reply: oneshot::Sender<Result<(GameId, Created), Refusal>>,
    ) {
        if self.games.len() >= self.limits.max_rooms {
            let message = format!("the server holds {} games, its limit; try again later", self.games.len());
            let _ = reply.send(Err(Refusal::too_many(message)));
            return;
        }
        if let Some(creator) = creator {
            if let Err(refusal) = self.may_create(creator) {
                let _ = reply.send(Err(refusal));
                return;
            }
        }
        let mut id = new_game_id();
        while self.games.contains_key(&id) {
            id = new_game_id();
        }
        let creating = match room::spawn(id.clone(), spec, player, self.ctx.clone()) {
            Ok(creating) => creating,
            Err(e) => {
                let _ = reply.send(Err(e));
                return;
            }
        };
        let created = creating.created;
        let entry = Entry { handle: created.handle.clone(), summary: created.summary.clone(), ended_at: None, creator };
        self.games.insert(id.clone(), entry);
        self.ctx.metrics.live_games.set(self.games.len() as i64);
        self.touched();
        // The creator hears of the game once it is stored; the lobby goes on meanwhile.
        let saved = creating.saved;
        let me = self.me.clone();
        tokio::spawn(async move {
            let result = saved.await;
            if let Some(lobby) = me.upgrade() {
                let _ = lobby.send(LobbyCommand::Saved { id: id.clone(), saved: result.is_ok() }).await;
            }
            let _ = reply.send(match result {
                Ok(()) => Ok((id, created)),
                Err(e) => Err(Refusal::server_error(e.to_string())),
            });
        });
    }

    /// Makes a rematch: the game is given its id, stored, and its room started; the old room
    /// hears the id once the game is stored.
    fn rematch(&mut self, mut stored: StoredGame, reply: oneshot::Sender<Result<GameId, Refusal>>) {
        if self.games.len() >= self.limits.max_rooms {
            let message = format!("the server holds {} games, its limit; try again later", self.games.len());
            let _ = reply.send(Err(Refusal::too_many(message)));
            return;
        }
        let mut id = new_game_id();
        while self.games.contains_key(&id) {
            id = new_game_id();
        }
        stored.id = id.clone();
        // In the store's queue before the room can record anything of its own.
        let saved = self.ctx.store.record(&id, StoreEvent::Created(Box::new(stored.clone())));
        if self.restore(stored, "a rematch could not be made").is_none() {
            let _ = reply.send(Err(Refusal::server_error("the rematch could not be made")));
            return;
        }
        self.ctx.metrics.live_games.set(self.games.len() as i64);
        self.touched();
        let me = self.me.clone();
        tokio::spawn(async move {
            let result = saved.await;
            if let Some(lobby) = me.upgrade() {
                let _ = lobby.send(LobbyCommand::Saved { id: id.clone(), saved: result.is_ok() }).await;
            }
            let _ = reply.send(result.map(|()| id).map_err(|e| Refusal::server_error(e.to_string())));
        });
    }

    fn update(&mut self, summary: GameSummary) {
        if let Some(entry) = self.games.get_mut(&summary.game) {
            if summary.status == Status::Ended && entry.ended_at.is_none() {
                entry.ended_at = Some(Instant::now());
            } else if summary.status != Status::Ended {
                entry.ended_at = None;
            }
            if entry.summary != summary {
                entry.summary = summary;
                self.touched();
            }
        }
    }

    /// Forgets games finished longer ago than the retention period, and ends their rooms; and
    /// forgets rooms that closed by themselves (a waiting game left alone).
    fn sweep(&mut self) {
        let closed: Vec<GameId> =
            self.games.iter().filter(|(_, e)| e.handle.is_closed()).map(|(id, _)| id.clone()).collect();
        for id in closed {
            tracing::info!(game = %id, "closed game leaves memory");
            self.games.remove(&id);
            self.forgot(&id);
        }
        let now = Instant::now();
        let expired: Vec<GameId> = self
            .games
            .iter()
            .filter(|(_, e)| e.ended_at.is_some_and(|at| now.duration_since(at) >= self.retention))
            .map(|(id, _)| id.clone())
            .collect();
        for id in expired {
            if let Some(entry) = self.games.remove(&id) {
                tracing::info!(game = %id, "finished game leaves memory");
                // Off the lobby task: a busy room must not hold up the registry.
                tokio::spawn(async move { entry.handle.shutdown().await });
                self.forgot(&id);
            }
        }
        self.ctx.metrics.live_games.set(self.games.len() as i64);
        let before = self.remote.len();
        self.remote.retain(|_, (_, at)| now.duration_since(*at) < REMOTE_TTL);
        if self.remote.len() != before {
            self.dirty = true;
            self.seeks_dirty = true;
        }
    }

    /// A game left this node's memory: in a cluster, its lease goes too.
    fn forgot(&mut self, id: &GameId) {
        self.touched();
        if let Some(hooks) = &self.hooks {
            let _ = hooks.forgotten.send(id.clone());
        }
    }

    /// Starts the room of a game taken over from another node.
    fn adopt(&mut self, stored: StoredGame) -> Option<RoomHandle> {
        let id = stored.id.clone();
        if let Some(old) = self.games.remove(&id) {
            tokio::spawn(async move { old.handle.shutdown().await });
        } else if self.games.len() >= self.limits.max_rooms {
            return None;
        }
        let handle = self.restore(stored, "a taken-over game could not be rebuilt")?;
        self.ctx.metrics.live_games.set(self.games.len() as i64);
        self.touched();
        tracing::info!(game = %id, "game taken over");
        Some(handle)
    }

    /// Rebuilds the room of a stored game and lists it; logs `failed` with the reason if the
    /// game cannot be rebuilt.
    fn restore(&mut self, stored: StoredGame, failed: &str) -> Option<RoomHandle> {
        let id = stored.id.clone();
        match room::restore(stored, self.ctx.clone()) {
            Ok((handle, summary)) => {
                let ended_at = (summary.status == Status::Ended).then(Instant::now);
                self.games.insert(id, Entry { handle: handle.clone(), summary, ended_at, creator: None });
                Some(handle)
            }
            Err(e) => {
                tracing::error!(game = %id, error = %e, "{failed}");
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_short_and_readable() {
        let id = new_game_id();
        assert_eq!(id.len(), 8);
        assert!(id.bytes().all(|c| ID_ALPHABET.contains(&c)));
        assert_ne!(new_game_id(), new_game_id());
    }
}
