//! Limits: the token bucket with strikes that each connection's messages pass (here), what
//! each client address may hold and do (`addresses`), and how often an address may sign up and
//! log in (`logins`), and how many games a lobby holds and one creator may leave unfinished
//! (`games`).

mod addresses;
mod games;
mod logins;
mod streams;

use std::time::Instant;

pub use addresses::{client_ip, is_trusted, AddressConfig, AddressLimits, ConnectionSlot};
pub use games::{Creator, LobbyLimits, DEFAULT_MAX_ROOMS};
pub use logins::{AccountLimits, Buckets, LoginLimits, Trust};
pub use streams::{StreamSlot, StreamSlots};

/// What to do with one incoming message.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Verdict {
    Allow,
    /// Refuse it with `rate_limited`.
    Refuse,
    /// Refuse it and close the connection: it keeps sending too fast.
    Close,
}

/// A per-connection token bucket: `burst` messages at once, then `per_sec` a second. Each refusal is a strike; strikes fade
/// at one a second, and more than `2 × burst` of them close the connection.
#[derive(Debug)]
pub struct RateLimiter {
    burst: f64,
    per_sec: f64,
    tokens: f64,
    strikes: f64,
    last: Instant,
}

impl RateLimiter {
    /// A full bucket.
    pub fn new(burst: u32, per_sec: f64) -> RateLimiter {
        let burst = f64::from(burst.max(1));
        RateLimiter { burst, per_sec: per_sec.max(0.0), tokens: burst, strikes: 0.0, last: Instant::now() }
    }

    /// Takes a token for one message arriving now.
    pub fn check(&mut self) -> Verdict {
        self.check_at(Instant::now())
    }

    fn check_at(&mut self, now: Instant) -> Verdict {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + elapsed * self.per_sec).min(self.burst);
        self.strikes = (self.strikes - elapsed).max(0.0);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            return Verdict::Allow;
        }
        self.strikes += 1.0;
        if self.strikes > 2.0 * self.burst {
            Verdict::Close
        } else {
            Verdict::Refuse
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn burst_then_rate_then_close() {
        let start = Instant::now();
        let mut limiter = RateLimiter::new(20, 10.0);
        for _ in 0..20 {
            assert_eq!(limiter.check_at(start), Verdict::Allow);
        }
        assert_eq!(limiter.check_at(start), Verdict::Refuse);
        // 100 ms later one token is back.
        let later = start + Duration::from_millis(100);
        assert_eq!(limiter.check_at(later), Verdict::Allow);
        assert_eq!(limiter.check_at(later), Verdict::Refuse);
        let verdicts: Vec<Verdict> = (0..50).map(|_| limiter.check_at(later)).collect();
        assert_eq!(verdicts.last(), Some(&Verdict::Close));
    }
}
