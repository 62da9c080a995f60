//! The room's one publish step: each event numbered by the [`EventLog`](super::events::EventLog),
//! kept and broadcast, its version noted by the store; watcher counts; and the store's writes.

use std::sync::Arc;

use tokio::time::Instant;

use super::actor::{Room, Version};
use crate::protocol::{GameId, Refusal, ServerMessage};
use crate::server::store::StoreEvent;

impl Room {
    // ---- events ----------------------------------------------------------------------------

    /// Publishes the next event, made by `build` for its version.
    pub(super) fn emit(&mut self, build: impl FnOnce(GameId, u64) -> ServerMessage) {
        self.emit_as(Version::ToRecord, build);
    }

    pub(super) fn emit_as(&mut self, version: Version, build: impl FnOnce(GameId, u64) -> ServerMessage) {
        let text: Arc<str> = build(self.id.clone(), self.events.next_version()).to_json().into();
        self.publish(text, version);
    }

    /// Publishes a fresh `state` as the next event.
    pub(super) fn emit_state(&mut self, version: Version) {
        let text = self.state_text_as(self.events.next_version());
        self.publish(text, version);
    }

    /// The one publish step: the log numbers, keeps and broadcasts the event; the store notes
    /// its version unless it has it already (without waiting: what the event reports is stored
    /// already, or is not kept across restarts).
    pub(super) fn publish(&mut self, text: Arc<str>, version: Version) {
        let v = self.events.publish(text);
        if version == Version::ToRecord {
            drop(self.ctx.store.record(&self.id, StoreEvent::Version { v }));
        }
    }

    pub(super) fn emit_seats(&mut self) {
        let seats = self.seat_views();
        let claim = self.claim_view(Instant::now());
        self.emit(|game, v| ServerMessage::Seats { game, v, seats, claim });
        self.report();
    }

    /// Tells the lobby the games list may have changed.
    pub(super) fn report(&self) {
        let _ = self.ctx.lobby.send(self.summary());
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
            self.events.announce(text);
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
