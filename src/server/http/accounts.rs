//! The accounts' HTTP API: sign-up, log-in, log-out and who is logged in (`/api/me`), and the
//! account a request's session cookie names.

use std::sync::Arc;

use axum::extract::rejection::JsonRejection;
use axum::extract::{ConnectInfo, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use cookie::{Cookie, SameSite};
use serde::Deserialize;

use super::{players, refusal};
use crate::server::accounts::{
    device_cookie, session_cookie, Account, AccountError, Session, COOKIE, DEVICE_COOKIE, DEVICE_MAX_AGE_SECS,
    SESSION_IDLE_MS,
};
use crate::server::limits::client_ip;
use crate::server::state::Shared;

impl IntoResponse for AccountError {
    fn into_response(self) -> Response {
        let status = match &self {
            AccountError::BadUsername(_) | AccountError::BadPassword(_) | AccountError::BadToken(_) => {
                StatusCode::BAD_REQUEST
            }
            AccountError::Taken | AccountError::TooLike(_) => StatusCode::CONFLICT,
            AccountError::WrongPassword => StatusCode::UNAUTHORIZED,
            AccountError::RateLimited(_) => StatusCode::TOO_MANY_REQUESTS,
            AccountError::Busy(_) => StatusCode::SERVICE_UNAVAILABLE,
            AccountError::NotLoggedIn => StatusCode::UNAUTHORIZED,
            AccountError::Store(e) => {
                tracing::error!(error = %e, "account store failed");
                StatusCode::INTERNAL_SERVER_ERROR
            }
            AccountError::Hash(e) => {
                tracing::error!(error = %e, "password hashing failed");
                StatusCode::INTERNAL_SERVER_ERROR
            }
        };
        let mut response = refusal(status, self.to_string());
        if let AccountError::RateLimited(seconds) | AccountError::Busy(seconds) = self {
            if let Ok(value) = HeaderValue::from_str(&seconds.to_string()) {
                response.headers_mut().insert(header::RETRY_AFTER, value);
            }
        }
        response
    }
}

/// The body of `/api/signup` and `/api/login`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Credentials {
    username: String,
    password: String,
}

/// What a request with credentials is for.
#[derive(Clone, Copy)]
enum Door {
    SignUp,
    LogIn,
}

pub(super) async fn sign_up(
    state: State<Arc<Shared>>,
    peer: ConnectInfo<std::net::SocketAddr>,
    headers: HeaderMap,
    body: Result<Json<Credentials>, JsonRejection>,
) -> Response {
    enter(Door::SignUp, state, peer, headers, body).await
}

pub(super) async fn log_in(
    state: State<Arc<Shared>>,
    peer: ConnectInfo<std::net::SocketAddr>,
    headers: HeaderMap,
    body: Result<Json<Credentials>, JsonRejection>,
) -> Response {
    enter(Door::LogIn, state, peer, headers, body).await
}

/// Signs up or logs in: a session and its cookie, or the refusal.
async fn enter(
    door: Door,
    State(shared): State<Arc<Shared>>,
    ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
    headers: HeaderMap,
    body: Result<Json<Credentials>, JsonRejection>,
) -> Response {
    let body = match body {
        Ok(Json(body)) => body,
        Err(e) => {
            let message = format!("send JSON {{\"username\": …, \"password\": …}}: {}", e.body_text());
            return refusal(StatusCode::BAD_REQUEST, message);
        }
    };
    let ip = client_ip(peer.ip(), &headers, &shared.config.trusted_proxies);
    let entered = match door {
        Door::SignUp => shared.accounts.sign_up(ip, &body.username, &body.password).await,
        Door::LogIn => {
            let device = device_cookie(&headers);
            shared.accounts.log_in(ip, &body.username, &body.password, device.as_deref()).await
        }
    };
    match entered {
        Ok(session) => {
            if matches!(door, Door::SignUp) {
                tracing::info!(username = %session.account.username, "account created");
            }
            logged_in(&shared, &headers, session).await
        }
        Err(e) => e.into_response(),
    }
}

/// 200 with the player (as `/api/me`) and the session's cookie.
async fn logged_in(shared: &Shared, headers: &HeaderMap, session: Session) -> Response {
    let mut response = match players::me(shared, &session.account).await {
        Ok(me) => Json(me).into_response(),
        Err(e) => return AccountError::Store(e).into_response(),
    };
    let cookie = session_cookie_header(shared, headers, session.token, SESSION_IDLE_MS / 1000);
    if let Ok(value) = HeaderValue::from_str(&cookie) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    // Only the log-in reads it: sent to /api/login alone, never readable by script.
    let device = Cookie::build((DEVICE_COOKIE, session.device))
        .path("/api/login")
        .http_only(true)
        .same_site(SameSite::Strict)
        .secure(is_https(shared, headers))
        .max_age(cookie::time::Duration::seconds(DEVICE_MAX_AGE_SECS))
        .build()
        .to_string();
    if let Ok(value) = HeaderValue::from_str(&device) {
        response.headers_mut().append(header::SET_COOKIE, value);
    }
    response
}

/// True if the browser reached the server over HTTPS (directly, or through the proxy).
fn is_https(shared: &Shared, headers: &HeaderMap) -> bool {
    shared.config.public_url.as_deref().is_some_and(|u| u.starts_with("https://"))
        || headers.get("x-forwarded-proto").and_then(|v| v.to_str().ok()) == Some("https")
}

/// The `Set-Cookie` value of a session: script cannot read it, other sites' requests do not
/// carry it (bar top-level links), and over HTTPS it is never sent in the clear.
fn session_cookie_header(shared: &Shared, headers: &HeaderMap, token: String, max_age_secs: i64) -> String {
    Cookie::build((COOKIE, token))
        .path("/")
        .http_only(true)
        .same_site(SameSite::Lax)
        .secure(is_https(shared, headers))
        .max_age(cookie::time::Duration::seconds(max_age_secs))
        .build()
        .to_string()
}

pub(super) async fn log_out(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    if let Some(token) = session_cookie(&headers) {
        if let Err(e) = shared.accounts.log_out(&token).await {
            return AccountError::Store(e).into_response();
        }
    }
    let mut response = StatusCode::NO_CONTENT.into_response();
    let cookie = session_cookie_header(&shared, &headers, String::new(), 0);
    if let Ok(value) = HeaderValue::from_str(&cookie) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    response
}

/// The body of `/api/password`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PasswordChange {
    current: String,
    new: String,
}

/// `POST /api/password`: a new password for the logged-in account, given its current one;
/// every other session of the account ends (this one stays).
pub(super) async fn change_password(
    State(shared): State<Arc<Shared>>,
    ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
    headers: HeaderMap,
    body: Result<Json<PasswordChange>, JsonRejection>,
) -> Response {
    let body = match body {
        Ok(Json(body)) => body,
        Err(e) => {
            let message = format!("send JSON {{\"current\": …, \"new\": …}}: {}", e.body_text());
            return refusal(StatusCode::BAD_REQUEST, message);
        }
    };
    let Some(token) = session_cookie(&headers) else { return AccountError::NotLoggedIn.into_response() };
    let ip = client_ip(peer.ip(), &headers, &shared.config.trusted_proxies);
    match shared.accounts.change_password(ip, &token, &body.current, &body.new).await {
        Ok(()) => StatusCode::NO_CONTENT.into_response(),
        Err(e) => e.into_response(),
    }
}

/// `POST /api/logout/everywhere`: ends every session of the logged-in account, this one too.
pub(super) async fn log_out_everywhere(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    let Some(token) = session_cookie(&headers) else { return AccountError::NotLoggedIn.into_response() };
    if let Err(e) = shared.accounts.log_out_everywhere(&token).await {
        return e.into_response();
    }
    let mut response = StatusCode::NO_CONTENT.into_response();
    let cookie = session_cookie_header(&shared, &headers, String::new(), 0);
    if let Ok(value) = HeaderValue::from_str(&cookie) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    response
}

/// `GET /api/me`: the logged-in player and the games they play, or `null` for a visitor.
pub(super) async fn me(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    let account = match account_of(&shared, &headers).await {
        Ok(Some(account)) => account,
        // A visitor is nobody, which is an answer, not an error (pages ask on every load).
        Ok(None) => return Json(None::<players::Me>).into_response(),
        Err(e) => return AccountError::Store(e).into_response(),
    };
    match players::me(&shared, &account).await {
        Ok(me) => Json(me).into_response(),
        Err(e) => AccountError::Store(e).into_response(),
    }
}

/// The account of the request's session cookie, if it names a live session. An unknown token
/// (expired, logged out, or made up) is simply no session.
pub(super) async fn account_of(
    shared: &Shared,
    headers: &HeaderMap,
) -> Result<Option<Account>, crate::server::store::StoreError> {
    match session_cookie(headers) {
        Some(token) => shared.accounts.session(&token).await,
        None => Ok(None),
    }
}
