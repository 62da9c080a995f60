//! `/ws`: the WebSocket upgrade. Checks the page it comes from, counts the client's address,
//! reads the session cookie, and hands the socket to `connection`.

use std::sync::Arc;

use axum::extract::{ConnectInfo, State, WebSocketUpgrade};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::Response;
use axum::Extension;

use super::accounts::account_of;
use super::error;
use crate::protocol::ErrorCode;
use crate::server::accounts::{session_cookie, Scope};
use crate::server::connection::{self, Credential, Peer};
use crate::server::limits::client_ip;
use crate::server::listener::PeerSlot;
use crate::server::state::Shared;

/// The read buffer of each WebSocket connection.
const READ_BUFFER: usize = 4096;

/// Most bytes waiting to be written to one WebSocket: a socket whose peer does not read (and
/// floods pings, whose pongs would otherwise pile up) is closed at this point. Larger than the
/// largest message the server sends (the games list at the room cap).
const MAX_WRITE_BUFFER: usize = 1 << 20;

pub(super) async fn upgrade(
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
        return error(StatusCode::FORBIDDEN, ErrorCode::BadRequest, message);
    }
    let ip = client_ip(peer.ip(), &headers, &shared.config.trusted_proxies);
    // Through a trusted proxy the TCP connection is the proxy's: count the client instead.
    let slot = match slot {
        PeerSlot::Counted(slot) => Some(slot),
        PeerSlot::Proxy => shared.limits.connect(ip).map(Arc::new),
    };
    // A program (the terminal client's --token) may log in with a personal API token that
    // may play (board:play); a bad one is refused, not taken as anonymous.
    let account = match super::api::bearer(&headers).map(str::to_string) {
        Some(token) => match shared.accounts.api_token(&token).await {
            Ok(Some(found)) if found.scopes.contains(Scope::BoardPlay) => {
                Some((found.account, Credential::Token(token)))
            }
            Ok(Some(_)) => {
                return error(StatusCode::FORBIDDEN, ErrorCode::BadRequest, "that token may not play (board:play)")
            }
            Ok(None) => return error(StatusCode::UNAUTHORIZED, ErrorCode::BadRequest, "No such token"),
            Err(e) => {
                tracing::error!(error = %e, "could not read a token");
                return error(StatusCode::INTERNAL_SERVER_ERROR, ErrorCode::ServerError, "could not check the token");
            }
        },
        // A cookie naming no live session is no session: the player is anonymous.
        None => match account_of(&shared, &headers).await {
            // The session is kept with the account, to check again before the account is used.
            Ok(account) => account.zip(session_cookie(&headers).map(Credential::Session)),
            Err(e) => {
                tracing::error!(error = %e, "could not read a session");
                None
            }
        },
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
