//! `gambit loadtest idle`: many connections that do nothing after the WebSocket handshake,
//! and what they cost the server in resident memory (VmRSS of its process, from /proc).

use std::io;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use futures::StreamExt;

use super::client::{Connector, FileLimit};
use super::play::open_all;
use super::report::{Connections, IdleReport};
use super::stats::Stats;
use super::CommonArgs;

#[derive(Args, Debug, Clone)]
pub struct IdleArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Connections to open and hold
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub connections: u32,
    /// Process id of the server, whose memory is read from /proc/PID/status
    #[arg(long, value_name = "PID")]
    pub server_pid: u32,
    /// Seconds to hold the connections open once all are open
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(0..=86_400))]
    pub hold: u64,
}

/// Time for the server to finish setting up after the last handshake (and to settle before
/// the first reading), so that the readings do not catch it half-way.
const SETTLE: Duration = Duration::from_secs(1);

/// Closing handshakes in flight at once at the end.
const PARALLEL_CLOSES: usize = 256;

/// The resident set of process `pid` in bytes (VmRSS in /proc/PID/status).
pub fn rss_bytes(pid: u32) -> io::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    parse_rss(&status).ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "no VmRSS line in /proc/PID/status"))
}

fn parse_rss(status: &str) -> Option<u64> {
    let line = status.lines().find_map(|line| line.strip_prefix("VmRSS:"))?;
    let mut fields = line.split_whitespace();
    let kib: u64 = fields.next()?.parse().ok()?;
    (fields.next() == Some("kB")).then_some(kib * 1024)
}

/// Opens the connections, reads the server's memory, holds, closes.
pub async fn run(args: &IdleArgs, connector: &Connector, stats: Arc<Stats>, file_limit: FileLimit) -> IdleReport {
    let pid = args.server_pid;
    // A reading that fails later (the server died) shows as 0, and the error is counted.
    let read = |stats: &Stats| {
        rss_bytes(pid).unwrap_or_else(|_| {
            stats.error("server_memory_unreadable");
            0
        })
    };
    tokio::time::sleep(SETTLE).await;
    let before = read(&stats);
    let planned = args.connections as usize;
    let connections = open_all(connector, planned, &stats).await;
    tokio::time::sleep(SETTLE).await;
    let after = read(&stats);
    let hold = Duration::from_secs(args.hold);
    tokio::time::sleep(hold).await;
    let end = read(&stats);
    let opened = connections.len();
    futures::stream::iter(connections)
        .for_each_concurrent(PARALLEL_CLOSES, |mut ws| async move {
            let _ = tokio::time::timeout(Duration::from_secs(2), ws.close(None)).await;
        })
        .await;
    IdleReport {
        scenario: "idle",
        url: args.common.url(),
        server_pid: pid,
        connections: Connections { planned, opened: Stats::get(&stats.open), failed: Stats::get(&stats.failed) },
        file_limit,
        rss_before_bytes: before,
        rss_after_bytes: after,
        rss_end_bytes: end,
        bytes_per_connection: if opened == 0 { 0.0 } else { after.saturating_sub(before) as f64 / opened as f64 },
        hold_s: hold.as_secs_f64(),
        errors: stats.errors(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_vmrss() {
        let status = "Name:\tgambit\nVmPeak:\t  99999 kB\nVmRSS:\t   12345 kB\nThreads:\t3\n";
        assert_eq!(parse_rss(status), Some(12345 * 1024));
        assert_eq!(parse_rss("Name:\tx\n"), None);
        assert!(rss_bytes(std::process::id()).expect("own memory") > 0);
    }
}
