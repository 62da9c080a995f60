//! The lichess-compatible HTTP API: lichess's paths, fields and JSON/ndjson shapes, so that
//! programs written for lichess (lichess-bot, berserk, board apps) play on gambit with nothing
//! changed but the base URL (docs/api.md says what is supported and every difference).
//! Requests carry `Authorization: Bearer TOKEN` (a personal API token with lichess's scopes),
//! or a logged-in browser's session cookie. Every game action goes to the room as the same
//! [`Command`](crate::server::room::Command) the WebSocket sends, with the seat token the
//! caller's account derives for that game: a token can act in its own account's games only.

mod account;
mod challenges;
mod events;
mod games;
mod lichess;
mod notifications;
mod play;
mod relations;
mod tokens;
mod tournaments;
mod tv;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use axum::body::Bytes;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{Json, Router};

use crate::protocol::{ErrorCode, Refusal};
use crate::server::accounts::{session_cookie, ApiToken, Scope, Scopes};
use crate::server::challenges::ChallengeError;
use crate::server::state::{ApiCaller, Shared};
use crate::server::store::StoreError;

/// The API's routes.
pub fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/api/tokens", post(tokens::create).get(tokens::list))
        .route("/api/tokens/{id}", delete(tokens::revoke))
        .route("/api/token/test", post(tokens::test))
        .route("/api/account", get(account::account))
        .route("/api/account/playing", get(account::playing))
        .route("/api/user/{name}", get(account::user))
        .route("/api/users/status", get(account::status))
        .route("/api/bot/online", get(account::online_bots))
        .route("/api/bot/account/upgrade", post(account::upgrade))
        .route("/api/stream/event", get(events::stream))
        .route("/api/rel/following", get(relations::following))
        .route("/api/rel/{action}/{name}", post(relations::relate))
        .route("/api/friends", get(relations::friends))
        .route("/api/notifications", get(notifications::list))
        .route("/api/notifications/read", post(notifications::read))
        .route("/api/tv/channels", get(tv::channels))
        .route("/api/tv/feed", get(tv::feed))
        .route("/api/tournament", post(tournaments::create_arena).get(tournaments::list_arenas))
        .route("/api/tournament/{id}", get(tournaments::show_arena))
        .route("/api/tournament/{id}/results", get(tournaments::results))
        .route("/api/tournament/{id}/{action}", post(tournaments::act_arena))
        .route("/api/roundrobin", post(tournaments::create_round_robin).get(tournaments::list_round_robins))
        .route("/api/roundrobin/{id}", get(tournaments::show_round_robin))
        .route("/api/roundrobin/{id}/{action}", post(tournaments::act_round_robin))
        .route("/api/challenge", get(challenges::list))
        .route("/api/challenge/ai", post(challenges::ai))
        .route("/api/challenge/open", post(challenges::open))
        .route("/api/challenge/{id}", post(challenges::create))
        .route("/api/challenge/{id}/show", get(challenges::show))
        .route("/api/challenge/{id}/accept", post(challenges::accept))
        .route("/api/challenge/{id}/decline", post(challenges::decline))
        .route("/api/challenge/{id}/cancel", post(challenges::cancel))
        .merge(play_routes(play::PlayApi::Bot))
        .merge(play_routes(play::PlayApi::Board))
        .route("/api/board/seek", post(play::seek))
        .route("/game/export/{id}", get(games::export))
        .route("/api/games/user/{name}", get(games::of_user))
        .route("/api/stream/game/{id}", get(games::stream))
}

/// The game routes of the Bot API (`/api/bot/game/…`) or the Board API (`/api/board/game/…`):
/// the same handlers, told which API was called.
fn play_routes(api: play::PlayApi) -> Router<Arc<Shared>> {
    let base = api.base();
    Router::new()
        .route(&format!("{base}/game/stream/{{id}}"), get(play::stream))
        .route(&format!("{base}/game/{{id}}/move/{{uci}}"), post(play::make_move))
        .route(&format!("{base}/game/{{id}}/chat"), post(play::chat).get(play::chat_lines))
        .route(&format!("{base}/game/{{id}}/{{action}}"), post(play::act))
        .route(&format!("{base}/game/{{id}}/{{action}}/"), post(play::act))
        .route(&format!("{base}/game/{{id}}/{{action}}/{{answer}}"), post(play::act))
        .layer(axum::Extension(api))
}

/// A refusal of the API, as lichess words them: a status and `{"error": …}`.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
    retry_after: Option<u64>,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError { status, message: message.into(), retry_after: None }
    }

    pub fn bad(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }

    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, message)
    }

    fn too_many(seconds: u64) -> ApiError {
        ApiError {
            status: StatusCode::TOO_MANY_REQUESTS,
            message: format!("too many requests; wait {seconds} s"),
            retry_after: Some(seconds),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status, Json(serde_json::json!({ "error": self.message }))).into_response();
        if let Some(seconds) = self.retry_after {
            if let Ok(value) = HeaderValue::from_str(&seconds.to_string()) {
                response.headers_mut().insert(header::RETRY_AFTER, value);
            }
        }
        response
    }
}

impl From<Refusal> for ApiError {
    fn from(refusal: Refusal) -> ApiError {
        let status = match refusal.code {
            // As lichess: a game that is not the caller's is no game of theirs.
            ErrorCode::NoSuchGame | ErrorCode::NotAPlayer => StatusCode::NOT_FOUND,
            ErrorCode::RateLimited => StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::ServerError | ErrorCode::DamagedGame => StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::ShuttingDown => StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::LoginRequired => StatusCode::UNAUTHORIZED,
            _ => StatusCode::BAD_REQUEST,
        };
        let retry_after = (status == StatusCode::TOO_MANY_REQUESTS).then_some(60);
        ApiError { status, message: refusal.message, retry_after }
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        tracing::error!(error = %e, "store failed under the API");
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())
    }
}

impl From<ChallengeError> for ApiError {
    fn from(e: ChallengeError) -> ApiError {
        let e = match e {
            ChallengeError::Store(e) => return e.into(),
            other => other,
        };
        let status = match e {
            ChallengeError::NotFound => StatusCode::NOT_FOUND,
            ChallengeError::NotYours => StatusCode::FORBIDDEN,
            ChallengeError::TooMany(_) => StatusCode::TOO_MANY_REQUESTS,
            ChallengeError::Store(_) => StatusCode::INTERNAL_SERVER_ERROR,
        };
        let retry_after = matches!(e, ChallengeError::TooMany(_)).then_some(60);
        ApiError { status, message: e.to_string(), retry_after }
    }
}

/// The caller of an API request: the account its token (or browser session) acts for, and
/// what it may do. Extracting it counts the request against the caller's limit.
pub struct Caller(pub ApiToken);

/// One of the caller's open streams, held by the task that feeds it.
pub type Slot = crate::server::limits::StreamSlot<ApiCaller>;

impl FromRequestParts<Arc<Shared>> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, shared: &Arc<Shared>) -> Result<Caller, ApiError> {
        let Some(token) = credentials(shared, &parts.headers).await? else {
            return Err(ApiError::new(
                StatusCode::UNAUTHORIZED,
                "Missing authorization: send Authorization: Bearer TOKEN",
            ));
        };
        let Some(token) = token else { return Err(ApiError::new(StatusCode::UNAUTHORIZED, "No such token")) };
        let caller = Caller(token);
        shared.api_limits.take(caller.key(), Instant::now()).map_err(ApiError::too_many)?;
        Ok(caller)
    }
}

/// What a request's credentials stand for: None without any, `Some(None)` for a token or
/// session that is no (longer) one.
async fn credentials(shared: &Shared, headers: &HeaderMap) -> Result<Option<Option<ApiToken>>, ApiError> {
    Ok(match bearer(headers) {
        Some(text) => Some(shared.accounts.api_token(text).await?),
        // A logged-in browser (the web client's challenge forms) may do anything its
        // player may: the session is the player.
        None => match session_cookie(headers) {
            Some(session) => Some(shared.accounts.session(&session).await?.map(|account| ApiToken {
                account,
                scopes: Scopes::all(),
                id: None,
            })),
            None => None,
        },
    })
}

/// The account a request of a public page comes from, if its credentials are good: what it
/// shows may depend on who asks (whether they follow the player).
pub async fn viewer(
    shared: &Shared,
    headers: &HeaderMap,
) -> Result<Option<crate::server::accounts::Account>, ApiError> {
    Ok(credentials(shared, headers).await?.flatten().map(|token| token.account))
}

impl Caller {
    /// Refuses a caller without `scope`, as lichess does.
    pub fn require(&self, scope: Scope) -> Result<(), ApiError> {
        if self.0.scopes.contains(scope) {
            Ok(())
        } else {
            Err(ApiError::new(StatusCode::FORBIDDEN, "Missing scope"))
        }
    }

    pub fn account(&self) -> &crate::server::accounts::Account {
        &self.0.account
    }

    /// Whom the caller's requests and streams count against: its token, or its session.
    fn key(&self) -> ApiCaller {
        match self.0.id {
            Some(id) => ApiCaller::Token(id),
            None => ApiCaller::Session(self.0.account.id),
        }
    }

    /// A slot for one more open stream of this caller; 429 when it holds all it may.
    pub fn stream_slot(&self, shared: &Shared) -> Result<Slot, ApiError> {
        shared.api_streams.open(self.key()).ok_or_else(|| ApiError {
            status: StatusCode::TOO_MANY_REQUESTS,
            message: "too many streams open with this token; close some first".into(),
            retry_after: Some(60),
        })
    }
}

/// The token of an `Authorization: Bearer …` header (the API's, and the WebSocket's for
/// `gambit play --token`).
pub(super) fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// The fields of a request: its query string and its body, which lichess's clients send as a
/// form (lichess-bot) or as JSON (berserk), flattened to text (`{"clock":{"limit":60}}` and
/// `{"clock.limit":60}` both give `clock.limit` = `60`; a JSON null is no field).
#[derive(Debug, Default)]
pub struct Fields(HashMap<String, String>);

impl Fields {
    pub fn parse(query: Option<&str>, headers: &HeaderMap, body: &Bytes) -> Result<Fields, ApiError> {
        let mut fields = HashMap::new();
        if let Some(query) = query {
            let pairs: Vec<(String, String)> =
                serde_urlencoded::from_str(query).map_err(|e| ApiError::bad(format!("bad query string: {e}")))?;
            fields.extend(pairs);
        }
        let json = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|t| t.trim_start().starts_with("application/json"));
        if json && !body.is_empty() {
            let value: serde_json::Value =
                serde_json::from_slice(body).map_err(|e| ApiError::bad(format!("malformed JSON: {e}")))?;
            let serde_json::Value::Object(object) = value else {
                return Err(ApiError::bad("send a JSON object"));
            };
            flatten("", object, &mut fields);
        } else if !body.is_empty() {
            let pairs: Vec<(String, String)> =
                serde_urlencoded::from_bytes(body).map_err(|e| ApiError::bad(format!("bad form body: {e}")))?;
            fields.extend(pairs);
        }
        Ok(Fields(fields))
    }

    /// A field's text; an empty one counts as absent.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(String::as_str).filter(|v| !v.is_empty())
    }

    /// A true/false field, in any case (lichess-bot's Python sends `rated=False`).
    pub fn bool(&self, key: &str) -> Result<Option<bool>, ApiError> {
        match self.get(key) {
            None => Ok(None),
            Some(text) if text.eq_ignore_ascii_case("true") => Ok(Some(true)),
            Some(text) if text.eq_ignore_ascii_case("false") => Ok(Some(false)),
            Some(other) => Err(ApiError::bad(format!("{key} is true or false, not {other:?}"))),
        }
    }

    /// A whole-number field within `range`.
    pub fn number(&self, key: &str, range: std::ops::RangeInclusive<u64>) -> Result<Option<u64>, ApiError> {
        let Some(text) = self.get(key) else { return Ok(None) };
        match text.parse::<u64>() {
            Ok(n) if range.contains(&n) => Ok(Some(n)),
            _ => Err(ApiError::bad(format!(
                "{key} is a whole number from {} to {}, not {text:?}",
                range.start(),
                range.end()
            ))),
        }
    }
}

/// The most bytes of a request body the API reads.
const BODY_MAX: usize = 64 * 1024;

impl<S: Send + Sync> axum::extract::FromRequest<S> for Fields {
    type Rejection = ApiError;

    async fn from_request(request: axum::extract::Request, _: &S) -> Result<Fields, ApiError> {
        let (parts, body) = request.into_parts();
        let bytes = axum::body::to_bytes(body, BODY_MAX)
            .await
            .map_err(|_| ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, format!("at most {BODY_MAX} bytes")))?;
        Fields::parse(parts.uri.query(), &parts.headers, &bytes)
    }
}

fn flatten(prefix: &str, object: serde_json::Map<String, serde_json::Value>, into: &mut HashMap<String, String>) {
    for (key, value) in object {
        let key = if prefix.is_empty() { key } else { format!("{prefix}.{key}") };
        match value {
            serde_json::Value::Null => {}
            serde_json::Value::String(s) => {
                into.insert(key, s);
            }
            serde_json::Value::Object(inner) => flatten(&key, inner, into),
            other => {
                into.insert(key, other.to_string());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(content_type: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_str(content_type).expect("header"));
        headers
    }

    #[test]
    fn fields_come_from_forms_json_and_the_query() {
        let form = Fields::parse(
            Some("offeringDraw=true"),
            &headers("application/x-www-form-urlencoded"),
            &Bytes::from("clock.limit=60&color=white&reason=tooFast"),
        )
        .expect("a form");
        assert_eq!(form.get("clock.limit"), Some("60"));
        assert_eq!(form.bool("offeringDraw").ok().flatten(), Some(true));
        let json = Fields::parse(
            None,
            &headers("application/json"),
            &Bytes::from(r#"{"rated":false,"clock":{"limit":180},"clock.increment":2,"fen":null,"color":""}"#),
        )
        .expect("JSON");
        assert_eq!(json.bool("rated").ok().flatten(), Some(false));
        assert_eq!(json.number("clock.limit", 0..=10_800).ok().flatten(), Some(180));
        assert_eq!(json.number("clock.increment", 0..=60).ok().flatten(), Some(2));
        assert_eq!(json.get("fen"), None, "null is no field");
        assert_eq!(json.get("color"), None, "empty is no field");
        assert!(json.number("clock.limit", 0..=60).is_err());
        assert!(Fields::parse(None, &headers("application/json"), &Bytes::from("[1]")).is_err());
        assert!(Fields::parse(None, &headers("application/json"), &Bytes::from("{")).is_err());
        let bad = Fields::parse(None, &HeaderMap::new(), &Bytes::from("rated=maybe&casual=False")).expect("a form");
        assert!(bad.bool("rated").is_err());
        assert_eq!(bad.bool("casual").ok().flatten(), Some(false), "Python's spelling");
    }

    #[test]
    fn bearer_tokens_are_read_in_any_case() {
        let mut headers = HeaderMap::new();
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer gmb_abc"));
        assert_eq!(bearer(&headers), Some("gmb_abc"));
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("bearer  gmb_abc "));
        assert_eq!(bearer(&headers), Some("gmb_abc"));
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Basic abc"));
        assert_eq!(bearer(&headers), None);
    }
}
