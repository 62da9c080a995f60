//! `POST` and `GET /api/games/{id}/analysis`: ask for a finished game's analysis, and see how
//! it stands (202 while it runs on a POST, 200 with the report once done).

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

use super::error;
use crate::protocol::ErrorCode;
use crate::server::analysis::{AnalysisError, Answer};
use crate::server::state::Shared;

/// How long a client refused for a full server is asked to wait, in seconds.
const RETRY_AFTER: &str = "30";

/// `POST`: the report if there is one (200), else the analysis running or just started (202).
pub(super) async fn request(Path(id): Path<String>, State(shared): State<Arc<Shared>>) -> Response {
    match shared.analyses.request(&id).await {
        Ok(answer @ Answer::Running { .. }) => (StatusCode::ACCEPTED, Json(answer)).into_response(),
        Ok(done) => Json(done).into_response(),
        Err(e) => refused(e),
    }
}

/// `GET`: the report (200), the analysis running (200), or `null` (200) if none was asked for:
/// most finished games have none, which is no error (a page asking shows nothing).
pub(super) async fn get(Path(id): Path<String>, State(shared): State<Arc<Shared>>) -> Response {
    match shared.analyses.get(&id).await {
        Ok(answer) => Json(Some(answer)).into_response(),
        Err(AnalysisError::NotRequested(_)) => Json(None::<Answer>).into_response(),
        Err(e) => refused(e),
    }
}

fn refused(e: AnalysisError) -> Response {
    let (status, code) = match &e {
        AnalysisError::NoSuchGame(_) => (StatusCode::NOT_FOUND, ErrorCode::NoSuchGame),
        AnalysisError::NotRequested(_) => (StatusCode::NOT_FOUND, ErrorCode::BadRequest),
        AnalysisError::Unfinished(_) => (StatusCode::CONFLICT, ErrorCode::BadRequest),
        AnalysisError::Busy(_) => (StatusCode::TOO_MANY_REQUESTS, ErrorCode::TooMany),
        AnalysisError::Damaged { .. } => (StatusCode::UNPROCESSABLE_ENTITY, ErrorCode::DamagedGame),
        AnalysisError::Store(_) => (StatusCode::INTERNAL_SERVER_ERROR, ErrorCode::ServerError),
    };
    if matches!(e, AnalysisError::Damaged { .. } | AnalysisError::Store(_)) {
        tracing::error!(error = %e, "analysis request failed");
    }
    let mut response = error(status, code, e.to_string());
    if status == StatusCode::TOO_MANY_REQUESTS {
        response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static(RETRY_AFTER));
    }
    response
}
