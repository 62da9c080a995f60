//! The outbound side of a connection: the writer task that owns the socket's sink, and the
//! forwarders that carry a room's broadcasts (or the games list) into the connection's bounded
//! queue, replacing what a lagging subscriber missed with a fresh `state`.

use std::sync::Arc;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use futures::stream::SplitSink;
use futures::SinkExt;
use tokio::sync::{broadcast, mpsc};

use crate::protocol::ServerMessage;
use crate::server::app::Shared;
use crate::server::room::{RoomHandle, Subscription};

/// An item of the outbound queue.
pub(super) enum Outbound {
    Text(Arc<str>),
    Ping,
    Close(u16, &'static str),
}

/// Writes what is queued to the socket, in order, until the queue ends or a close is sent.
pub(super) async fn write_loop(mut sink: SplitSink<WebSocket, Message>, mut rx: mpsc::Receiver<Outbound>) {
    while let Some(item) = rx.recv().await {
        let result = match item {
            Outbound::Text(text) => sink.send(Message::Text(Utf8Bytes::from(&*text))).await,
            Outbound::Ping => sink.send(Message::Ping(Default::default())).await,
            Outbound::Close(code, reason) => {
                let _ = sink.send(Message::Close(Some(CloseFrame { code, reason: Utf8Bytes::from(reason) }))).await;
                break;
            }
        };
        if result.is_err() {
            break;
        }
    }
    let _ = sink.close().await;
}

/// Sends a room's events to the connection in order, skipping what the subscriber has seen
/// and replacing what it missed by lagging with a fresh `state`.
pub(super) async fn forward(sub: Subscription, handle: RoomHandle, shared: Arc<Shared>, out: mpsc::Sender<Outbound>) {
    let Subscription { mut rx, initial, v } = sub;
    let mut seen = v;
    for text in initial {
        if out.send(Outbound::Text(text)).await.is_err() {
            return;
        }
        shared.metrics.events_sent.inc();
    }
    loop {
        match rx.recv().await {
            Ok(event) => {
                if let Some(v) = event.v {
                    if v <= seen {
                        continue;
                    }
                    seen = v;
                }
                if out.send(Outbound::Text(event.text)).await.is_err() {
                    return;
                }
                shared.metrics.events_sent.inc();
            }
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                shared.metrics.lagged.inc();
                tracing::debug!(missed, "subscriber lagged; sending a fresh state");
                let Ok((v, text)) = handle.snapshot().await else { return };
                seen = v;
                if out.send(Outbound::Text(text)).await.is_err() {
                    return;
                }
                shared.metrics.events_sent.inc();
            }
            Err(broadcast::error::RecvError::Closed) => return,
        }
    }
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
    use crate::server::config::ServerConfig;
    use crate::server::lobby::Lobby;
    use crate::server::metrics::Metrics;
    use crate::server::room::Action;
    use crate::server::room::{self, RoomContext};
    use crate::server::store::NoStore;
    use tokio::sync::watch;

    #[tokio::test]
    async fn a_lagging_subscriber_gets_a_fresh_state() {
        let metrics = Arc::new(Metrics::new());
        let ctx = RoomContext {
            config: Default::default(),
            metrics: metrics.clone(),
            store: Arc::new(NoStore),
            lobby: mpsc::unbounded_channel().0,
            relay: None,
        };
        let lobby = Lobby::start(ctx.clone(), std::time::Duration::from_secs(60));
        let (_stop, shutdown) = watch::channel(false);
        let shared = Arc::new(Shared::new(
            lobby,
            metrics.clone(),
            ServerConfig::default(),
            shutdown,
            Arc::new(NoStore),
            std::net::Ipv4Addr::LOCALHOST.into(),
        ));
        let spec = NewGame { as_side: Some(Color::White), ..NewGame::default() };
        let created = room::spawn("lagtest1".into(), spec, ctx).expect("room").created;
        let white = created.seat.clone().expect("seat").1;
        let black = created.handle.join(Some(Color::Black)).await.expect("join").token;
        // 2 × 200 events: far more than the broadcast channel holds for a reader that waits.
        for _ in 0..200 {
            created.handle.act(white.clone(), Action::Draw).await.expect("offer");
            created.handle.act(black.clone(), Action::Decline).await.expect("decline");
        }
        let (out, mut rx) = mpsc::channel(1024);
        let task = tokio::spawn(forward(created.sub, created.handle.clone(), shared, out));
        let mut texts = Vec::new();
        while let Ok(Some(Outbound::Text(text))) =
            tokio::time::timeout(std::time::Duration::from_millis(300), rx.recv()).await
        {
            texts.push(text);
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
