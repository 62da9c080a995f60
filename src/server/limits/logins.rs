//! How often an address may sign up and log in, and how often one account may be guessed at,
//! in a way strangers cannot turn against the account's owner (OWASP's "Blocking Brute Force
//! Attacks" and "Slow Down Online Guessing Attacks with Device Cookies"; docs/accounts.md).
//!
//! - Every attempt from an address counts against that address.
//! - A guess at an account counts against the pair (address, account) and, when it comes from
//!   a stranger, against the account as a whole: a guesser gets a handful of tries a minute,
//!   however many addresses they spread them over.
//! - A trusted attempt is not a stranger's: one carrying a device cookie the account issued
//!   to that browser at an earlier log-in (limited by its own bucket), or one from an address
//!   the account logged in from before. Strangers' failures never lock the owner out.
//! - An attempt that succeeds gives back what it took from the account's buckets: only
//!   failures count.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::server::store::AccountKey;

/// The limits, as configured.
#[derive(Clone, Debug, PartialEq)]
pub struct AccountLimits {
    /// Log-in attempts from one address at once, then `login_per_minute`.
    pub login_burst: u32,
    pub login_per_minute: f64,
    /// Failed guesses at one account by strangers (and from one address, and with one device
    /// cookie) at once, then `account_per_minute`.
    pub account_burst: u32,
    pub account_per_minute: f64,
    /// Accounts one address may create at once, then `signup_per_hour`.
    pub signup_burst: u32,
    pub signup_per_hour: f64,
    /// Password hashes computed at once (each holds 19 MiB while it runs) ...
    pub hashing_at_once: usize,
    /// ... and how long a request waits for its turn before it is turned away (503).
    pub hashing_wait: Duration,
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
            // Hashing is all CPU: more at once than cores only adds memory, not speed.
            hashing_at_once: std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(2, 4),
            hashing_wait: Duration::from_secs(5),
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
pub struct Buckets<K> {
    burst: f64,
    per_sec: f64,
    map: Mutex<HashMap<K, Bucket>>,
}

/// How many keys a map holds before it forgets the ones that are full again.
const TIDY_AT: usize = 10_000;

impl<K: std::hash::Hash + Eq> Buckets<K> {
    pub fn new(burst: u32, per_minute: f64) -> Buckets<K> {
        Buckets { burst: f64::from(burst.max(1)), per_sec: (per_minute / 60.0).max(0.0), map: Mutex::default() }
    }

    /// Takes one token for `key`, or says in how many seconds one will be there.
    pub fn take(&self, key: K, now: Instant) -> Result<(), u64> {
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

    /// Gives back the token an attempt took (it succeeded, so it was no guess).
    fn give_back(&self, key: &K) {
        let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(bucket) = map.get_mut(key) {
            bucket.tokens = (bucket.tokens + 1.0).min(self.burst);
        }
    }
}

/// How many addresses an account's known ones are, the most recent kept.
const KNOWN_ADDRESSES: usize = 8;

/// Who is trying an account, as far as the limits care.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Trust {
    /// Someone the account has not seen.
    Stranger,
    /// A browser holding a device cookie this account issued (its nonce).
    Device(String),
    /// An address this account logged in from before.
    KnownAddress,
}

/// What an attempt took, to give back if it succeeds.
#[derive(Debug)]
pub struct Attempt {
    ip: IpAddr,
    account: String,
    trust: Trust,
}

/// The buckets of a server.
pub struct LoginLimits {
    by_address: Buckets<IpAddr>,
    by_pair: Buckets<(IpAddr, String)>,
    by_account: Buckets<String>,
    by_device: Buckets<String>,
    sign_ups: Buckets<IpAddr>,
    /// The addresses each account logged in from lately (kept in memory: a restart forgets
    /// them, the device cookie does not).
    known: Mutex<HashMap<AccountKey, VecDeque<IpAddr>>>,
}

impl LoginLimits {
    pub fn new(limits: AccountLimits) -> LoginLimits {
        let (burst, per_minute) = (limits.account_burst, limits.account_per_minute);
        LoginLimits {
            by_address: Buckets::new(limits.login_burst, limits.login_per_minute),
            by_pair: Buckets::new(burst, per_minute),
            by_account: Buckets::new(burst, per_minute),
            by_device: Buckets::new(burst, per_minute),
            sign_ups: Buckets::new(limits.signup_burst, limits.signup_per_hour / 60.0),
            known: Mutex::default(),
        }
    }

    /// One log-in attempt from `ip`, before anything else is looked at, or in how many seconds
    /// the next may come.
    pub fn from_address(&self, ip: IpAddr) -> Result<(), u64> {
        self.by_address.take(ip, Instant::now())
    }

    /// How far `ip` is trusted by `account` (None: an unknown name, whose guesses are limited
    /// as a stranger's), `device` being what its valid device cookie names.
    pub fn trust(&self, ip: IpAddr, account: Option<AccountKey>, device: Option<String>) -> Trust {
        if let Some(nonce) = device {
            return Trust::Device(nonce);
        }
        let known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        match account.and_then(|a| known.get(&a)) {
            Some(addresses) if addresses.contains(&ip) => Trust::KnownAddress,
            _ => Trust::Stranger,
        }
    }

    /// One guess at `username` from `ip` trusted as `trust`: what it took, or in how many
    /// seconds the next may come.
    pub fn guess(&self, ip: IpAddr, username: &str, trust: Trust) -> Result<Attempt, u64> {
        let now = Instant::now();
        let account: String = username.chars().take(40).collect::<String>().to_lowercase();
        match &trust {
            // A device cookie is its own limit, wherever it comes from.
            Trust::Device(nonce) => self.by_device.take(nonce.clone(), now)?,
            Trust::KnownAddress => self.by_pair.take((ip, account.clone()), now)?,
            Trust::Stranger => {
                self.by_pair.take((ip, account.clone()), now)?;
                if let Err(wait) = self.by_account.take(account.clone(), now) {
                    self.by_pair.give_back(&(ip, account));
                    return Err(wait);
                }
            }
        }
        Ok(Attempt { ip, account, trust })
    }

    /// The guess was right: it gives back what it took, and `ip` becomes known to `account`.
    pub fn succeeded(&self, attempt: Attempt, account: AccountKey) {
        let Attempt { ip, account: name, trust } = attempt;
        match trust {
            Trust::Device(nonce) => self.by_device.give_back(&nonce),
            Trust::KnownAddress => self.by_pair.give_back(&(ip, name)),
            Trust::Stranger => {
                self.by_pair.give_back(&(ip, name.clone()));
                self.by_account.give_back(&name);
            }
        }
        let mut known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        if known.len() >= TIDY_AT && !known.contains_key(&account) {
            known.clear();
        }
        let addresses = known.entry(account).or_default();
        addresses.retain(|a| *a != ip);
        addresses.push_back(ip);
        if addresses.len() > KNOWN_ADDRESSES {
            addresses.pop_front();
        }
    }

    /// One sign-up from `ip`, or in how many seconds the next may come.
    pub fn sign_up(&self, ip: IpAddr) -> Result<(), u64> {
        self.sign_ups.take(ip, Instant::now())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        buckets.give_back(&"a");
        assert_eq!(buckets.take("a", start + Duration::from_secs(10)), Ok(()), "given back");
    }

    fn ip(n: u8) -> IpAddr {
        IpAddr::from([10, 0, 0, n])
    }

    #[test]
    fn strangers_guessing_one_account_are_limited_across_addresses() {
        let limits = LoginLimits::new(AccountLimits { account_burst: 2, ..AccountLimits::default() });
        assert!(limits.guess(ip(1), "Alice", Trust::Stranger).is_ok());
        assert!(limits.guess(ip(2), "alice", Trust::Stranger).is_ok());
        assert!(limits.guess(ip(3), "ALICE", Trust::Stranger).is_err());
        assert!(limits.guess(ip(3), "bob", Trust::Stranger).is_ok());
    }

    #[test]
    fn strangers_failures_do_not_lock_the_owner_out() {
        let limits = LoginLimits::new(AccountLimits { account_burst: 2, ..AccountLimits::default() });
        // The owner logged in once from 10.0.0.9.
        let first = limits.guess(ip(9), "alice", Trust::Stranger).expect("first log-in");
        limits.succeeded(first, 1);
        for n in 1..=4 {
            let _ = limits.guess(ip(n), "alice", Trust::Stranger);
        }
        assert!(limits.guess(ip(5), "alice", Trust::Stranger).is_err(), "strangers are held off");
        assert_eq!(limits.trust(ip(9), Some(1), None), Trust::KnownAddress);
        assert_eq!(limits.trust(ip(9), Some(2), None), Trust::Stranger, "known to that account only");
        assert!(limits.guess(ip(9), "alice", Trust::KnownAddress).is_ok(), "the owner's address");
        let device = limits.trust(ip(6), Some(1), Some("n1".into()));
        assert!(limits.guess(ip(6), "alice", device).is_ok(), "the owner's browser, anywhere");
    }

    #[test]
    fn a_success_gives_back_what_it_took() {
        let limits = LoginLimits::new(AccountLimits { account_burst: 1, ..AccountLimits::default() });
        for _ in 0..5 {
            let attempt = limits.guess(ip(1), "alice", Trust::Stranger).expect("not limited");
            limits.succeeded(attempt, 1);
        }
        // A device cookie's own guesses are limited too.
        assert!(limits.guess(ip(1), "alice", Trust::Device("n".into())).is_ok());
        assert!(limits.guess(ip(2), "alice", Trust::Device("n".into())).is_err());
    }
}
