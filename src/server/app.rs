//! Starting and stopping the server: open the store (and in a cluster, the bus), start the
//! lobby, serve `http::router` until Ctrl-C or SIGTERM, then close the rooms, hand a node's
//! games to the others and close the store.

use std::future::Future;
use std::sync::Arc;

use thiserror::Error;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};

use super::cluster::{BusError, Cluster, Joining};
use super::config::{ServeArgs, ServerConfig};
use super::engines::Engines;
use super::http;
use super::listener::{self, ListenOptions};
use super::lobby::{Lobby, LobbyLimits, LobbyOptions};
use super::metrics::Metrics;
use super::room::RoomContext;
use super::state::Shared;
use super::store::{self, PostgresStore, StoreError, Stores};

/// Why the server could not run.
#[derive(Debug, Error)]
pub enum ServeError {
    #[error("cannot listen on {addr}: {source}")]
    Bind { addr: std::net::SocketAddr, source: std::io::Error },
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    #[error("server failed: {0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Store(#[from] StoreError),
    #[error("{0}")]
    Bus(#[from] BusError),
    /// Options that do not go together.
    #[error("{0}")]
    Usage(String),
}

impl ServeError {
    /// The exit code of `gambit serve` failing this way: 1 when another server holds the
    /// database (nothing is wrong with the command), 2 for what the command asked.
    pub fn exit_code(&self) -> u8 {
        match self {
            ServeError::Store(StoreError::Locked { .. }) => 1,
            _ => 2,
        }
    }
}

/// Serves on `listener` until Ctrl-C or SIGTERM.
pub async fn serve(config: ServerConfig, listener: TcpListener) -> Result<(), ServeError> {
    serve_until(config, listener, shutdown_signal()).await
}

/// Serves on `listener` until `signal` completes, then closes every connection.
pub async fn serve_until(
    config: ServerConfig,
    listener: TcpListener,
    signal: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let backing = open(&config).await?;
    serve_store(config, backing, listener, signal).await
}

/// Where a server keeps its games and accounts, and, for a cluster node, what it needs to join.
struct Backing {
    stores: Stores,
    joining: Option<Joining>,
}

/// Opens the store, and in a cluster connects to the bus as well.
async fn open(config: &ServerConfig) -> Result<Backing, ServeError> {
    let Some(cluster) = &config.cluster else {
        return Ok(Backing { stores: store::open(&config.db).await?, joining: None });
    };
    if !store::is_postgres(&config.db) {
        return Err(ServeError::Usage(format!(
            "--cluster needs the games in PostgreSQL that every node shares: add --db postgres://USER@HOST:PORT/DB (not {})",
            config.db
        )));
    }
    let postgres = Arc::new(PostgresStore::connect_node(&config.db, &cluster.node).await?);
    let joining = Joining::connect(&cluster.redis, &cluster.node, postgres.clone()).await?;
    Ok(Backing { stores: Stores::of(postgres), joining: Some(joining) })
}

/// Serves games kept in `backing` on `listener` until `signal` completes.
async fn serve_store(
    config: ServerConfig,
    backing: Backing,
    listener: TcpListener,
    signal: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let Backing { stores, mut joining } = backing;
    let store = stores.games.clone();
    let (shutdown_tx, shutdown_rx) = watch::channel(false);
    let metrics = Arc::new(Metrics::new());
    // A single server goes on with its unfinished games; a cluster node takes over the games
    // nobody holds as its lease task finds them.
    let unfinished = if joining.is_some() { Vec::new() } else { store.unfinished().await? };
    // Rooms tell players their games started; the API's event streams and pages listen.
    let notices = Arc::new(crate::server::notices::Notices::default());
    let ctx = RoomContext {
        config: config.room.clone(),
        metrics: metrics.clone(),
        store: store.clone(),
        ratings: stores.ratings.clone(),
        // The lobby puts its own channel here.
        lobby: mpsc::unbounded_channel().0,
        relay: joining.as_ref().map(|j| j.relay.clone()),
        notices: Some(notices.clone()),
    };
    let limits = LobbyLimits {
        max_rooms: config.max_rooms,
        max_unfinished_per_address: config.per_address.max_unfinished,
        max_unfinished_per_connection: config.max_games_per_connection,
    };
    let hooks = joining.as_mut().and_then(|j| j.hooks.take());
    let lobby = Lobby::start(ctx, LobbyOptions { retention: config.retention, limits, restored: unfinished, hooks });
    let cluster = match joining {
        Some(joining) => Some(Cluster::start(joining, lobby.clone(), metrics.clone()).await),
        None => None,
    };
    let addr = listener.local_addr()?;
    let relations = stores.relations.clone();
    let shared = Shared {
        cluster: cluster.clone(),
        ..Shared::new(lobby.clone(), metrics.clone(), config, shutdown_rx, stores, notices, addr.ip())
    };
    let shared = Arc::new(shared);
    let (happenings_tx, happenings) = mpsc::unbounded_channel();
    shared.notices.on_happenings(happenings_tx);
    tokio::spawn(crate::server::notifications::from_games(happenings, relations, shared.notifications.clone()));
    // A single server takes up its unfinished tournaments; a cluster's nodes share them out,
    // each taking those whose node is gone.
    if shared.cluster.is_some() {
        crate::server::tournaments::Tournaments::join_cluster(&shared);
    } else if let Err(e) = shared.tournaments.resume_all(&shared).await {
        tracing::error!(error = %e, "could not read the unfinished tournaments");
    }
    if let Some(cluster) = &cluster {
        cluster.carry_notices(shared.notices.clone()).await;
    }
    match &cluster {
        Some(c) => {
            tracing::info!(%addr, db = %store::shown(&shared.config.db), node = %c.node(), "gambit node listening")
        }
        None => tracing::info!(%addr, db = %store::shown(&shared.config.db), "gambit server listening"),
    }
    let options = ListenOptions {
        header_timeout: shared.config.header_timeout,
        trusted_proxies: shared.config.trusted_proxies.clone(),
        limits: shared.limits.clone(),
        metrics,
    };
    let stopping = cluster.clone();
    let served = listener::serve(listener, http::router(shared), options, async move {
        signal.await;
        tracing::info!("shutting down");
        if let Some(cluster) = &stopping {
            cluster.stop();
        }
        let _ = shutdown_tx.send(true);
    })
    .await;
    // Every room stores its clock; a cluster node then hands its games to the others; then
    // the store writes what is queued and closes.
    lobby.close().await;
    if let Some(cluster) = &cluster {
        cluster.hand_off().await;
    }
    store.close().await;
    served?;
    Ok(())
}

/// `gambit serve`: opens the database, binds the address and serves on a new runtime until
/// stopped. The database comes first: a second server on the same file is told who holds it,
/// even when it was also given the same address.
pub fn run(args: &ServeArgs) -> Result<(), ServeError> {
    // Each engine is started once before anything else, so a bad --engine stops the server
    // at once with one line, like the other bad arguments.
    let engines = Engines::probe(&args.engine).map_err(|e| ServeError::Usage(e.to_string()))?;
    let runtime = tokio::runtime::Runtime::new().map_err(ServeError::Runtime)?;
    runtime.block_on(async {
        let mut config = ServerConfig::from(args);
        config.room.engines = Arc::new(engines);
        let backing = open(&config).await?;
        let listener =
            TcpListener::bind(args.listen).await.map_err(|source| ServeError::Bind { addr: args.listen, source })?;
        serve_store(config, backing, listener, shutdown_signal()).await
    })
}

async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
}
