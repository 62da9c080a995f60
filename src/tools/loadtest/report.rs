//! The figures of a run: one serde structure per kind of scenario, printed as a plain table
//! and written as JSON.

use std::collections::BTreeMap;
use std::fmt::{self, Display, Formatter};

use serde::Serialize;

use super::client::FileLimit;
use super::stats::Latency;

/// Connections asked for and what became of them.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Connections {
    pub planned: usize,
    pub opened: u64,
    pub failed: u64,
}

/// The three latencies of a playing run.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Latencies {
    /// From a move's send to each spectator's receipt of it.
    pub move_to_spectator: Latency,
    /// From a move's send to the opponent's receipt of it.
    pub move_to_opponent: Latency,
    /// From a move's send to the mover's `ack`.
    pub move_to_ack: Latency,
}

/// The figures of `fanout` and `games`.
#[derive(Clone, Debug, Serialize)]
pub struct PlayReport {
    /// "fanout" or "games".
    pub scenario: &'static str,
    pub url: String,
    /// Games played at once.
    pub games: usize,
    /// Spectators per game asked for (fan-out: all of them, on its one game).
    pub spectators_per_game: usize,
    /// Spectators connected, all games together.
    pub spectators: usize,
    /// Time between two moves of one game.
    pub interval_ms: f64,
    /// The requested duration of moving.
    pub duration_s: f64,
    pub seed: u64,
    pub connections: Connections,
    pub file_limit: FileLimit,
    /// Seconds from the first game's setup to the last move.
    pub elapsed_s: f64,
    pub moves_sent: u64,
    pub moves_per_sec: f64,
    pub games_started: u64,
    pub games_finished: u64,
    /// Game events received by all connections together.
    pub events_received: u64,
    pub lost: u64,
    pub out_of_order: u64,
    pub resyncs: u64,
    pub latency: Latencies,
    /// Error messages by code, and connection failures by kind.
    pub errors: BTreeMap<String, u64>,
}

/// The figures of `idle`.
#[derive(Clone, Debug, Serialize)]
pub struct IdleReport {
    /// "idle".
    pub scenario: &'static str,
    pub url: String,
    pub server_pid: u32,
    pub connections: Connections,
    pub file_limit: FileLimit,
    /// The server's resident memory before the connections were opened ...
    pub rss_before_bytes: u64,
    /// ... once they were all open ...
    pub rss_after_bytes: u64,
    /// ... and at the end of the hold.
    pub rss_end_bytes: u64,
    /// (after − before) / connections opened.
    pub bytes_per_connection: f64,
    pub hold_s: f64,
    pub errors: BTreeMap<String, u64>,
}

/// What a run reports.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum Report {
    Play(PlayReport),
    Idle(IdleReport),
    Failover(super::failover::FailoverReport),
}

impl Report {
    /// As pretty JSON.
    pub fn to_json(&self) -> String {
        // Plain structs of numbers and strings always serialise.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

fn row(f: &mut Formatter<'_>, name: &str, value: impl Display) -> fmt::Result {
    writeln!(f, "{name:<22}{value}")
}

fn connections(f: &mut Formatter<'_>, c: &Connections, limit: &FileLimit) -> fmt::Result {
    row(f, "connections", format_args!("{} opened of {}, {} failed", c.opened, c.planned, c.failed))?;
    if limit.too_low() {
        row(f, "open-file limit", format_args!("{} (too low: about {} needed)", limit.limit, limit.needed))?;
    }
    Ok(())
}

fn errors(f: &mut Formatter<'_>, errors: &BTreeMap<String, u64>) -> fmt::Result {
    if errors.is_empty() {
        return row(f, "errors", "none");
    }
    let list: Vec<String> = errors.iter().map(|(kind, n)| format!("{kind} {n}")).collect();
    row(f, "errors", list.join(", "))
}

fn latency_row(f: &mut Formatter<'_>, name: &str, l: &Latency) -> fmt::Result {
    writeln!(f, "  {name:<20}{:>9}{:>9.2}{:>9.2}{:>9.2}", l.count, l.p50_ms, l.p99_ms, l.max_ms)
}

impl Display for PlayReport {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        row(f, "scenario", self.scenario)?;
        row(f, "server", &self.url)?;
        let pace = format!("a move every {:.0} ms per game", self.interval_ms);
        let watching = format!("{} spectators in all", self.spectators);
        row(f, "games", format_args!("{} at once, {watching}, {pace}", self.games))?;
        connections(f, &self.connections, &self.file_limit)?;
        row(f, "moves", format_args!("{} in {:.1} s ({:.1}/s)", self.moves_sent, self.elapsed_s, self.moves_per_sec))?;
        row(f, "games played", format_args!("{} started, {} finished", self.games_started, self.games_finished))?;
        row(f, "events received", self.events_received)?;
        row(f, "lost", self.lost)?;
        row(f, "out of order", self.out_of_order)?;
        row(f, "resyncs", self.resyncs)?;
        errors(f, &self.errors)?;
        writeln!(f, "{:<22}{:>9}{:>9}{:>9}{:>9}", "latency (ms)", "count", "p50", "p99", "max")?;
        latency_row(f, "move to spectator", &self.latency.move_to_spectator)?;
        latency_row(f, "move to opponent", &self.latency.move_to_opponent)?;
        latency_row(f, "move to ack", &self.latency.move_to_ack)
    }
}

impl Display for IdleReport {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        const KIB: f64 = 1024.0;
        let mib = |bytes: u64| bytes as f64 / KIB / KIB;
        row(f, "scenario", self.scenario)?;
        row(f, "server", format_args!("{} (pid {})", self.url, self.server_pid))?;
        connections(f, &self.connections, &self.file_limit)?;
        row(f, "server RSS before", format_args!("{:.1} MiB", mib(self.rss_before_bytes)))?;
        row(f, "server RSS all open", format_args!("{:.1} MiB", mib(self.rss_after_bytes)))?;
        row(f, "server RSS after hold", format_args!("{:.1} MiB ({:.0} s)", mib(self.rss_end_bytes), self.hold_s))?;
        row(f, "per connection", format_args!("{:.1} KiB", self.bytes_per_connection / KIB))?;
        errors(f, &self.errors)
    }
}

impl Display for Report {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Report::Play(r) => r.fmt(f),
            Report::Idle(r) => r.fmt(f),
            Report::Failover(r) => r.fmt(f),
        }
    }
}
