//! The lobby's task: the registry of this node's rooms and the games list, one command at a
//! time; creating games and rematches, and letting finished or closed games go.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{broadcast, mpsc, oneshot};
use tokio::time::Instant;

use super::listing::NodeList;
use super::seeks::Seeks;
use super::{new_game_id, ClusterHooks, Creator, LobbyCommand, LobbyLimits, LobbyOptions, LIST_PERIOD, REMOTE_TTL};
use crate::protocol::{GameId, GameSummary, NewGame, Refusal, Status};
use crate::server::accounts::Player;
use crate::server::room::{self, Created, LobbyNote, RoomContext, RoomHandle};
use crate::server::store::{StoreEvent, StoredGame};

/// Starts the task.
pub(super) fn spawn(
    ctx: RoomContext,
    options: LobbyOptions,
    me: mpsc::WeakSender<LobbyCommand>,
    rx: mpsc::Receiver<LobbyCommand>,
) {
    let LobbyOptions { retention, limits, restored, hooks } = options;
    let (updates_tx, updates) = mpsc::unbounded_channel();
    let (list_tx, _) = broadcast::channel(16);
    let mut task = LobbyTask {
        games: HashMap::new(),
        ctx: RoomContext { lobby: updates_tx, ..ctx },
        retention,
        limits,
        list_tx,
        dirty: false,
        me,
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
}

pub(super) struct Entry {
    pub(super) handle: RoomHandle,
    pub(super) summary: GameSummary,
    /// When the game was first seen finished.
    pub(super) ended_at: Option<Instant>,
    /// Who created the game (None for games restored after a restart).
    pub(super) creator: Option<Creator>,
}

pub(super) struct LobbyTask {
    pub(super) games: HashMap<GameId, Entry>,
    pub(super) ctx: RoomContext,
    pub(super) retention: Duration,
    pub(super) limits: LobbyLimits,
    pub(super) list_tx: broadcast::Sender<Arc<str>>,
    /// The list changed since it was last broadcast.
    pub(super) dirty: bool,
    /// The lobby's own queue, for the store's answers on created games.
    pub(super) me: mpsc::WeakSender<LobbyCommand>,
    /// In a cluster: where this node's list goes, and games let go of.
    pub(super) hooks: Option<ClusterHooks>,
    /// This node's own games changed since they were last shared.
    pub(super) changed: bool,
    pub(super) shared_at: Instant,
    /// Other nodes' games and seeks, by node, and when each list came.
    pub(super) remote: HashMap<String, (NodeList, Instant)>,
    /// This node's open seeks.
    pub(super) seeks: Seeks,
    /// The seeks changed since they were last broadcast.
    pub(super) seeks_dirty: bool,
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
            LobbyCommand::Create { id, spec, creator, player, reply } => self.create(id, spec, creator, player, reply),
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
        wanted: Option<GameId>,
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
            let unfinished: Vec<Creator> =
                self.games.values().filter(|e| e.summary.status != Status::Ended).filter_map(|e| e.creator).collect();
            if let Err(refusal) = self.limits.may_create(creator, &unfinished) {
                let _ = reply.send(Err(refusal));
                return;
            }
        }
        let mut id = wanted.unwrap_or_else(new_game_id);
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
