//! A reference to a live game: its room task on this node, or, on a node of a cluster, the
//! game wherever the cluster holds it. It sits above both `room` and `cluster`, so neither knows
//! of the other: the WebSocket, the HTTP handlers and the observers send the room's own
//! [`Command`] through it and get the room's [`Reply`], whichever way it went.

use std::sync::Arc;

use super::cluster::Cluster;
use super::room::{Command, Reply, RoomHandle};
use crate::protocol::{GameId, Refusal};

#[derive(Clone)]
pub enum GameRef {
    /// A room of this node (a server with no cluster).
    Local(RoomHandle),
    /// `game` wherever the cluster holds it: the owner is looked up for each command, so the
    /// reference outlives a change of owner.
    Routed { cluster: Arc<Cluster>, game: GameId },
}

impl std::fmt::Debug for GameRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GameRef::Local(_) => f.write_str("GameRef(local)"),
            GameRef::Routed { game, .. } => write!(f, "GameRef(cluster, {game})"),
        }
    }
}

impl GameRef {
    /// Carries out `command` and answers its reply.
    pub async fn call(&self, command: Command) -> Result<Reply, Refusal> {
        match self {
            GameRef::Local(room) => room.call(command).await,
            GameRef::Routed { cluster, game } => Box::pin(cluster.call(game, command)).await,
        }
    }

    /// Hands `command` to the game without waiting for its answer.
    pub async fn tell(&self, command: Command) {
        match self {
            GameRef::Local(room) => room.tell(command).await,
            GameRef::Routed { cluster, game } => cluster.tell(game, command),
        }
    }
}
