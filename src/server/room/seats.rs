//! Seats: who sits on each side of a room. A human seat is held by whoever has its secret
//! token (and counts its holder's connections); a computer's seat is a bot of some level or an
//! external engine (what runs them is the bot seats' part, `bot.rs`).

use std::collections::BTreeMap;

use tokio::time::Instant;

use super::build::bad;
use super::events::EventLog;
use crate::bots::Level;
use crate::chess::{ByColor, Color, Game, Variant};
use crate::protocol::{PlayerName, Refusal, SeatSpec, SeatView, Status};
use crate::server::accounts::Player;
use crate::server::engines::Engines;
use crate::server::store::{AccountKey, StoreEvent, StoredSeat};
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
    /// A computer player of a built-in level.
    Bot { level: Level },
    /// An external UCI engine (`--engine`) at a strength setting.
    Engine { name: String, options: BTreeMap<String, i64> },
}

impl Seat {
    /// An open human seat.
    fn open() -> Seat {
        Seat::Human { token: None, online: 0, away_since: None, name: None, account: None, also: None }
    }

    /// A human seat taken by `player`, holding `token`, who is connected.
    fn taken(token: &str, player: &Player) -> Seat {
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
            Seat::Human { online, name, account, .. } => SeatView::human(*online > 0, name.as_ref(), account.is_some()),
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

    /// A bot seat of this level, if there is one.
    fn bot(level: u8) -> Result<Seat, Refusal> {
        Level::new(level).map(|level| Seat::Bot { level }).map_err(|e| bad(format!("bad bot seat: {e}")))
    }

    /// The seat `spec` asks for in a game of `variant`; an engine seat only with an engine the
    /// server offers, in a variant it plays, at a strength it allows.
    fn from_spec(spec: SeatSpec, variant: Variant, engines: &Engines) -> Result<Seat, Refusal> {
        match spec {
            SeatSpec::Human => Ok(Seat::open()),
            SeatSpec::Bot { level } => Seat::bot(level),
            SeatSpec::Engine { name, options } => {
                let options = engines.check_seat(&name, &options, variant)?;
                Ok(Seat::Engine { name, options })
            }
        }
    }

    /// A stored seat as it is after a restart: its holder away (since `now`) until they resume.
    fn restore(stored: StoredSeat, now: Instant) -> Result<Seat, Refusal> {
        match stored {
            StoredSeat::Human { token, name, account } => Ok(Seat::Human {
                token,
                online: 0,
                away_since: token.map(|_| now),
                name: PlayerName::from_stored(name),
                account,
                also: None,
            }),
            StoredSeat::Bot { level } => Seat::bot(level),
            // Not checked against the engines offered now: an engine no longer offered
            // resigns when it is to move, with the reason in the chat.
            StoredSeat::Engine { name, options } => Ok(Seat::Engine { name, options }),
        }
    }

    /// True for a human seat nobody has taken yet.
    pub(super) fn is_open(&self) -> bool {
        matches!(self, Seat::Human { token: None, .. })
    }

    /// True if the token hashing to `presented` holds this seat.
    fn held_by(&self, presented: &TokenHash) -> bool {
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

/// The two seats of a room: who sits where, and how many connections each player has open.
pub(super) struct Seats {
    by: ByColor<Seat>,
}

impl Seats {
    /// The seats a create request asks for, in a game of `variant`.
    pub(super) fn from_spec(
        white: SeatSpec,
        black: SeatSpec,
        variant: Variant,
        engines: &Engines,
    ) -> Result<Seats, Refusal> {
        let (white, black) = (Seat::from_spec(white, variant, engines)?, Seat::from_spec(black, variant, engines)?);
        Ok(Seats { by: ByColor { white, black } })
    }

    /// The seats of a stored game after a restart (`now`): every player away until they resume.
    pub(super) fn restore(white: StoredSeat, black: StoredSeat, now: Instant) -> Result<Seats, Refusal> {
        Ok(Seats { by: ByColor { white: Seat::restore(white, now)?, black: Seat::restore(black, now)? } })
    }

    /// The seat of `side`.
    pub(super) fn seat(&self, side: Color) -> &Seat {
        &self.by[side]
    }

    /// What everyone may see of both seats.
    pub(super) fn views(&self) -> ByColor<SeatView> {
        self.by.as_ref().map(Seat::view)
    }

    /// Where `game` stands: waiting for a player while a human seat is open.
    pub(super) fn status(&self, game: &Game) -> Status {
        if game.is_over() {
            Status::Ended
        } else if self.by.any(Seat::is_open) {
            Status::Waiting
        } else {
            Status::Ongoing
        }
    }

    /// The accounts holding the seats, where logged-in players do.
    pub(super) fn accounts(&self) -> ByColor<Option<AccountKey>> {
        self.by.as_ref().map(Seat::account)
    }

    /// True when computers hold both seats.
    pub(super) fn all_bots(&self) -> bool {
        self.by.all(Seat::is_bot)
    }

    /// Which seats are people's.
    pub(super) fn humans(&self) -> ByColor<bool> {
        self.by.as_ref().map(|seat| !seat.is_bot())
    }

    /// True if a player has a connection open.
    pub(super) fn any_online(&self) -> bool {
        self.by.any(Seat::is_online)
    }

    /// The side whose seat `token` holds.
    pub(super) fn side_of(&self, token: &str) -> Option<Color> {
        // Hashed once, compared with both seats.
        let presented = TokenHash::of(token);
        [Color::White, Color::Black].into_iter().find(|s| self.seat(*s).held_by(&presented))
    }

    /// The side of the first seat that is not a computer's: where a create's creator sits
    /// unless they chose (`as_side`), which must then be a human seat.
    pub(super) fn creator(&self, as_side: Option<Color>) -> Result<Option<Color>, Refusal> {
        match as_side {
            Some(side) if self.seat(side).is_bot() => {
                Err(bad(format!("\"as\": the {} seat is a bot's; take a human seat", side.name())))
            }
            Some(side) => Ok(Some(side)),
            None => Ok(self.by.find(|seat| !seat.is_bot())),
        }
    }

    /// Seats `player` in `game` (on `color`, or the first open seat): their side and token.
    /// The seat is theirs once the store has it: a restart must know their token.
    pub(super) async fn join(
        &mut self,
        events: &EventLog,
        game: &Game,
        (color, player): (Option<Color>, &Player),
        rated: bool,
    ) -> Result<(Color, String), Refusal> {
        let side = self.joinable(game, color, player, rated)?;
        let token = player.seat_token(events.game());
        let name = player.name.as_ref().map(|n| n.as_str().to_string());
        let account = player.account_id();
        events.durable(StoreEvent::Seat { side, token: TokenHash::of(&token), name, account }).await?;
        self.by[side] = Seat::taken(&token, player);
        Ok((side, token))
    }

    /// The seat `player` may take in `game` (`color`, or the first open one), or why not.
    fn joinable(&self, game: &Game, color: Option<Color>, player: &Player, rated: bool) -> Result<Color, Refusal> {
        if game.is_over() {
            // An open seat of a game called off: nothing to sit down to.
            return Err(Refusal::game_over("the game is over; you can watch it"));
        }
        let side = match color {
            Some(side) => side,
            None => [Color::White, Color::Black]
                .into_iter()
                .find(|s| self.seat(*s).is_open())
                .ok_or_else(|| Refusal::seat_taken("both seats are taken; you can watch"))?,
        };
        if !self.seat(side).is_open() {
            let who = if self.seat(side).is_bot() { "a bot" } else { "another player" };
            return Err(Refusal::seat_taken(format!("the {} seat is taken by {who}", side.name())));
        }
        if rated {
            let Some(account) = player.account_id() else {
                return Err(Refusal::login_required("this game is rated: log in to play it"));
            };
            if self.seat(side.other()).account() == Some(account) {
                return Err(Refusal::bad_request("you hold the other seat; a rated game is against someone else"));
            }
        }
        Ok(side)
    }

    /// `player`, the creator of a new game, takes `side`'s seat with `token`, connected.
    pub(super) fn take(&mut self, side: Color, token: &str, player: &Player) {
        self.by[side] = Seat::taken(token, player);
    }

    /// A seat holder comes back (or opens another connection): their side, and whether they
    /// were offline until now. A logged-in player (`account`) gets back the seat their account
    /// holds, which `token` opens from then on.
    pub(super) fn resume(&mut self, token: &str, account: Option<AccountKey>) -> Result<(Color, bool), Refusal> {
        let by_account = || {
            let account = account?;
            [Color::White, Color::Black].into_iter().find(|s| self.seat(*s).account() == Some(account))
        };
        let side = match (self.side_of(token), by_account()) {
            (Some(side), _) => side,
            (None, Some(side)) => {
                if let Seat::Human { also, .. } = &mut self.by[side] {
                    *also = Some(TokenHash::of(token));
                }
                side
            }
            (None, None) if account.is_some() => {
                return Err(Refusal::not_a_player("your account holds no seat in this game"))
            }
            (None, None) => return Err(Refusal::not_a_player("that token holds no seat in this game")),
        };
        let came_online = match &mut self.by[side] {
            Seat::Human { online, away_since, .. } => {
                *online += 1;
                *away_since = None;
                *online == 1
            }
            Seat::Bot { .. } | Seat::Engine { .. } => false,
        };
        Ok((side, came_online))
    }

    /// A connection holding `token` closed: the side that has none left now, if so.
    pub(super) fn leave(&mut self, token: &str) -> Option<Color> {
        let side = self.side_of(token)?;
        match &mut self.by[side] {
            Seat::Human { online, away_since, .. } if *online > 0 => {
                *online -= 1;
                if *online == 0 {
                    *away_since = Some(Instant::now());
                }
                (*online == 0).then_some(side)
            }
            _ => None,
        }
    }

    /// The side that is away from `game`, ongoing, while its opponent is connected, and since when.
    pub(super) fn absent(&self, game: &Game) -> Option<(Color, Instant)> {
        if self.status(game) != Status::Ongoing {
            return None;
        }
        [Color::White, Color::Black].into_iter().find_map(|side| {
            let since = self.seat(side).away_since()?;
            self.seat(side.other()).is_online().then_some((side, since))
        })
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
        assert_eq!(seat.view(), SeatView::Human { online: true, name: "Ann".into(), account: false });
        assert_eq!(
            Seat::taken(&a, &Player::default()).view(),
            SeatView::Human { online: true, name: "Anonymous".into(), account: false }
        );
        assert_eq!(Seat::open().view(), SeatView::Open);
        assert!(!Seat::open().held_by(&TokenHash::of("")));
    }
}
