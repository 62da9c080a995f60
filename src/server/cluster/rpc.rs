//! Commands for a game held by another node, and their answers, as they travel over the bus
//! (JSON on each node's own channel), and how the owner carries them out on its room.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::chess::Color;
use crate::protocol::{ChatRoom, ChatText, ErrorCode, GameId, GameState, PlayerName, Refusal};
use crate::server::accounts::Player;
use crate::server::room::{Action, RoomHandle, Seated, Subscription};
use crate::server::store::AccountKey;

/// What one node asks of a game another holds: what a [`RoomHandle`] offers.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "call", rename_all = "snake_case")]
pub enum Call {
    Join {
        color: Option<Color>,
        player: Player,
    },
    Resume {
        token: String,
        #[serde(default)]
        account: Option<AccountKey>,
        v: Option<u64>,
    },
    Watch {
        v: Option<u64>,
        counted: bool,
    },
    Observe {
        v: Option<u64>,
    },
    Unwatch,
    Attend {
        tokens: Vec<String>,
        watchers: usize,
    },
    Leave {
        token: String,
    },
    Act {
        token: String,
        action: Action,
    },
    Chat {
        token: Option<String>,
        name: Option<PlayerName>,
        room: ChatRoom,
        text: ChatText,
    },
    Snapshot,
    State,
    Pgn,
    /// Not about a game: take up seek `seek` of the node asked, for `player`.
    AcceptSeek {
        seek: String,
        player: Player,
    },
}

/// The owner's answer. Subscriptions come back as the messages that bring the subscriber up to
/// version `v`; what follows, the asking node receives from the game's channel.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "snake_case")]
pub enum Reply {
    Seated {
        color: Color,
        token: String,
        initial: Vec<String>,
        v: u64,
    },
    Subscribed {
        initial: Vec<String>,
        v: u64,
    },
    Done,
    Snapshot {
        v: u64,
        text: String,
    },
    State {
        state: Box<GameState>,
    },
    Pgn {
        pgn: String,
    },
    /// A seek was taken up: the game, and the token of the acceptor's seat.
    Matched {
        game: GameId,
        token: String,
    },
    Refused {
        code: ErrorCode,
        message: String,
    },
    /// This node does not hold the game (any more): ask who does again.
    NotHere,
}

impl Reply {
    fn refused(refusal: Refusal) -> Reply {
        Reply::Refused { code: refusal.code, message: refusal.message }
    }
}

/// What goes over a node's channel.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Envelope {
    Request { id: u64, from: String, game: GameId, call: Call },
    Response { id: u64, reply: Reply },
}

fn texts(sub: Subscription) -> (Vec<String>, u64) {
    (sub.initial.iter().map(|t| t.to_string()).collect(), sub.v)
}

fn seated(s: Seated) -> Reply {
    let (initial, v) = texts(s.sub);
    Reply::Seated { color: s.color, token: s.token, initial, v }
}

fn subscribed(sub: Subscription) -> Reply {
    let (initial, v) = texts(sub);
    Reply::Subscribed { initial, v }
}

/// Carries out `call` on a room of this node. A room that has ended meanwhile answers
/// [`Reply::NotHere`], so the asker looks for the game's owner again.
pub async fn execute(handle: &RoomHandle, call: Call) -> Reply {
    let answer = match call {
        Call::Join { color, player } => handle.join(color, player).await.map(seated),
        Call::Resume { token, account, v } => handle.resume(token, account, v).await.map(seated),
        Call::Watch { v, counted } => handle.watch(v, counted).await.map(subscribed),
        Call::Observe { v } => handle.observe(v).await.map(subscribed),
        Call::Unwatch => {
            handle.unwatch().await;
            Ok(Reply::Done)
        }
        Call::Attend { tokens, watchers } => {
            handle.attend(tokens, watchers).await;
            Ok(Reply::Done)
        }
        Call::Leave { token } => {
            handle.leave(token).await;
            Ok(Reply::Done)
        }
        Call::Act { token, action } => handle.act(token, action).await.map(|()| Reply::Done),
        Call::Chat { token, name, room, text } => handle.chat(token, name, room, text).await.map(|()| Reply::Done),
        Call::Snapshot => handle.snapshot().await.map(|(v, text)| Reply::Snapshot { v, text: text.to_string() }),
        Call::State => handle.state().await.map(|state| Reply::State { state: Box::new(state) }),
        Call::Pgn => handle.pgn().await.map(|pgn| Reply::Pgn { pgn }),
        Call::AcceptSeek { .. } => Err(Refusal::server_error("a seek is not a game's to take")),
    };
    match answer {
        Ok(reply) => reply,
        Err(_) if handle.is_closed() => Reply::NotHere,
        Err(refusal) => Reply::refused(refusal),
    }
}

/// The texts of a reply's subscription, as a room's subscription has them.
pub fn initial(texts: Vec<String>) -> Vec<Arc<str>> {
    texts.into_iter().map(Arc::from).collect()
}

/// A reply that is not the one the call expects.
pub fn unexpected(reply: &Reply) -> Refusal {
    match reply {
        Reply::Refused { code, message } => Refusal::new(*code, message.clone()),
        other => Refusal::server_error(format!("unexpected answer from the game's node: {other:?}")),
    }
}
