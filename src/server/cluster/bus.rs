//! The message bus between the nodes of a cluster, over Redis pub/sub (the `redis` crate).
//! Redis carries messages only and at most once: whatever it drops, versions and a fresh
//! `state` repair. Publishing goes through one task in the order messages are given (so one
//! game's events arrive in order), pipelined in batches over a reconnecting connection manager.
//! Receiving goes through another task that keeps the set of channels this node follows and,
//! when Redis comes back after a break, subscribes to all of them again and says so
//! ([`Incoming::Reconnected`]) so the node can repair what it missed.

use std::collections::HashSet;
use std::time::Duration;

use futures::StreamExt;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use tokio::sync::{mpsc, oneshot};

/// How long connecting to Redis, or one command, may take.
const TIMEOUT: Duration = Duration::from_secs(2);
/// The most messages one pipeline carries.
const MAX_PIPELINE: usize = 1024;
/// The longest pause between tries to reach Redis again.
const MAX_BACKOFF: Duration = Duration::from_secs(2);

/// A message from the bus.
pub enum Incoming {
    Message {
        channel: String,
        payload: Vec<u8>,
    },
    /// The subscriber was cut off and is back: messages may have been lost meanwhile.
    Reconnected,
}

enum Control {
    /// Follow a channel; answered once Redis confirmed it (or at once while Redis is away:
    /// the channel is followed as soon as it is back).
    Subscribe(String, oneshot::Sender<()>),
    Unsubscribe(String),
}

/// The sending and subscribing ends of the bus.
#[derive(Clone)]
pub struct Bus {
    outgoing: mpsc::UnboundedSender<(String, Vec<u8>)>,
    control: mpsc::UnboundedSender<Control>,
    /// For messages that must know whether anyone heard them (requests to a node).
    direct: ConnectionManager,
}

/// Why the bus could not start.
#[derive(Debug, thiserror::Error)]
#[error("cannot reach Redis at {url}: {message}")]
pub struct BusError {
    pub url: String,
    pub message: String,
}

impl Bus {
    /// Connects to Redis at `url`; what arrives on subscribed channels goes to `incoming`.
    pub async fn connect(url: &str, incoming: mpsc::UnboundedSender<Incoming>) -> Result<Bus, BusError> {
        let failed = |e: &dyn std::fmt::Display| BusError { url: url.to_string(), message: e.to_string() };
        let client = redis::Client::open(url).map_err(|e| failed(&e))?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(TIMEOUT))
            .set_response_timeout(Some(TIMEOUT))
            .set_number_of_retries(1)
            .set_max_delay(MAX_BACKOFF);
        let manager = tokio::time::timeout(TIMEOUT, client.get_connection_manager_with_config(config))
            .await
            .map_err(|_| failed(&"no answer"))?
            .map_err(|e| failed(&e))?;
        let (outgoing, queue) = mpsc::unbounded_channel();
        let (control, commands) = mpsc::unbounded_channel();
        tokio::spawn(publish_loop(manager.clone(), queue));
        tokio::spawn(subscribe_loop(client, commands, incoming));
        Ok(Bus { outgoing, control, direct: manager })
    }

    /// Checks that `url` is a Redis URL, without connecting.
    pub fn check_url(url: &str) -> Result<(), String> {
        redis::Client::open(url).map(|_| ()).map_err(|e| format!("{url} is not a Redis URL gambit can use: {e}"))
    }

    /// Publishes `payload` on `channel`, after everything published before it.
    pub fn publish(&self, channel: String, payload: Vec<u8>) {
        let _ = self.outgoing.send((channel, payload));
    }

    /// Publishes `payload` on `channel` now (not in line with [`Bus::publish`]); how many
    /// subscribers received it, None if Redis could not be reached. A node's channel with no
    /// subscriber means the node is gone.
    pub async fn publish_now(&self, channel: String, payload: Vec<u8>) -> Option<usize> {
        let mut direct = self.direct.clone();
        redis::cmd("PUBLISH").arg(channel).arg(payload).query_async::<usize>(&mut direct).await.ok()
    }

    /// Follows `channel`; returns once Redis confirmed it, so nothing published after is missed.
    pub async fn subscribe(&self, channel: String) {
        let (done, confirmed) = oneshot::channel();
        if self.control.send(Control::Subscribe(channel, done)).is_ok() {
            let _ = confirmed.await;
        }
    }

    pub fn unsubscribe(&self, channel: String) {
        let _ = self.control.send(Control::Unsubscribe(channel));
    }
}

/// Publishes in order: whatever has queued up goes out as one pipeline.
async fn publish_loop(mut manager: ConnectionManager, mut queue: mpsc::UnboundedReceiver<(String, Vec<u8>)>) {
    let mut failing = false;
    while let Some(first) = queue.recv().await {
        let mut pipe = redis::pipe();
        pipe.publish(first.0, first.1).ignore();
        let mut n = 1;
        while n < MAX_PIPELINE {
            let Ok((channel, payload)) = queue.try_recv() else { break };
            pipe.publish(channel, payload).ignore();
            n += 1;
        }
        match pipe.query_async::<()>(&mut manager).await {
            Ok(()) => {
                if failing {
                    tracing::info!("publishing on Redis again");
                }
                failing = false;
            }
            Err(e) => {
                // At most once: these messages are lost; versions and states repair that.
                if !failing {
                    tracing::warn!(error = %e, lost = n, "cannot publish on Redis; messages are dropped until it is back");
                }
                failing = true;
            }
        }
    }
}

/// Keeps a subscription to every followed channel, across Redis restarts.
async fn subscribe_loop(
    client: redis::Client,
    mut commands: mpsc::UnboundedReceiver<Control>,
    incoming: mpsc::UnboundedSender<Incoming>,
) {
    let mut channels: HashSet<String> = HashSet::new();
    let mut backoff = Duration::from_millis(100);
    let mut first = true;
    loop {
        let connected = tokio::time::timeout(TIMEOUT, client.get_async_pubsub()).await;
        let pubsub = match connected {
            Ok(Ok(pubsub)) => pubsub,
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "cannot subscribe on Redis; trying again");
                if !wait(&mut commands, &mut channels, backoff).await {
                    return;
                }
                backoff = (backoff * 2).min(MAX_BACKOFF);
                continue;
            }
            Err(_) => {
                tracing::warn!("Redis does not answer; trying again");
                if !wait(&mut commands, &mut channels, backoff).await {
                    return;
                }
                backoff = (backoff * 2).min(MAX_BACKOFF);
                continue;
            }
        };
        let (mut sink, mut stream) = pubsub.split();
        if !channels.is_empty() {
            let all: Vec<&String> = channels.iter().collect();
            if let Err(e) = sink.subscribe(all).await {
                tracing::warn!(error = %e, "cannot subscribe on Redis; trying again");
                continue;
            }
        }
        backoff = Duration::from_millis(100);
        if !first {
            tracing::info!(channels = channels.len(), "subscribed on Redis again");
            let _ = incoming.send(Incoming::Reconnected);
        }
        first = false;
        loop {
            tokio::select! {
                message = stream.next() => match message {
                    Some(message) => {
                        let channel = message.get_channel_name().to_string();
                        let payload = message.get_payload_bytes().to_vec();
                        if incoming.send(Incoming::Message { channel, payload }).is_err() {
                            return;
                        }
                    }
                    None => {
                        tracing::warn!("the Redis subscription was cut off; reconnecting");
                        break;
                    }
                },
                command = commands.recv() => match command {
                    None => return,
                    Some(Control::Subscribe(channel, done)) => {
                        let fresh = channels.insert(channel.clone());
                        if fresh {
                            if let Err(e) = sink.subscribe(&channel).await {
                                tracing::warn!(error = %e, "subscribe failed; reconnecting");
                                let _ = done.send(());
                                break;
                            }
                        }
                        let _ = done.send(());
                    }
                    Some(Control::Unsubscribe(channel)) => {
                        if channels.remove(&channel) {
                            let _ = sink.unsubscribe(&channel).await;
                        }
                    }
                },
            }
        }
    }
}

/// Waits `pause` before the next try, still taking (un)subscriptions meanwhile; false once the
/// bus is gone.
async fn wait(
    commands: &mut mpsc::UnboundedReceiver<Control>,
    channels: &mut HashSet<String>,
    pause: Duration,
) -> bool {
    let until = tokio::time::Instant::now() + pause;
    loop {
        tokio::select! {
            () = tokio::time::sleep_until(until) => return true,
            command = commands.recv() => match command {
                None => return false,
                Some(Control::Subscribe(channel, done)) => {
                    channels.insert(channel);
                    let _ = done.send(());
                }
                Some(Control::Unsubscribe(channel)) => {
                    channels.remove(&channel);
                }
            },
        }
    }
}
