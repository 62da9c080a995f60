//! One WebSocket connection: reads frames, parses and routes them to rooms and the lobby,
//! replies with errors, and forwards the broadcasts of the games it plays or watches.
//!
//! Everything the connection sends goes through one writer task: its replies through a bounded
//! queue, and the games it follows straight from their broadcast receivers, which the writer
//! reads itself. A writer stuck on a slow socket stops reading them; they lag and the subscriber
//! gets a fresh `state` later, so a slow socket never holds up a room.
//!
//! Keep-alive: the connection pings its peer every `ping_interval`; any frame from the peer
//! (a pong included) is a sign of life, and a peer silent for `connection_timeout` is closed,
//! which releases its seats and watches like any other disconnect. Nothing on the way out
//! waits on the peer without a bound, so a peer that stops reading cannot hold up a shutdown.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use futures::stream::SplitStream;
use futures::StreamExt;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::{Instant, MissedTickBehavior};

mod follows;
mod identity;
mod inbound;
mod outbound;
mod round_trip;
mod social;

use self::follows::{drop_follow, Follow};
use self::inbound::{close_code, drain, id_of, too_often};
use self::outbound::{forward_list, write_loop, Outbound};
use self::round_trip::RoundTrip;
use super::accounts::Account;
use super::game_ref::GameRef;
use super::limits::{ConnectionSlot, RateLimiter, Verdict};
use super::lobby::seeks::SeekMatch;
use super::lobby::Creator;
use super::notices::GameStarted;
use super::state::Shared;
use crate::protocol::{
    parse_client, ClientMessage, ErrorCode, GameAction, GameId, Incoming, NewGame, PlayerName, Refusal, Request,
    ServerMessage,
};

/// Replies waiting for a slow socket before the connection holds back.
const OUTBOUND_CAPACITY: usize = 256;

/// The close code of a cluster node that stops: "service restart", reconnect (to another node).
pub const RECONNECT: u16 = 1012;

/// How long a closing connection's writer may take to send what is queued and the close frame.
const FLUSH: Duration = Duration::from_secs(2);

/// Counts a connection among the server's open ones for as long as it lives.
struct Open(Arc<Shared>);

impl Drop for Open {
    fn drop(&mut self) {
        self.0.metrics.connections.dec();
    }
}

/// Who is at the other end of a WebSocket.
pub struct Peer {
    /// The client's address.
    pub ip: IpAddr,
    /// Its place in that address's count of connections, held for as long as the socket
    /// lives; None when the address holds its limit already and the socket is to be refused.
    pub slot: Option<Arc<ConnectionSlot>>,
    /// The player logged in by the session cookie or an API token, if any, with it.
    pub account: Option<(Account, Credential)>,
}

/// What logged a connection in, checked again before the account is used: a log-out or a
/// revoked token takes the account's rights from sockets opened before.
#[derive(Clone, Debug)]
pub enum Credential {
    /// A browser's session (its cookie's token).
    Session(String),
    /// A personal API token (`gambit play --token`).
    Token(String),
}

/// Serves one upgraded WebSocket until it closes or the server shuts down.
pub async fn serve(mut socket: WebSocket, shared: Arc<Shared>, peer: Peer) {
    // The gauge is the count of open connections; `inc` answers the count before this one.
    let already = usize::try_from(shared.metrics.connections.inc()).unwrap_or(0);
    let _open = Open(shared.clone());
    let max = shared.config.max_connections;
    let per_address = shared.limits.config().max_connections;
    let refusal = if already >= max {
        Some(format!("the server has {max} connections, its limit; try again later"))
    } else if peer.slot.is_none() {
        Some(format!("your address has {per_address} connections open, its limit; close some first"))
    } else {
        None
    };
    if let Some(message) = refusal {
        // Refused with a reason the client can show, rather than a dropped socket.
        shared.metrics.limited.inc();
        let text = ServerMessage::error(ErrorCode::TooMany, message, None).to_json();
        let refuse = async {
            socket.send(Message::Text(text.into())).await?;
            socket.send(Message::Close(Some(CloseFrame { code: 1013, reason: "too many connections".into() }))).await
        };
        let _ = tokio::time::timeout(FLUSH, refuse).await;
        return;
    }
    let (sink, stream) = socket.split();
    let (out, out_rx) = mpsc::channel(OUTBOUND_CAPACITY);
    let mut writer = tokio::spawn(write_loop(sink, out_rx, shared.clone()));
    let limiter = RateLimiter::new(shared.config.rate_burst, shared.config.rate_per_sec);
    let chat_limiter = RateLimiter::new(shared.config.chat_burst, shared.config.chat_per_sec);
    let (matched, mut matches) = mpsc::unbounded_channel();
    // A logged-in player's page counts them as online for as long as it is open.
    let online = peer.account.as_ref().map(|(a, _)| shared.notices.online(a.id, &a.username, a.bot));
    let mut conn = Connection {
        online,
        out,
        shared: shared.clone(),
        follows: HashMap::new(),
        list: None,
        tv: None,
        limiter,
        id: shared.next_connection.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        ip: peer.ip,
        closing: false,
        name: peer.account.as_ref().and_then(|(account, _)| account.name()),
        session: peer.account.as_ref().map(|(_, session)| session.clone()),
        account: peer.account.map(|(account, _)| account),
        chat_limiter,
        matched,
        seeking: false,
        round_trip: RoundTrip::default(),
    };
    conn.read_loop(stream, shared.shutdown.clone(), &mut matches).await;
    conn.close().await;
    drop(conn);
    // The writer ends once it has sent what is queued; a peer that no longer reads gets cut off.
    if tokio::time::timeout(FLUSH, &mut writer).await.is_err() {
        writer.abort();
    }
}

struct Connection {
    /// The logged-in player counts as online while this is held.
    online: Option<crate::server::notices::Online>,
    out: mpsc::Sender<Outbound>,
    shared: Arc<Shared>,
    follows: HashMap<GameId, Follow>,
    /// The forwarder of the games list, once the client sent `list`.
    list: Option<JoinHandle<()>>,
    /// The forwarder of a TV channel's featured game, once the client sent `tv`.
    tv: Option<JoinHandle<()>>,
    limiter: RateLimiter,
    /// This connection's id, for the lobby's count of the games it created.
    id: u64,
    /// The client's address, for the limits per address.
    ip: IpAddr,
    /// Closing: for flooding, or because the peer does not read. Nothing more is sent.
    closing: bool,
    /// The name the client last gave (on create, join, watch, seek or accept_seek): a
    /// spectator's name in the chat.
    name: Option<PlayerName>,
    /// The logged-in player, if any: their username is their name, and their seats' tokens
    /// come from the account.
    account: Option<Account>,
    /// What logged the connection in, checked again before the account is used (see
    /// `Connection::recheck_session`).
    session: Option<Credential>,
    /// Chat lines have their own, slower rate.
    chat_limiter: RateLimiter,
    /// Where the lobby says this connection's seek was accepted.
    matched: mpsc::UnboundedSender<SeekMatch>,
    /// This connection has an open seek.
    seeking: bool,
    /// The network round trip, measured with pings.
    round_trip: RoundTrip,
}

impl Connection {
    async fn read_loop(
        &mut self,
        mut stream: SplitStream<WebSocket>,
        mut shutdown: watch::Receiver<bool>,
        matches: &mut mpsc::UnboundedReceiver<SeekMatch>,
    ) {
        // `interval` panics on a zero period; the configuration never has one, but be sure.
        let ping_every = self.shared.config.ping_interval.max(Duration::from_millis(1));
        let timeout = self.shared.config.connection_timeout;
        // The first ping soon after connecting, so a player's round trip is known before their
        // first move (lag compensation); then one every `ping_interval`.
        let first = ping_every.min(Duration::from_secs(1));
        let mut ping = tokio::time::interval_at(Instant::now() + first, ping_every);
        ping.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let silence = tokio::time::sleep(timeout);
        tokio::pin!(silence);
        loop {
            tokio::select! {
                frame = stream.next() => match frame {
                    Some(Ok(frame)) => {
                        silence.as_mut().reset(Instant::now() + timeout);
                        if !self.on_frame(frame).await {
                            if self.closing() {
                                // Closed for flooding: keep reading (and dropping) a moment so
                                // the peer gets the close frame rather than a reset.
                                drain(&mut stream).await;
                            }
                            break;
                        }
                    }
                    Some(Err(e)) => {
                        tracing::debug!(error = %e, "websocket read failed");
                        if let Some((code, reason)) = close_code(e) {
                            // A peer that broke the protocol is told why (RFC 6455 §7.4.1).
                            let _ = self.out.try_send(Outbound::Close(code, reason));
                        }
                        break;
                    }
                    None => break,
                },
                _ = shutdown.changed() => {
                    // Not `send`: the queue may be full for a peer that stopped reading. A
                    // cluster node that stops hands its games over: 1012 (service restart)
                    // tells clients to reconnect, to another node, and resume.
                    let close = match self.shared.cluster {
                        Some(_) => Outbound::Close(RECONNECT, "reconnect"),
                        None => Outbound::Close(1001, "server shutting down"),
                    };
                    let _ = self.out.try_send(close);
                    break;
                }
                Some(matched) = matches.recv() => {
                    if !self.seek_matched(matched).await {
                        break;
                    }
                }
                _ = ping.tick() => {
                    // A full queue means the socket is not keeping up; this ping can be skipped.
                    let permit = self.out.try_reserve();
                    if let Ok(permit) = permit {
                        permit.send(Outbound::Ping(self.round_trip.ping(Instant::now())));
                    }
                }
                () = &mut silence => {
                    tracing::info!(?timeout, "closing a connection that stopped answering pings");
                    let _ = self.out.try_send(Outbound::Close(1001, "no response to ping"));
                    break;
                }
            }
        }
    }

    /// Handles one frame; false when the connection is to close.
    async fn on_frame(&mut self, frame: Message) -> bool {
        let text = match frame {
            Message::Text(text) => text,
            Message::Binary(_) => {
                if self.limit(None).await {
                    self.error(ErrorCode::BadRequest, "send JSON messages as text frames".into(), None).await;
                }
                return !self.closing();
            }
            Message::Close(_) => return false,
            // Pings are answered by the WebSocket layer itself, but they count like any other
            // frame: a flood of them is closed like a flood of messages (a refused one simply
            // goes unanswered here; the pong is already queued, within the write buffer's bound).
            Message::Ping(_) | Message::Pong(_) => {
                if let Message::Pong(payload) = &frame {
                    self.round_trip.pong(payload, Instant::now());
                }
                if self.limiter.check() == Verdict::Close {
                    self.close_for_flooding().await;
                }
                return !self.closing();
            }
        };
        let text = text.as_str();
        if !self.limit(Some(text)).await {
            return !self.closing();
        }
        if text.len() > self.shared.config.max_frame {
            let message = format!("message of {} bytes; at most {} allowed", text.len(), self.shared.config.max_frame);
            self.error(ErrorCode::TooLarge, message, id_of(text)).await;
            return true;
        }
        match parse_client(text) {
            Ok(Request { message, id }) => {
                if let Err(refusal) = self.dispatch(message, id).await {
                    self.error(refusal.code, refusal.message, id).await;
                }
            }
            Err(e) => self.send_message(&e.to_message()).await,
        }
        !self.closing()
    }

    /// Applies the rate limit; false if the frame is refused (and the connection perhaps closed).
    async fn limit(&mut self, text: Option<&str>) -> bool {
        let verdict = self.limiter.check();
        if verdict == Verdict::Allow {
            return true;
        }
        let id = text.and_then(id_of);
        self.error(ErrorCode::RateLimited, "too many messages; slow down".into(), id).await;
        if verdict == Verdict::Close {
            self.close_for_flooding().await;
        }
        false
    }

    /// Closes with 1008 (policy violation) a connection that keeps exceeding the rate limit.
    async fn close_for_flooding(&mut self) {
        tracing::info!(ip = %self.ip, "closing a connection that keeps exceeding the rate limit");
        self.shared.metrics.limited.inc();
        self.queue(Outbound::Close(1008, "rate limit exceeded")).await;
        self.closing = true;
    }

    /// The connection is being closed (by us, or its writer is gone): nothing more is sent.
    fn closing(&self) -> bool {
        self.closing || self.out.is_closed()
    }

    /// Queues something for the writer. A peer that sends but does not read fills the queue:
    /// after [`FLUSH`] it is given up on, so the read loop never hangs on it.
    async fn queue(&mut self, item: Outbound) {
        if self.closing {
            return;
        }
        if tokio::time::timeout(FLUSH, self.out.send(item)).await.is_err() {
            tracing::info!("closing a connection that does not read its replies");
            self.closing = true;
        }
    }

    /// Queues a reply.
    async fn send(&mut self, text: Arc<str>) {
        self.queue(Outbound::Text(text)).await;
    }

    async fn send_message(&mut self, message: &ServerMessage) {
        self.send(message.to_json().into()).await;
    }

    async fn error(&mut self, code: ErrorCode, message: String, id: Option<u64>) {
        if matches!(code, ErrorCode::RateLimited | ErrorCode::TooMany) {
            self.shared.metrics.limited.inc();
        }
        self.send_message(&ServerMessage::Error { code, message, id }).await;
    }

    async fn ack(&mut self, id: Option<u64>) {
        if let Some(id) = id {
            self.send_message(&ServerMessage::Ack { id }).await;
        }
    }

    /// `game`: the one followed already, else found by the lobby (or the cluster).
    async fn room(&self, game: &str) -> Result<GameRef, Refusal> {
        if let Some(follow) = self.follows.get(game) {
            return Ok(follow.game.clone());
        }
        self.shared.room(game).await
    }

    /// Carries out one request: one method per message, as mini-redis has one per command.
    async fn dispatch(&mut self, message: Incoming, id: Option<u64>) -> Result<(), Refusal> {
        let message = match message {
            // A seat's action goes to the room as it is: the room's vocabulary, not ours.
            Incoming::Action(GameAction { game, action }) => return self.act(game, action, id).await,
            Incoming::Message(message) => message,
        };
        if !matches!(message, ClientMessage::List | ClientMessage::Unwatch { .. } | ClientMessage::CancelSeek) {
            self.recheck_session().await?;
        }
        match message {
            ClientMessage::List => self.list(id).await,
            ClientMessage::Create(game) => self.create(game, id).await,
            ClientMessage::Join { game, color, name } => {
                self.given(name).await?;
                self.join(game, color, id).await
            }
            ClientMessage::Resume { game, token, v } => self.resume(game, token, v, id).await,
            ClientMessage::Watch { game, v, name } => {
                self.given(name).await?;
                self.watch(game, v, id).await
            }
            ClientMessage::Unwatch { game } => self.unwatch(game, id).await,
            ClientMessage::Tv { channel } => self.tv(channel, id).await,
            ClientMessage::Chat { game, room, text } => self.chat(game, room, text, id).await,
            ClientMessage::Seek(spec) => self.seek(spec, id).await,
            ClientMessage::CancelSeek => self.cancel_seek(id).await,
            ClientMessage::AcceptSeek { seek, name } => {
                self.given(name).await?;
                self.accept_seek(seek, id).await
            }
        }
    }

    /// `list`: the games list now, then its changes.
    async fn list(&mut self, id: Option<u64>) -> Result<(), Refusal> {
        let (games, seeks, rx) = self.shared.lobby.subscribe().await.ok_or_else(Refusal::shutting_down)?;
        self.send_message(&ServerMessage::Games { games }).await;
        self.send_message(&ServerMessage::Seeks { seeks }).await;
        if self.list.is_none() {
            self.list = Some(tokio::spawn(forward_list(rx, self.shared.clone(), self.out.clone())));
        }
        self.ack(id).await;
        Ok(())
    }

    /// `create`: a new game, followed by its creator (seated if a human seat was asked for).
    async fn create(&mut self, spec: NewGame, id: Option<u64>) -> Result<(), Refusal> {
        self.not_a_bot()?;
        // Counted before anything else, so refused creates (a finished position) count too.
        if !self.shared.limits.may_create(self.ip) {
            return Err(too_often("creates games", self.shared.limits.config().creates_per_minute));
        }
        // The creator follows the new game: within the follow limit like any other.
        self.may_follow(None)?;
        self.given(spec.name.clone()).await?;
        let creator = Creator { connection: self.id, ip: self.ip };
        let (game, created) = self.shared.lobby.create(spec, Some(creator), self.player()).await?;
        // In a cluster the creator follows the game through the bus, like everyone else, so
        // the game may change hands without the creator noticing.
        let (room, sub) = match &self.shared.cluster {
            Some(cluster) => {
                let token = created.seat.as_ref().map(|(_, token)| token.as_str());
                let sub = cluster.created(&game, &created.handle, created.sub, token).await?;
                (GameRef::Routed { cluster: cluster.clone(), game: game.clone() }, sub)
            }
            None => (GameRef::Local(created.handle.clone()), created.sub),
        };
        tracing::info!(game = %game, "game created");
        if created.summary.status == crate::protocol::Status::Ongoing {
            // Against the computer the game starts at once: the player's programs hear of it.
            if let (Some(account), Some((side, _))) = (&self.account, &created.seat) {
                let started = GameStarted::against_computer(game.clone(), *side, account.id, &created.summary);
                self.shared.notices.game_started(started);
            }
        }
        let (color, token) = match &created.seat {
            Some((side, token)) => (Some(*side), Some(token.clone())),
            None => (None, None),
        };
        self.send_message(&ServerMessage::Created { game: game.clone(), color, token, id }).await;
        // A new game: nothing of it was followed before.
        self.forward_to(game.clone(), room, sub, created.seat, false).await;
        if let Some(dir) = &self.shared.config.log_dir {
            super::observers::textlog::start(dir.clone(), game, created.handle);
        }
        Ok(())
    }

    /// `tv`: the channel's featured game now and at every change (replacing an earlier `tv`).
    async fn tv(&mut self, channel: crate::protocol::TvChannel, id: Option<u64>) -> Result<(), Refusal> {
        if let Some(old) = self.tv.take() {
            old.abort();
        }
        let mut featured = self.shared.tv.follow();
        let mut shown = crate::server::tv::message(channel, &featured.borrow_and_update());
        self.send_message(&shown).await;
        self.ack(id).await;
        let out = self.out.clone();
        self.tv = Some(tokio::spawn(async move {
            while featured.changed().await.is_ok() {
                let now = crate::server::tv::message(channel, &featured.borrow_and_update());
                // Another channel's change is no news here.
                if now == shown {
                    continue;
                }
                if out.send(Outbound::Text(now.to_json().into())).await.is_err() {
                    return;
                }
                shown = now;
            }
        }));
        Ok(())
    }

    /// Stops every forwarder and tells the rooms this connection is gone.
    async fn close(&mut self) {
        for forwarder in [self.list.take(), self.tv.take()].into_iter().flatten() {
            forwarder.abort();
        }
        if self.seeking {
            // A seek goes with its creator.
            self.shared.lobby.cancel_seek(self.id).await;
        }
        for (_, follow) in self.follows.drain() {
            drop_follow(follow).await;
        }
        // The writer ends with the queue; it need not be told which games it stops following.
    }
}
