//! Personal API tokens: what a program (a bot, a board app, a script) uses instead of a
//! password, as on lichess. Made by a logged-in player, each with a description and scopes,
//! shown once, kept as SHA-256 like sessions, revoked at will. A token acts for its account
//! only: every API call derives the account's seat tokens from it, never another's.

use serde::Serialize;

use super::{Account, AccountError, Accounts, Scopes};
use crate::server::store::{now_ms, StoreError, StoredApiToken};
use crate::server::token::{new_token, TokenHash};

/// What a token's text starts with, so a leaked one is recognisable (as lichess's `lip_`).
const PREFIX: &str = "gmb_";
/// The longest description kept.
const DESCRIPTION_MAX: usize = 200;
/// The most tokens one account may hold.
pub const TOKENS_MAX: usize = 50;

/// A request's token, checked: whose it is and what it may do.
#[derive(Clone, Debug)]
pub struct ApiToken {
    pub account: Account,
    pub scopes: Scopes,
    /// The token's number (None for a browser's session, which is no token).
    pub id: Option<i64>,
}

/// A token as its owner's list shows it (never the token itself).
#[derive(Clone, Debug, Serialize)]
pub struct TokenView {
    pub id: i64,
    pub description: String,
    pub scopes: Vec<&'static str>,
    #[serde(rename = "createdAt")]
    pub created_at: i64,
}

impl TokenView {
    fn of(stored: &StoredApiToken) -> TokenView {
        TokenView {
            id: stored.id,
            description: stored.description.clone(),
            scopes: stored_scopes(&stored.scopes).names(),
            created_at: stored.created_ms,
        }
    }
}

/// The scopes a stored token holds; a name this server no longer knows grants nothing.
fn stored_scopes(text: &str) -> Scopes {
    text.split(',').filter_map(super::Scope::parse).fold(Scopes::default(), Scopes::with)
}

impl Accounts {
    /// A new token of `account`: its text (shown this once) and how its list shows it.
    pub async fn create_api_token(
        &self,
        account: &Account,
        description: &str,
        scopes: Scopes,
    ) -> Result<(String, TokenView), AccountError> {
        let description = description.trim();
        if description.is_empty() {
            return Err(AccountError::BadToken("give the token a description: what it is for".into()));
        }
        if description.chars().count() > DESCRIPTION_MAX || description.chars().any(char::is_control) {
            return Err(AccountError::BadToken(format!(
                "a description is one line of at most {DESCRIPTION_MAX} characters"
            )));
        }
        if self.store.api_tokens(account.id).await?.len() >= TOKENS_MAX {
            return Err(AccountError::BadToken(format!(
                "an account holds at most {TOKENS_MAX} tokens; revoke one first"
            )));
        }
        let token = format!("{PREFIX}{}", new_token());
        let now = now_ms();
        let id = self
            .store
            .create_api_token(TokenHash::of(&token), account.id, description.to_string(), scopes.to_string(), now)
            .await?;
        let view = TokenView { id, description: description.to_string(), scopes: scopes.names(), created_at: now };
        Ok((token, view))
    }

    /// The account and scopes of a token's text; None for an unknown or revoked one.
    pub async fn api_token(&self, token: &str) -> Result<Option<ApiToken>, StoreError> {
        // Anything longer is no token of ours: not worth hashing.
        if token.is_empty() || token.len() > 100 {
            return Ok(None);
        }
        let found = self.store.api_token(TokenHash::of(token)).await?;
        Ok(found.map(|(stored, account)| ApiToken {
            account: Account::of(account),
            scopes: stored_scopes(&stored.scopes),
            id: Some(stored.id),
        }))
    }

    /// The tokens of `account`, newest first.
    pub async fn api_tokens(&self, account: &Account) -> Result<Vec<TokenView>, StoreError> {
        Ok(self.store.api_tokens(account.id).await?.iter().map(TokenView::of).collect())
    }

    /// Revokes `account`'s token `id`; false if it has none such.
    pub async fn revoke_api_token(&self, account: &Account, id: i64) -> Result<bool, StoreError> {
        self.store.delete_api_token(account.id, id).await
    }

    /// Makes `account` a bot account; false if it has played a game (lichess's rule).
    pub async fn make_bot(&self, account: &Account) -> Result<bool, StoreError> {
        self.store.make_bot(account.id).await
    }

    /// The account called `username` (ignoring case), if there is one.
    pub async fn find(&self, username: &str) -> Result<Option<Account>, StoreError> {
        Ok(self.store.account(username).await?.map(Account::of))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::accounts::Scope;

    #[test]
    fn stored_scopes_ignore_names_no_longer_known() {
        let scopes = stored_scopes("bot:play,fly:away,challenge:write");
        assert!(scopes.contains(Scope::BotPlay) && scopes.contains(Scope::ChallengeWrite));
        assert_eq!(scopes.names(), ["challenge:write", "bot:play"]);
        assert_eq!(stored_scopes(""), Scopes::default());
    }
}
