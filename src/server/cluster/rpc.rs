//! Requests between nodes and their answers, as they travel over the bus (JSON on each node's
//! own channel). A request for a game carries the room's own [`Command`], answered by the
//! room's own [`Reply`]: the vocabulary is the room's, the bus only carries it.

use serde::{Deserialize, Serialize};

use crate::protocol::{GameId, Refusal, SeekId};
use crate::server::accounts::Player;
use crate::server::room::{Command, Reply, RoomHandle};

/// What goes over a node's channel.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Envelope {
    /// A command for `game`, which the node asked holds.
    Request {
        id: u64,
        from: String,
        game: GameId,
        command: Command,
    },
    /// Take up seek `seek` of the node asked, for `player`.
    Seek {
        id: u64,
        from: String,
        seek: SeekId,
        player: Player,
    },
    /// A call for tournament `tournament`, which the node asked runs.
    Tournament {
        id: u64,
        from: String,
        tournament: String,
        call: crate::server::tournaments::Call,
    },
    Response {
        id: u64,
        answer: Answer,
    },
}

/// The answer to a request.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "answer", rename_all = "snake_case")]
pub enum Answer {
    Reply {
        reply: Reply,
    },
    /// A seek was taken up: the game, and the token of the acceptor's seat.
    Matched {
        game: GameId,
        token: String,
    },
    Refused {
        refusal: Refusal,
    },
    /// A tournament's answer to its call.
    Tournament {
        wire: crate::server::tournaments::Wire,
    },
    /// This node does not hold the game (any more): ask who does again.
    NotHere,
}

impl From<Result<Reply, Refusal>> for Answer {
    fn from(result: Result<Reply, Refusal>) -> Answer {
        match result {
            Ok(reply) => Answer::Reply { reply },
            Err(refusal) => Answer::Refused { refusal },
        }
    }
}

/// Carries out `command` on a room of this node. A room that has ended meanwhile answers
/// [`Answer::NotHere`], so the asker looks for the game's owner again.
pub async fn execute(handle: &RoomHandle, command: Command) -> Answer {
    match handle.call(command).await {
        Err(_) if handle.is_closed() => Answer::NotHere,
        result => result.into(),
    }
}
