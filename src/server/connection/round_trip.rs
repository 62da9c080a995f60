//! The connection's network round trip, measured with its WebSocket pings: each carries a
//! number, and its pong (which echoes it) arrives one round trip after the ping was queued.
//! The rooms credit it back to a player's clock (lag compensation, see `room::lag`); it is
//! smoothed so one slow pong does not swing it.

use std::collections::VecDeque;
use std::time::Duration;

use tokio::time::Instant;

/// Pings awaiting their pong that are remembered: on a network slower than the ping period
/// several are on their way at once.
const OUTSTANDING: usize = 4;

/// The round trip as measured so far.
#[derive(Debug, Default)]
pub(super) struct RoundTrip {
    /// The number of the next ping.
    next: u64,
    /// Pings on their way: their number and when they were queued, oldest first.
    sent: VecDeque<(u64, Instant)>,
    estimate: Option<Duration>,
}

impl RoundTrip {
    /// A ping is queued at `now`: the payload it carries.
    pub(super) fn ping(&mut self, now: Instant) -> [u8; 8] {
        let number = self.next;
        self.next += 1;
        if self.sent.len() == OUTSTANDING {
            self.sent.pop_front();
        }
        self.sent.push_back((number, now));
        number.to_be_bytes()
    }

    /// A pong with `payload` arrived at `now`; one that answers no ping remembered (unsolicited,
    /// or too old) measures nothing.
    pub(super) fn pong(&mut self, payload: &[u8], now: Instant) {
        let Ok(bytes) = <[u8; 8]>::try_from(payload) else { return };
        let number = u64::from_be_bytes(bytes);
        let Some(at) = self.sent.iter().position(|(n, _)| *n == number) else { return };
        let sent = self.sent[at].1;
        // Pongs come in order: the older pings will get none.
        self.sent.drain(..=at);
        let sample = now.saturating_duration_since(sent);
        // Half the old estimate, half the new sample: quick to follow a changed network.
        self.estimate = Some(self.estimate.map_or(sample, |old| (old + sample) / 2));
    }

    /// The round trip in milliseconds, once measured.
    pub(super) fn millis(&self) -> Option<u64> {
        self.estimate.map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn measures_and_smooths_the_round_trip() {
        let ms = Duration::from_millis;
        let mut rtt = RoundTrip::default();
        assert_eq!(rtt.millis(), None);
        // An unsolicited pong, or one with a payload no ping carried, measures nothing.
        rtt.pong(&[], Instant::now());
        rtt.pong(&7u64.to_be_bytes(), Instant::now());
        assert_eq!(rtt.millis(), None);
        let first = rtt.ping(Instant::now());
        tokio::time::advance(ms(200)).await;
        rtt.pong(&first, Instant::now());
        assert_eq!(rtt.millis(), Some(200));
        let second = rtt.ping(Instant::now());
        tokio::time::advance(ms(100)).await;
        rtt.pong(&second, Instant::now());
        assert_eq!(rtt.millis(), Some(150));
        // A second pong for the same ping counts once.
        tokio::time::advance(ms(900)).await;
        rtt.pong(&second, Instant::now());
        assert_eq!(rtt.millis(), Some(150));
    }

    #[tokio::test(start_paused = true)]
    async fn a_round_trip_longer_than_the_ping_period_is_measured() {
        let ms = Duration::from_millis;
        let mut rtt = RoundTrip::default();
        // A ping every 100 ms on a network with a 350 ms round trip.
        let mut payloads = VecDeque::new();
        for _ in 0..3 {
            payloads.push_back(rtt.ping(Instant::now()));
            tokio::time::advance(ms(100)).await;
        }
        tokio::time::advance(ms(50)).await;
        rtt.pong(&payloads[0], Instant::now());
        assert_eq!(rtt.millis(), Some(350));
    }
}
