//! What rooms are given: their timing options and shared limits ([`RoomConfig`]), and the
//! rest of the server they talk to ([`RoomContext`]: the store, the lobby, the metrics, in a
//! cluster the bus's relay).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};

use super::{bot, Relay};
use crate::protocol::{ClockSpec, GameId, GameSummary, Refusal};
use crate::server::metrics::Metrics;
use crate::server::store::{GameStore, RatingStore, StoredGame};

/// Timing options of rooms, and the limits they share.
#[derive(Clone, Debug)]
pub struct RoomConfig {
    /// Thinking time of a level 5–12 bot per move (levels 1–4 answer at once; 5–10 stop sooner, at their depth, and 11 after its nodes).
    pub engine_movetime: Duration,
    /// Pause before each move of a bot-vs-bot game, so people can follow it.
    pub bot_delay: Duration,
    /// Watcher counts are sent at most once per this period.
    pub watcher_batch: Duration,
    /// An unfinished game that nobody plays or watches for this long ends (see `idle`).
    pub idle_timeout: Duration,
    /// A bot-vs-bot game that nobody watches for this long pauses until someone does.
    pub unwatched_bot_pause: Duration,
    /// Permits for bot searches, shared by every room of a server: a search waits for one.
    pub bot_searches: Arc<tokio::sync::Semaphore>,
    /// Transposition tables lent to the engine levels' searches; as many as there are search permits.
    pub engine_tables: crate::bots::search::TablePool,
    /// How long a player may be away before the opponent may claim the game.
    pub claim_grace: ClaimGrace,
    /// After a player's takeback request is declined for the n-th time, they may ask again
    /// only after n² times this (lichess's courtesy: no pestering).
    pub takeback_cooldown: Duration,
    /// The UCI engines offered as seats (`--engine`).
    pub engines: Arc<crate::server::engines::Engines>,
    /// How long each person has for their first move of a timed game (no clock runs until
    /// both have moved); then the game is aborted, with no result.
    pub first_move_timeout: Duration,
}

/// The grace period of an absent player: longer for longer time controls, as on lichess. A
/// twentieth of the game's expected length (initial time plus 40 increments), kept between
/// `min` and `max`; an untimed game gets `max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClaimGrace {
    pub min: Duration,
    pub max: Duration,
}

impl Default for ClaimGrace {
    fn default() -> ClaimGrace {
        ClaimGrace { min: Duration::from_secs(15), max: Duration::from_secs(120) }
    }
}

impl ClaimGrace {
    /// The grace for a game with this time control (None: untimed).
    pub fn for_clock(self, clock: Option<ClockSpec>) -> Duration {
        match clock {
            None => self.max,
            Some(c) => {
                let expected = c.initial_ms.saturating_add(c.increment_ms.saturating_mul(40));
                Duration::from_millis(expected / 20).clamp(self.min, self.max.max(self.min))
            }
        }
    }
}

impl RoomConfig {
    /// A pool of `n` bot search permits (at least one).
    pub fn bot_search_permits(n: usize) -> Arc<tokio::sync::Semaphore> {
        Arc::new(tokio::sync::Semaphore::new(n.max(1)))
    }

    /// This configuration with `n` concurrent bot searches, and engine tables for as many.
    pub fn with_bot_searches(self, n: usize) -> RoomConfig {
        RoomConfig { bot_searches: RoomConfig::bot_search_permits(n), engine_tables: bot::table_pool(n), ..self }
    }
}

impl Default for RoomConfig {
    fn default() -> RoomConfig {
        let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        RoomConfig {
            engine_movetime: Duration::from_millis(1000),
            bot_delay: Duration::from_millis(1000),
            watcher_batch: Duration::from_millis(500),
            idle_timeout: Duration::from_secs(1800),
            unwatched_bot_pause: Duration::from_secs(30),
            bot_searches: RoomConfig::bot_search_permits(cpus),
            engine_tables: bot::table_pool(cpus),
            claim_grace: ClaimGrace::default(),
            takeback_cooldown: Duration::from_secs(10),
            engines: Arc::default(),
            first_move_timeout: Duration::from_secs(30),
        }
    }
}

/// What a room needs from the rest of the server.
#[derive(Clone)]
pub struct RoomContext {
    pub config: RoomConfig,
    pub metrics: Arc<Metrics>,
    pub store: Arc<dyn GameStore>,
    /// Where a rated game's result changes its players' ratings.
    pub ratings: Arc<dyn RatingStore>,
    /// Where the room sends its summary whenever the games list would show a change, and asks
    /// for a rematch to be made.
    pub lobby: mpsc::UnboundedSender<LobbyNote>,
    /// In a cluster: the bus every broadcast is also published on.
    pub relay: Option<Relay>,
    /// Where players are told their game has started (the API's event stream); None in tests
    /// of rooms alone.
    pub notices: Option<Arc<crate::server::notices::Notices>>,
}

/// What a room tells the lobby.
pub enum LobbyNote {
    /// The game's line in the games list, whenever it may have changed.
    Summary(GameSummary),
    /// Make this game (a rematch; its id is the lobby's to give) and answer its id once it is
    /// stored.
    Rematch { game: Box<StoredGame>, reply: oneshot::Sender<Result<GameId, Refusal>> },
}
