//! `gambit loadtest`: drives thousands of WebSocket clients against a running `gambit serve`
//! and measures it: `fanout` (one game, many spectators), `games` (many games at once) and
//! `idle` (memory per idle connection). It measures and does not judge: a run that completes
//! exits 0 whatever its figures; the figures go to a table on stdout and optionally JSON.
//!
//! One multi-threaded tokio runtime carries every client as a task; see docs/performance.md.

mod client;
mod failover;
mod fanout;
mod games;
mod idle;
mod play;
mod progress;
mod report;
mod stats;
mod track;
mod wire;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Subcommand};
use thiserror::Error;

pub use self::client::Target;
use self::client::{raise_file_limit, Connector};
pub use self::fanout::FanoutArgs;
pub use self::games::GamesArgs;
pub use self::idle::IdleArgs;
use self::play::Plan;
use self::progress::Progress;
use self::report::{Connections, Latencies};
pub use self::report::{IdleReport, PlayReport, Report};
pub use self::stats::Latency;
use self::stats::{Metric, Stats};

/// `gambit loadtest` arguments.
#[derive(Args, Debug, Clone)]
pub struct LoadtestArgs {
    #[command(subcommand)]
    pub scenario: Scenario,
}

/// The kinds of run.
#[derive(Subcommand, Debug, Clone)]
pub enum Scenario {
    /// One game, N spectators: latency from a move's send to each spectator's receipt
    Fanout(FanoutArgs),
    /// G games at once with scripted players and S spectators each: move-to-ack and
    /// move-to-opponent latency, moves per second, lost or reordered events
    Games(GamesArgs),
    /// C idle connections: the server's resident memory per connection
    Idle(IdleArgs),
    /// A cluster loses a node: G games played through the first --url, whose process is killed;
    /// the time from the kill to each game's first move accepted after it
    Failover(failover::FailoverArgs),
}

/// What every scenario takes.
#[derive(Args, Debug, Clone)]
pub struct CommonArgs {
    /// The server's WebSocket endpoint; repeat it for the nodes of a cluster, and connections
    /// are spread over them in turn (a game's two players on different nodes)
    #[arg(long = "url", value_name = "URL", default_value = "ws://127.0.0.1:8080/ws", value_parser = Target::parse)]
    pub urls: Vec<Target>,
    /// Also write the figures to this file as JSON
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Source addresses to connect from, 127.0.0.1 to 127.0.0.K, when the server is on
    /// loopback: each gives its own ~28,000 ports
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u8).range(1..=254))]
    pub sources: u8,
}

/// What the playing scenarios take.
#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    /// Seconds to keep making moves, once the connections are open
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub duration: u64,
    /// Seed of the players' move choices (the same seed plays the same games)
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

impl CommonArgs {
    /// The servers, as the report names them.
    pub fn url(&self) -> String {
        self.urls.iter().map(|t| t.url.as_str()).collect::<Vec<_>>().join(" ")
    }
}

impl RunArgs {
    pub fn duration(&self) -> Duration {
        Duration::from_secs(self.duration)
    }
}

impl Scenario {
    fn common(&self) -> &CommonArgs {
        match self {
            Scenario::Fanout(a) => &a.common,
            Scenario::Games(a) => &a.common,
            Scenario::Idle(a) => &a.common,
            Scenario::Failover(a) => &a.common,
        }
    }

    /// Connections the run opens (for the open-file limit).
    fn connections(&self) -> u64 {
        match self {
            Scenario::Fanout(a) => u64::from(a.spectators) + 2,
            Scenario::Games(a) => u64::from(a.games) * (2 + u64::from(a.spectators)),
            Scenario::Idle(a) => u64::from(a.connections),
            Scenario::Failover(a) => u64::from(a.games) * 3,
        }
    }
}

/// Why a run could not be made.
#[derive(Debug, Error)]
pub enum LoadtestError {
    #[error("{0}")]
    Failover(String),
    #[error("cannot reach the server at {url}: {reason}")]
    Unreachable { url: String, reason: String },
    #[error("cannot read the memory of process {pid} (/proc/{pid}/status): {source}")]
    NoProcess { pid: u32, source: std::io::Error },
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    #[error("cannot write {path}: {source}")]
    WriteJson { path: PathBuf, source: std::io::Error },
    #[error("cannot make the latency histograms: {0}")]
    Histogram(#[from] hdrhistogram::CreationError),
}

impl LoadtestError {
    /// 2 for a bad argument (as for clap's own errors), 1 when the run could not be made.
    pub fn exit_code(&self) -> u8 {
        match self {
            LoadtestError::NoProcess { .. } => 2,
            _ => 1,
        }
    }
}

/// `gambit loadtest`: runs the scenario, prints the table, writes the JSON file.
pub fn run(args: &LoadtestArgs) -> Result<(), LoadtestError> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(LoadtestError::Runtime)?;
    let report = runtime.block_on(execute(&args.scenario))?;
    print!("{report}");
    if let Some(path) = &args.scenario.common().json {
        std::fs::write(path, report.to_json() + "\n")
            .map_err(|source| LoadtestError::WriteJson { path: path.clone(), source })?;
    }
    Ok(())
}

/// Runs one scenario on the current runtime and returns its figures.
pub async fn execute(scenario: &Scenario) -> Result<Report, LoadtestError> {
    let common = scenario.common();
    if let Scenario::Idle(args) = scenario {
        idle::rss_bytes(args.server_pid).map_err(|source| LoadtestError::NoProcess { pid: args.server_pid, source })?;
    }
    let file_limit = raise_file_limit(scenario.connections());
    if file_limit.too_low() {
        eprintln!(
            "warning: this process may open {} files, and the run needs about {}: some connections will fail",
            file_limit.limit, file_limit.needed
        );
    }
    let mut servers = Vec::new();
    for target in &common.urls {
        let unreachable = |reason: String| LoadtestError::Unreachable { url: target.url.clone(), reason };
        servers.push((target.clone(), target.resolve().await.map_err(|e| unreachable(e.to_string()))?));
    }
    let connector = Connector::new(&servers, common.sources);
    // One connection to each server first, so that a server that is not there is one clear error.
    for (i, (target, _)) in servers.iter().enumerate() {
        let unreachable = |reason: String| LoadtestError::Unreachable { url: target.url.clone(), reason };
        let mut probe = connector.connect_to(i, 0).await.map_err(|e| unreachable(e.to_string()))?;
        let _ = probe.close(None).await;
    }

    let stats = Arc::new(Stats::new()?);
    let report = match scenario {
        Scenario::Fanout(args) => {
            let progress = Progress::start(stats.clone(), Some(Metric::Spectator));
            let report = play_report("fanout", common, &args.plan(), &connector, &stats, file_limit).await;
            progress.finish();
            report
        }
        Scenario::Games(args) => {
            let progress = Progress::start(stats.clone(), Some(Metric::Ack));
            let report = play_report("games", common, &args.plan(), &connector, &stats, file_limit).await;
            progress.finish();
            report
        }
        Scenario::Failover(args) => {
            let report = failover::run(args, &connector, stats.clone()).await.map_err(LoadtestError::Failover)?;
            Report::Failover(report)
        }
        Scenario::Idle(args) => {
            let progress = Progress::start(stats.clone(), None);
            let report = idle::run(args, &connector, stats.clone(), file_limit).await;
            progress.finish();
            Report::Idle(report)
        }
    };
    Ok(report)
}

async fn play_report(
    scenario: &'static str,
    common: &CommonArgs,
    plan: &Plan,
    connector: &Connector,
    stats: &Arc<Stats>,
    file_limit: client::FileLimit,
) -> Report {
    let played = play::run(connector, plan, stats.clone()).await;
    let elapsed = played.elapsed.as_secs_f64();
    let moves = Stats::get(&stats.moves);
    Report::Play(PlayReport {
        scenario,
        url: common.url(),
        games: played.slots,
        spectators_per_game: plan.spectators,
        spectators: played.spectators,
        interval_ms: plan.interval.as_secs_f64() * 1000.0,
        duration_s: plan.duration.as_secs_f64(),
        seed: plan.seed,
        connections: Connections {
            planned: played.planned,
            opened: Stats::get(&stats.open),
            failed: Stats::get(&stats.failed),
        },
        file_limit,
        elapsed_s: elapsed,
        moves_sent: moves,
        moves_per_sec: if elapsed > 0.0 { moves as f64 / elapsed } else { 0.0 },
        games_started: Stats::get(&stats.games_started),
        games_finished: Stats::get(&stats.games_finished),
        events_received: Stats::get(&stats.events),
        lost: Stats::get(&stats.lost),
        out_of_order: Stats::get(&stats.out_of_order),
        resyncs: Stats::get(&stats.resyncs),
        latency: Latencies {
            move_to_spectator: stats.summary(Metric::Spectator),
            move_to_opponent: stats.summary(Metric::Opponent),
            move_to_ack: stats.summary(Metric::Ack),
        },
        errors: stats.errors(),
    })
}
