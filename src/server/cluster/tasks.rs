//! The tasks a cluster node runs besides its rooms: relaying the rooms' events to the bus,
//! dispatching what the bus brings, sharing this node's games list, letting go of games the
//! lobby forgot, and the lease loop (renew, report, take over the games of dead nodes).

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use super::bus::Incoming;
use super::mirror::{self, Delivered};
use super::rpc::Envelope;
use super::{Cluster, HANDOFF_CHANNEL, LOBBY_CHANNEL};
use crate::protocol::GameId;
use crate::server::lobby::NodeList;
use crate::server::room::{Command, Relayed, Reply};
use crate::server::store::RENEW_EVERY;

/// The most games one lease tick takes over: a node coming up next to many orphans takes them
/// in steps, leaving some to the others.
const TAKE_PER_TICK: usize = 200;
/// Followed games nobody here follows any more are let go this often.
const SWEEP_EVERY: Duration = Duration::from_secs(5);

/// The receiving ends a node's tasks work from.
pub(super) struct Parts {
    pub(super) incoming: mpsc::UnboundedReceiver<Incoming>,
    pub(super) relayed: mpsc::UnboundedReceiver<Relayed>,
    pub(super) shared: mpsc::UnboundedReceiver<NodeList>,
    pub(super) forgotten: mpsc::UnboundedReceiver<GameId>,
}

/// A node's games list and seeks on the bus.
#[derive(Serialize, Deserialize)]
struct NodeGames {
    node: String,
    #[serde(flatten)]
    list: NodeList,
}

pub(super) fn spawn(cluster: &Arc<Cluster>, parts: Parts) {
    let Parts { incoming, relayed, shared, forgotten } = parts;
    // The tasks hold the cluster weakly where they can: they end with the server.
    tokio::spawn(relay(cluster.bus.clone(), relayed));
    tokio::spawn(dispatch(Arc::downgrade(cluster), incoming));
    tokio::spawn(share(cluster.clone(), shared));
    tokio::spawn(release(cluster.clone(), forgotten));
    tokio::spawn(leases(cluster.clone()));
}

/// Every event a room of this node publishes goes on the game's channel, in order.
async fn relay(bus: super::Bus, mut relayed: mpsc::UnboundedReceiver<Relayed>) {
    while let Some(Relayed { game, event }) = relayed.recv().await {
        bus.publish(mirror::channel(&game), mirror::encode(&event));
    }
}

/// Sorts what the bus brings: game events to the mirrors, requests and answers, other nodes'
/// lists, hand-offs; after a break in the subscription, every followed game is repaired.
async fn dispatch(cluster: std::sync::Weak<Cluster>, mut incoming: mpsc::UnboundedReceiver<Incoming>) {
    let node_channel = cluster.upgrade().map(|c| super::node_channel(&c.node)).unwrap_or_default();
    while let Some(message) = incoming.recv().await {
        let Some(cluster) = cluster.upgrade() else { return };
        match message {
            Incoming::Reconnected => {
                for game in cluster.mirrors.repair_all() {
                    tokio::spawn(repair(cluster.clone(), game));
                }
            }
            Incoming::Message { channel, payload } => {
                if let Some(game) = channel.strip_prefix("gambit:game:") {
                    let Some(event) = mirror::decode(&payload) else { continue };
                    match cluster.mirrors.deliver(game, event) {
                        Delivered::Passed => {}
                        Delivered::Repair => {
                            tokio::spawn(repair(cluster.clone(), game.to_string()));
                        }
                        Delivered::Moved => cluster.attend(game),
                    }
                } else if channel == node_channel {
                    match serde_json::from_slice::<Envelope>(&payload) {
                        Ok(Envelope::Request { id, from, game, command }) => {
                            let cluster = cluster.clone();
                            tokio::spawn(async move { cluster.serve_request(from, id, game, command).await });
                        }
                        Ok(Envelope::Seek { id, from, seek, player }) => {
                            let cluster = cluster.clone();
                            tokio::spawn(async move { cluster.serve_seek(from, id, seek, player).await });
                        }
                        Ok(Envelope::Tournament { id, from, tournament, call }) => {
                            let cluster = cluster.clone();
                            tokio::spawn(async move { cluster.serve_tournament(from, id, tournament, call).await });
                        }
                        Ok(Envelope::Response { id, answer }) => {
                            if let Some(waiting) = cluster.pending().remove(&id) {
                                let _ = waiting.send(answer);
                            }
                        }
                        Err(e) => tracing::warn!(error = %e, "unreadable message on this node's channel"),
                    }
                } else if channel == LOBBY_CHANNEL {
                    match serde_json::from_slice::<NodeGames>(&payload) {
                        Ok(list) if list.node != cluster.node => cluster.lobby.remote(list.node, list.list).await,
                        Ok(_) => {}
                        Err(e) => tracing::warn!(error = %e, "unreadable games list on the bus"),
                    }
                } else if channel == super::NOTICES_CHANNEL {
                    cluster.notice_arrived(&payload);
                } else if channel == HANDOFF_CHANNEL {
                    tracing::info!(from = %String::from_utf8_lossy(&payload), "a node handed its games over");
                    cluster.wake.notify_one();
                }
            }
        }
    }
}

/// Sends a fresh `state` of `game` to its followers here, then what was held meanwhile.
async fn repair(cluster: Arc<Cluster>, game: GameId) {
    let state = match cluster.call(&game, Command::Snapshot).await.and_then(Reply::into_snapshot) {
        Ok(state) => Some(state),
        Err(e) => {
            tracing::warn!(game = %game, error = %e, "no fresh state for a game whose events were missed");
            None
        }
    };
    cluster.mirrors.repaired(&game, state);
}

/// This node's games list, for the other nodes' lobbies.
async fn share(cluster: Arc<Cluster>, mut shared: mpsc::UnboundedReceiver<NodeList>) {
    while let Some(list) = shared.recv().await {
        let list = NodeGames { node: cluster.node.clone(), list };
        match serde_json::to_vec(&list) {
            Ok(payload) => cluster.bus.publish(LOBBY_CHANNEL.to_string(), payload),
            Err(e) => tracing::error!(error = %e, "games list not serialisable"),
        }
    }
}

/// Lets go of the games the lobby forgot (finished and kept long enough, or closed).
async fn release(cluster: Arc<Cluster>, mut forgotten: mpsc::UnboundedReceiver<GameId>) {
    while let Some(first) = forgotten.recv().await {
        let mut games = vec![first];
        while let Ok(game) = forgotten.try_recv() {
            games.push(game);
        }
        cluster.store.release(games).await;
    }
}

/// Every `RENEW_EVERY` (or at once when another node hands its games over): renew this node's
/// leases and drop the rooms of games it lost; report itself; take over games nobody holds.
async fn leases(cluster: Arc<Cluster>) {
    let mut tick = tokio::time::interval(RENEW_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut swept = tokio::time::Instant::now();
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            () = cluster.wake.notified() => {}
        }
        // A stopping node no longer renews its lease (it is leaving) nor takes games.
        let stopping = cluster.stopping.load(std::sync::atomic::Ordering::Acquire);
        if !stopping {
            let games = usize::try_from(cluster.metrics.live_games.get()).unwrap_or(0);
            let connections = usize::try_from(cluster.metrics.connections.get()).unwrap_or(0);
            if let Err(e) = cluster.store.heartbeat(games, connections).await {
                tracing::warn!(error = %e, "cannot renew this node's lease");
            }
        }
        match cluster.store.lost().await {
            Ok(lost) if !lost.is_empty() => {
                tracing::warn!(games = lost.len(), "games taken by other nodes while this one could not renew");
                cluster.lobby.drop_games(lost).await;
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "cannot check this node's games"),
        }
        if !stopping {
            take_orphans(&cluster).await;
        }
        if swept.elapsed() >= SWEEP_EVERY {
            swept = tokio::time::Instant::now();
            let bus = cluster.bus.clone();
            cluster.mirrors.sweep(|game| bus.unsubscribe(mirror::channel(game)));
        }
    }
}

/// Takes the unfinished games nobody holds (their node died or stopped) and starts their rooms.
async fn take_orphans(cluster: &Arc<Cluster>) {
    // Until their rooms are up: see `Cluster::taking`.
    let _taking = cluster.taking.lock().await;
    let stored = match cluster.store.claim_orphans(TAKE_PER_TICK).await {
        Ok(stored) => stored,
        Err(e) => {
            tracing::warn!(error = %e, "cannot look for games to take over");
            return;
        }
    };
    if stored.is_empty() {
        return;
    }
    tracing::info!(games = stored.len(), "taking over games nobody holds");
    let mut refused = Vec::new();
    for game in stored {
        let id = game.id.clone();
        if cluster.lobby.adopt(game).await.is_none() {
            refused.push(id);
        }
    }
    if !refused.is_empty() {
        cluster.store.release(refused).await;
    }
}
