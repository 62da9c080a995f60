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
        let registered = self.shared.accounts.is_registered(name.as_str()).await.map_err(|e| {
            tracing::error!(error = %e, "could not look a name up");
            Refusal::server_error("could not check that name; try again")
        })?;
        if registered {
            return Err(Refusal::bad_request(format!(
                "the name {} belongs to a registered player; log in to use it",
                name.as_str()
            )));
        }
        self.name = Some(name);
        Ok(())
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
