//! The lobby: the registry `GameId -> RoomHandle`, owned by one task, and the games list with
//! its own broadcast for `list` subscribers. Finished games stay listed for a while, then the
//! lobby forgets them and their rooms end.

use std::sync::Arc;
use std::time::Duration;

use rand::Rng;
use tokio::sync::{broadcast, mpsc, oneshot};

mod listing;
pub mod seeks;
mod task;

pub use crate::server::limits::{Creator, LobbyLimits, DEFAULT_MAX_ROOMS};
pub use listing::NodeList;

use self::seeks::{Seek, Seeker};
use super::accounts::Player;
use super::room::{Created, RoomContext, RoomHandle};
use super::store::StoredGame;
use crate::protocol::{GameId, GameSummary, NewGame, NewSeek, Refusal, SeekId, SeekView};

/// Letters of game ids: lowercase base32 without the look-alikes 0/o and 1/l.
const ID_ALPHABET: &[u8; 32] = b"abcdefghijkmnpqrstuvwxyz23456789";
/// Length of a game id: 40 bits, plenty for the games one server holds.
const ID_LEN: usize = 8;
/// The games list is broadcast at most this often.
const LIST_PERIOD: Duration = Duration::from_millis(250);
/// In a cluster, a node shares its games at least this often, even when nothing changed…
const SHARE_PERIOD: Duration = Duration::from_secs(2);
/// …and another node's list is dropped when it has not been heard of for this long.
const REMOTE_TTL: Duration = Duration::from_secs(6);

/// How a lobby runs.
pub struct LobbyOptions {
    /// How long finished games stay listed.
    pub retention: Duration,
    pub limits: LobbyLimits,
    /// Unfinished games read back from the store after a restart, whose rooms start first. A
    /// game that cannot be rebuilt is logged and left in the store as it is.
    pub restored: Vec<StoredGame>,
    /// A node of a cluster: what its lobby tells the cluster.
    pub hooks: Option<ClusterHooks>,
}

impl Default for LobbyOptions {
    fn default() -> LobbyOptions {
        LobbyOptions {
            retention: Duration::from_secs(600),
            limits: LobbyLimits::default(),
            restored: Vec::new(),
            hooks: None,
        }
    }
}

/// What a cluster node's lobby tells the cluster.
pub struct ClusterHooks {
    /// This node's games and seeks, whenever they change (and every `SHARE_PERIOD`).
    pub share: mpsc::UnboundedSender<NodeList>,
    /// A game whose room this node let go of (finished and forgotten, or closed).
    pub forgotten: mpsc::UnboundedSender<GameId>,
}

/// A new random game id.
pub fn new_game_id() -> GameId {
    let mut rng = rand::rng();
    (0..ID_LEN).map(|_| ID_ALPHABET[rng.random_range(0..ID_ALPHABET.len())] as char).collect()
}

pub(super) enum LobbyCommand {
    Create {
        /// The id the game is to have (a challenge's, as on lichess), if it is free.
        id: Option<GameId>,
        spec: NewGame,
        /// Who asks, for the counts of unfinished games per connection and per address.
        creator: Option<Creator>,
        /// Who sits down in the creator's seat.
        player: Player,
        reply: oneshot::Sender<Result<(GameId, Created), Refusal>>,
    },
    Get {
        game: GameId,
        reply: oneshot::Sender<Option<RoomHandle>>,
    },
    List {
        reply: oneshot::Sender<Vec<GameSummary>>,
    },
    /// The games list and the seeks now, and the feed of their changes.
    Subscribe {
        reply: oneshot::Sender<Listing>,
    },
    Seeks {
        reply: oneshot::Sender<Vec<SeekView>>,
    },
    /// Post a seek (replacing the connection's earlier one).
    PostSeek {
        spec: NewSeek,
        seeker: Seeker,
        reply: oneshot::Sender<SeekId>,
    },
    /// Withdraw a connection's seek.
    CancelSeek {
        connection: u64,
        reply: oneshot::Sender<bool>,
    },
    /// Take a seek out to play it; `by` is the accepting connection (of this node).
    TakeSeek {
        seek: SeekId,
        by: Taker,
        reply: oneshot::Sender<Result<Seek, Taken>>,
    },
    /// A created room's game is stored (`saved`) or could not be: keep it or let it go.
    Saved {
        id: GameId,
        saved: bool,
    },
    /// Start the room of a game this node has just taken over (cluster); None if the lobby is
    /// full.
    Adopt {
        stored: Box<StoredGame>,
        reply: oneshot::Sender<Option<RoomHandle>>,
    },
    /// Drop the rooms of games this node no longer owns (cluster): another node holds them.
    Drop {
        games: Vec<GameId>,
    },
    /// Another node's games and seeks, for the cluster-wide list.
    Remote {
        node: String,
        list: NodeList,
    },
    /// Every room stores what it must and ends; then the lobby ends.
    Close {
        reply: oneshot::Sender<()>,
    },
}

/// A cloneable handle on the lobby task.
#[derive(Clone)]
pub struct Lobby {
    tx: mpsc::Sender<LobbyCommand>,
}

fn gone() -> Refusal {
    Refusal::shutting_down()
}

/// The games list and the seeks now, and the feed of `games` and `seeks` messages as they change.
pub type Listing = (Vec<GameSummary>, Vec<SeekView>, broadcast::Receiver<Arc<str>>);

/// Who takes up a seek: their connection (None when another node asks for its player) and
/// their account, if they are logged in.
#[derive(Clone, Copy, Debug, Default)]
pub struct Taker {
    pub connection: Option<u64>,
    pub account: Option<crate::server::store::AccountKey>,
}

/// Why a seek could not be taken here.
#[derive(Debug)]
pub enum Taken {
    /// Another node of the cluster holds it.
    Elsewhere(String),
    Refused(Refusal),
}

impl Lobby {
    /// Starts the lobby task. Rooms it creates get `ctx` (its `lobby` field is replaced by the
    /// lobby's own update channel); the rooms of `options.restored` games are started first.
    pub fn start(ctx: RoomContext, options: LobbyOptions) -> Lobby {
        let (tx, rx) = mpsc::channel(256);
        task::spawn(ctx, options, tx.downgrade(), rx);
        Lobby { tx }
    }

    /// Closes every room (each stores its clock) and the lobby, for a clean stop.
    pub async fn close(&self) {
        self.ask(|reply| LobbyCommand::Close { reply }).await;
    }

    async fn ask<T>(&self, make: impl FnOnce(oneshot::Sender<T>) -> LobbyCommand) -> Option<T> {
        let (reply, answer) = oneshot::channel();
        self.tx.send(make(reply)).await.ok()?;
        answer.await.ok()
    }

    /// Creates a game and its room, for `creator` (None: not counted).
    pub async fn create(
        &self,
        spec: NewGame,
        creator: Option<Creator>,
        player: Player,
    ) -> Result<(GameId, Created), Refusal> {
        self.ask(|reply| LobbyCommand::Create { id: None, spec, creator, player, reply })
            .await
            .unwrap_or_else(|| Err(gone()))
    }

    /// Creates a game as [`Lobby::create`] does, under `id` if no game of this node has it (an
    /// accepted challenge's game takes the challenge's id, as on lichess, where programs such as
    /// lichess-bot count on it).
    pub async fn create_as(&self, id: GameId, spec: NewGame, player: Player) -> Result<(GameId, Created), Refusal> {
        self.ask(|reply| LobbyCommand::Create { id: Some(id), spec, creator: None, player, reply })
            .await
            .unwrap_or_else(|| Err(gone()))
    }

    /// The room of a game, if the lobby holds it.
    pub async fn get(&self, game: &str) -> Option<RoomHandle> {
        self.ask(|reply| LobbyCommand::Get { game: game.to_string(), reply }).await.flatten()
    }

    /// The games list now.
    pub async fn list(&self) -> Vec<GameSummary> {
        self.ask(|reply| LobbyCommand::List { reply }).await.unwrap_or_default()
    }

    /// Starts the room of a game this node took over; None if it holds all it may.
    pub async fn adopt(&self, stored: StoredGame) -> Option<RoomHandle> {
        self.ask(|reply| LobbyCommand::Adopt { stored: Box::new(stored), reply }).await.flatten()
    }

    /// Drops the rooms of games another node now owns.
    pub async fn drop_games(&self, games: Vec<GameId>) {
        let _ = self.tx.send(LobbyCommand::Drop { games }).await;
    }

    /// Another node's games and seeks.
    pub async fn remote(&self, node: String, list: NodeList) {
        let _ = self.tx.send(LobbyCommand::Remote { node, list }).await;
    }

    /// The games list and the seeks now, and a feed of `games` and `seeks` messages as they
    /// change.
    pub async fn subscribe(&self) -> Option<Listing> {
        self.ask(|reply| LobbyCommand::Subscribe { reply }).await
    }

    /// The open seeks now (of the whole cluster).
    pub async fn seeks(&self) -> Vec<SeekView> {
        self.ask(|reply| LobbyCommand::Seeks { reply }).await.unwrap_or_default()
    }

    /// Posts a seek for `seeker` (replacing its connection's earlier one); its id.
    pub async fn post_seek(&self, spec: NewSeek, seeker: Seeker) -> Result<SeekId, Refusal> {
        self.ask(|reply| LobbyCommand::PostSeek { spec, seeker, reply }).await.ok_or_else(gone)
    }

    /// Withdraws the seek of `connection`; true if it had one.
    pub async fn cancel_seek(&self, connection: u64) -> bool {
        self.ask(|reply| LobbyCommand::CancelSeek { connection, reply }).await.unwrap_or(false)
    }

    /// Takes seek `seek` out to play it, for `by` (a connection of this node, or another node's
    /// player): once only, whoever asks first.
    pub async fn take_seek(&self, seek: SeekId, by: Taker) -> Result<Seek, Taken> {
        self.ask(|reply| LobbyCommand::TakeSeek { seek, by, reply })
            .await
            .unwrap_or_else(|| Err(Taken::Refused(gone())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_short_and_readable() {
        let id = new_game_id();
        assert_eq!(id.len(), 8);
        assert!(id.bytes().all(|c| ID_ALPHABET.contains(&c)));
        assert_ne!(new_game_id(), new_game_id());
    }
}
