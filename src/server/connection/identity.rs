//! Who a connection is: the name it gave, or its account's username when its session cookie
//! logged it in; the player it seats; and the token that names its seat in a game.

use super::Connection;
use crate::protocol::{PlayerName, Refusal};
use crate::server::accounts::Player;
use crate::server::store::AccountKey;

impl Connection {
    /// Keeps the name the client gave, if it gave one. A logged-in player is called by their
    /// username whatever they send; nobody else may use a registered username.
    pub(super) async fn given(&mut self, name: Option<PlayerName>) -> Result<(), Refusal> {
        let Some(name) = name else { return Ok(()) };
        if self.account.is_some() {
            return Ok(());
        }
        let registered = self.shared.accounts.registered_like(name.as_str()).await.map_err(|e| {
            tracing::error!(error = %e, "could not look a name up");
            Refusal::server_error("could not check that name; try again")
        })?;
        if let Some(username) = registered {
            return Err(Refusal::bad_request(if username.eq_ignore_ascii_case(name.as_str()) {
                format!("the name {} belongs to a registered player; log in to use it", name.as_str())
            } else {
                format!("the name {} looks like {username}, a registered player's; choose another", name.as_str())
            }));
        }
        self.name = Some(name);
        Ok(())
    }

    /// Checks that the session which logged this connection in is still open before its
    /// account is used: a log-out (on this node or another, "everywhere", or by a password
    /// change) takes the account's rights from sockets opened before it. A connection whose
    /// session has ended goes on as an anonymous one, with no name.
    pub(super) async fn recheck_session(&mut self) -> Result<(), Refusal> {
        let (Some(account), Some(credential)) = (&self.account, &self.session) else { return Ok(()) };
        let now = match credential {
            super::Credential::Session(session) => self.shared.accounts.session(session).await,
            super::Credential::Token(token) => {
                self.shared.accounts.api_token(token).await.map(|t| t.map(|t| t.account))
            }
        };
        let now = now.map_err(|e| {
            tracing::error!(error = %e, "could not read a session");
            Refusal::server_error("could not check your session; try again")
        })?;
        if now.is_none_or(|now| now.id != account.id) {
            self.account = None;
            self.session = None;
            self.name = None;
            self.online = None;
        }
        Ok(())
    }

    /// Refuses a bot account a seat through the WebSocket: bots play through the Bot API only
    /// (lichess's rule; docs/api.md).
    pub(super) fn not_a_bot(&self) -> Result<(), Refusal> {
        match &self.account {
            Some(account) if account.bot => {
                Err(Refusal::bad_request("a bot account plays through the Bot API only (docs/api.md)"))
            }
            _ => Ok(()),
        }
    }

    /// Who this connection is, as a seat holder.
    pub(super) fn player(&self) -> Player {
        match &self.account {
            Some(account) => Player::of(account),
            None => Player::anonymous(self.name.clone()),
        }
    }

    /// The token to resume a seat with: the one given, or, for a logged-in player who gave
    /// none, the one their account's seat in `game` has (with the account, so a seat made
    /// with another token is found by its holder).
    pub(super) fn seat_key(&self, game: &str, token: Option<String>) -> Result<(String, Option<AccountKey>), Refusal> {
        match (token, &self.account) {
            (Some(token), _) => Ok((token, None)),
            (None, Some(account)) => Ok((account.seat_token(game), Some(account.id))),
            (None, None) => Err(Refusal::bad_request(
                "\"token\": resume needs the seat's token (or log in: your account's seats need none)",
            )),
        }
    }
}
