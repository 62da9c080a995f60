//! Personal API tokens: made, listed and revoked by a logged-in player (`/api/tokens`, the
//! `/account/tokens` page), and tested as lichess tests them (`POST /api/token/test`).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::ApiError;
use crate::server::accounts::{Account, AccountError, Scopes};
use crate::server::http::accounts::account_of;
use crate::server::state::Shared;

/// The body of `POST /api/tokens`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct NewToken {
    description: String,
    #[serde(default)]
    scopes: Vec<String>,
}

/// The logged-in player of a request made with the session cookie (tokens are made by a
/// person, never by another token).
async fn logged_in(shared: &Shared, headers: &HeaderMap) -> Result<Account, ApiError> {
    account_of(shared, headers).await?.ok_or_else(|| ApiError::new(StatusCode::UNAUTHORIZED, "not logged in"))
}

/// `POST /api/tokens`: a new token, shown this once.
pub(super) async fn create(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let account = logged_in(&shared, &headers).await?;
    let body: NewToken = serde_json::from_slice(&body)
        .map_err(|e| ApiError::bad(format!("send JSON {{\"description\": TEXT, \"scopes\": [SCOPE, …]}}: {e}")))?;
    let scopes = Scopes::parse(body.scopes.iter().map(String::as_str))
        .map_err(|name| ApiError::bad(format!("unknown scope {name:?}")))?;
    let (token, view) = match shared.accounts.create_api_token(&account, &body.description, scopes).await {
        Ok(made) => made,
        Err(AccountError::Store(e)) => return Err(e.into()),
        Err(e) => return Err(ApiError::bad(e.to_string())),
    };
    // The token itself is never logged: only that one was made.
    tracing::info!(username = %account.username, token = view.id, "API token created");
    let mut answer = serde_json::to_value(&view).unwrap_or_default();
    answer["token"] = json!(token);
    Ok((StatusCode::CREATED, Json(answer)).into_response())
}

/// `GET /api/tokens`: the player's tokens (never the tokens themselves).
pub(super) async fn list(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Result<Response, ApiError> {
    let account = logged_in(&shared, &headers).await?;
    let tokens = shared.accounts.api_tokens(&account).await?;
    Ok(Json(json!({ "tokens": tokens })).into_response())
}

/// `DELETE /api/tokens/{id}`: revokes one of the player's tokens.
pub(super) async fn revoke(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let account = logged_in(&shared, &headers).await?;
    let id: i64 = id.parse().map_err(|_| ApiError::bad(format!("{id:?} is no token number")))?;
    if !shared.accounts.revoke_api_token(&account, id).await? {
        return Err(ApiError::not_found("you have no such token"));
    }
    tracing::info!(username = %account.username, token = id, "API token revoked");
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// The most tokens one test may name.
const TEST_MAX: usize = 1000;

/// `POST /api/token/test`: comma-separated tokens in the body; for each, whose it is and what
/// it may do, or null (lichess's answer, which lichess-bot reads to check its scopes).
pub(super) async fn test(State(shared): State<Arc<Shared>>, body: Bytes) -> Result<Response, ApiError> {
    let text = std::str::from_utf8(&body).map_err(|_| ApiError::bad("send the tokens as text"))?;
    let tokens: Vec<&str> = text.split(',').map(str::trim).filter(|t| !t.is_empty()).collect();
    if tokens.len() > TEST_MAX {
        return Err(ApiError::bad(format!("at most {TEST_MAX} tokens at once")));
    }
    let mut answer = Map::new();
    for token in tokens {
        let info = shared.accounts.api_token(token).await?.map(|t| {
            json!({ "userId": super::lichess::user_id(&t.account.username), "scopes": t.scopes.to_string(), "expires": null })
        });
        answer.insert(token.to_string(), info.unwrap_or(Value::Null));
    }
    Ok(Json(Value::Object(answer)).into_response())
}
