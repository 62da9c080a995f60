//! Prometheus metrics of the server, served as text at `/metrics`.

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

/// The server's counters and gauges; cheap to update from any task (atomics).
pub struct Metrics {
    registry: Registry,
    /// Open WebSocket connections.
    pub connections: Gauge,
    /// Games held in memory (ongoing, waiting, or recently finished).
    pub live_games: Gauge,
    /// Moves played, by people and bots.
    pub moves: Counter,
    /// Messages forwarded from rooms and the lobby to connections.
    pub events_sent: Counter,
    /// Times a subscriber fell behind its broadcast channel and was sent a fresh state.
    pub lagged: Counter,
    /// Connections closed at once because their address held its limit already.
    pub refused_connections: Counter,
    /// Refusals for a limit: `rate_limited` and `too_many` error replies, WebSockets refused
    /// with 1013, and connections closed for flooding (1008).
    pub limited: Counter,
}

impl Metrics {
    /// Fresh metrics, registered under the `gambit_` prefix.
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix("gambit");
        let metrics = Metrics {
            connections: Gauge::default(),
            live_games: Gauge::default(),
            moves: Counter::default(),
            events_sent: Counter::default(),
            lagged: Counter::default(),
            refused_connections: Counter::default(),
            limited: Counter::default(),
            registry: Registry::default(),
        };
        registry.register("connections", "Open WebSocket connections", metrics.connections.clone());
        registry.register("live_games", "Games held in memory", metrics.live_games.clone());
        registry.register("moves", "Moves played", metrics.moves.clone());
        registry.register("events_sent", "Messages forwarded to connections", metrics.events_sent.clone());
        registry.register(
            "lagged_receivers",
            "Subscribers that fell behind and got a fresh state",
            metrics.lagged.clone(),
        );
        registry.register(
            "refused_connections",
            "Connections closed because their address held its limit",
            metrics.refused_connections.clone(),
        );
        registry.register(
            "limited",
            "Refusals for a limit: rate_limited and too_many replies, 1013 refusals, 1008 closes",
            metrics.limited.clone(),
        );
        Metrics { registry, ..metrics }
    }

    /// The Prometheus text exposition.
    pub fn render(&self) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = encode(&mut out, &self.registry);
        out
    }
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics::new()
    }
}
