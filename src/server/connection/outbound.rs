//! The outbound side of a connection: the writer task that owns the socket's sink and follows
//! the connection's games itself, and the forwarder of the games list. One task per socket
//! carries both the replies (through the connection's bounded queue) and the games' broadcasts
//! (from their receivers), so an event reaches a spectator's socket with one task woken, not
//! two. A socket that does not keep up stops reading its receivers meanwhile; they lag, and the
//! subscriber later gets a fresh `state` instead of what it missed.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes};
use futures::{Sink, SinkExt};
use tokio::sync::{broadcast, mpsc};
use tokio_stream::wrappers::errors::BroadcastStreamRecvError;
use tokio_stream::wrappers::BroadcastStream;
use tokio_stream::{StreamExt, StreamMap};

use crate::protocol::{GameId, ServerMessage};
use crate::server::game_ref::GameRef;
use crate::server::room::{Broadcast, Command, Reply, Subscription};
use crate::server::state::Shared;

/// An item of the outbound queue.
pub(super) enum Outbound {
    Text(Arc<str>),
    /// A ping with this payload (its number: see `RoundTrip`).
    Ping([u8; 8]),
    Close(u16, &'static str),
    /// Follow a game: send the subscription's first messages, then its broadcasts (replacing
    /// what the connection followed of that game before).
    Follow {
        game: GameId,
        sub: Subscription,
        handle: GameRef,
        /// The connection holds a seat: it reads the players' chat, not the spectators'.
        player: bool,
    },
    /// Stop following a game.
    Unfollow(GameId),
}

/// What the writer keeps of one followed game besides its receiver.
struct Followed {
    /// The last version sent: older or repeated events are skipped.
    seen: u64,
    /// Where to ask for a fresh state after lagging.
    handle: GameRef,
    /// A player's follow (see [`Outbound::Follow`]).
    player: bool,
}

/// Writes what is queued and what the followed games broadcast to the socket, in order, until
/// the queue ends or a close is sent.
pub(super) async fn write_loop<S>(mut sink: S, mut rx: mpsc::Receiver<Outbound>, shared: Arc<Shared>)
where
    S: Sink<Message> + Unpin,
{
    let mut feeds: StreamMap<GameId, BroadcastStream<Broadcast>> = StreamMap::new();
    let mut followed: HashMap<GameId, Followed> = HashMap::new();
    loop {
        let sent = tokio::select! {
            item = rx.recv() => match item {
                None => break,
                Some(Outbound::Text(text)) => send(&mut sink, &text).await,
                Some(Outbound::Ping(payload)) => sink.send(Message::Ping(payload.to_vec().into())).await,
                Some(Outbound::Close(code, reason)) => {
                    let _ = sink.send(Message::Close(Some(CloseFrame { code, reason: Utf8Bytes::from(reason) }))).await;
                    break;
                }
                Some(Outbound::Follow { game, sub, handle, player }) => {
                    let Subscription { rx, initial, v } = sub;
                    feeds.insert(game.clone(), BroadcastStream::new(rx));
                    followed.insert(game, Followed { seen: v, handle, player });
                    let mut sent = Ok(());
                    for text in initial {
                        sent = send(&mut sink, &text).await;
                        if sent.is_err() {
                            break;
                        }
                        shared.metrics.events_sent.inc();
                    }
                    sent
                }
                Some(Outbound::Unfollow(game)) => {
                    feeds.remove(&game);
                    followed.remove(&game);
                    Ok(())
                }
            },
            Some((game, event)) = feeds.next() => {
                let Some(follow) = followed.get_mut(&game) else { continue };
                let text = match event {
                    Ok(event) => {
                        if !event.audience.reaches(follow.player) {
                            continue;
                        }
                        if let Some(v) = event.v {
                            if v <= follow.seen {
                                continue;
                            }
                            follow.seen = v;
                        }
                        event.text
                    }
                    Err(BroadcastStreamRecvError::Lagged(missed)) => {
                        shared.metrics.lagged.inc();
                        tracing::debug!(missed, "subscriber lagged; sending a fresh state");
                        let Ok((v, text)) = follow.handle.call(Command::Snapshot).await.and_then(Reply::into_snapshot) else {
                            // The game is gone: stop following it.
                            feeds.remove(&game);
                            followed.remove(&game);
                            continue;
                        };
                        follow.seen = v;
                        text
                    }
                };
                let sent = send(&mut sink, &text).await;
                shared.metrics.events_sent.inc();
                sent
            }
        };
        if sent.is_err() {
            break;
        }
    }
    let _ = sink.close().await;
}

/// One text frame.
async fn send<S: Sink<Message> + Unpin>(sink: &mut S, text: &str) -> Result<(), S::Error> {
    sink.send(Message::Text(Utf8Bytes::from(text))).await
}

/// Sends the games list as it changes; a lagging subscriber gets the list as it is now.
pub(super) async fn forward_list(
    mut rx: broadcast::Receiver<Arc<str>>,
    shared: Arc<Shared>,
    out: mpsc::Sender<Outbound>,
) {
    loop {
        let text = match rx.recv().await {
            Ok(text) => text,
            Err(broadcast::error::RecvError::Lagged(_)) => {
                shared.metrics.lagged.inc();
                let seeks: Arc<str> = ServerMessage::Seeks { seeks: shared.lobby.seeks().await }.to_json().into();
                if out.send(Outbound::Text(seeks)).await.is_err() {
                    return;
                }
                ServerMessage::Games { games: shared.lobby.list().await }.to_json().into()
            }
            Err(broadcast::error::RecvError::Closed) => return,
        };
        if out.send(Outbound::Text(text)).await.is_err() {
            return;
        }
        shared.metrics.events_sent.inc();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Color;
    use crate::protocol::NewGame;
    use crate::server::accounts::Player;
    use crate::server::config::ServerConfig;
    use crate::server::lobby::{Lobby, LobbyOptions};
    use crate::server::metrics::Metrics;
    use crate::server::room::Action;
    use crate::server::room::{self, RoomContext};
    use crate::server::store::{NoStore, SqliteStore, Stores};
    use tokio::sync::watch;

    #[tokio::test]
    async fn a_lagging_subscriber_gets_a_fresh_state() {
        let metrics = Arc::new(Metrics::new());
        let stores =
            Stores { games: Arc::new(NoStore), ..Stores::of(Arc::new(SqliteStore::open(":memory:").expect("store"))) };
        let ctx = RoomContext {
            config: Default::default(),
            metrics: metrics.clone(),
            store: stores.games.clone(),
            ratings: stores.ratings.clone(),
            lobby: mpsc::unbounded_channel().0,
            relay: None,
            notices: None,
        };
        let lobby = Lobby::start(ctx.clone(), LobbyOptions::default());
        let (_stop, shutdown) = watch::channel(false);
        let shared = Arc::new(Shared::new(
            lobby,
            metrics.clone(),
            ServerConfig::default(),
            shutdown,
            stores,
            Arc::default(),
            std::net::Ipv4Addr::LOCALHOST.into(),
        ));
        let spec = NewGame { as_side: Some(Color::White), ..NewGame::default() };
        let created = room::spawn("lagtest1".into(), spec, Player::default(), ctx).expect("room").created;
        let white = created.seat.clone().expect("seat").1;
        let join = Command::Join { color: Some(Color::Black), player: Player::default() };
        let black = created.handle.call(join).await.and_then(Reply::into_seated).expect("join").token;
        // 2 × 200 events, made before the writer reads any: far more than the broadcast channel
        // holds for a reader that waits.
        for _ in 0..200 {
            let act = |token: &String, action| Command::act(token.clone(), action);
            created.handle.call(act(&white, Action::Draw)).await.expect("offer");
            created.handle.call(act(&black, Action::Decline)).await.expect("decline");
        }
        // The writer, whose "socket" is a channel read only after all the events are out.
        let (sink, mut socket) = futures::channel::mpsc::unbounded::<Message>();
        let (out, queue) = mpsc::channel(16);
        let task = tokio::spawn(write_loop(sink, queue, shared));
        out.send(Outbound::Follow {
            game: "lagtest1".into(),
            sub: created.sub,
            handle: GameRef::Local(created.handle.clone()),
            player: true,
        })
        .await
        .expect("follow");
        let mut texts = Vec::new();
        while let Ok(Some(Message::Text(text))) =
            tokio::time::timeout(std::time::Duration::from_millis(300), futures::StreamExt::next(&mut socket)).await
        {
            texts.push(text.to_string());
        }
        task.abort();
        let messages: Vec<ServerMessage> = texts.iter().map(|t| serde_json::from_str(t).expect("json")).collect();
        // The initial state (v 0), then, instead of the lost events, a state at the latest version.
        assert!(matches!(&messages[0], ServerMessage::State(s) if s.v == 0));
        let last = messages.last().expect("messages");
        assert!(matches!(last, ServerMessage::State(s) if s.v == 401), "{last:?}");
        assert!(messages.len() < 10, "{} messages", messages.len());
        assert_eq!(metrics.lagged.get(), 1);
    }
}
