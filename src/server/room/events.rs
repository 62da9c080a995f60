//! A room's event log: it alone numbers the game's events, keeps the recent ones for clients
//! that come back, and publishes each, serialised once, to the room's subscribers. Handlers
//! only add the events a command caused to a [`Batch`]; no handler computes a version itself.
//! Publishing a batch is the seam a cluster adds its message bus to.

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

/// The versions, the replay history and the broadcast channel of one room.
pub(super) struct EventLog {
    /// The version of the last event published.
    v: u64,
    history: History,
    tx: broadcast::Sender<Broadcast>,
    /// In a cluster, the message bus every event is also published on, for the other nodes.
    relay: Option<Relay>,
}

impl EventLog {
    /// A log whose last event was version `v` (0 for a new game), relaying to `relay` if given.
    pub(super) fn new(v: u64, relay: Option<Relay>) -> EventLog {
        let (tx, _) = broadcast::channel(BROADCAST_CAPACITY);
        EventLog { v, history: History::new(HISTORY_LEN), tx, relay }
    }

    /// Sends one message to the subscribers here and, in a cluster, to the bus.
    fn send(&self, game: &GameId, event: Broadcast) {
        if let Some(relay) = &self.relay {
            let _ = relay.send(Relayed { game: game.clone(), event: event.clone() });
        }
        // No receivers is fine: nobody is watching right now.
        let _ = self.tx.send(event);
    }

    /// The version of the last event published.
    pub(super) fn version(&self) -> u64 {
        self.v
    }

    /// An empty batch for the events of the next command.
    pub(super) fn batch(&self) -> Batch {
        Batch { first: self.v + 1, events: Vec::new() }
    }

    /// Publishes a batch: each event numbered, serialised once, kept for replays and sent to
    /// every subscriber. Returns the last version the store has yet to note, if any.
    pub(super) fn publish(&mut self, game: &GameId, batch: Batch) -> Option<u64> {
        // A batch numbers its events from the log's version when it was begun: one at a time.
        debug_assert_eq!(batch.first, self.v + 1, "batches are published in the order they are begun");
        let mut to_record = None;
        for (make, record) in batch.events {
            self.v += 1;
            let text: Arc<str> = make(game.clone(), self.v).to_json().into();
            self.history.push(self.v, text.clone());
            self.send(game, Broadcast::to_all(Some(self.v), text));
            if record == Record::OnPublish {
                to_record = Some(self.v);
            }
        }
        to_record
    }

    /// Sends a message outside the event sequence (a watcher count): not numbered, not kept.
    pub(super) fn announce(&self, game: &GameId, text: Arc<str>) {
        self.send(game, Broadcast::to_all(None, text));
    }

    /// Sends a message outside the event sequence to some of the followers only (a chat line).
    pub(super) fn tell(&self, game: &GameId, text: Arc<str>, audience: Audience) {
        self.send(game, Broadcast { v: None, text, audience });
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

/// Records a change of `game` in `store`: what a handler awaits before it adds the change's
/// event (durable before visible). The future borrows nothing: a room is `Send` but not `Sync`
/// (bots are not), so no `&Room` may live across an await.
pub(super) fn durable(
    store: &Arc<dyn GameStore>,
    game: &GameId,
    event: StoreEvent,
) -> impl Future<Output = Result<(), Refusal>> + Send + 'static {
    let saving = store.record(game, event);
    let game = game.clone();
    async move {
        saving.await.map_err(|e| {
            tracing::error!(game = %game, error = %e, "store failed");
            Refusal::server_error(e.to_string())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::chess::Color;
    use crate::protocol::OfferKind;

    fn offer(game: GameId, v: u64) -> ServerMessage {
        ServerMessage::Offer { game, v, kind: OfferKind::Draw, by: Color::White }
    }

    #[test]
    fn versions_grow_by_one_and_replays_come_from_the_log() {
        let mut log = EventLog::new(100, None);
        let game = GameId::from("g");
        let mut batch = log.batch();
        assert_eq!(batch.next_version(), 101);
        batch.push_stored(offer);
        assert_eq!(batch.next_version(), 102);
        batch.push(offer);
        let mut rx = log.tx.subscribe();
        assert_eq!(log.publish(&game, batch), Some(102), "only the second event's version is left to note");
        assert_eq!(log.version(), 102);
        assert_eq!(rx.try_recv().expect("first").v, Some(101));
        let second = rx.try_recv().expect("second");
        assert_eq!(second.v, Some(102));
        assert!(second.text.contains("\"v\":102"), "{}", second.text);
        let mut stored_only = log.batch();
        stored_only.push_stored(offer);
        assert_eq!(log.publish(&game, stored_only), None, "a change stored with its version needs no note");
        assert_eq!(log.publish(&game, log.batch()), None, "an empty batch publishes nothing");
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
