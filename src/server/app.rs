//! The HTTP side: the axum router (the web client, `/ws`, the JSON API, PGN, health and
//! metrics), starting the lobby, and serving until Ctrl-C or SIGTERM.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use axum::extract::{ConnectInfo, Path, Query, Request, State, WebSocketUpgrade};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Json, Router};
use thiserror::Error;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};

use super::accounts::{self, Accounts};
use super::analysis::{self, Analyses};
use super::cluster::{BusError, Cluster, Joining};
use super::config::{ServeArgs, ServerConfig};
use super::connection::{self, Peer};
use super::hosts::Hosts;
use super::limits::{client_ip, AddressLimits};
use super::listener::{self, ListenOptions, PeerSlot};
use super::lobby::{Lobby, LobbyLimits};
use super::metrics::Metrics;
use super::room::{self, RoomContext};
use super::store::{self, AccountStore, GameStore, PostgresStore, StoreError, StoredGame, StoredSeat};
use super::web;
use crate::bots::Level;
use crate::chess::EndReason;
use crate::protocol::{ClockSpec, ErrorCode, GameId, GameResult, PlayerName, SeatView, ServerMessage, VariantName};

/// What every connection and handler shares.
pub struct Shared {
    pub lobby: Lobby,
    pub metrics: Arc<Metrics>,
    pub config: ServerConfig,
    /// Turns true when the server is shutting down; connections then close.
    pub shutdown: watch::Receiver<bool>,
    /// Where games are kept; the archive of finished games is read from it.
    pub store: Arc<dyn GameStore>,
    /// What each client address holds and may still do.
    pub limits: Arc<AddressLimits>,
    /// The names the server answers to and the pages that may open WebSockets.
    pub hosts: Hosts,
    /// The id the next WebSocket connection gets.
    pub next_connection: std::sync::atomic::AtomicU64,
    /// The cluster this server is a node of, if any: games are then found through it.
    pub cluster: Option<Arc<Cluster>>,
    /// Accounts, sessions and ratings (kept in the same store as the games).
    pub accounts: Accounts,
    /// Computer analyses of finished games.
    pub analyses: Arc<Analyses>,
}

impl Shared {
    /// What connections and handlers share, around a lobby and a store, for a server
    /// listening on `listen_ip`.
    pub fn new(
        lobby: Lobby,
        metrics: Arc<Metrics>,
        config: ServerConfig,
        shutdown: watch::Receiver<bool>,
        store: Arc<dyn GameStore>,
        accounts: Arc<dyn AccountStore>,
        listen_ip: std::net::IpAddr,
    ) -> Shared {
        let limits = AddressLimits::new(config.per_address.clone());
        let hosts = Hosts::new(listen_ip, config.public_url.as_deref(), &config.allowed_origins);
        let accounts = Accounts::new(accounts, config.accounts.clone());
        let analyses = Arc::new(Analyses::new(store.clone(), config.analysis.clone(), &config.room));
        Shared {
            accounts,
            analyses,
            lobby,
            metrics,
            config,
            shutdown,
            store,
            limits,
            hosts,
            next_connection: Default::default(),
            cluster: None,
        }
    }

    /// The room of `game`: wherever the cluster holds it, or in this server's lobby.
    pub async fn room(&self, game: &str) -> Result<room::RoomHandle, crate::protocol::Refusal> {
        match &self.cluster {
            Some(cluster) => cluster.handle(game).await,
            None => self.lobby.get(game).await.ok_or_else(|| crate::protocol::Refusal::no_such_game(game)),
        }
    }
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

/// The router for `shared`.
pub fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/", get(web::index))
        .route("/g/{id}", get(web::index))
        .route("/login", get(web::index))
        .route("/signup", get(web::index))
        .route("/leaderboard", get(web::index))
        .route("/@/{name}", get(web::index))
        .route("/editor", get(web::index))
        .route("/api/position", get(super::positions::check))
        .route("/assets/{*path}", get(web::asset))
        .route("/ws", get(ws))
        .route("/api/games", get(games))
        .route("/api/games/{id}", get(game))
        .route("/api/games/{id}/pgn", get(pgn))
        .route("/api/games/{id}/analysis", get(analysis::http::get).post(analysis::http::request))
        .route("/api/cluster", get(cluster))
        .route("/api/levels", get(levels))
        .route("/api/engines", get(engines))
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/metrics", get(metrics))
        .merge(accounts::http::routes())
        .layer(middleware::from_fn_with_state(shared.clone(), accounts::http::check_origin))
        .layer(middleware::from_fn_with_state(shared.clone(), check_host))
        .layer(middleware::map_response(nosniff))
        .with_state(shared)
}

/// Refuses requests naming a host the server does not answer to (see `hosts`).
async fn check_host(State(shared): State<Arc<Shared>>, request: Request, next: Next) -> Response {
    let host = request.headers().get(header::HOST).and_then(|h| h.to_str().ok());
    if shared.hosts.host_allowed(host) {
        return next.run(request).await;
    }
    let message = format!(
        "this server does not answer to the host {:?}; start it with --public-url to give it a name",
        host.unwrap_or_default()
    );
    (StatusCode::MISDIRECTED_REQUEST, Json(ServerMessage::error(ErrorCode::BadRequest, message, None))).into_response()
}

/// Every answer's content type is meant as given: browsers must not guess another (a PGN or
/// JSON answer run as a script or page).
async fn nosniff(mut response: Response) -> Response {
    response.headers_mut().insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    response
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
    store: Arc<dyn GameStore>,
    accounts: Arc<dyn AccountStore>,
    joining: Option<Joining>,
}

/// Opens the store, and in a cluster connects to the bus as well.
async fn open(config: &ServerConfig) -> Result<Backing, ServeError> {
    let Some(cluster) = &config.cluster else {
        let (store, accounts) = store::open(&config.db).await?;
        return Ok(Backing { store, accounts, joining: None });
    };
    if !store::is_postgres(&config.db) {
        return Err(ServeError::Usage(format!(
            "--cluster needs the games in PostgreSQL that every node shares: add --db postgres://USER@HOST:PORT/DB (not {})",
            config.db
        )));
    }
    let postgres = Arc::new(PostgresStore::connect_node(&config.db, &cluster.node).await?);
    let joining = Joining::connect(&cluster.redis, &cluster.node, postgres.clone()).await?;
    let (store, accounts) = store::both(postgres);
    Ok(Backing { store, accounts, joining: Some(joining) })
}

/// Serves games kept in `backing` on `listener` until `signal` completes.
async fn serve_store(
    config: ServerConfig,
    backing: Backing,
    listener: TcpListener,
    signal: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let Backing { store, accounts, mut joining } = backing;
    let (shutdown_tx, shutdown_rx) = watch::channel(false);
    let metrics = Arc::new(Metrics::new());
    // A single server goes on with its unfinished games; a cluster node takes over the games
    // nobody holds as its lease task finds them.
    let unfinished = if joining.is_some() { Vec::new() } else { store.unfinished().await? };
    let ctx = RoomContext {
        config: config.room.clone(),
        metrics: metrics.clone(),
        store: store.clone(),
        // The lobby puts its own channel here.
        lobby: mpsc::unbounded_channel().0,
        relay: joining.as_ref().map(|j| j.relay.clone()),
    };
    let limits = LobbyLimits {
        max_rooms: config.max_rooms,
        max_unfinished_per_address: config.per_address.max_unfinished,
        max_unfinished_per_connection: config.max_games_per_connection,
    };
    let hooks = joining.as_mut().and_then(|j| j.hooks.take());
    let lobby = Lobby::start_node(ctx, config.retention, limits, unfinished, hooks);
    let cluster = match joining {
        Some(joining) => Some(Cluster::start(joining, lobby.clone(), metrics.clone()).await),
        None => None,
    };
    let addr = listener.local_addr()?;
    let shared = Shared {
        cluster: cluster.clone(),
        ..Shared::new(lobby.clone(), metrics.clone(), config, shutdown_rx, store.clone(), accounts, addr.ip())
    };
    let shared = Arc::new(shared);
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
    let served = listener::serve(listener, router(shared), options, async move {
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
    let engines = super::engines::Engines::probe(&args.engine).map_err(|e| ServeError::Usage(e.to_string()))?;
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

/// The read buffer of each WebSocket connection.
const READ_BUFFER: usize = 4096;

/// Most bytes waiting to be written to one WebSocket: a socket whose peer does not read (and
/// floods pings, whose pongs would otherwise pile up) is closed at this point. Larger than the
/// largest message the server sends (the games list at the room cap).
const MAX_WRITE_BUFFER: usize = 1 << 20;

async fn ws(
    upgrade: WebSocketUpgrade,
    headers: HeaderMap,
    ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
    Extension(slot): Extension<PeerSlot>,
    State(shared): State<Arc<Shared>>,
) -> Response {
    let origin = headers.get(header::ORIGIN).and_then(|h| h.to_str().ok());
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    if !shared.hosts.origin_allowed(origin, host) {
        tracing::info!(?origin, "WebSocket from another site's page refused");
        let message = format!(
            "pages of {:?} may not use this server; its operator can allow them with --allowed-origin",
            origin.unwrap_or_default()
        );
        return (StatusCode::FORBIDDEN, Json(ServerMessage::error(ErrorCode::BadRequest, message, None)))
            .into_response();
    }
    let ip = client_ip(peer.ip(), &headers, &shared.config.trusted_proxies);
    // Through a trusted proxy the TCP connection is the proxy's: count the client instead.
    let slot = match slot {
        PeerSlot::Counted(slot) => Some(slot),
        PeerSlot::Proxy => shared.limits.connect(ip).map(Arc::new),
    };
    // A cookie naming no live session is no session: the player is anonymous.
    let account = match accounts::http::account_of(&shared, &headers).await {
        Ok(account) => account,
        Err(e) => {
            tracing::error!(error = %e, "could not read a session");
            None
        }
    };
    let peer = Peer { ip, slot, account };
    // Accept somewhat more than the protocol allows so an oversized message can still be
    // answered with `too_large` instead of a dropped connection.
    let limit = shared.config.max_frame * 4;
    upgrade
        .max_message_size(limit)
        .max_frame_size(limit)
        // tungstenite's default read buffer is 128 KiB per connection, all of it touched on the
        // first read; client messages are small, so 4 KiB keeps an idle connection near 10 KiB
        // of server memory (docs/performance.md). Writes go out at once: each is a whole event.
        .read_buffer_size(READ_BUFFER)
        .write_buffer_size(0)
        .max_write_buffer_size(MAX_WRITE_BUFFER)
        .on_upgrade(move |socket| connection::serve(socket, shared, peer))
}

fn not_found(game: &str) -> Response {
    let body = ServerMessage::error(ErrorCode::NoSuchGame, format!("there is no game {game:?} on this server"), None);
    (StatusCode::NOT_FOUND, Json(body)).into_response()
}

fn bad_query(message: String) -> Response {
    (StatusCode::BAD_REQUEST, Json(ServerMessage::error(ErrorCode::BadRequest, message, None))).into_response()
}

fn store_failed(e: StoreError) -> Response {
    tracing::error!(error = %e, "archive read failed");
    let body = ServerMessage::error(ErrorCode::ServerError, e.to_string(), None);
    (StatusCode::INTERNAL_SERVER_ERROR, Json(body)).into_response()
}

/// The most finished games one `/api/games?status=finished` answer lists.
const MAX_LIMIT: usize = 1000;

/// `/api/games`: the games held now (`status=live`, the default), or the archive of finished
/// games from the store, newest first (`status=finished&limit=N`, N from 1 to 1000, default 50).
async fn games(Query(query): Query<HashMap<String, String>>, State(shared): State<Arc<Shared>>) -> Response {
    if let Some(unknown) = query.keys().find(|k| !matches!(k.as_str(), "status" | "limit")) {
        return bad_query(format!("unknown parameter {unknown:?}; use status=live|finished and limit=N"));
    }
    let limit = match query.get("limit").map(|l| l.parse::<usize>()) {
        None => 50,
        Some(Ok(n)) if (1..=MAX_LIMIT).contains(&n) => n,
        Some(_) => return bad_query(format!("limit must be a number from 1 to {MAX_LIMIT}")),
    };
    match query.get("status").map(String::as_str) {
        None | Some("live") => Json(shared.lobby.list().await).into_response(),
        Some("finished") => match shared.store.finished(limit).await {
            Ok(games) => Json(games.into_iter().map(FinishedGame::from).collect::<Vec<_>>()).into_response(),
            Err(e) => store_failed(e),
        },
        Some(other) => bad_query(format!("unknown status {other:?}; use live or finished")),
    }
}

/// One game of the archive, as `/api/games?status=finished` lists it.
#[derive(serde::Serialize)]
struct FinishedGame {
    game: GameId,
    variant: VariantName,
    white: SeatView,
    black: SeatView,
    plies: usize,
    result: Option<GameResult>,
    reason: Option<EndReason>,
    clock: Option<ClockSpec>,
    /// Unix times in milliseconds.
    created_ms: i64,
    ended_ms: Option<i64>,
}

impl From<StoredGame> for FinishedGame {
    fn from(g: StoredGame) -> FinishedGame {
        let view = |seat: StoredSeat| match seat {
            StoredSeat::Human { token: Some(_), name, .. } => {
                SeatView::human(false, PlayerName::from_stored(name).as_ref())
            }
            StoredSeat::Human { token: None, .. } => SeatView::Open,
            StoredSeat::Bot { level } => SeatView::bot(level),
            StoredSeat::Engine { name, options } => SeatView::engine(&name, &options),
        };
        FinishedGame {
            plies: g.moves.len(),
            white: view(g.white),
            black: view(g.black),
            game: g.id,
            variant: g.variant.into(),
            result: g.outcome.map(GameResult::from),
            reason: g.outcome.map(|o| o.reason),
            clock: g.clock.map(ClockSpec::from),
            created_ms: g.created_ms,
            ended_ms: g.ended_ms,
        }
    }
}

/// The state and PGN of a game the server no longer holds in memory, from the store.
async fn archived(shared: &Shared, id: &str) -> Result<Option<(crate::protocol::GameState, String)>, Response> {
    let stored = match shared.store.load(id).await {
        Ok(Some(stored)) => stored,
        Ok(None) => return Ok(None),
        Err(StoreError::Damaged { message, .. }) => return Err(damaged(id, message)),
        Err(e) => return Err(store_failed(e)),
    };
    room::archived(&stored).map(Some).map_err(|e| damaged(id, e.to_string()))
}

/// The PGN of a stored game.
pub fn stored_pgn(_shared: &Shared, stored: StoredGame) -> Result<String, crate::protocol::Refusal> {
    room::archived(&stored).map(|(_, pgn)| pgn)
}

/// One game's bad record is that game's problem, not the server's: a 422 that says what it is.
fn damaged(id: &str, why: String) -> Response {
    tracing::error!(game = %id, error = %why, "stored game cannot be shown");
    let message = format!("game {id:?} is damaged in the store and cannot be shown: {why}");
    let body = ServerMessage::error(ErrorCode::DamagedGame, message, None);
    (StatusCode::UNPROCESSABLE_ENTITY, Json(body)).into_response()
}

async fn game(Path(id): Path<String>, State(shared): State<Arc<Shared>>) -> Response {
    if let Ok(room) = shared.room(&id).await {
        if let Ok(state) = room.state().await {
            let Some(cluster) = &shared.cluster else { return Json(state).into_response() };
            // In a cluster: which node holds the game now.
            let mut value = serde_json::to_value(state).unwrap_or_default();
            if let (Some(fields), Some(node)) = (value.as_object_mut(), cluster.owner_of(&id).await) {
                fields.insert("node".into(), node.into());
            }
            return Json(value).into_response();
        }
    }
    match archived(&shared, &id).await {
        Ok(Some((state, _))) => Json(state).into_response(),
        Ok(None) => not_found(&id),
        Err(response) => response,
    }
}

async fn pgn(Path(id): Path<String>, State(shared): State<Arc<Shared>>) -> Response {
    let text = |text: String| ([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response();
    if let Ok(room) = shared.room(&id).await {
        if let Ok(pgn) = room.pgn().await {
            return text(pgn);
        }
    }
    match archived(&shared, &id).await {
        Ok(Some((_, pgn))) => text(pgn),
        Ok(None) => not_found(&id),
        Err(response) => response,
    }
}

/// `/api/levels`: the computer levels a seat may have, each with its calibrated rating and the
/// label the lobby shows ("Level 6 · ~1500"), weakest first.
async fn levels() -> Json<serde_json::Value> {
    let levels: Vec<serde_json::Value> = Level::ALL
        .iter()
        .map(|l| serde_json::json!({ "level": l.get(), "rating": l.rating(), "label": l.label(), "searches": l.searches() }))
        .collect();
    Json(serde_json::Value::Array(levels))
}

/// `/api/cluster`: this node's name and the live nodes, each with its games, connections and
/// last heartbeat; 404 on a server that is not part of a cluster.
async fn cluster(State(shared): State<Arc<Shared>>) -> Response {
    let Some(cluster) = &shared.cluster else {
        let message = "this server is not part of a cluster (start it with --cluster)";
        return (StatusCode::NOT_FOUND, Json(ServerMessage::error(ErrorCode::BadRequest, message, None)))
            .into_response();
    };
    match cluster.nodes().await {
        Ok(nodes) => Json(serde_json::json!({ "node": cluster.node(), "nodes": nodes })).into_response(),
        Err(e) => store_failed(e),
    }
}

/// `GET /api/engines`: the UCI engines this server offers as seats, with their variants and
/// the strength settings a seat may choose (`[]` when it was started without `--engine`).
async fn engines(State(shared): State<Arc<Shared>>) -> Response {
    Json(shared.config.room.engines.listing()).into_response()
}

async fn metrics(State(shared): State<Arc<Shared>>) -> Response {
    let content_type = "application/openmetrics-text; version=1.0.0; charset=utf-8";
    ([(header::CONTENT_TYPE, content_type)], shared.metrics.render()).into_response()
}
