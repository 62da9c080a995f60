//! A room's event log: it alone numbers the game's events, keeps the recent ones for clients
//! that come back, and publishes each, serialised once, to the room's subscribers. No handler
//! computes a version itself. Publishing is the seam a cluster adds its message bus to.

use std::sync::Arc;

use tokio::sync::broadcast;

use super::history::History;
use super::{Broadcast, Subscription, BROADCAST_CAPACITY, HISTORY_LEN};

/// The versions, the replay history and the broadcast channel of one room.
pub(super) struct EventLog {
    /// The version of the last event published.
    v: u64,
    history: History,
    tx: broadcast::Sender<Broadcast>,
}

impl EventLog {
    /// A log whose last event was version `v` (0 for a new game).
    pub(super) fn new(v: u64) -> EventLog {
        let (tx, _) = broadcast::channel(BROADCAST_CAPACITY);
        EventLog { v, history: History::new(HISTORY_LEN), tx }
    }

    /// The version of the last event published.
    pub(super) fn version(&self) -> u64 {
        self.v
    }

    /// The version the next event will have: stored with the change it reports, before it is
    /// published.
    pub(super) fn next_version(&self) -> u64 {
        self.v + 1
    }

    /// Publishes the next event, `text` (made for [`EventLog::next_version`]): kept for replays
    /// and sent to every subscriber. Returns its version.
    pub(super) fn publish(&mut self, text: Arc<str>) -> u64 {
        self.v += 1;
        self.history.push(self.v, text.clone());
        // No receivers is fine: nobody is watching right now.
        let _ = self.tx.send(Broadcast { v: Some(self.v), text });
        self.v
    }

    /// Sends a message outside the event sequence (a watcher count): not numbered, not kept.
    pub(super) fn announce(&self, text: Arc<str>) {
        let _ = self.tx.send(Broadcast { v: None, text });
    }

    /// A subscription that starts after version `since` (the missed events replayed), or with
    /// `state` (the game now) when `since` is None or its events are no longer all held.
    pub(super) fn subscribe(&self, since: Option<u64>, state: impl FnOnce() -> Arc<str>) -> Subscription {
        let rx = self.tx.subscribe();
        let initial = match since.and_then(|since| self.history.since(since, self.v)) {
            Some(replay) => replay,
            None => vec![state()],
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

    #[test]
    fn versions_grow_by_one_and_replays_come_from_the_log() {
        let mut log = EventLog::new(100);
        assert_eq!(log.next_version(), 101);
        assert_eq!(log.publish("a".into()), 101);
        assert_eq!(log.publish("b".into()), 102);
        let replay = log.subscribe(Some(100), || "state".into());
        assert_eq!(replay.initial, vec![Arc::<str>::from("a"), "b".into()]);
        assert_eq!(replay.v, 102);
        let fresh = log.subscribe(None, || "state".into());
        assert_eq!(fresh.initial, vec![Arc::<str>::from("state")]);
        // A version from before the log's history: a fresh state, not a partial replay.
        assert_eq!(log.subscribe(Some(5), || "state".into()).initial, vec![Arc::<str>::from("state")]);
        assert_eq!(log.subscribers(), 2, "the two subscriptions still held");
    }
}
