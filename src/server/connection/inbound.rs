//! What comes in on a connection besides well-formed requests: the `id` of a frame that could
//! not be parsed, the close code for a peer that broke the WebSocket protocol, draining a
//! flooder before letting go, and the refusal of what an address does too often.

use axum::extract::ws::{Message, WebSocket};
use futures::stream::SplitStream;
use futures::StreamExt;
use serde::Deserialize;

use crate::protocol::Refusal;

/// Only the `id` of a frame, to echo it in errors about frames that are not parsed in full.
#[derive(Deserialize)]
struct IdOnly {
    id: Option<u64>,
}

pub(super) fn id_of(text: &str) -> Option<u64> {
    serde_json::from_str::<IdOnly>(text).ok().and_then(|f| f.id)
}

/// How long a connection closed for flooding still reads before it lets go of the socket.
const DRAIN: std::time::Duration = std::time::Duration::from_secs(1);

/// Reads and drops frames until the peer closes or [`DRAIN`] has passed.
pub(super) async fn drain(stream: &mut SplitStream<WebSocket>) {
    let _ = tokio::time::timeout(DRAIN, async {
        while let Some(Ok(frame)) = stream.next().await {
            if matches!(frame, Message::Close(_)) {
                break;
            }
        }
    })
    .await;
}

/// Refuses with `rate_limited` something the client's address has done too often.
pub(super) fn too_often(what: &str, per_minute: u32) -> Refusal {
    Refusal::rate_limited(format!("your address {what} too often (at most {per_minute} a minute); wait a little"))
}

/// The close code and reason for a peer whose frames broke the WebSocket protocol: 1002 for
/// bad framing, 1007 for a text frame that is not UTF-8, 1009 for a message too big to take.
/// None when the connection simply failed (nothing can be sent then).
pub(super) fn close_code(error: axum::Error) -> Option<(u16, &'static str)> {
    use tokio_tungstenite::tungstenite::Error;
    match error.into_inner().downcast_ref::<Error>()? {
        Error::Protocol(_) => Some((1002, "protocol error")),
        Error::Utf8(_) => Some((1007, "text frame is not UTF-8")),
        Error::Capacity(_) => Some((1009, "message too big")),
        _ => None,
    }
}
