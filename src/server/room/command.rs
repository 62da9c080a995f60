//! The room's one vocabulary: every operation on a game is a [`Command`] value, answered by a
//! [`Reply`]. The WebSocket, the HTTP handlers, the lobby and another node of a cluster all send
//! the same value (through a `GameRef`, which picks this node's room task or the cluster's bus),
//! and the room carries each out in one place (`actor.rs`). Both types are serialisable, so a
//! command crosses the bus as it is.
//!
//! Adding an operation: a variant here, its arm in the room's dispatch (`Room::apply`), and
//! its description in docs/protocol.md. A seat holder's action in the game (move, draw, …) is
//! a variant of [`Action`], the wire's own type, which `Act` carries.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use super::Broadcast;
use crate::chess::Color;
use crate::protocol::{Action, ChatRoom, ChatText, GameState, PlayerName, Refusal};
use crate::server::accounts::Player;
use crate::server::store::AccountKey;

/// An operation on one game.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum Command {
    /// Takes an open human seat (`color` None: whichever is open) for `player`.
    Join { color: Option<Color>, player: Player },
    /// Takes back a seat by its token. With `account` (a logged-in player's, known from their
    /// session, and `token` the one derived from it for this game), the seat that account holds
    /// is taken back even when it was made with another token (a rematch keeps the first
    /// game's tokens), and `token` opens it from then on. `v`: the last version the client saw.
    Resume {
        token: String,
        #[serde(default)]
        account: Option<AccountKey>,
        v: Option<u64>,
    },
    /// Subscribes; `counted` spectators are included in the watcher count.
    Watch { v: Option<u64>, counted: bool },
    /// Subscribes as an observer of the server itself (the text log): not a spectator, and it
    /// does not keep an unattended game alive.
    Observe { v: Option<u64> },
    /// A counted spectator left.
    Unwatch,
    /// In a cluster, after the game changed nodes: the seats (by token) and counted spectators
    /// another node's connections still hold, so the new room counts them as present.
    Attend { tokens: Vec<String>, watchers: usize },
    /// A connection holding this seat's token closed.
    Leave { token: String },
    /// The seat holding `token` acts. `round_trip_ms`: the connection's measured network round
    /// trip (WebSocket pings), for lag compensation; None where there is none (HTTP).
    Act {
        token: String,
        action: Action,
        #[serde(default)]
        round_trip_ms: Option<u64>,
    },
    /// A line for one of the chat rooms, from the seat holding `token` (if any) or a spectator
    /// called `name`. `blocked_by`: the accounts that block the writer; a player's line to an
    /// opponent among them is refused.
    Chat {
        token: Option<String>,
        name: Option<PlayerName>,
        room: ChatRoom,
        text: ChatText,
        #[serde(default)]
        blocked_by: Vec<AccountKey>,
    },
    /// The current `state` as JSON text, with its version.
    Snapshot,
    /// The current state as a value (HTTP API).
    State,
    /// The game as PGN.
    Pgn,
}

impl Command {
    /// The seat holding `token` does `action` (from a client that measured no round trip).
    pub fn act(token: impl Into<String>, action: Action) -> Command {
        Command::Act { token: token.into(), action, round_trip_ms: None }
    }

    /// True for the commands answered with a subscription, whose feed a cluster node attaches
    /// itself (the bus, not the owner's channel).
    pub fn subscribes(&self) -> bool {
        matches!(self, Command::Join { .. } | Command::Resume { .. } | Command::Watch { .. } | Command::Observe { .. })
    }
}

/// The answer to a [`Command`] (a refusal is the `Err` beside it).
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "snake_case")]
pub enum Reply {
    /// A seat taken (`Join`, `Resume`), and the feed of the game from then on.
    Seated(Seated),
    /// A feed of the game (`Watch`, `Observe`).
    Subscribed(Subscription),
    /// Done, nothing to tell.
    Done,
    /// The `state` text and its version (`Snapshot`).
    Snapshot {
        v: u64,
        text: Arc<str>,
    },
    State {
        state: Box<GameState>,
    },
    Pgn {
        pgn: String,
    },
}

impl Reply {
    pub fn into_seated(self) -> Result<Seated, Refusal> {
        match self {
            Reply::Seated(seated) => Ok(seated),
            other => Err(other.unexpected()),
        }
    }

    pub fn into_subscription(self) -> Result<Subscription, Refusal> {
        match self {
            Reply::Subscribed(sub) => Ok(sub),
            other => Err(other.unexpected()),
        }
    }

    pub fn into_done(self) -> Result<(), Refusal> {
        match self {
            Reply::Done => Ok(()),
            other => Err(other.unexpected()),
        }
    }

    pub fn into_snapshot(self) -> Result<(u64, Arc<str>), Refusal> {
        match self {
            Reply::Snapshot { v, text } => Ok((v, text)),
            other => Err(other.unexpected()),
        }
    }

    pub fn into_state(self) -> Result<GameState, Refusal> {
        match self {
            Reply::State { state } => Ok(*state),
            other => Err(other.unexpected()),
        }
    }

    pub fn into_pgn(self) -> Result<String, Refusal> {
        match self {
            Reply::Pgn { pgn } => Ok(pgn),
            other => Err(other.unexpected()),
        }
    }

    /// A reply that is not the one the command expects (a bug, or a node of another version).
    fn unexpected(&self) -> Refusal {
        Refusal::server_error(format!("unexpected answer from the game: {self:?}"))
    }
}

/// A live feed of a room: the receiver, the messages that bring the subscriber up to version
/// `v` (a replay of missed events, or one `state`), to be sent before anything received.
///
/// Over the bus a subscription travels as its catch-up (`initial`, `v`) only: the asking node
/// feeds it from its own mirror of the game ([`Subscription::attach`]).
#[derive(Debug, Serialize, Deserialize)]
pub struct Subscription {
    #[serde(skip, default = "detached")]
    pub rx: broadcast::Receiver<Broadcast>,
    pub initial: Vec<Arc<str>>,
    pub v: u64,
}

impl Subscription {
    /// This subscription fed from `rx` (a cluster node's mirror of the game).
    pub fn attach(self, rx: broadcast::Receiver<Broadcast>) -> Subscription {
        Subscription { rx, ..self }
    }
}

/// The feed of a subscription that came over the bus, until one is attached: it has ended.
fn detached() -> broadcast::Receiver<Broadcast> {
    broadcast::channel(1).1
}

/// A human seat taken by `join`, `resume` or `create`.
#[derive(Debug, Serialize, Deserialize)]
pub struct Seated {
    pub color: Color,
    pub token: String,
    pub sub: Subscription,
}
