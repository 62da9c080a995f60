//! The HTTP side: the axum router (the web client, `/ws`, the JSON API, PGN, health and
//! metrics), starting the lobby, and serving until Ctrl-C or SIGTERM.

use std::future::Future;
use std::sync::Arc;

use axum::extract::{Path, State, WebSocketUpgrade};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use thiserror::Error;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};

use super::config::{ServeArgs, ServerConfig};
use super::connection;
use super::lobby::Lobby;
use super::metrics::Metrics;
use super::protocol::{ErrorCode, ServerMessage};
use super::room::RoomContext;
use super::store::NoStore;
use super::web;

/// What every connection and handler shares.
pub struct Shared {
    pub lobby: Lobby,
    pub metrics: Arc<Metrics>,
    pub config: ServerConfig,
    /// Turns true when the server is shutting down; connections then close.
    pub shutdown: watch::Receiver<bool>,
}

/// Why the server could not run.
#[derive(Debug, Error)]
pub enum ServeError {
    #[error("cannot listen on {addr}: {source}")]
    Bind { addr: std::net::SocketAddr, source: std::io::Error },
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    #[error("server failed: {0}")]
    Io(#[from] std::io::Error),
}

/// The router for `shared`.
pub fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/", get(web::index))
        .route("/g/{id}", get(web::index))
        .route("/assets/{*path}", get(web::asset))
        .route("/ws", get(ws))
        .route("/api/games", get(games))
        .route("/api/games/{id}", get(game))
        .route("/api/games/{id}/pgn", get(pgn))
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/metrics", get(metrics))
        .with_state(shared)
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
    let (shutdown_tx, shutdown_rx) = watch::channel(false);
    let metrics = Arc::new(Metrics::new());
    let ctx = RoomContext {
        config: config.room.clone(),
        metrics: metrics.clone(),
        store: Arc::new(NoStore),
        // The lobby puts its own channel here.
        lobby: mpsc::unbounded_channel().0,
    };
    let lobby = Lobby::start_limited(ctx, config.retention, config.max_rooms);
    let shared = Arc::new(Shared { lobby, metrics, config, shutdown: shutdown_rx });
    if let Ok(addr) = listener.local_addr() {
        tracing::info!(%addr, "gambit server listening");
    }
    axum::serve(listener, router(shared))
        .with_graceful_shutdown(async move {
            signal.await;
            tracing::info!("shutting down");
            let _ = shutdown_tx.send(true);
        })
        .await?;
    Ok(())
}

/// `gambit serve`: binds the address and serves on a new runtime until stopped.
pub fn run(args: &ServeArgs) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Runtime::new().map_err(ServeError::Runtime)?;
    runtime.block_on(async {
        let listener =
            TcpListener::bind(args.listen).await.map_err(|source| ServeError::Bind { addr: args.listen, source })?;
        serve(ServerConfig::from(args), listener).await
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

async fn ws(upgrade: WebSocketUpgrade, State(shared): State<Arc<Shared>>) -> Response {
    // Accept somewhat more than the protocol allows so an oversized message can still be
    // answered with `too_large` instead of a dropped connection.
    let limit = shared.config.max_frame * 4;
    upgrade.max_message_size(limit).max_frame_size(limit).on_upgrade(move |socket| connection::serve(socket, shared))
}

fn not_found(game: &str) -> Response {
    let body = ServerMessage::error(ErrorCode::NoSuchGame, format!("there is no game {game:?} on this server"), None);
    (StatusCode::NOT_FOUND, Json(body)).into_response()
}

async fn games(State(shared): State<Arc<Shared>>) -> Response {
    Json(shared.lobby.list().await).into_response()
}

async fn game(Path(id): Path<String>, State(shared): State<Arc<Shared>>) -> Response {
    let Some(room) = shared.lobby.get(&id).await else { return not_found(&id) };
    match room.state().await {
        Ok(state) => Json(state).into_response(),
        Err(_) => not_found(&id),
    }
}

async fn pgn(Path(id): Path<String>, State(shared): State<Arc<Shared>>) -> Response {
    let Some(room) = shared.lobby.get(&id).await else { return not_found(&id) };
    match room.pgn().await {
        Ok(text) => ([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response(),
        Err(_) => not_found(&id),
    }
}

async fn metrics(State(shared): State<Arc<Shared>>) -> Response {
    let content_type = "application/openmetrics-text; version=1.0.0; charset=utf-8";
    ([(header::CONTENT_TYPE, content_type)], shared.metrics.render()).into_response()
}
