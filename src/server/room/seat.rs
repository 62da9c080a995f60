//! Seats: a human seat held by whoever has its secret token, or a bot of some level.

use std::collections::BTreeMap;

use tokio::time::Instant;

use super::engine_seat::EngineProcess;

use crate::bots::{Bot, Level};
use crate::protocol::{PlayerName, SeatView};
use crate::server::accounts::Player;
use crate::server::store::{AccountKey, StoredSeat};
use crate::server::token::TokenHash;

/// Who sits on one side of a room.
pub(super) enum Seat {
    /// A person. `token` is the hash of the seat's token, None while nobody has taken the seat;
    /// `online` counts the open connections holding it, and `away_since` says since when it
    /// has had none (a player who never came back after a restart counts from the restart).
    /// `name` is the one they gave on taking the seat; `account`, theirs if they were logged in.
    Human {
        token: Option<TokenHash>,
        online: usize,
        away_since: Option<Instant>,
        name: Option<PlayerName>,
        account: Option<AccountKey>,
        /// A second token that opens the seat: the one derived from `account` for this game,
        /// once the player resumed by account a seat made with another token (a rematch's).
        /// Held in memory only: the player's session gives it again after a restart.
        also: Option<TokenHash>,
    },
    /// A computer player. The bot itself is lent to the thinking task while it searches.
    Bot { level: Level, bot: Option<Box<dyn Bot>> },
    /// An external UCI engine (`--engine`) at a strength setting. Its process is started on
    /// its first move, lent to the thinking task while it thinks, and ended with the game;
    /// `crashes` counts its deaths in this game (the third resigns).
    Engine { name: String, options: BTreeMap<String, i64>, process: Option<EngineProcess>, crashes: u8 },
}

impl Seat {
    /// An open human seat.
    pub(super) fn open() -> Seat {
        Seat::Human { token: None, online: 0, away_since: None, name: None, account: None, also: None }
    }

    /// A human seat taken by `player`, holding `token`, who is connected.
    pub(super) fn taken(token: &str, player: &Player) -> Seat {
        Seat::Human {
            token: Some(TokenHash::of(token)),
            online: 1,
            away_since: None,
            name: player.name.clone(),
            account: player.account_id(),
            also: None,
        }
    }

    /// The account holding the seat, if a logged-in player does.
    pub(super) fn account(&self) -> Option<AccountKey> {
        match self {
            Seat::Human { account, .. } => *account,
            Seat::Bot { .. } | Seat::Engine { .. } => None,
        }
    }

    /// What everyone may see of the seat.
    pub(super) fn view(&self) -> SeatView {
        match self {
            Seat::Human { token: None, .. } => SeatView::Open,
            Seat::Human { online, name, .. } => SeatView::human(*online > 0, name.as_ref()),
            Seat::Bot { level, .. } => SeatView::bot(level.get()),
            Seat::Engine { name, options, .. } => SeatView::engine(name, options),
        }
    }

    /// The seat as the store holds it.
    pub(super) fn stored(&self) -> StoredSeat {
        match self {
            Seat::Human { token, name, account, .. } => StoredSeat::Human {
                token: *token,
                name: name.as_ref().map(|n| n.as_str().to_string()),
                account: *account,
            },
            Seat::Bot { level, .. } => StoredSeat::Bot { level: level.get() },
            Seat::Engine { name, options, .. } => StoredSeat::Engine { name: name.clone(), options: options.clone() },
        }
    }

    /// True for a computer's seat: a bot or an engine.
    pub(super) fn is_bot(&self) -> bool {
        matches!(self, Seat::Bot { .. } | Seat::Engine { .. })
    }

    /// An engine seat with nothing running yet.
    pub(super) fn engine(name: String, options: BTreeMap<String, i64>) -> Seat {
        Seat::Engine { name, options, process: None, crashes: 0 }
    }

    pub(super) fn is_open(&self) -> bool {
        matches!(self, Seat::Human { token: None, .. })
    }

    /// True if the token hashing to `presented` holds this seat.
    pub(super) fn held_by(&self, presented: &TokenHash) -> bool {
        match self {
            Seat::Human { token: Some(hash), also, .. } => {
                hash.same_as(presented) || also.is_some_and(|also| also.same_as(presented))
            }
            _ => false,
        }
    }

    /// True for a taken human seat with a connection open.
    pub(super) fn is_online(&self) -> bool {
        matches!(self, Seat::Human { online, .. } if *online > 0)
    }

    /// Since when a taken human seat has had no connection, if it has none.
    pub(super) fn away_since(&self) -> Option<Instant> {
        match self {
            Seat::Human { token: Some(_), online: 0, away_since, .. } => *away_since,
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::token::new_token;

    #[test]
    fn seats_are_held_by_their_token() {
        let a = new_token();
        let seat = Seat::taken(&a, &Player::anonymous(PlayerName::parse("Ann").ok()));
        assert!(seat.held_by(&TokenHash::of(&a)));
        assert!(!seat.held_by(&TokenHash::of(&new_token())));
        assert!(!seat.held_by(&TokenHash::of("")));
        assert_eq!(seat.view(), SeatView::Human { online: true, name: "Ann".into() });
        assert_eq!(
            Seat::taken(&a, &Player::default()).view(),
            SeatView::Human { online: true, name: "Anonymous".into() }
        );
        assert_eq!(Seat::open().view(), SeatView::Open);
        assert!(!Seat::open().held_by(&TokenHash::of("")));
    }
}
