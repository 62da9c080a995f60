//! The room's one publish step: the events a command caused numbered by the
//! [`EventLog`](super::events::EventLog), kept and broadcast, their version noted by the store;
//! watcher counts; and the store's writes.

use std::sync::Arc;

use tokio::time::Instant;

use super::actor::Room;
use super::events::Batch;
use crate::protocol::{GameId, GameState, Refusal, ServerMessage};
use crate::server::store::StoreEvent;

impl Room {
    // ---- events ----------------------------------------------------------------------------

    /// The one publish step, run when a command or timer is done: the log numbers, keeps and
    /// broadcasts the events it caused (each change they report is stored already: durable
    /// before visible); the store notes the last version it does not have yet, without waiting
    /// (what those events report is not kept across restarts, see `RESTART_GAP`); and the
    /// lobby hears of the game's new line in the list.
    pub(super) fn publish(&mut self, batch: Batch) {
        if batch.is_empty() {
            return;
        }
        let was_over = self.ended_published;
        if let Some(v) = self.events.publish(&self.id, batch) {
            drop(self.ctx.store.record(&self.id, StoreEvent::Version { v }));
        }
        self.ended_published = self.game.is_over();
        if self.ended_published && !was_over {
            self.open_spectators_room();
        }
        self.report();
    }

    /// A fresh `state` event: the game as it is now, numbered when published.
    pub(super) fn state_event(&self) -> impl FnOnce(GameId, u64) -> ServerMessage + Send + 'static {
        let state = self.state();
        move |_, v| ServerMessage::State(Box::new(GameState { v, ..state }))
    }

    /// Adds a `seats` event: who sits where, who is online, and any claim an absent player allows.
    pub(super) fn push_seats(&self, out: &mut Batch) {
        let seats = self.seat_views();
        let claim = self.claim_view(Instant::now());
        out.push(move |game, v| ServerMessage::Seats { game, v, seats, claim });
    }

    /// Tells the lobby the games list may have changed.
    pub(super) fn report(&self) {
        let _ = self.ctx.lobby.send(super::LobbyNote::Summary(self.summary()));
    }

    pub(super) fn schedule_flush(&mut self) {
        if self.flush_at.is_none() {
            self.flush_at = Some(Instant::now() + self.ctx.config.watcher_batch);
        }
    }

    pub(super) fn flush_watchers(&mut self) {
        self.flush_at = None;
        if self.watchers != self.watchers_sent {
            self.watchers_sent = self.watchers;
            let text: Arc<str> =
                ServerMessage::Watchers { game: self.id.clone(), count: self.watchers }.to_json().into();
            self.events.announce(&self.id, text);
            self.report();
        }
    }

    /// Records a change. The future does not borrow the room: a room is `Send` but not `Sync`
    /// (bots are not), so no `&Room` may live across an await.
    pub(super) fn store(
        &self,
        event: StoreEvent,
    ) -> impl std::future::Future<Output = Result<(), Refusal>> + Send + 'static {
        let saving = self.ctx.store.record(&self.id, event);
        let id = self.id.clone();
        async move {
            saving.await.map_err(|e| {
                tracing::error!(game = %id, error = %e, "store failed");
                Refusal::server_error(e.to_string())
            })
        }
    }
}
