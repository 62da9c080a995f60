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
}

impl From<&ServeArgs> for ServerConfig {
    fn from(args: &ServeArgs) -> ServerConfig {
        let defaults = ServerConfig::default();
        ServerConfig {
            log_dir: args.log_dir.clone(),
            room: RoomConfig {
                level5_movetime: Duration::from_millis(args.bot_movetime),
                bot_delay: Duration::from_millis(args.bot_delay),
                ..defaults.room.clone()
            },
            retention: Duration::from_secs(args.keep_finished),
            ..defaults
        }
    }
}
