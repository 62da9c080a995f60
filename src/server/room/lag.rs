//! Lag compensation: a person's move reaches the room one network round trip after their turn
//! began (the opponent's move has to reach them, theirs has to come back), and that time was
//! not theirs to think. The room credits it back, within a bound, so a player far from the
//! server is not flagged by the network (docs/protocol.md, "Clocks", has the formula and how
//! it compares with lichess's).
//!
//! - **The estimate.** A WebSocket connection measures its round trip with its pings and sends
//!   it with each action ([`Arrival::round_trip`]). A client without one (the HTTP API) is
//!   estimated from its moves' arrival: the quickest of its recent moves, since no move can
//!   arrive sooner than a round trip.
//! - **The bound.** Each side has a quota: it starts at three times the gain, gains that much
//!   with each move up to seven times it, and each credit is taken out of it. The gain is
//!   0.15 s plus 0.4 % of the game's expected length (initial time plus 40 increments), at most
//!   1 s: a bullet game credits less than a rapid one, as lichess does. So whatever a client
//!   claims, a move is never credited more than the quota, and over a game no more than the
//!   gain per move on average.
//! - **A premove** (played by the client itself the moment its turn came) took no thought: all
//!   its time until it arrived is credited, within the quota.

use std::time::Duration;

use crate::protocol::ClockSpec;

/// How a person's move reached the room.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Arrival {
    /// The client played it by itself when the turn came.
    pub(crate) premove: bool,
    /// The connection's measured round trip, if it has one (WebSocket pings).
    pub(crate) round_trip: Option<Duration>,
}

/// The most any move's gain can be.
const MAX_GAIN: Duration = Duration::from_secs(1);
/// The gain of every game, however short.
const BASE_GAIN: Duration = Duration::from_millis(150);
/// How many of a side's latest move times stand for its round trip when it measured none.
const RECENT: usize = 5;

/// One side's lag compensation.
#[derive(Clone, Debug)]
pub(super) struct Lag {
    gain: Duration,
    quota: Duration,
    /// The side's latest move times (turn start to arrival), newest last.
    recent: Vec<Duration>,
    /// The round trip its connection last reported.
    round_trip: Option<Duration>,
}

impl Lag {
    /// A side's compensation in a game with this time control.
    pub(super) fn new(spec: ClockSpec) -> Lag {
        let expected_ms = spec.initial_ms.saturating_add(spec.increment_ms.saturating_mul(40));
        // 0.4 % of the expected length: expected_ms × 4 / 1000.
        let gain = (BASE_GAIN + Duration::from_millis(expected_ms.saturating_mul(4) / 1000)).min(MAX_GAIN);
        Lag { gain, quota: gain * 3, recent: Vec::with_capacity(RECENT), round_trip: None }
    }

    /// The credit for a move that arrived `elapsed` after the turn began, taken from the quota
    /// (which then gains for the next move).
    pub(super) fn credit(&mut self, elapsed: Duration, arrival: Arrival) -> Duration {
        let credit = self.credit_for(elapsed, arrival);
        if self.recent.len() == RECENT {
            self.recent.remove(0);
        }
        self.recent.push(elapsed);
        self.round_trip = arrival.round_trip.or(self.round_trip);
        self.quota = (self.quota - credit + self.gain).min(self.gain * 7);
        credit
    }

    /// What [`Lag::credit`] would credit, changing nothing.
    pub(super) fn credit_for(&self, elapsed: Duration, arrival: Arrival) -> Duration {
        let estimate = if arrival.premove { elapsed } else { arrival.round_trip.unwrap_or_else(|| self.estimate()) };
        estimate.min(elapsed).min(self.quota)
    }

    /// How long after its time ran out a move of this side may still arrive and count: the
    /// credit its next move would get, so the flag falls only once no move sent in time can
    /// still be on its way.
    pub(super) fn grace(&self) -> Duration {
        self.estimate().min(self.quota)
    }

    /// The side's round trip as last measured, else as its quickest recent move shows it.
    fn estimate(&self) -> Duration {
        self.round_trip.or_else(|| self.recent.iter().min().copied()).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn lag(initial_ms: u64, increment_ms: u64) -> Lag {
        Lag::new(ClockSpec { initial_ms, increment_ms })
    }

    #[test]
    fn the_gain_grows_with_the_game_and_is_bounded() {
        assert_eq!(lag(60_000, 0).gain, ms(390));
        // 3+0 as lichess: 0.87 s a move.
        assert_eq!(lag(180_000, 0).gain, ms(870));
        assert_eq!(lag(180_000, 2_000).gain, MAX_GAIN);
        assert_eq!(lag(10_800_000, 60_000).gain, MAX_GAIN);
        assert_eq!(lag(1_000, 0).gain, ms(154));
        assert_eq!(lag(60_000, 0).quota, ms(1_170));
    }

    #[test]
    fn a_measured_round_trip_is_credited_within_the_quota() {
        let mut side = lag(60_000, 0);
        let slow = Arrival { premove: false, round_trip: Some(ms(300)) };
        // Thinking time is never credited: only the round trip.
        assert_eq!(side.credit(ms(5_000), slow), ms(300));
        // Nor more than the move took.
        assert_eq!(side.credit(ms(100), slow), ms(100));
        // A round trip beyond the quota is cut to it, and the quota then only grows by the gain.
        let mut far = lag(60_000, 0);
        let huge = Arrival { premove: false, round_trip: Some(ms(10_000)) };
        assert_eq!(far.credit(ms(20_000), huge), ms(1_170));
        assert_eq!(far.credit(ms(20_000), huge), ms(390));
        assert_eq!(far.credit(ms(20_000), huge), ms(390));
    }

    #[test]
    fn over_a_game_the_credit_averages_at_most_the_gain() {
        let mut side = lag(180_000, 0);
        let gain = side.gain;
        let premove = Arrival { premove: true, round_trip: None };
        let total: Duration = (0..100).map(|_| side.credit(ms(5_000), premove)).sum();
        assert!(total <= gain * 3 + gain * 100, "{total:?}");
        assert!(side.quota <= gain * 7);
    }

    #[test]
    fn without_pings_the_quickest_recent_move_stands_for_the_round_trip() {
        let mut side = lag(300_000, 0);
        let api = Arrival::default();
        // The first move has nothing to go on.
        assert_eq!(side.credit(ms(800), api), ms(0));
        assert_eq!(side.credit(ms(2_000), api), ms(800));
        assert_eq!(side.credit(ms(150), api), ms(150));
        assert_eq!(side.credit(ms(4_000), api), ms(150));
        // Only the last few count: a fast move long ago is forgotten.
        for _ in 0..RECENT {
            side.credit(ms(3_000), api);
        }
        let quota = side.quota;
        assert!(quota > ms(150));
        assert_eq!(side.credit(ms(3_000), api), ms(3_000).min(quota));
    }

    #[test]
    fn a_premove_costs_nothing_within_the_quota() {
        let mut side = lag(300_000, 0);
        let premove = Arrival { premove: true, round_trip: Some(ms(40)) };
        assert_eq!(side.credit(ms(60), premove), ms(60));
    }
}
