//! How often an address may sign up and log in, and how often one account may be tried: a
//! password guesser gets a handful of tries a minute, whether it spreads them over addresses
//! or over accounts.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::Instant;

/// The limits, as configured.
#[derive(Clone, Debug, PartialEq)]
pub struct AccountLimits {
    /// Log-in attempts from one address at once, then `login_per_minute`.
    pub login_burst: u32,
    pub login_per_minute: f64,
    /// Log-in attempts on one account at once, then `account_per_minute`.
    pub account_burst: u32,
    pub account_per_minute: f64,
    /// Accounts one address may create at once, then `signup_per_hour`.
    pub signup_burst: u32,
    pub signup_per_hour: f64,
}

impl Default for AccountLimits {
    fn default() -> AccountLimits {
        AccountLimits {
            login_burst: 10,
            login_per_minute: 5.0,
            account_burst: 6,
            account_per_minute: 3.0,
            signup_burst: 10,
            signup_per_hour: 20.0,
        }
    }
}

/// A token bucket: `burst` at once, refilled at `per_sec`.
#[derive(Clone, Copy, Debug)]
struct Bucket {
    tokens: f64,
    last: Instant,
}

/// Buckets by key. Keys whose bucket is full again are dropped now and then, so the map holds
/// only recent callers.
struct Buckets<K> {
    burst: f64,
    per_sec: f64,
    map: Mutex<HashMap<K, Bucket>>,
}

/// How many keys a map holds before it forgets the ones that are full again.
const TIDY_AT: usize = 10_000;

impl<K: std::hash::Hash + Eq> Buckets<K> {
    fn new(burst: u32, per_minute: f64) -> Buckets<K> {
        Buckets { burst: f64::from(burst.max(1)), per_sec: (per_minute / 60.0).max(0.0), map: Mutex::default() }
    }

    /// Takes one token for `key`, or says in how many seconds one will be there.
    fn take(&self, key: K, now: Instant) -> Result<(), u64> {
        // A poisoned map only means another thread panicked mid-update: the counts are still usable.
        let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() >= TIDY_AT {
            let (burst, per_sec) = (self.burst, self.per_sec);
            map.retain(|_, b| b.tokens + now.saturating_duration_since(b.last).as_secs_f64() * per_sec < burst);
        }
        let bucket = map.entry(key).or_insert(Bucket { tokens: self.burst, last: now });
        let elapsed = now.saturating_duration_since(bucket.last).as_secs_f64();
        bucket.tokens = (bucket.tokens + elapsed * self.per_sec).min(self.burst);
        bucket.last = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            return Ok(());
        }
        let wait = if self.per_sec > 0.0 { ((1.0 - bucket.tokens) / self.per_sec).ceil() } else { 3600.0 };
        Err(wait.clamp(1.0, 86_400.0) as u64)
    }
}

/// The buckets of a server.
pub struct LoginLimits {
    by_address: Buckets<IpAddr>,
    by_account: Buckets<String>,
    sign_ups: Buckets<IpAddr>,
}

impl LoginLimits {
    pub fn new(limits: AccountLimits) -> LoginLimits {
        LoginLimits {
            by_address: Buckets::new(limits.login_burst, limits.login_per_minute),
            by_account: Buckets::new(limits.account_burst, limits.account_per_minute),
            sign_ups: Buckets::new(limits.signup_burst, limits.signup_per_hour / 60.0),
        }
    }

    /// One log-in attempt from `ip` on `username` (any name: unknown ones are limited alike),
    /// or in how many seconds the next may come.
    pub fn log_in(&self, ip: IpAddr, username: &str) -> Result<(), u64> {
        let now = Instant::now();
        self.by_address.take(ip, now)?;
        let key: String = username.chars().take(40).collect::<String>().to_lowercase();
        self.by_account.take(key, now)
    }

    /// One sign-up from `ip`, or in how many seconds the next may come.
    pub fn sign_up(&self, ip: IpAddr) -> Result<(), u64> {
        self.sign_ups.take(ip, Instant::now())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_bucket_lets_a_burst_through_then_says_how_long_to_wait() {
        let buckets = Buckets::new(3, 6.0);
        let start = Instant::now();
        for _ in 0..3 {
            assert_eq!(buckets.take("a", start), Ok(()));
        }
        assert_eq!(buckets.take("a", start), Err(10));
        assert_eq!(buckets.take("b", start), Ok(()), "keys are apart");
        assert_eq!(buckets.take("a", start + Duration::from_secs(10)), Ok(()));
    }

    #[test]
    fn one_account_is_limited_from_many_addresses() {
        let limits = LoginLimits::new(AccountLimits { account_burst: 2, ..AccountLimits::default() });
        let ip = |n: u8| IpAddr::from([10, 0, 0, n]);
        assert!(limits.log_in(ip(1), "Alice").is_ok());
        assert!(limits.log_in(ip(2), "alice").is_ok());
        assert!(limits.log_in(ip(3), "ALICE").is_err());
        assert!(limits.log_in(ip(3), "bob").is_ok());
    }
}
