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
}

impl Default for ServerConfig {
    fn default() -> ServerConfig {
        ServerConfig {
            log_dir: None,
            room: RoomConfig::default(),
            retention: Duration::from_secs(600),
            max_frame: MAX_FRAME,
            rate_burst: 20,
            rate_per_sec: 10.0,
            max_games_per_connection: 8,
            max_rooms: 2000,
        }
    }
}

/// `gambit serve` arguments.
#[derive(Args, Debug, Clone)]
pub struct ServeArgs {
    /// Address to listen on
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
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
}

impl From<&ServeArgs> for ServerConfig {
    fn from(args: &ServeArgs) -> ServerConfig {
        let defaults = ServerConfig::default();
        ServerConfig {
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
            ..defaults
        }
    }
}
