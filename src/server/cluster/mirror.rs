//! A node's copies of the games its sockets follow: for each game one local broadcast channel,
//! fed from the game's bus channel, so an event crosses Redis once per node and is fanned out
//! here (its text shared by every socket). The mirror watches the versions: when one is
//! skipped (Redis dropped it, or the game moved to another node and jumped its versions), it
//! holds back what follows until a fresh `state` from the owner has gone out first.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::broadcast;

use crate::protocol::GameId;
use crate::server::room::{Audience, Broadcast, HISTORY_LEN};

/// How every `state` event's JSON text begins (`ServerMessage` puts its type first).
const STATE_PREFIX: &str = "{\"type\":\"state\"";

/// One followed game.
struct Mirror {
    tx: broadcast::Sender<Broadcast>,
    /// The last version sent on (0: none yet).
    last: u64,
    /// While a fresh state is being fetched: what arrived meanwhile.
    held: Option<Vec<Broadcast>>,
}

/// What became of an event from the bus.
#[derive(Debug, PartialEq, Eq)]
pub enum Delivered {
    /// Sent on (or dropped as already seen).
    Passed,
    /// A version is missing: fetch a fresh state and call [`Mirrors::repaired`].
    Repair,
    /// The game was rebuilt on another node (a state after a jump in versions), sent on.
    Moved,
}

/// The mirrors of one node.
#[derive(Default)]
pub struct Mirrors {
    games: Mutex<HashMap<GameId, Mirror>>,
}

/// The bus channel of a game's events.
pub fn channel(game: &str) -> String {
    format!("gambit:game:{game}")
}

/// A broadcast as it travels on the bus: its version (or `-`, `-players`, `-spectators` for
/// messages outside the event sequence, by audience), a newline, the JSON text.
pub fn encode(event: &Broadcast) -> Vec<u8> {
    let v = match (event.v, event.audience) {
        (Some(v), _) => v.to_string(),
        (None, Audience::Everyone) => "-".to_string(),
        (None, Audience::Players) => "-players".to_string(),
        (None, Audience::Spectators) => "-spectators".to_string(),
    };
    let mut payload = Vec::with_capacity(v.len() + 1 + event.text.len());
    payload.extend_from_slice(v.as_bytes());
    payload.push(b'\n');
    payload.extend_from_slice(event.text.as_bytes());
    payload
}

/// The broadcast in a bus payload; None for a payload that is not one.
pub fn decode(payload: &[u8]) -> Option<Broadcast> {
    let text = std::str::from_utf8(payload).ok()?;
    let (v, text) = text.split_once('\n')?;
    let (v, audience) = match v {
        "-" => (None, Audience::Everyone),
        "-players" => (None, Audience::Players),
        "-spectators" => (None, Audience::Spectators),
        v => (Some(v.parse().ok()?), Audience::Everyone),
    };
    Some(Broadcast { v, text: Arc::from(text), audience })
}

impl Mirrors {
    fn lock(&self) -> MutexGuard<'_, HashMap<GameId, Mirror>> {
        // A map of channels: still whole if a holder panicked.
        self.games.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A receiver of `game`'s events here (the mirror is made on first use; the caller then
    /// makes sure the bus channel is subscribed).
    pub fn receiver(&self, game: &str) -> broadcast::Receiver<Broadcast> {
        let mut games = self.lock();
        let mirror = games.entry(game.to_string()).or_insert_with(|| Mirror {
            tx: broadcast::channel(HISTORY_LEN).0,
            last: 0,
            held: None,
        });
        mirror.tx.subscribe()
    }

    /// The first subscriber of a fresh mirror starts at version `v`: events follow on from it.
    /// A later subscriber does not move the mirror on: events up to its `v` may still be on
    /// their way to the others (the owner's answer can overtake them), and each subscriber
    /// skips what its own start covers.
    pub fn note(&self, game: &str, v: u64) {
        if let Some(mirror) = self.lock().get_mut(game) {
            if mirror.held.is_none() && mirror.last == 0 {
                mirror.last = v;
            }
        }
    }

    /// An event from the bus, passed on to the game's followers here unless a version was
    /// skipped; what the caller is to do about it.
    pub fn deliver(&self, game: &str, event: Broadcast) -> Delivered {
        let mut games = self.lock();
        let Some(mirror) = games.get_mut(game) else { return Delivered::Passed };
        let Some(v) = event.v else {
            let _ = mirror.tx.send(event);
            return Delivered::Passed;
        };
        if let Some(held) = &mut mirror.held {
            held.push(event);
            return Delivered::Passed;
        }
        if v <= mirror.last {
            return Delivered::Passed;
        }
        let skipped = mirror.last != 0 && v > mirror.last + 1;
        let state = event.text.starts_with(STATE_PREFIX);
        if skipped && !state {
            mirror.held = Some(vec![event]);
            return Delivered::Repair;
        }
        mirror.last = v;
        let _ = mirror.tx.send(event);
        // A `state` after a jump in versions is a game rebuilt on another node: it needs
        // nothing before it, but the new room must hear who follows it from here.
        if skipped {
            Delivered::Moved
        } else {
            Delivered::Passed
        }
    }

    /// The fresh state of a game under repair (None: it could not be had), then what was held.
    pub fn repaired(&self, game: &str, state: Option<(u64, Arc<str>)>) {
        let mut games = self.lock();
        let Some(mirror) = games.get_mut(game) else { return };
        let held = mirror.held.take().unwrap_or_default();
        if let Some((v, text)) = state {
            if v > mirror.last {
                mirror.last = v;
                let _ = mirror.tx.send(Broadcast::to_all(Some(v), text));
            }
        }
        for event in held {
            match event.v {
                Some(v) if v <= mirror.last => {}
                Some(v) => {
                    mirror.last = v;
                    let _ = mirror.tx.send(event);
                }
                None => {
                    let _ = mirror.tx.send(event);
                }
            }
        }
    }

    /// Puts every game under repair (the bus was cut off): the games to fetch a state for.
    pub fn repair_all(&self) -> Vec<GameId> {
        let mut games = self.lock();
        let mut ids = Vec::new();
        for (id, mirror) in games.iter_mut() {
            if mirror.held.is_none() {
                mirror.held = Some(Vec::new());
                ids.push(id.clone());
            }
        }
        ids
    }

    /// Forgets the games nobody here follows any more; `unsubscribe` is called for each while
    /// the map is held, so a new follower cannot slip in between.
    pub fn sweep(&self, mut unsubscribe: impl FnMut(&str)) {
        let mut games = self.lock();
        games.retain(|id, mirror| {
            let followed = mirror.tx.receiver_count() > 0;
            if !followed {
                unsubscribe(id);
            }
            followed
        });
    }

    /// How many games are mirrored.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.lock().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(v: u64) -> Broadcast {
        Broadcast::to_all(Some(v), Arc::from(format!("e{v}")))
    }

    #[test]
    fn payloads_round_trip() {
        let e = event(7);
        let back = decode(&encode(&e)).expect("decodes");
        assert_eq!((back.v, &*back.text), (Some(7), "e7"));
        let count = Broadcast::to_all(None, Arc::from("{\"a\":\"x\ny\"}"));
        let back = decode(&encode(&count)).expect("decodes");
        assert_eq!((back.v, &*back.text), (None, "{\"a\":\"x\ny\"}"));
        for audience in [Audience::Players, Audience::Spectators] {
            let line = Broadcast { v: None, text: Arc::from("{}"), audience };
            assert_eq!(decode(&encode(&line)).expect("decodes").audience, audience);
        }
        assert!(decode(b"nonsense").is_none());
        assert!(decode(b"x\n{}").is_none());
    }

    #[test]
    fn a_skipped_version_holds_events_until_a_state_is_sent() {
        let mirrors = Mirrors::default();
        let mut rx = mirrors.receiver("g");
        mirrors.note("g", 3);
        assert_eq!(mirrors.deliver("g", event(3)), Delivered::Passed, "already seen: dropped");
        assert_eq!(mirrors.deliver("g", event(4)), Delivered::Passed);
        assert_eq!(rx.try_recv().expect("4").v, Some(4));
        assert_eq!(mirrors.deliver("g", event(7)), Delivered::Repair, "5 and 6 are missing");
        assert_eq!(mirrors.deliver("g", event(8)), Delivered::Passed, "held while repairing");
        assert!(rx.try_recv().is_err());
        mirrors.repaired("g", Some((7, Arc::from("state"))));
        let state = rx.try_recv().expect("state");
        assert_eq!((state.v, &*state.text), (Some(7), "state"));
        assert_eq!(rx.try_recv().expect("8 after it").v, Some(8));
        assert!(rx.try_recv().is_err(), "7 is covered by the state");
        // A later subscriber that starts ahead (its answer overtook events 9 and 10) does not
        // make the mirror drop them: the others still need them.
        let mut late = mirrors.receiver("g");
        mirrors.note("g", 10);
        assert_eq!(mirrors.deliver("g", event(9)), Delivered::Passed);
        assert_eq!(rx.try_recv().expect("9 for the first").v, Some(9));
        assert_eq!(late.try_recv().expect("9 reaches the late one too (its writer skips it)").v, Some(9));
        assert_eq!(mirrors.deliver("g", event(10)), Delivered::Passed);
        assert_eq!(rx.try_recv().expect("10").v, Some(10));
        drop(late);
        // A game taken over elsewhere starts with a state: it passes at once, whatever its version.
        let fresh = Broadcast::to_all(Some(200), Arc::from("{\"type\":\"state\",\"v\":200}"));
        assert_eq!(mirrors.deliver("g", fresh), Delivered::Moved);
        assert_eq!(rx.try_recv().expect("the state").v, Some(200));
        drop(rx);
        let mut gone = Vec::new();
        mirrors.sweep(|id| gone.push(id.to_string()));
        assert_eq!(gone, vec!["g".to_string()]);
        assert_eq!(mirrors.len(), 0);
    }
}
