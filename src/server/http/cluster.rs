//! `/api/cluster`: this node's name and the live nodes, each with its games, connections and
//! last heartbeat; 404 on a server that is not part of a cluster.

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

use super::{error, store_failed};
use crate::protocol::ErrorCode;
use crate::server::state::Shared;

pub(super) async fn nodes(State(shared): State<Arc<Shared>>) -> Response {
    let Some(cluster) = &shared.cluster else {
        let message = "this server is not part of a cluster (start it with --cluster)";
        return error(StatusCode::NOT_FOUND, ErrorCode::BadRequest, message);
    };
    match cluster.nodes().await {
        Ok(nodes) => Json(serde_json::json!({ "node": cluster.node(), "nodes": nodes })).into_response(),
        Err(e) => store_failed(e),
    }
}
