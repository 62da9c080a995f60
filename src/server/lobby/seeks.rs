//! Open challenges ("seeks"), as on the lichess lobby: a connection posts one and waits; the
//! lobby lists every seek of the server (of the cluster: nodes share theirs with their games);
//! the first to accept plays it. The registry lives in the lobby task, which takes a seek out
//! in one step, so of two people accepting one seek exactly one gets it.

use std::collections::HashMap;

use rand::Rng;
use tokio::sync::mpsc;

use super::{Creator, Lobby};
use crate::chess::Color;
use crate::protocol::{ErrorCode, GameId, NewSeek, PlayerName, Refusal, SeekId, SeekView};
use crate::server::accounts::Player;
use crate::server::room::{Action, Command};

/// How a seek's creator learns that it was accepted: the game and the token of their seat,
/// which their connection then resumes.
#[derive(Debug)]
pub struct SeekMatch {
    pub game: GameId,
    pub token: String,
}

/// A seek's creator: their connection, and where to tell them it was accepted.
#[derive(Clone, Debug)]
pub struct Seeker {
    pub connection: u64,
    pub ip: std::net::IpAddr,
    pub matched: mpsc::UnboundedSender<SeekMatch>,
    /// Who they are: the seat of the game is theirs.
    pub player: Player,
}

/// One open seek.
pub struct Seek {
    pub view: SeekView,
    pub spec: NewSeek,
    pub seeker: Seeker,
}

impl Seek {
    /// The creator's colour: as asked, or drawn now.
    pub fn creator_color(&self) -> Color {
        self.spec.color.unwrap_or_else(|| if rand::rng().random_bool(0.5) { Color::White } else { Color::Black })
    }
}

/// The open seeks of this node, one per connection at most.
#[derive(Default)]
pub struct Seeks {
    open: HashMap<SeekId, Seek>,
}

impl Seeks {
    /// Posts `spec` for `seeker`, replacing that connection's earlier seek; the new seek's id.
    pub fn post(&mut self, spec: NewSeek, seeker: Seeker) -> SeekId {
        self.cancel(seeker.connection);
        let mut id = new_seek_id();
        while self.open.contains_key(&id) {
            id = new_seek_id();
        }
        let view = SeekView {
            seek: id.clone(),
            name: PlayerName::shown(seeker.player.name.as_ref()),
            variant: spec.variant,
            fen: spec.fen.clone(),
            rules: spec.rules,
            clock: spec.clock,
            color: spec.color,
            rated: spec.rated,
        };
        self.open.insert(id.clone(), Seek { view, spec, seeker });
        id
    }

    /// Withdraws the seek of `connection`; true if it had one.
    pub fn cancel(&mut self, connection: u64) -> bool {
        let before = self.open.len();
        self.open.retain(|_, seek| seek.seeker.connection != connection);
        self.open.len() != before
    }

    /// Takes seek `id` out, for whoever accepts it first.
    pub fn take(&mut self, id: &str) -> Option<Seek> {
        self.open.remove(id)
    }

    /// Puts back a seek taken out by someone who then could not play it (their own seek).
    pub fn put_back(&mut self, seek: Seek) {
        self.open.insert(seek.view.seek.clone(), seek);
    }

    /// The seeks as the lobby lists them, oldest id first for a stable order.
    pub fn views(&self) -> Vec<SeekView> {
        let mut views: Vec<SeekView> = self.open.values().map(|s| s.view.clone()).collect();
        views.sort_by(|a, b| a.seek.cmp(&b.seek));
        views
    }
}

/// Plays a seek taken out of this node's lobby: makes its game (the creator in their colour),
/// seats the acceptor, `player`, in the other, and tells the creator. The game and the
/// acceptor's token, which their connection then resumes (on whichever node it is).
pub async fn play(lobby: &Lobby, seek: Seek, player: Player) -> Result<(GameId, String), Refusal> {
    let color = seek.creator_color();
    let creator = Creator { connection: seek.seeker.connection, ip: seek.seeker.ip };
    let (game, created) = lobby.create(seek.spec.game(color), Some(creator), seek.seeker.player.clone()).await?;
    let Some((_, creator_token)) = created.seat.clone() else {
        return Err(Refusal::server_error("the seek's game has no seat for its creator"));
    };
    let join = Command::Join { color: Some(color.other()), player };
    let seated = created.handle.call(join).await?.into_seated()?;
    if seek.seeker.matched.send(SeekMatch { game: game.clone(), token: creator_token.clone() }).is_err() {
        // The creator left at this very moment: nobody is there to play.
        let _ = created.handle.call(Command::act(creator_token, Action::Abort)).await;
        return Err(Refusal::new(ErrorCode::NoSuchSeek, "the player who posted that seek has just left"));
    }
    tracing::info!(game = %game, seek = %seek.view.seek, "seek accepted");
    Ok((game, seated.token))
}

/// A new random seek id (as game ids are made, with an `s` in front so the two never mix).
fn new_seek_id() -> SeekId {
    format!("s{}", super::new_game_id())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seeker(connection: u64) -> Seeker {
        Seeker {
            connection,
            ip: std::net::Ipv4Addr::LOCALHOST.into(),
            matched: mpsc::unbounded_channel().0,
            player: Player::default(),
        }
    }

    #[test]
    fn one_seek_per_connection_and_one_taker() {
        let mut seeks = Seeks::default();
        let first = seeks.post(NewSeek::default(), seeker(1));
        let second = seeks.post(NewSeek { color: Some(Color::Black), ..NewSeek::default() }, seeker(1));
        assert!(seeks.views().iter().all(|s| s.seek != first), "a new seek replaces the connection's old one");
        let other = seeks.post(NewSeek::default(), seeker(2));
        assert_eq!(seeks.views().len(), 2);
        let taken = seeks.take(&second).expect("open");
        assert_eq!(taken.creator_color(), Color::Black);
        assert!(taken.spec.game(Color::Black).as_side == Some(Color::Black));
        assert!(seeks.take(&second).is_none(), "taken once only");
        assert!(seeks.cancel(2));
        assert!(seeks.views().is_empty(), "{other} withdrawn");
        assert!(!seeks.cancel(2));
    }
}
