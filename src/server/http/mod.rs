//! Every HTTP handler, and the router that puts each at its path: the web client's pages and
//! files, `/ws`, the JSON API (games, accounts, players, analysis, positions, levels, engines,
//! the cluster), PGN, health and metrics. Every request passes the same checks first: the
//! host it names, and for one that changes something, the page it comes from.

mod accounts;
mod analysis;
mod api;
mod cluster;
mod engines;
mod games;
mod metrics;
mod players;
mod positions;
mod socket;
mod web;

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use tower_http::compression::predicate::{NotForContentType, Predicate};
use tower_http::compression::{CompressionLayer, DefaultPredicate};

use super::state::Shared;
use super::store::StoreError;
use crate::protocol::{ErrorCode, ServerMessage};

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
        .route("/api/position", get(positions::check))
        .route("/assets/{*path}", get(web::asset))
        .route("/ws", get(socket::upgrade))
        .route("/api/games", get(games::games))
        .route("/api/games/{id}", get(games::game))
        .route("/api/games/{id}/pgn", get(games::pgn))
        .route("/api/games/{id}/analysis", get(analysis::get).post(analysis::request))
        .route("/api/cluster", get(cluster::nodes))
        .route("/api/levels", get(games::levels))
        .route("/api/engines", get(engines::engines))
        .route("/healthz", get(metrics::health))
        .route("/metrics", get(metrics::metrics))
        .route("/api/signup", post(accounts::sign_up))
        .route("/api/login", post(accounts::log_in))
        .route("/api/logout", post(accounts::log_out))
        .route("/api/logout/everywhere", post(accounts::log_out_everywhere))
        .route("/api/password", post(accounts::change_password))
        .route("/api/me", get(accounts::me))
        .route("/api/players/{name}", get(players::player))
        .route("/api/players/{name}/games", get(players::games))
        .route("/api/players/{name}/games.pgn", get(players::export))
        .route("/api/leaderboard", get(players::leaderboard))
        .route("/account/tokens", get(web::index))
        .route("/bots", get(web::index))
        .route("/tv", get(web::index))
        .route("/tv/bots", get(web::index))
        .route("/tournaments", get(web::index))
        .route("/roundrobin/{id}", get(web::index))
        .route("/tournament/{id}", get(web::index))
        .route("/api/bots", get(players::bots))
        .merge(api::routes())
        // gzip where the client takes it, but not the API's streams: a compressor holds lines
        // back until it has enough of them, and a stream's lines must go out as they come.
        .layer(
            CompressionLayer::new()
                .gzip(true)
                .compress_when(DefaultPredicate::new().and(NotForContentType::const_new("application/x-ndjson"))),
        )
        .layer(middleware::from_fn_with_state(shared.clone(), check_origin))
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
    error(StatusCode::MISDIRECTED_REQUEST, ErrorCode::BadRequest, message)
}

/// Refuses a request that changes something (anything but GET and HEAD) when a browser says it
/// comes from another site's page: the cookie would otherwise let that page act for the
/// player. Clients that are not browsers send no `Origin` and pass.
async fn check_origin(State(shared): State<Arc<Shared>>, request: Request, next: Next) -> Response {
    if matches!(*request.method(), Method::GET | Method::HEAD | Method::OPTIONS) {
        return next.run(request).await;
    }
    let origin = request.headers().get(header::ORIGIN).and_then(|h| h.to_str().ok());
    let host = request.headers().get(header::HOST).and_then(|h| h.to_str().ok());
    if shared.hosts.origin_allowed(origin, host) {
        return next.run(request).await;
    }
    tracing::info!(?origin, "request from another site's page refused");
    refusal(
        StatusCode::FORBIDDEN,
        format!(
            "requests from {} are not allowed; the server's operator can allow a site with --allowed-origin",
            origin.unwrap_or_default()
        ),
    )
}

/// Every answer's content type is meant as given: browsers must not guess another (a PGN or
/// JSON answer run as a script or page).
async fn nosniff(mut response: Response) -> Response {
    response.headers_mut().insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    response
}

/// An answer of the game API: a status and the protocol's `error` message.
fn error(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> Response {
    (status, Json(ServerMessage::error(code, message, None))).into_response()
}

/// An answer of the accounts and players API and of the board editor's check: a status and
/// `{"error": …}`.
fn refusal(status: StatusCode, message: impl Into<String>) -> Response {
    (status, Json(serde_json::json!({ "error": message.into() }))).into_response()
}

/// 500 for a store that could not be read.
fn store_failed(e: StoreError) -> Response {
    tracing::error!(error = %e, "archive read failed");
    error(StatusCode::INTERNAL_SERVER_ERROR, ErrorCode::ServerError, e.to_string())
}
