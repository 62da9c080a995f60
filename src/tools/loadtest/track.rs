//! Following one game's event versions as one connection receives them: every event should
//! carry the previous version plus one, so a jump is lost events and a step back or a repeat is
//! an event out of order. A `state` sets the version afresh. The rule is the protocol's
//! ([`Sequence`]); a spectator here counts what it sees instead of resynchronising, and reads
//! only the version of each event, so that 5,000 spectators stay cheap to simulate.

use crate::protocol::Sequence;

/// What one event's version says about the stream.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Seen {
    /// The next version, as it should be.
    InOrder,
    /// Versions were skipped: this many events were lost.
    Gap(u64),
    /// The version is not after the last one: a duplicate or a reordering.
    OutOfOrder,
    /// No version known yet (no `state` came first): taken as the start.
    First,
}

/// The last version one connection saw of one game.
#[derive(Clone, Copy, Debug, Default)]
pub struct Versions {
    last: Option<u64>,
}

impl Versions {
    /// A `state` at version `v`: everything up to `v` is in it. Returns true if the connection
    /// already followed the game, i.e. the state replaced events it had not received (a resync).
    pub fn snapshot(&mut self, v: u64) -> bool {
        let resync = self.last.is_some();
        self.last = Some(self.last.map_or(v, |last| last.max(v)));
        resync
    }

    /// An event at version `v`.
    pub fn event(&mut self, v: u64) -> Seen {
        let Some(last) = self.last else {
            self.last = Some(v);
            return Seen::First;
        };
        // The protocol's one rule for versions (the follower's), counted rather than acted on.
        let seen = match Sequence::of(last, v) {
            Sequence::Seen => return Seen::OutOfOrder,
            Sequence::Next => Seen::InOrder,
            Sequence::Gap(n) => Seen::Gap(n),
        };
        self.last = Some(v);
        seen
    }

    /// Events lost at the end: those up to `final_v` (the game's last version when the run
    /// stopped) that never arrived.
    pub fn missing_up_to(&self, final_v: u64) -> u64 {
        match self.last {
            Some(last) => final_v.saturating_sub(last),
            None => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_gaps_and_reorderings() {
        let mut v = Versions::default();
        assert!(!v.snapshot(1));
        assert_eq!(v.event(2), Seen::InOrder);
        assert_eq!(v.event(5), Seen::Gap(2));
        assert_eq!(v.event(5), Seen::OutOfOrder);
        assert_eq!(v.event(4), Seen::OutOfOrder);
        assert_eq!(v.event(6), Seen::InOrder);
        assert_eq!(v.missing_up_to(8), 2);
    }

    #[test]
    fn a_later_state_is_a_resync() {
        let mut v = Versions::default();
        assert!(!v.snapshot(3));
        assert!(v.snapshot(40));
        assert_eq!(v.event(41), Seen::InOrder);
    }

    #[test]
    fn counts_the_missing_tail() {
        let mut v = Versions::default();
        assert_eq!(v.missing_up_to(9), 0, "never followed");
        assert_eq!(v.event(3), Seen::First);
        assert_eq!(v.missing_up_to(3), 0);
        assert_eq!(v.missing_up_to(7), 4);
    }
}
