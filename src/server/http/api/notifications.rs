//! A player's notifications (gambit's own; lichess keeps its notifications to its site):
//! `GET /api/notifications` lists the newest with how many are unread, `POST
//! /api/notifications/read` marks some (`{"ids": [...]}`) or all of them read.

use std::sync::Arc;

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

use super::{ApiError, Caller};
use crate::server::state::Shared;

/// The most ids one request marks read.
const IDS_MAX: usize = 200;

/// `GET /api/notifications`.
pub(super) async fn list(State(shared): State<Arc<Shared>>, caller: Caller) -> Result<Response, ApiError> {
    Ok(Json(shared.notifications.list(caller.account().id).await?).into_response())
}

/// `POST /api/notifications/read`: `{"ok": true, "unread": n}`.
pub(super) async fn read(
    State(shared): State<Arc<Shared>>,
    caller: Caller,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    let ids = ids(&body)?;
    let unread = shared.notifications.read(caller.account().id, ids).await?;
    Ok(Json(json!({ "ok": true, "unread": unread })).into_response())
}

/// The ids a body names: None (all) for no body or one without `ids`.
fn ids(body: &[u8]) -> Result<Option<Vec<i64>>, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Body {
        ids: Option<Vec<i64>>,
    }
    let body: Body = serde_json::from_slice(body)
        .map_err(|e| ApiError::bad(format!("send {{\"ids\": [numbers]}} or nothing: {e}")))?;
    match body.ids {
        Some(ids) if ids.len() > IDS_MAX => Err(ApiError::bad(format!("at most {IDS_MAX} ids at once"))),
        ids => Ok(ids),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_names_some_ids_or_all_and_bad_ones_are_refused() {
        assert_eq!(ids(b"").ok(), Some(None));
        assert_eq!(ids(b"{}").ok(), Some(None));
        assert_eq!(ids(br#"{"ids":[3,4]}"#).ok(), Some(Some(vec![3, 4])));
        assert!(ids(br#"{"ids":"all"}"#).is_err());
        assert!(ids(br#"{"id":3}"#).is_err());
        assert!(ids(b"ids=3").is_err());
        let many = format!("{{\"ids\":[{}]}}", vec!["1"; IDS_MAX + 1].join(","));
        assert!(ids(many.as_bytes()).is_err());
    }
}
