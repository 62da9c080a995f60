//! Opening the load generator's WebSocket connections: the target URL, source addresses spread
//! over 127.0.0.x so that one source's ephemeral ports do not run out, small socket buffers,
//! and the open-file limit.

use std::fmt;
use std::io;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use thiserror::Error;
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::http::Uri;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::WebSocketStream;

/// One load-generator connection.
pub type Ws = WebSocketStream<TcpStream>;

/// How long one connection attempt (TCP and WebSocket handshake) may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

/// Server messages are a few hundred bytes (a `state` a few KiB); tungstenite's default
/// 128 KiB read buffer per connection would cost more than the server's side of it.
const READ_BUFFER: usize = 8 * 1024;

/// A server's WebSocket URL, checked when the arguments are parsed.
#[derive(Clone, Debug)]
pub struct Target {
    /// As given, for messages and the report.
    pub url: String,
    host: String,
    port: u16,
}

impl Target {
    /// Parses `ws://HOST[:PORT]/PATH`. TLS (`wss://`) is not spoken: the tool measures a server
    /// on the local network, and TLS would measure the TLS library instead.
    pub fn parse(url: &str) -> Result<Target, String> {
        let uri: Uri = url.parse().map_err(|e| format!("{url:?} is not a URL: {e}"))?;
        match uri.scheme_str() {
            Some("ws") => {}
            Some("wss") => return Err(format!("{url:?}: wss:// is not supported; give a ws:// URL")),
            _ => return Err(format!("{url:?} is not a ws:// URL (e.g. ws://127.0.0.1:8080/ws)")),
        }
        let host = uri.host().filter(|h| !h.is_empty()).ok_or_else(|| format!("{url:?} has no host"))?;
        let host = host.trim_start_matches('[').trim_end_matches(']').to_string();
        Ok(Target { url: url.to_string(), host, port: uri.port_u16().unwrap_or(80) })
    }

    /// Resolves the host to the address every connection will use.
    pub async fn resolve(&self) -> io::Result<SocketAddr> {
        tokio::net::lookup_host((self.host.as_str(), self.port))
            .await?
            .next()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, format!("{} has no address", self.host)))
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.url)
    }
}

/// Why a connection could not be opened.
#[derive(Debug, Error)]
pub enum ConnectError {
    #[error("TCP connect failed: {0}")]
    Tcp(#[source] io::Error),
    #[error("cannot bind the source address {addr}: {source}")]
    Bind { addr: IpAddr, source: io::Error },
    #[error("WebSocket handshake failed: {0}")]
    Handshake(#[source] tokio_tungstenite::tungstenite::Error),
    #[error("no answer within {}s", CONNECT_TIMEOUT.as_secs())]
    Timeout,
}

impl ConnectError {
    /// A short name for the error tally.
    pub fn kind(&self) -> String {
        match self {
            ConnectError::Tcp(e) => format!("connect:{:?}", e.kind()),
            ConnectError::Bind { source, .. } => format!("bind:{:?}", source.kind()),
            ConnectError::Handshake(_) => "connect:handshake".into(),
            ConnectError::Timeout => "connect:timeout".into(),
        }
    }
}

/// Opens connections to one server, or spreads them over several (the nodes of a cluster):
/// connection `n` goes to server `n % servers`, so consecutive connections (a game's two
/// players) land on different nodes; each server's connections cycle through the source
/// addresses.
#[derive(Clone, Debug)]
pub struct Connector {
    servers: Vec<(SocketAddr, String)>,
    sources: Vec<IpAddr>,
}

impl Connector {
    /// For `servers` (each target with its resolved address), with `sources` source addresses
    /// when they are on IPv4 loopback (all of 127.0.0.0/8 reaches them); elsewhere the system
    /// picks the source.
    pub fn new(servers: &[(Target, SocketAddr)], sources: u8) -> Connector {
        let loopback = servers.iter().all(|(_, addr)| matches!(addr.ip(), IpAddr::V4(ip) if ip.is_loopback()));
        let sources = if loopback {
            (1..=sources).map(|i| IpAddr::V4(Ipv4Addr::new(127, 0, 0, i))).collect()
        } else {
            Vec::new()
        };
        let servers = servers.iter().map(|(target, addr)| (*addr, target.url.clone())).collect();
        Connector { servers, sources }
    }

    /// How many servers connections are spread over.
    pub fn servers(&self) -> usize {
        self.servers.len()
    }

    /// Opens connection number `n` (which picks its server and source address).
    pub async fn connect(&self, n: usize) -> Result<Ws, ConnectError> {
        self.connect_to(n % self.servers.len(), n / self.servers.len()).await
    }

    /// Opens a connection to server `server`; `n` picks the source address.
    pub async fn connect_to(&self, server: usize, n: usize) -> Result<Ws, ConnectError> {
        tokio::time::timeout(CONNECT_TIMEOUT, self.open(server % self.servers.len(), n))
            .await
            .map_err(|_| ConnectError::Timeout)?
    }

    async fn open(&self, server: usize, n: usize) -> Result<Ws, ConnectError> {
        let (addr, url) = &self.servers[server];
        let socket = if addr.is_ipv4() { TcpSocket::new_v4() } else { TcpSocket::new_v6() };
        let socket = socket.map_err(ConnectError::Tcp)?;
        if !self.sources.is_empty() {
            let ip = self.sources[n % self.sources.len()];
            socket.bind(SocketAddr::new(ip, 0)).map_err(|source| ConnectError::Bind { addr: ip, source })?;
        }
        let stream = socket.connect(*addr).await.map_err(ConnectError::Tcp)?;
        // Moves are small and latency is what is measured.
        stream.set_nodelay(true).map_err(ConnectError::Tcp)?;
        let config = WebSocketConfig::default().read_buffer_size(READ_BUFFER).write_buffer_size(0);
        let (ws, _) = tokio_tungstenite::client_async_with_config(url.as_str(), stream, Some(config))
            .await
            .map_err(ConnectError::Handshake)?;
        Ok(ws)
    }
}

/// The open-file limit after trying to raise it.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct FileLimit {
    /// The soft limit now in force (what this process may open).
    pub limit: u64,
    /// Descriptors the run needs: its connections and some to spare.
    pub needed: u64,
}

impl FileLimit {
    /// True when the run may run out of descriptors.
    pub fn too_low(&self) -> bool {
        self.limit < self.needed
    }
}

/// Descriptors kept for the runtime, stdio and the JSON file.
const SPARE_FILES: u64 = 64;

/// Raises the soft RLIMIT_NOFILE to the hard limit: each connection is a descriptor, and the
/// usual soft default (1024) is far below what a load test opens.
pub fn raise_file_limit(connections: u64) -> FileLimit {
    use rlimit::Resource;
    let needed = connections + SPARE_FILES;
    let limit = match Resource::NOFILE.get() {
        Ok((soft, hard)) if soft < hard => match Resource::NOFILE.set(hard, hard) {
            Ok(()) => hard,
            Err(_) => soft,
        },
        Ok((soft, _)) => soft,
        Err(_) => needed,
    };
    FileLimit { limit, needed }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ws_urls() {
        let t = Target::parse("ws://127.0.0.1:9100/ws").expect("url");
        assert_eq!((t.host.as_str(), t.port), ("127.0.0.1", 9100));
        let t = Target::parse("ws://localhost/ws").expect("url");
        assert_eq!((t.host.as_str(), t.port), ("localhost", 80));
        let t = Target::parse("ws://[::1]:8080/ws").expect("url");
        assert_eq!(t.host, "::1");
    }

    #[test]
    fn refuses_other_urls() {
        for bad in ["http://127.0.0.1:8080/ws", "wss://example.org/ws", "127.0.0.1:8080", "not a url", "ws:///ws"] {
            assert!(Target::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn spreads_loopback_sources() {
        let t = Target::parse("ws://127.0.0.1:1/ws").expect("url");
        let c = Connector::new(&[(t.clone(), "127.0.0.1:1".parse().expect("addr"))], 3);
        assert_eq!(c.sources.len(), 3);
        assert_eq!(c.sources[2], IpAddr::V4(Ipv4Addr::new(127, 0, 0, 3)));
        let c = Connector::new(&[(t.clone(), "10.0.0.1:1".parse().expect("addr"))], 3);
        assert!(c.sources.is_empty());
        // Several servers: the connections go round them.
        let two = [(t.clone(), "127.0.0.1:1".parse().expect("addr")), (t, "127.0.0.1:2".parse().expect("addr"))];
        let c = Connector::new(&two, 3);
        assert_eq!(c.servers(), 2);
        assert_eq!(c.servers[1].0.port(), 2);
    }
}
