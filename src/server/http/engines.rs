//! `GET /api/engines`: the UCI engines this server offers as seats, with their variants and
//! the strength settings a seat may choose (`[]` when it was started without `--engine`).

use std::sync::Arc;

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Json;

use crate::server::state::Shared;

pub(super) async fn engines(State(shared): State<Arc<Shared>>) -> Response {
    Json(shared.config.room.engines.listing()).into_response()
}
