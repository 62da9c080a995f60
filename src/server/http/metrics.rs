//! `/healthz`, which answers while the server serves, and `/metrics`, the Prometheus text
//! exposition of the server's counters and gauges.

use std::sync::Arc;

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};

use crate::server::state::Shared;

pub(super) async fn health() -> &'static str {
    "ok\n"
}

pub(super) async fn metrics(State(shared): State<Arc<Shared>>) -> Response {
    let content_type = "application/openmetrics-text; version=1.0.0; charset=utf-8";
    ([(header::CONTENT_TYPE, content_type)], shared.metrics.render()).into_response()
}
