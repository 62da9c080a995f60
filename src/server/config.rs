//! The server's options: the `gambit serve` arguments and the configuration they make.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

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
            max_games_per_connection: 8,
            max_rooms: 2000,
            max_connections: 16_000,
            max_follows_per_connection: 64,
            ping_interval: Duration::from_secs(20),
            connection_timeout: Duration::from_secs(60),
        }
    }
}

/// `gambit serve` arguments.
#[derive(Args, Debug, Clone)]
pub struct ServeArgs {
    /// Address to listen on
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// The SQLite file that keeps games across restarts; ":memory:" keeps them only in memory
    #[arg(long, default_value = "gambit.db", value_parser = db_path)]
    pub db: String,
    /// Append a human-readable log of each game to <DIR>/<game>.log
    #[arg(long, value_name = "DIR")]
    pub log_dir: Option<PathBuf>,
    /// Thinking time of level 5 bots per move, in milliseconds
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
    /// An unfinished game nobody plays or watches for this long ends, in seconds
    #[arg(long, default_value_t = 1800, value_parser = clap::value_parser!(u64).range(1..))]
    pub idle_timeout: u64,
    /// WebSocket connections the server holds at once
    #[arg(long, default_value_t = 16_000, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub max_connections: u64,
    /// Send each connection a WebSocket ping this often, in seconds
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub ping_interval: u64,
    /// Close a connection that sent nothing (not even a pong) for this long, in seconds
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub connection_timeout: u64,
}

/// A `--db` value: a non-empty path (the file need not exist yet) or `:memory:`.
fn db_path(value: &str) -> Result<String, String> {
    if value.trim().is_empty() {
        return Err("give a file name, or :memory: for a database that lives in memory".into());
    }
    if value != ":memory:" && std::path::Path::new(value).is_dir() {
        return Err(format!("{value} is a directory; give a file name such as {value}/gambit.db"));
    }
    Ok(value.to_string())
}

impl From<&ServeArgs> for ServerConfig {
    fn from(args: &ServeArgs) -> ServerConfig {
        let defaults = ServerConfig::default();
        ServerConfig {
            db: args.db.clone(),
            log_dir: args.log_dir.clone(),
            room: RoomConfig {
                level5_movetime: Duration::from_millis(args.bot_movetime),
                bot_delay: Duration::from_millis(args.bot_delay),
                idle_timeout: Duration::from_secs(args.idle_timeout),
                bot_searches: match args.max_bot_searches {
                    Some(n) => RoomConfig::bot_search_permits(n as usize),
                    None => defaults.room.bot_searches.clone(),
                },
                ..defaults.room.clone()
            },
            retention: Duration::from_secs(args.keep_finished),
            max_connections: args.max_connections as usize,
            ping_interval: Duration::from_secs(args.ping_interval),
            connection_timeout: Duration::from_secs(args.connection_timeout),
            ..defaults
        }
    }
}
