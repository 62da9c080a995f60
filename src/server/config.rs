//! The server's options: the `gambit serve` arguments and the configuration they make.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::analysis::AnalysisConfig;
use super::limits::{AccountLimits, AddressConfig};
use super::room::RoomConfig;

/// Largest text frame a client may send, in bytes.
pub const MAX_FRAME: usize = 16 * 1024;

/// Everything `serve` needs besides the listening socket.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// The SQLite database file, or `:memory:` for games that last as long as the server.
    pub db: String,
    /// Write one text log per game here (`<dir>/<game>.log`), if set.
    pub log_dir: Option<PathBuf>,
    /// Room timing: bot thinking time, bot-vs-bot pause, watcher batching.
    pub room: RoomConfig,
    /// How long finished games stay listed and in memory.
    pub retention: Duration,
    /// Largest accepted frame; bigger ones get `too_large`.
    pub max_frame: usize,
    /// Rate limit: messages a connection may send at once ...
    pub rate_burst: u32,
    /// ... and per second after that.
    pub rate_per_sec: f64,
    /// Chat lines a connection may send at once, then `chat_per_sec` a second (a chat flood is
    /// refused long before the message rate limit would close the connection).
    pub chat_burst: u32,
    pub chat_per_sec: f64,
    /// Unfinished games one connection may have created at a time.
    pub max_games_per_connection: usize,
    /// Games (finished ones included) the server holds at a time.
    pub max_rooms: usize,
    /// WebSocket connections the server holds at a time.
    pub max_connections: usize,
    /// Games one connection may play or watch at a time.
    pub max_follows_per_connection: usize,
    /// Keep-alive: the server pings each connection this often ...
    pub ping_interval: Duration,
    /// ... and closes one that has sent nothing, not even a pong, for this long.
    pub connection_timeout: Duration,
    /// What one client address may hold and do (see `limits`).
    pub per_address: AddressConfig,
    /// A connection that has not sent a whole request head within this long is closed.
    pub header_timeout: Duration,
    /// Peers whose `X-Forwarded-For` names the client (reverse proxies such as nginx).
    pub trusted_proxies: Vec<IpAddr>,
    /// Web origins besides the server's own that may open WebSockets (`https://chess.example`).
    pub allowed_origins: Vec<String>,
    /// The address people use to reach the server, if not the listening one; its host name is
    /// accepted in `Host` and `Origin`.
    pub public_url: Option<String>,
    /// Whether bot accounts may play rated games against people (lichess allows it; a club may
    /// not want its ladder filled by programs).
    pub allow_rated_bots: bool,
    /// The cluster this node is part of, if any.
    pub cluster: Option<ClusterConfig>,
    /// How often an address may sign up and log in, and an account be tried.
    pub accounts: AccountLimits,
    /// Computer analyses of finished games: the engine's time per position, how many at once.
    pub analysis: AnalysisConfig,
}

impl Default for ServerConfig {
    fn default() -> ServerConfig {
        ServerConfig {
            db: ":memory:".into(),
            log_dir: None,
            room: RoomConfig::default(),
            retention: Duration::from_secs(600),
            max_frame: MAX_FRAME,
            rate_burst: 20,
            rate_per_sec: 10.0,
            chat_burst: 5,
            chat_per_sec: 0.5,
            max_games_per_connection: 8,
            max_rooms: 2000,
            max_connections: 16_000,
            max_follows_per_connection: 64,
            ping_interval: Duration::from_secs(20),
            connection_timeout: Duration::from_secs(60),
            per_address: AddressConfig::default(),
            header_timeout: Duration::from_secs(10),
            trusted_proxies: Vec::new(),
            allowed_origins: Vec::new(),
            allow_rated_bots: false,
            public_url: None,
            cluster: None,
            accounts: AccountLimits::default(),
            analysis: AnalysisConfig::default(),
        }
    }
}

/// `gambit serve` arguments.
#[derive(Args, Debug, Clone)]
pub struct ServeArgs {
    /// Address to listen on
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Where games are kept: an SQLite file, ":memory:" (kept only while the server runs), or a
    /// PostgreSQL database, postgres://USER[:PASSWORD]@HOST[:PORT]/DB
    #[arg(long, default_value = "gambit.db", value_parser = db_path)]
    pub db: String,
    /// Append a human-readable log of each game to <DIR>/<game>.log
    #[arg(long, value_name = "DIR")]
    pub log_dir: Option<PathBuf>,
    /// Thinking time of level 5-12 bots per move, in milliseconds
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=600_000))]
    pub bot_movetime: u64,
    /// Pause before each move of a bot-vs-bot game, in milliseconds
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(0..=600_000))]
    pub bot_delay: u64,
    /// How long finished games stay listed, in seconds
    #[arg(long, default_value_t = 600)]
    pub keep_finished: u64,
    /// Bot searches run at once across the server (default: the number of CPUs)
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub max_bot_searches: Option<u64>,
    /// The engine's time per position when analysing a finished game, in milliseconds
    #[arg(long, default_value_t = 150, value_parser = clap::value_parser!(u64).range(10..=60_000))]
    pub analysis_movetime: u64,
    /// Analyses of finished games the server runs at once (each search also waits for one of
    /// the bot search slots)
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=64))]
    pub max_analyses: u64,
    /// An unfinished game nobody plays or watches for this long ends, in seconds
    #[arg(long, default_value_t = 1800, value_parser = clap::value_parser!(u64).range(1..))]
    pub idle_timeout: u64,
    /// Time each player has for their first move of a timed game (no clock runs until both
    /// have moved), in seconds; then the game is aborted with no result
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub first_move_timeout: u64,
    /// WebSocket connections the server holds at once
    #[arg(long, default_value_t = 16_000, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub max_connections: u64,
    /// Send each connection a WebSocket ping this often, in seconds
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub ping_interval: u64,
    /// Close a connection that sent nothing (not even a pong) for this long, in seconds
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub connection_timeout: u64,
    /// Connections (HTTP and WebSocket) one client address may hold at once
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub max_connections_per_ip: u64,
    /// Unfinished games one client address may have created at once
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub max_games_per_ip: u64,
    /// Games one client address may create per minute (born-finished ones included)
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub creates_per_minute: u64,
    /// Seats one client address may resume per minute
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub resumes_per_minute: u64,
    /// Close a connection that has not sent a whole request head within this long, in seconds
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub header_timeout: u64,
    /// A bot-vs-bot game that nobody watches pauses after this long, in seconds
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub unwatched_bot_pause: u64,
    /// A reverse proxy whose X-Forwarded-For header names the client (repeatable)
    #[arg(long, value_name = "IP")]
    pub trusted_proxy: Vec<IpAddr>,
    /// Another web origin allowed to open WebSockets, e.g. https://chess.example (repeatable)
    #[arg(long, value_name = "ORIGIN", value_parser = origin)]
    pub allowed_origin: Vec<String>,
    /// The URL people use to reach this server, e.g. https://chess.example (behind a proxy)
    #[arg(long, value_name = "URL", value_parser = origin)]
    pub public_url: Option<String>,
    /// Let bot accounts (the Bot API) play rated games against people
    #[arg(long)]
    pub allow_rated_bots: bool,
    /// Join a cluster whose nodes talk over this Redis, redis://HOST:PORT (needs a PostgreSQL --db)
    #[arg(long, value_name = "URL", value_parser = redis_url)]
    pub cluster: Option<String>,
    /// A UCI engine offered as a seat, NAME=PATH[,Option=Value...] (repeatable), e.g.
    /// "Stockfish=/usr/games/stockfish"; the options are set on every process of it
    #[arg(long, value_name = "NAME=PATH[,Option=Value...]", value_parser = super::engines::parse_engine_spec)]
    pub engine: Vec<super::engines::EngineSpec>,
    /// This node's name in the cluster (default: the host name and the port, e.g. web1:8080)
    #[arg(long, value_name = "NAME", value_parser = node_name, requires = "cluster")]
    pub node: Option<String>,
}

/// A cluster node's settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterConfig {
    /// The Redis the nodes share.
    pub redis: String,
    /// This node's name.
    pub node: String,
}

impl ServeArgs {
    /// The cluster this server joins, if any, with its node name. (That its games are in
    /// PostgreSQL is checked where the store is opened, which every way of serving goes through.)
    pub fn cluster_config(&self) -> Option<ClusterConfig> {
        let redis = self.cluster.clone()?;
        let node = match &self.node {
            Some(node) => node.clone(),
            None => format!("{}:{}", host_name(), self.listen.port()),
        };
        Some(ClusterConfig { redis, node })
    }
}

/// This machine's name, for a default node name.
fn host_name() -> String {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .filter_map(|path| std::fs::read_to_string(path).ok())
        .map(|name| name.trim().to_string())
        .find(|name| !name.is_empty() && node_name(name).is_ok())
        .unwrap_or_else(|| "gambit".to_string())
}

/// A `--cluster` value: a URL the Redis client takes.
fn redis_url(value: &str) -> Result<String, String> {
    if !(value.starts_with("redis://") || value.starts_with("rediss://")) {
        return Err(format!("{value:?} is not a Redis URL such as redis://127.0.0.1:6379"));
    }
    super::cluster::Bus::check_url(value).map(|()| value.to_string())
}

/// A `--node` value: 1 to 64 letters, digits, and `.` `_` `-` `:`.
fn node_name(value: &str) -> Result<String, String> {
    let ok = (1..=64).contains(&value.len()) && value.chars().all(|c| c.is_ascii_alphanumeric() || "._-:".contains(c));
    if !ok {
        return Err(format!("{value:?} is not a node name: use 1 to 64 letters, digits, '.', '_', '-' or ':'"));
    }
    Ok(value.to_string())
}

/// An `--allowed-origin` or `--public-url`: `http://` or `https://`, a host, perhaps a port,
/// nothing after; kept as the origin a browser sends (lower case, no trailing slash).
fn origin(value: &str) -> Result<String, String> {
    let lower = value.trim().trim_end_matches('/').to_ascii_lowercase();
    let rest = lower
        .strip_prefix("http://")
        .or_else(|| lower.strip_prefix("https://"))
        .ok_or_else(|| format!("{value:?} must start with http:// or https://"))?;
    let ok = !rest.is_empty()
        && rest.chars().all(|c| c.is_ascii_alphanumeric() || "-.:[]".contains(c))
        && super::hosts::host_of(rest).is_some_and(|h| !h.is_empty());
    if !ok {
        return Err(format!("{value:?} is not an origin such as https://chess.example or http://10.0.0.5:8080"));
    }
    Ok(lower)
}

/// A `--db` value: a non-empty path (the file need not exist yet), `:memory:`, or a PostgreSQL
/// URL that parses.
fn db_path(value: &str) -> Result<String, String> {
    if value.trim().is_empty() {
        return Err("give a file name, :memory: for a database that lives in memory, or a postgres:// URL".into());
    }
    if super::store::is_postgres(value) {
        return super::store::PostgresStore::check_url(value).map(|()| value.to_string());
    }
    if value != ":memory:" && std::path::Path::new(value).is_dir() {
        return Err(format!("{value} is a directory; give a file name such as {value}/gambit.db"));
    }
    Ok(value.to_string())
}

impl From<&ServeArgs> for ServerConfig {
    fn from(args: &ServeArgs) -> ServerConfig {
        let defaults = ServerConfig::default();
        let room = RoomConfig {
            engine_movetime: Duration::from_millis(args.bot_movetime),
            bot_delay: Duration::from_millis(args.bot_delay),
            idle_timeout: Duration::from_secs(args.idle_timeout),
            first_move_timeout: Duration::from_secs(args.first_move_timeout),
            unwatched_bot_pause: Duration::from_secs(args.unwatched_bot_pause),
            ..defaults.room.clone()
        };
        ServerConfig {
            db: args.db.clone(),
            log_dir: args.log_dir.clone(),
            room: match args.max_bot_searches {
                Some(n) => room.with_bot_searches(n as usize),
                None => room,
            },
            retention: Duration::from_secs(args.keep_finished),
            max_connections: args.max_connections as usize,
            ping_interval: Duration::from_secs(args.ping_interval),
            connection_timeout: Duration::from_secs(args.connection_timeout),
            per_address: AddressConfig {
                max_connections: args.max_connections_per_ip as usize,
                max_unfinished: args.max_games_per_ip as usize,
                creates_per_minute: args.creates_per_minute as u32,
                resumes_per_minute: args.resumes_per_minute as u32,
                ..AddressConfig::default()
            },
            header_timeout: Duration::from_secs(args.header_timeout),
            trusted_proxies: args.trusted_proxy.clone(),
            allowed_origins: args.allowed_origin.clone(),
            allow_rated_bots: args.allow_rated_bots,
            public_url: args.public_url.clone(),
            cluster: args.cluster_config(),
            analysis: AnalysisConfig {
                movetime: Duration::from_millis(args.analysis_movetime),
                max_running: args.max_analyses as usize,
            },
            ..defaults
        }
    }
}
