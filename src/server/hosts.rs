//! Which names the server answers to and which web pages may use it.
//!
//! - `Origin` on the WebSocket upgrade: a browser says which page opens the socket. Only the
//!   server's own pages (the origin's host and port are the request's `Host`), `--public-url`
//!   and each `--allowed-origin` may; otherwise any site a player visits could drive their
//!   local server from their browser. Clients that are not browsers send no `Origin`.
//! - `Host` on every request, when the server listens on loopback or has a `--public-url`: a
//!   page of another site whose name was re-pointed to the server (DNS rebinding) reaches us
//!   with its own name in `Host`, so only `localhost`, IP addresses (a rebinding needs a
//!   name), `--public-url`'s host and the allowed origins' hosts pass. A server on another
//!   address without `--public-url` cannot know its names and does not check.

use std::net::IpAddr;

/// The host of an authority (`host`, `host:port`, `[v6]:port`), without the port.
pub fn host_of(authority: &str) -> Option<&str> {
    if let Some(rest) = authority.strip_prefix('[') {
        let (inside, after) = rest.split_once(']')?;
        return (after.is_empty() || after.starts_with(':')).then_some(inside);
    }
    Some(authority.split_once(':').map_or(authority, |(host, _)| host))
}

/// The authority part (`host[:port]`) of an origin such as `https://chess.example:8443`.
fn authority_of(origin: &str) -> Option<&str> {
    let (_, rest) = origin.split_once("://")?;
    Some(rest.trim_end_matches('/'))
}

/// The names and origins the server accepts.
#[derive(Clone, Debug)]
pub struct Hosts {
    /// Check `Host` at all: when listening on loopback, or when the server's name is known.
    check_host: bool,
    /// Host names (lower case) accepted besides loopback ones.
    names: Vec<String>,
    /// Origins (lower case, as browsers send them) accepted besides the same-host one.
    origins: Vec<String>,
}

impl Hosts {
    /// For a server listening on `listen_ip`, with `--public-url` and `--allowed-origin`s.
    pub fn new(listen_ip: IpAddr, public_url: Option<&str>, allowed_origins: &[String]) -> Hosts {
        let origins: Vec<String> =
            public_url.into_iter().chain(allowed_origins.iter().map(String::as_str)).map(str::to_lowercase).collect();
        let names = origins.iter().filter_map(|o| authority_of(o).and_then(host_of)).map(str::to_string).collect();
        Hosts { check_host: listen_ip.is_loopback() || public_url.is_some(), names, origins }
    }

    /// Whether a request with this `Host` header is answered.
    pub fn host_allowed(&self, host: Option<&str>) -> bool {
        if !self.check_host {
            return true;
        }
        // HTTP/1.1 requires Host; a request without one is not from a browser page.
        let Some(host) = host else { return true };
        let Some(name) = host_of(host.trim()) else { return false };
        let name = name.to_ascii_lowercase();
        name == "localhost"
            || name.ends_with(".localhost")
            || name.parse::<IpAddr>().is_ok()
            || self.names.contains(&name)
    }

    /// Whether a WebSocket upgrade from a page of `origin` (None: not a browser) is accepted,
    /// on a request whose `Host` is `host`.
    pub fn origin_allowed(&self, origin: Option<&str>, host: Option<&str>) -> bool {
        let Some(origin) = origin else { return true };
        let origin = origin.trim().to_ascii_lowercase();
        if self.origins.contains(&origin) {
            return true;
        }
        match (authority_of(&origin), host) {
            (Some(authority), Some(host)) => authority.eq_ignore_ascii_case(host.trim()),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loopback(public: Option<&str>, allowed: &[&str]) -> Hosts {
        let allowed: Vec<String> = allowed.iter().map(|s| s.to_string()).collect();
        Hosts::new("127.0.0.1".parse().expect("ip"), public, &allowed)
    }

    #[test]
    fn hosts_split_from_ports() {
        assert_eq!(host_of("example.org:8080"), Some("example.org"));
        assert_eq!(host_of("example.org"), Some("example.org"));
        assert_eq!(host_of("[::1]:8080"), Some("::1"));
        assert_eq!(host_of("[::1]"), Some("::1"));
        assert_eq!(host_of("[::1"), None);
    }

    #[test]
    fn on_loopback_only_local_and_configured_names_are_answered() {
        let hosts = loopback(Some("https://chess.example"), &["http://friend.example:9000"]);
        for ok in ["127.0.0.1:8080", "localhost:8080", "LOCALHOST", "[::1]:8080", "10.0.0.1:8080", "chess.example"] {
            assert!(hosts.host_allowed(Some(ok)), "{ok}");
        }
        assert!(hosts.host_allowed(Some("friend.example:1234")));
        for bad in ["evil.example:8080", "evil.example", "", "[::1"] {
            assert!(!hosts.host_allowed(Some(bad)), "{bad}");
        }
        let lan = Hosts::new("0.0.0.0".parse().expect("ip"), None, &[]);
        assert!(lan.host_allowed(Some("anything.example")), "not on loopback, no name: no Host check");
        let named = Hosts::new("0.0.0.0".parse().expect("ip"), Some("https://chess.example"), &[]);
        assert!(named.host_allowed(Some("chess.example")));
        assert!(named.host_allowed(Some("192.168.1.5:8080")));
        assert!(!named.host_allowed(Some("evil.example")), "a named server checks Host anywhere");
    }

    #[test]
    fn origins_are_the_same_host_or_allowed() {
        let hosts = loopback(None, &["https://friend.example"]);
        assert!(hosts.origin_allowed(None, Some("127.0.0.1:8080")), "not a browser");
        assert!(hosts.origin_allowed(Some("http://127.0.0.1:8080"), Some("127.0.0.1:8080")));
        assert!(hosts.origin_allowed(Some("https://friend.example"), Some("127.0.0.1:8080")));
        assert!(!hosts.origin_allowed(Some("http://127.0.0.1:9999"), Some("127.0.0.1:8080")), "other port");
        assert!(!hosts.origin_allowed(Some("https://evil.example"), Some("127.0.0.1:8080")));
        assert!(!hosts.origin_allowed(Some("null"), Some("127.0.0.1:8080")));
        assert!(!hosts.origin_allowed(Some("https://evil.example"), None));
    }
}
