//! A room's event log: it alone numbers the game's events, hands them to the store (durable
//! before visible), keeps the recent ones for clients that come back, and publishes each,
//! serialised once, to the room's subscribers. Handlers only add the events a command caused
//! to a [`Batch`]; no handler computes a version itself. Publishing a batch is the seam a
//! cluster adds its message bus to.

use std::future::Future;
use std::sync::Arc;

use tokio::sync::broadcast;

use super::history::History;
use super::{Audience, Broadcast, Relay, Relayed, Subscription, BROADCAST_CAPACITY, HISTORY_LEN};
use crate::protocol::{GameId, Refusal, ServerMessage};
use crate::server::store::{GameStore, StoreEvent};

/// Makes an event's message once the log has given it its version.
type MakeEvent = Box<dyn FnOnce(GameId, u64) -> ServerMessage + Send>;

/// The events one command (or one of the room's timers) caused, in order, not yet published.
/// Handlers add to it; the room publishes it in one step when the command is done.
pub(super) struct Batch {
    /// The version the batch's first event gets.
    first: u64,
    events: Vec<(MakeEvent, Record)>,
}

/// Whether the store still needs an event's version.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Record {
    /// Written with the change the event reports (a move, a takeback, the end).
    WithChange,
    /// Noted, without waiting, when the event is published.
    OnPublish,
}

impl Batch {
    /// The version the next event added will have: what a change stores with itself, before
    /// its event is added with [`Batch::push_stored`].
    pub(super) fn next_version(&self) -> u64 {
        self.first + self.events.len() as u64
    }

    /// Adds an event; the store notes its version when it is published.
    pub(super) fn push(&mut self, make: impl FnOnce(GameId, u64) -> ServerMessage + Send + 'static) {
        self.events.push((Box::new(make), Record::OnPublish));
    }

    /// Adds the event of a change stored with the version [`Batch::next_version`] gave it.
    pub(super) fn push_stored(&mut self, make: impl FnOnce(GameId, u64) -> ServerMessage + Send + 'static) {
        self.events.push((Box::new(make), Record::WithChange));
    }

    pub(super) fn is_empty(&self) -> bool {
        self.events.is_empty()
    }
}

/// The versions, the replay history and the broadcast channel of one room, and the store its
/// changes are written to.
pub(super) struct EventLog {
    game: GameId,
    /// The version of the last event published.
    v: u64,
    /// The game's end has been published (the players may read the spectators' room).
    ended: bool,
    history: History,
    tx: broadcast::Sender<Broadcast>,
    /// In a cluster, the message bus every event is also published on, for the other nodes.
    relay: Option<Relay>,
    store: Arc<dyn GameStore>,
}

impl EventLog {
    /// The log of `game`, whose last event was version `v` (0 for a new game) and whose end has
    /// been published if it is `over`, relaying to `relay` if given and storing in `store`.
    pub(super) fn new(
        game: GameId,
        (v, over): (u64, bool),
        relay: Option<Relay>,
        store: Arc<dyn GameStore>,
    ) -> EventLog {
        let (tx, _) = broadcast::channel(BROADCAST_CAPACITY);
        EventLog { game, v, ended: over, history: History::new(HISTORY_LEN), tx, relay, store }
    }

    /// The game whose events these are.
    pub(super) fn game(&self) -> &GameId {
        &self.game
    }

    /// Sends one message to the subscribers here and, in a cluster, to the bus.
    fn send(&self, event: Broadcast) {
        if let Some(relay) = &self.relay {
            let _ = relay.send(Relayed { game: self.game.clone(), event: event.clone() });
        }
        // No receivers is fine: nobody is watching right now.
        let _ = self.tx.send(event);
    }

    /// Records a change in the store: what a handler awaits before it adds the change's event
    /// (durable before visible). The future borrows nothing: a room is `Send` but not `Sync`
    /// (bots are not), so no `&Room` may live across an await.
    pub(super) fn durable(&self, event: StoreEvent) -> impl Future<Output = Result<(), Refusal>> + Send + 'static {
        let saving = self.store.record(&self.game, event);
        let game = self.game.clone();
        async move {
            saving.await.map_err(|e| {
                tracing::error!(game = %game, error = %e, "store failed");
                Refusal::server_error(e.to_string())
            })
        }
    }

    /// The version of the last event published.
    pub(super) fn version(&self) -> u64 {
        self.v
    }

    /// An empty batch for the events of the next command.
    pub(super) fn batch(&self) -> Batch {
        Batch { first: self.v + 1, events: Vec::new() }
    }

    /// Publishes a batch of the events of a game that is `over` or not: each event numbered,
    /// serialised once, kept for replays and sent to every subscriber (each change they report
    /// is stored already: durable before visible); the store notes the last version it does
    /// not have yet, without waiting (what those events report is not kept across restarts, see
    /// `RESTART_GAP`). True if this published the game's end.
    pub(super) fn publish(&mut self, batch: Batch, over: bool) -> bool {
        if let Some(v) = self.broadcast(batch) {
            drop(self.store.record(&self.game, StoreEvent::Version { v }));
        }
        let ended = over && !self.ended;
        self.ended = over;
        ended
    }

    /// Numbers, keeps and sends a batch's events: the last version the store has yet to note.
    fn broadcast(&mut self, batch: Batch) -> Option<u64> {
        // A batch numbers its events from the log's version when it was begun: one at a time.
        debug_assert_eq!(batch.first, self.v + 1, "batches are published in the order they are begun");
        let mut to_record = None;
        for (make, record) in batch.events {
            self.v += 1;
            let text: Arc<str> = make(self.game.clone(), self.v).to_json().into();
            self.history.push(self.v, text.clone());
            self.send(Broadcast::to_all(Some(self.v), text));
            if record == Record::OnPublish {
                to_record = Some(self.v);
            }
        }
        to_record
    }

    /// Sends a message outside the event sequence (a watcher count): not numbered, not kept.
    pub(super) fn announce(&self, text: Arc<str>) {
        self.send(Broadcast::to_all(None, text));
    }

    /// Sends a message outside the event sequence to some of the followers only (a chat line).
    pub(super) fn tell(&self, text: Arc<str>, audience: Audience) {
        self.send(Broadcast { v: None, text, audience });
    }

    /// A subscription that starts after version `since` (the missed events replayed), or with
    /// `fresh` (a `state`, the game now, and what goes with it) when `since` is None or its
    /// events are no longer all held.
    pub(super) fn subscribe(&self, since: Option<u64>, fresh: impl FnOnce() -> Vec<Arc<str>>) -> Subscription {
        let rx = self.tx.subscribe();
        let initial = match since.and_then(|since| self.history.since(since, self.v)) {
            Some(replay) => replay,
            None => fresh(),
        };
        Subscription { rx, initial, v: self.v }
    }

    /// How many subscribers the room has (connections, observers, bots).
    pub(super) fn subscribers(&self) -> usize {
        self.tx.receiver_count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::chess::Color;
    use crate::protocol::OfferKind;
    use crate::server::store::NoStore;

    fn offer(game: GameId, v: u64) -> ServerMessage {
        ServerMessage::Offer { game, v, kind: OfferKind::Draw, by: Color::White }
    }

    #[test]
    fn versions_grow_by_one_and_replays_come_from_the_log() {
        let mut log = EventLog::new(GameId::from("g"), (100, false), None, Arc::new(NoStore));
        let mut batch = log.batch();
        assert_eq!(batch.next_version(), 101);
        batch.push_stored(offer);
        assert_eq!(batch.next_version(), 102);
        batch.push(offer);
        let mut rx = log.tx.subscribe();
        assert_eq!(log.broadcast(batch), Some(102), "only the second event's version is left to note");
        assert_eq!(log.version(), 102);
        assert_eq!(rx.try_recv().expect("first").v, Some(101));
        let second = rx.try_recv().expect("second");
        assert_eq!(second.v, Some(102));
        assert!(second.text.contains("\"v\":102"), "{}", second.text);
        let mut stored_only = log.batch();
        stored_only.push_stored(offer);
        assert_eq!(log.broadcast(stored_only), None, "a change stored with its version needs no note");
        assert_eq!(log.broadcast(log.batch()), None, "an empty batch publishes nothing");
        assert!(log.publish(log.batch(), true), "the end is out once published over");
        assert!(!log.publish(log.batch(), true), "and only once");
        assert_eq!(log.version(), 103);
        let replay = log.subscribe(Some(101), || vec!["state".into()]);
        assert_eq!(replay.initial.len(), 2);
        assert!(replay.initial[0].contains("\"v\":102"));
        assert_eq!(replay.v, 103);
        let fresh = log.subscribe(None, || vec!["state".into()]);
        assert_eq!(fresh.initial, vec![Arc::<str>::from("state")]);
        // A version from before the log's history: a fresh state, not a partial replay.
        assert_eq!(log.subscribe(Some(5), || vec!["state".into()]).initial, vec![Arc::<str>::from("state")]);
        assert_eq!(log.subscribers(), 3, "the receiver and the two subscriptions still held");
    }
}
