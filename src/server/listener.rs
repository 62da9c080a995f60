//! Accepting TCP connections and serving HTTP/1.1 on them, with the bounds `axum::serve` does
//! not give: a deadline for each request head (a peer that trickles its headers is cut off,
//! not held forever), a cap on the connections one address holds, and an accept loop that
//! keeps going, briefly paused, when the process is out of file descriptors.
//!
//! Each request carries `ConnectInfo<SocketAddr>` (the TCP peer) and [`PeerSlot`] (the
//! connection's place in its address's count) as extensions; a WebSocket upgrade keeps the
//! slot for as long as the socket lives, so HTTP connections and WebSockets count alike.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::Request;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tower::ServiceExt;

use super::limits::{is_trusted, AddressLimits, ConnectionSlot};
use super::metrics::Metrics;

/// Where a request's connection stands in the per-address count.
#[derive(Clone, Debug)]
pub enum PeerSlot {
    /// Counted for its peer's address.
    Counted(Arc<ConnectionSlot>),
    /// From a trusted proxy: its clients are counted by their forwarded address instead.
    Proxy,
}

/// How the listener treats connections.
pub struct ListenOptions {
    pub header_timeout: Duration,
    pub trusted_proxies: Vec<std::net::IpAddr>,
    pub limits: Arc<AddressLimits>,
    pub metrics: Arc<Metrics>,
}

/// How long the accept loop rests after a failed accept (out of file descriptors, usually):
/// short, so the server answers again as soon as a descriptor is free.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(20);
/// How long a stop waits for HTTP requests in flight.
const DRAIN: Duration = Duration::from_secs(5);

/// Serves `router` on `listener` until `signal` completes; then stops accepting, lets requests
/// in flight finish (for a little while) and returns.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    options: ListenOptions,
    signal: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut connections = JoinSet::new();
    let mut last_warning: Option<tokio::time::Instant> = None;
    tokio::pin!(signal);
    loop {
        tokio::select! {
            () = &mut signal => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    if let Some(slot) = admit(&options, peer) {
                        connections.spawn(connection(stream, peer, slot, router.clone(), options.header_timeout, stop_rx.clone()));
                    }
                    // Else the stream is dropped here: closed at once, its descriptor freed.
                }
                Err(e) => {
                    if !matches!(e.kind(), std::io::ErrorKind::ConnectionAborted | std::io::ErrorKind::ConnectionReset) {
                        // Out of descriptors this fails 50 times a second: say so once a second.
                        if last_warning.is_none_or(|at| at.elapsed() >= Duration::from_secs(1)) {
                            last_warning = Some(tokio::time::Instant::now());
                            tracing::warn!(error = %e, "accept failed");
                        }
                        tokio::time::sleep(ACCEPT_BACKOFF).await;
                    }
                }
            },
            // Reap finished connection tasks so the set stays small.
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    let _ = stop_tx.send(true);
    drop(listener);
    let drained = async { while connections.join_next().await.is_some() {} };
    if tokio::time::timeout(DRAIN, drained).await.is_err() {
        connections.abort_all();
    }
    Ok(())
}

/// The slot of a new connection, or None when its address holds its limit already.
fn admit(options: &ListenOptions, peer: SocketAddr) -> Option<PeerSlot> {
    let ip = peer.ip();
    if is_trusted(ip, &options.trusted_proxies) {
        return Some(PeerSlot::Proxy);
    }
    match options.limits.connect(ip) {
        Some(slot) => Some(PeerSlot::Counted(Arc::new(slot))),
        None => {
            options.metrics.refused_connections.inc();
            tracing::debug!(%ip, "connection refused: the address holds its limit");
            None
        }
    }
}

/// Serves HTTP/1.1 on one connection until it closes, its head deadline passes, or the
/// server stops (then the request in flight finishes and the connection closes).
async fn connection(
    stream: TcpStream,
    peer: SocketAddr,
    slot: PeerSlot,
    router: Router,
    header_timeout: Duration,
    mut stop: watch::Receiver<bool>,
) {
    let _ = stream.set_nodelay(true);
    let service = hyper::service::service_fn(move |mut request: Request<Incoming>| {
        request.extensions_mut().insert(ConnectInfo(peer));
        request.extensions_mut().insert(slot.clone());
        router.clone().oneshot(request.map(Body::new))
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(header_timeout).keep_alive(true);
    let conn = builder.serve_connection(TokioIo::new(stream), service).with_upgrades();
    tokio::pin!(conn);
    tokio::select! {
        result = conn.as_mut() => {
            if let Err(e) = result {
                tracing::debug!(error = %e, %peer, "HTTP connection ended with an error");
            }
            return;
        }
        _ = stop.wait_for(|stopping| *stopping) => conn.as_mut().graceful_shutdown(),
    }
    let _ = conn.await;
}
