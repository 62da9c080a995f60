//! Limits per client address, so that one abuser cannot crowd out everybody else: the
//! connections an address holds (HTTP and WebSocket alike), and how fast it may create games
//! and resume seats. Per-connection limits alone do not do it: a client opens more connections.
//!
//! The address is the TCP peer's, or, when the peer is a configured trusted proxy, the client
//! that the proxy names in `X-Forwarded-For` (see [`client_ip`]). An IPv6 client is counted by
//! its /64 network: one host is usually given a whole /64, so single addresses would let it
//! step around every limit.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::http::HeaderMap;

use super::{RateLimiter, Verdict};

/// What one client address may hold and do.
#[derive(Clone, Debug, PartialEq)]
pub struct AddressConfig {
    /// Connections open at once: HTTP connections and WebSockets.
    pub max_connections: usize,
    /// Unfinished games created from the address at once (the lobby counts them).
    pub max_unfinished: usize,
    /// Games created per minute; as many may come at once.
    pub creates_per_minute: u32,
    /// Seats resumed per minute; as many may come at once.
    pub resumes_per_minute: u32,
    /// Chat lines written per minute, across all of the address's connections (each
    /// connection has its own, lower limit too); a quarter of them may come at once.
    pub chats_per_minute: u32,
}

impl Default for AddressConfig {
    fn default() -> AddressConfig {
        AddressConfig {
            max_connections: 256,
            max_unfinished: 32,
            creates_per_minute: 30,
            resumes_per_minute: 30,
            // Two connections' worth: someone with a second tab chats freely, a crowd of
            // connections from one address does not multiply its lines.
            chats_per_minute: 60,
        }
    }
}

/// An address that has held no connection for this long is forgotten (its buckets are full
/// again long before).
const FORGET_AFTER: Duration = Duration::from_secs(600);
/// How often the table is swept of forgotten addresses.
const SWEEP_EVERY: Duration = Duration::from_secs(60);
/// Addresses the table holds before it forgets, at once, every one without a connection: a
/// client with many networks must not grow it without bound between sweeps.
const MAX_ADDRESSES: usize = 65_536;

struct Entry {
    connections: usize,
    creates: RateLimiter,
    resumes: RateLimiter,
    chats: RateLimiter,
    last_seen: Instant,
}

struct Table {
    entries: HashMap<IpAddr, Entry>,
    last_sweep: Instant,
}

/// The server's book of client addresses.
pub struct AddressLimits {
    config: AddressConfig,
    table: Mutex<Table>,
}

/// One open connection of an address; dropping it frees the place.
#[derive(Debug)]
pub struct ConnectionSlot {
    limits: Arc<AddressLimits>,
    ip: IpAddr,
}

impl std::fmt::Debug for AddressLimits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AddressLimits").field("config", &self.config).finish_non_exhaustive()
    }
}

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        let mut table = self.limits.lock();
        if let Some(entry) = table.entries.get_mut(&self.ip) {
            entry.connections = entry.connections.saturating_sub(1);
            entry.last_seen = Instant::now();
        }
    }
}

impl ConnectionSlot {
    /// The address holding the slot.
    pub fn ip(&self) -> IpAddr {
        self.ip
    }
}

impl AddressLimits {
    pub fn new(config: AddressConfig) -> Arc<AddressLimits> {
        Arc::new(AddressLimits {
            config,
            table: Mutex::new(Table { entries: HashMap::new(), last_sweep: Instant::now() }),
        })
    }

    pub fn config(&self) -> &AddressConfig {
        &self.config
    }

    fn lock(&self) -> MutexGuard<'_, Table> {
        // The table holds counters only; one left half-updated by a panic is still usable.
        self.table.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Runs `f` on the entry of `ip`'s network, made if new; now and then forgets idle ones.
    fn with<T>(&self, ip: IpAddr, f: impl FnOnce(&mut Entry) -> T) -> T {
        let ip = network(ip);
        let now = Instant::now();
        let mut table = self.lock();
        if now.duration_since(table.last_sweep) >= SWEEP_EVERY {
            table.last_sweep = now;
            table.entries.retain(|_, e| e.connections > 0 || now.duration_since(e.last_seen) < FORGET_AFTER);
        }
        if table.entries.len() >= MAX_ADDRESSES && !table.entries.contains_key(&ip) {
            table.entries.retain(|_, e| e.connections > 0);
        }
        let per_minute = |n: u32| RateLimiter::new(n, f64::from(n) / 60.0);
        let entry = table.entries.entry(ip).or_insert_with(|| Entry {
            connections: 0,
            creates: per_minute(self.config.creates_per_minute),
            resumes: per_minute(self.config.resumes_per_minute),
            chats: RateLimiter::new(
                (self.config.chats_per_minute / 4).max(1),
                f64::from(self.config.chats_per_minute) / 60.0,
            ),
            last_seen: now,
        });
        entry.last_seen = now;
        f(entry)
    }

    /// A place for one more connection of `ip`, or None when it holds its limit already.
    pub fn connect(self: &Arc<Self>, ip: IpAddr) -> Option<ConnectionSlot> {
        let max = self.config.max_connections;
        let admitted = self.with(ip, |e| {
            if e.connections >= max {
                return false;
            }
            e.connections += 1;
            true
        });
        admitted.then(|| ConnectionSlot { limits: self.clone(), ip: network(ip) })
    }

    /// Takes one create from the address's allowance; false when it has used it up.
    pub fn may_create(&self, ip: IpAddr) -> bool {
        self.with(ip, |e| e.creates.check() == Verdict::Allow)
    }

    /// Takes one resume from the address's allowance; false when it has used it up.
    pub fn may_resume(&self, ip: IpAddr) -> bool {
        self.with(ip, |e| e.resumes.check() == Verdict::Allow)
    }

    /// Takes one chat line from the address's allowance; false when it has used it up.
    pub fn may_chat(&self, ip: IpAddr) -> bool {
        self.with(ip, |e| e.chats.check() == Verdict::Allow)
    }

    /// Connections `ip`'s network holds now.
    pub fn connections(&self, ip: IpAddr) -> usize {
        self.lock().entries.get(&network(ip)).map_or(0, |e| e.connections)
    }
}

/// The client of a request: the peer itself, or, when the peer is one of the `trusted`
/// proxies, the nearest address in `X-Forwarded-For` that is not itself a trusted proxy
/// (read from the right, as each proxy appends the address it received from; addresses
/// further left could have been written by the client).
pub fn client_ip(peer: IpAddr, headers: &HeaderMap, trusted: &[IpAddr]) -> IpAddr {
    let peer = canonical(peer);
    if !is_trusted(peer, trusted) {
        return peer;
    }
    let forwarded: Vec<&str> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .collect();
    for hop in forwarded.iter().rev() {
        match hop.trim().parse::<IpAddr>().map(canonical) {
            Ok(ip) if is_trusted(ip, trusted) => continue,
            Ok(ip) => return ip,
            // A hop we cannot read: what lies left of it cannot be trusted either.
            Err(_) => return peer,
        }
    }
    peer
}

/// Whether `ip` is one of the `trusted` proxies (each written either way, IPv4 or mapped).
pub fn is_trusted(ip: IpAddr, trusted: &[IpAddr]) -> bool {
    let ip = canonical(ip);
    trusted.iter().any(|t| canonical(*t) == ip)
}

/// What the limits count an address by: an IPv4 address itself, an IPv6 address's /64.
fn network(ip: IpAddr) -> IpAddr {
    match canonical(ip) {
        IpAddr::V6(v6) => IpAddr::V6((u128::from(v6) & !((1u128 << 64) - 1)).into()),
        v4 => v4,
    }
}

/// An IPv4 address seen through an IPv6 socket (`::ffff:1.2.3.4`) is that IPv4 address.
pub fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("ip")
    }

    #[test]
    fn connections_are_counted_per_address_and_freed() {
        let limits = AddressLimits::new(AddressConfig { max_connections: 2, ..AddressConfig::default() });
        let a = limits.connect(ip("127.0.0.2")).expect("first");
        let _b = limits.connect(ip("127.0.0.2")).expect("second");
        assert!(limits.connect(ip("127.0.0.2")).is_none(), "third from the same address");
        assert!(limits.connect(ip("127.0.0.3")).is_some(), "another address is not affected");
        drop(a);
        assert_eq!(limits.connections(ip("127.0.0.2")), 1);
        assert!(limits.connect(ip("127.0.0.2")).is_some());
    }

    #[test]
    fn an_ipv6_host_is_counted_by_its_network() {
        let limits = AddressLimits::new(AddressConfig { max_connections: 1, ..AddressConfig::default() });
        let _one = limits.connect(ip("2001:db8:1:2::1")).expect("first");
        assert!(limits.connect(ip("2001:db8:1:2:ffff::9")).is_none(), "same /64");
        assert!(limits.connect(ip("2001:db8:1:3::1")).is_some(), "another /64");
        let _v4 = limits.connect(ip("::ffff:10.0.0.1")).expect("mapped IPv4");
        assert!(limits.connect(ip("10.0.0.1")).is_none(), "the same IPv4 address");
    }

    #[test]
    fn creates_and_resumes_have_a_per_minute_allowance() {
        let limits = AddressLimits::new(AddressConfig {
            creates_per_minute: 3,
            resumes_per_minute: 2,
            ..AddressConfig::default()
        });
        let a = ip("10.0.0.1");
        assert!((0..3).all(|_| limits.may_create(a)));
        assert!(!limits.may_create(a));
        assert!(limits.may_create(ip("10.0.0.2")));
        assert!((0..2).all(|_| limits.may_resume(a)));
        assert!(!limits.may_resume(a));
    }

    #[test]
    fn forwarded_for_is_believed_only_from_trusted_proxies() {
        let mut headers = HeaderMap::new();
        headers.append("x-forwarded-for", HeaderValue::from_static("6.6.6.6, 203.0.113.7"));
        headers.append("x-forwarded-for", HeaderValue::from_static("10.0.0.2"));
        let proxies = [ip("::ffff:127.0.0.1"), ip("10.0.0.2")];
        // Not from a proxy: the peer, whatever the header says.
        assert_eq!(client_ip(ip("198.51.100.1"), &headers, &proxies), ip("198.51.100.1"));
        // From a proxy: the nearest untrusted hop; the client-written 6.6.6.6 is ignored.
        assert_eq!(client_ip(ip("127.0.0.1"), &headers, &proxies), ip("203.0.113.7"));
        assert_eq!(client_ip(ip("::ffff:127.0.0.1"), &headers, &proxies), ip("203.0.113.7"));
        // No header, or garbage: the proxy itself.
        assert_eq!(client_ip(ip("127.0.0.1"), &HeaderMap::new(), &proxies), ip("127.0.0.1"));
        let mut garbage = HeaderMap::new();
        garbage.insert("x-forwarded-for", HeaderValue::from_static("1.2.3.4, not-an-ip"));
        assert_eq!(client_ip(ip("127.0.0.1"), &garbage, &proxies), ip("127.0.0.1"));
    }
}
