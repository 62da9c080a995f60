//! What every connection and HTTP handler shares: the lobby, the store, the limits, the
//! accounts and analyses, and the cluster a node belongs to.

use std::sync::Arc;

use tokio::sync::watch;

use super::accounts::Accounts;
use super::analysis::Analyses;
use super::challenges::Challenges;
use super::cluster::Cluster;
use super::config::ServerConfig;
use super::game_ref::GameRef;
use super::hosts::Hosts;
use super::limits::{AddressLimits, Buckets, StreamSlots};
use super::lobby::Lobby;
use super::metrics::Metrics;
use super::notices::Notices;
use super::notifications::Notifications;
use super::store::{GameStore, RatingStore, RelationStore, Stores, TournamentStore};

/// The requests one API token may make at once, and then a minute. Two programs that move at
/// once (lichess-bot's random mover against another) make some twenty moves a second each, a
/// person's board app a few a minute; a program looping on the API is held at sixty a second.
const API_BURST: u32 = 300;
const API_PER_MINUTE: f64 = 3600.0;

/// The streams (event and game streams) one API token may hold open at once: a bot playing a
/// dozen games at once holds thirteen.
const API_STREAMS: usize = 32;

/// What every connection and handler shares.
pub struct Shared {
    pub lobby: Lobby,
    pub metrics: Arc<Metrics>,
    pub config: ServerConfig,
    /// Turns true when the server is shutting down; connections then close.
    pub shutdown: watch::Receiver<bool>,
    /// Where games are kept; the archive of finished games is read from it.
    pub store: Arc<dyn GameStore>,
    /// Where rated games change ratings (in the same store as the games).
    pub ratings: Arc<dyn RatingStore>,
    /// What each client address holds and may still do.
    pub limits: Arc<AddressLimits>,
    /// The names the server answers to and the pages that may open WebSockets.
    pub hosts: Hosts,
    /// The id the next WebSocket connection gets.
    pub next_connection: std::sync::atomic::AtomicU64,
    /// The cluster this server is a node of, if any: games are then found through it.
    pub cluster: Option<Arc<Cluster>>,
    /// Accounts, sessions and ratings (kept in the same store as the games).
    pub accounts: Accounts,
    /// Computer analyses of finished games.
    pub analyses: Arc<Analyses>,
    /// What each player is told as it happens, and who is online.
    pub notices: Arc<Notices>,
    /// Challenges by name waiting for an answer.
    pub challenges: Challenges,
    /// Whom players follow and block.
    pub relations: Arc<dyn RelationStore>,
    /// What players are told that waits until they read it.
    pub notifications: Arc<Notifications>,
    /// The TV channels' featured games.
    pub tv: super::tv::Tv,
    /// The tournaments running here.
    pub tournaments: super::tournaments::Tournaments,
    /// Where tournaments are kept.
    pub tournament_store: Arc<dyn TournamentStore>,
    /// Requests of the lichess-compatible API, per token.
    pub api_limits: Buckets<ApiCaller>,
    /// The API's streams open, per token.
    pub api_streams: StreamSlots<ApiCaller>,
}

/// Who a request of the lichess-compatible API counts against: its token, or the browser
/// session it came with.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ApiCaller {
    Token(i64),
    Session(crate::server::store::AccountKey),
}

impl Shared {
    /// What connections and handlers share, around a lobby, a store and the notices its rooms
    /// tell, for a server listening on `listen_ip`.
    pub fn new(
        lobby: Lobby,
        metrics: Arc<Metrics>,
        config: ServerConfig,
        shutdown: watch::Receiver<bool>,
        stores: Stores,
        notices: Arc<Notices>,
        listen_ip: std::net::IpAddr,
    ) -> Shared {
        let limits = AddressLimits::new(config.per_address.clone());
        let hosts = Hosts::new(listen_ip, config.public_url.as_deref(), &config.allowed_origins);
        let accounts = Accounts::new(stores.accounts, config.accounts.clone());
        let analyses =
            Arc::new(Analyses::new(stores.games.clone(), stores.analyses, config.analysis.clone(), &config.room));
        let tv = super::tv::Tv::start(lobby.clone(), notices.clone());
        Shared {
            tv,
            accounts,
            analyses,
            lobby,
            metrics,
            config,
            shutdown,
            store: stores.games,
            ratings: stores.ratings,
            limits,
            hosts,
            next_connection: Default::default(),
            cluster: None,
            notifications: Arc::new(Notifications::new(stores.notifications.clone(), notices.clone())),
            notices,
            challenges: Challenges::new(stores.challenges.clone()),
            relations: stores.relations.clone(),
            tournaments: Default::default(),
            tournament_store: stores.tournaments.clone(),
            api_limits: Buckets::new(API_BURST, API_PER_MINUTE),
            api_streams: StreamSlots::new(API_STREAMS),
        }
    }

    /// The game's state now: from its room, or from the archive once it has ended and gone.
    pub async fn current(&self, game: &str) -> Result<crate::protocol::GameState, crate::protocol::Refusal> {
        match self.room(game).await {
            Ok(room) => room.call(crate::server::room::Command::State).await?.into_state(),
            Err(refusal) => match self.store.load(game).await.map_err(|e| {
                tracing::error!(error = %e, "could not read an archived game");
                crate::protocol::Refusal::server_error(e.to_string())
            })? {
                Some(stored) => Ok(crate::server::room::archived(&stored)?.0),
                None => Err(refusal),
            },
        }
    }

    /// The room of `game`: wherever the cluster holds it, or in this server's lobby.
    pub async fn room(&self, game: &str) -> Result<GameRef, crate::protocol::Refusal> {
        match &self.cluster {
            Some(cluster) => {
                cluster.check(game).await?;
                Ok(GameRef::Routed { cluster: cluster.clone(), game: game.to_string() })
            }
            None => match self.lobby.get(game).await {
                Some(room) => Ok(GameRef::Local(room)),
                None => Err(crate::protocol::Refusal::no_such_game(game)),
            },
        }
    }
}
