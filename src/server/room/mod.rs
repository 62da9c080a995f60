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
mod command;
mod config;
mod engine;
mod events;
mod history;
mod idle;
mod lag;
mod offers;
mod presence;
mod record;
mod seats;
mod snapshot;

use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

use super::accounts::Player;
use super::store::{StoreError, StoredGame};
use crate::bots::Bot;
use crate::chess::{Color, Move};
use crate::protocol::{ErrorCode, GameId, GameState, GameSummary, NewGame, Refusal};

pub use self::command::{Command, Reply, Seated, Subscription};
pub use self::config::{ClaimGrace, LobbyNote, RoomConfig, RoomContext};
pub use crate::protocol::{Action, ClaimKind};

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

/// The refusal of a room that has ended meanwhile.
fn gone() -> Refusal {
    Refusal::new(ErrorCode::NoSuchGame, "that game is no longer on this server")
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

/// What a room's task receives: a [`Command`] from anyone (with where to answer, unless the
/// sender wants no answer), or the room's own business: its bots' answers, its idle ticker,
/// the stop.
pub enum RoomCommand {
    Call {
        command: Command,
        reply: Option<oneshot::Sender<Result<Reply, Refusal>>>,
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

/// A cloneable address of a room task of this node. (A game wherever a cluster holds it is a
/// `GameRef`, above both rooms and the cluster.)
#[derive(Clone, Debug)]
pub struct RoomHandle {
    tx: mpsc::Sender<RoomCommand>,
}

impl RoomHandle {
    /// Carries out `command` and answers its reply.
    pub async fn call(&self, command: Command) -> Result<Reply, Refusal> {
        let (reply, answer) = oneshot::channel();
        self.tx.send(RoomCommand::Call { command, reply: Some(reply) }).await.map_err(|_| gone())?;
        answer.await.map_err(|_| gone())?
    }

    /// Hands `command` to the room without waiting for its answer (a connection that leaves).
    pub async fn tell(&self, command: Command) {
        let _ = self.tx.send(RoomCommand::Call { command, reply: None }).await;
    }

    /// Asks the room to end its task.
    pub async fn shutdown(&self) {
        let _ = self.tx.send(RoomCommand::Shutdown { done: None }).await;
    }

    /// Ends the room's task and waits until it has stored its clock for a restart.
    pub async fn close(&self) {
        let (done, closed) = oneshot::channel();
        if self.tx.send(RoomCommand::Shutdown { done: Some(done) }).await.is_ok() {
            let _ = closed.await;
        }
    }

    /// True once the room's task has ended (an idle game that was closed).
    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
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
    Ok(Creating { created: Created { handle: RoomHandle { tx }, seat, sub, summary }, saved })
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
    Ok((RoomHandle { tx }, summary))
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
