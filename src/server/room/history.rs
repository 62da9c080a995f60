//! The ring of a room's recent events, to replay what a returning client missed.

use std::collections::VecDeque;
use std::sync::Arc;

/// The last `capacity` events, each with its version (consecutive, oldest first).
pub(super) struct History {
    events: VecDeque<(u64, Arc<str>)>,
    capacity: usize,
}

impl History {
    pub(super) fn new(capacity: usize) -> History {
        History { events: VecDeque::with_capacity(capacity), capacity }
    }

    pub(super) fn push(&mut self, v: u64, text: Arc<str>) {
        if self.events.len() == self.capacity {
            self.events.pop_front();
        }
        self.events.push_back((v, text));
    }

    /// The events after version `since` up to `now`, or None when some of them are no longer
    /// held, or when `since` is ahead of `now` (a version this game never had: the client needs
    /// a fresh state, not silence).
    pub(super) fn since(&self, since: u64, now: u64) -> Option<Vec<Arc<str>>> {
        if since > now {
            return None;
        }
        if since == now {
            return Some(Vec::new());
        }
        let first = self.events.front()?.0;
        if first > since + 1 {
            return None;
        }
        Some(self.events.iter().filter(|(v, _)| *v > since).map(|(_, t)| t.clone()).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replays_or_gives_up() {
        let mut h = History::new(3);
        assert_eq!(h.since(0, 0), Some(vec![]));
        assert_eq!(h.since(7, 0), None, "a version from the future");
        assert_eq!(h.since(0, 1), None);
        for v in 1..=5 {
            h.push(v, format!("e{v}").into());
        }
        let texts = |v: Vec<Arc<str>>| v.iter().map(|t| t.to_string()).collect::<Vec<_>>();
        assert_eq!(h.since(2, 5).map(texts), Some(vec!["e3".into(), "e4".into(), "e5".into()]));
        assert_eq!(h.since(4, 5).map(texts), Some(vec!["e5".to_string()]));
        assert_eq!(h.since(1, 5), None);
        assert_eq!(h.since(5, 5), Some(vec![]));
        assert_eq!(h.since(6, 5), None);
    }
}
