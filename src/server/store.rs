//! The durable-store hook: the room hands every change to a [`GameStore`] and waits for it
//! before broadcasting, so a store written later (SQLite) makes moves durable before visible.
//! Today the only store is [`NoStore`], which keeps nothing.

use futures::future::BoxFuture;
use thiserror::Error;

/// A change to a game that a store would persist.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreEvent {
    /// A game was created from this FEN with these seats (as shown on the wire).
    Created { variant: String, initial_fen: String },
    /// The move number `ply` (1-based) was played.
    Move { ply: usize, uci: String },
    /// Moves were taken back; `ply` moves remain.
    Undo { ply: usize },
    /// The game ended.
    Ended { result: String, reason: String },
}

/// A store refused or failed to record a change.
#[derive(Debug, Clone, Error)]
#[error("could not save the game: {0}")]
pub struct StoreError(pub String);

/// Where rooms record their changes. `record` is awaited before the change is broadcast.
pub trait GameStore: Send + Sync + 'static {
    /// Records one change of game `game`.
    fn record(&self, game: &str, event: StoreEvent) -> BoxFuture<'static, Result<(), StoreError>>;
}

/// A store that keeps nothing: games live in memory only.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoStore;

impl GameStore for NoStore {
    fn record(&self, _game: &str, _event: StoreEvent) -> BoxFuture<'static, Result<(), StoreError>> {
        Box::pin(async { Ok(()) })
    }
}
