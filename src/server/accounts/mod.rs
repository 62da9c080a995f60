//! Accounts: a username and an Argon2id password hash, sessions kept by a cookie, and the
//! pages of the Glicko-2 ratings a rated game changes (the formula is `server::ratings`).
//! Anonymous play stays as it was; an account adds a reserved name, seats that follow the
//! player to any device, and ratings (docs/accounts.md).
//!
//! A logged-in player's seat tokens are derived from a secret of the account and the game, so
//! any device the player is logged in on can compute the token of their seat and resume it:
//! rooms and the cluster keep dealing in seat tokens only.

mod password;

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use thiserror::Error;

use super::limits::{AccountLimits, LoginLimits};
use super::store::{now_ms, AccountKey, AccountStore, StoreError, StoredAccount};
use super::token::{new_token, TokenHash};
use crate::protocol::PlayerName;

/// How long a session lasts without being used.
pub const SESSION_IDLE_MS: i64 = 30 * 24 * 3600 * 1000;
/// The cookie that carries a session's token.
pub const COOKIE: &str = "gambit_session";

/// A username as typed at sign-up: 3 to 20 ASCII letters, digits, `_` and `-`. Names are
/// unique ignoring case; the case given at sign-up is the one shown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Username(String);

impl Username {
    pub fn parse(name: &str) -> Result<Username, AccountError> {
        let len = name.chars().count();
        if !(3..=20).contains(&len) {
            return Err(AccountError::BadUsername("a username has 3 to 20 characters".into()));
        }
        if let Some(bad) = name.chars().find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-')) {
            return Err(AccountError::BadUsername(format!(
                "a username has only letters, digits, _ and - (not {bad:?})"
            )));
        }
        Ok(Username(name.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The shortest and longest password accepted (the longest bounds the hashing work).
const PASSWORD_MIN: usize = 8;
const PASSWORD_MAX: usize = 200;

/// A logged-in player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    pub id: AccountKey,
    pub username: String,
    seat_key: Vec<u8>,
}

impl Account {
    fn of(stored: StoredAccount) -> Account {
        Account { id: stored.id, username: stored.username, seat_key: stored.seat_key }
    }

    /// The player's name on a board: their username (usernames are valid display names).
    pub fn name(&self) -> Option<PlayerName> {
        PlayerName::parse(&self.username).ok()
    }

    /// The token of this account's seat in `game`: the same on every device, known only to
    /// the server and to the player's logged-in connections.
    pub fn seat_token(&self, game: &str) -> String {
        derived_token(&self.seat_key, game)
    }
}

/// The seat token of `game` derived from an account's `seat_key`: 128 bits of SHA-256, so one
/// game's token tells nothing of another's.
fn derived_token(seat_key: &[u8], game: &str) -> String {
    let mut hash = Sha256::new();
    hash.update(b"gambit seat token\0");
    hash.update(seat_key);
    hash.update(game.as_bytes());
    hash.finalize().iter().take(16).map(|b| format!("{b:02x}")).collect()
}

/// Who takes a seat: a name, and the account when the player is logged in. It travels with
/// `join`, `create` and an accepted seek, across the cluster too.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    pub name: Option<PlayerName>,
    pub account: Option<SeatAccount>,
}

/// The account behind a seat: its number, and the secret its seat tokens come from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatAccount {
    pub id: AccountKey,
    seat_key: Vec<u8>,
}

impl Player {
    /// An anonymous player called `name`.
    pub fn anonymous(name: Option<PlayerName>) -> Player {
        Player { name, account: None }
    }

    /// A logged-in player.
    pub fn of(account: &Account) -> Player {
        Player {
            name: account.name(),
            account: Some(SeatAccount { id: account.id, seat_key: account.seat_key.clone() }),
        }
    }

    /// The token of this player's new seat in `game`: derived from the account, or random.
    pub fn seat_token(&self, game: &str) -> String {
        match &self.account {
            Some(seat) => derived_token(&seat.seat_key, game),
            None => new_token(),
        }
    }

    pub fn account_id(&self) -> Option<AccountKey> {
        self.account.as_ref().map(|a| a.id)
    }
}

/// Why an account request was refused.
#[derive(Debug, Error)]
pub enum AccountError {
    #[error("{0}")]
    BadUsername(String),
    #[error("{0}")]
    BadPassword(String),
    #[error("that username is taken")]
    Taken,
    /// Also the answer for an unknown username: nobody learns which names exist.
    #[error("wrong username or password")]
    WrongPassword,
    #[error("too many attempts; try again in {0} s")]
    RateLimited(u64),
    #[error("{0}")]
    Store(#[from] StoreError),
    #[error("could not hash the password: {0}")]
    Hash(String),
}

/// Accounts and sessions, over the store.
pub struct Accounts {
    store: Arc<dyn AccountStore>,
    limits: LoginLimits,
}

/// A new session: its token (for the cookie) and whose it is.
pub struct Session {
    pub token: String,
    pub account: Account,
}

impl Accounts {
    pub fn new(store: Arc<dyn AccountStore>, limits: AccountLimits) -> Accounts {
        Accounts { store, limits: LoginLimits::new(limits) }
    }

    pub fn store(&self) -> &Arc<dyn AccountStore> {
        &self.store
    }

    /// Creates an account and logs it in. `ip` is the client's, for the sign-up rate limit.
    pub async fn sign_up(&self, ip: std::net::IpAddr, username: &str, password: &str) -> Result<Session, AccountError> {
        let username = Username::parse(username)?;
        check_password(password)?;
        self.limits.sign_up(ip).map_err(AccountError::RateLimited)?;
        let hash = password::hash(password.to_string()).await?;
        let mut seat_key = vec![0u8; 32];
        fill_random(&mut seat_key);
        let stored = self
            .store
            .create_account(username.as_str().to_string(), hash, seat_key, now_ms())
            .await?
            .ok_or(AccountError::Taken)?;
        self.open_session(Account::of(stored)).await
    }

    /// Checks a password and opens a session. Unknown names and wrong passwords get the same
    /// answer after the same work.
    pub async fn log_in(&self, ip: std::net::IpAddr, username: &str, password: &str) -> Result<Session, AccountError> {
        self.limits.log_in(ip, username).map_err(AccountError::RateLimited)?;
        if password.len() > PASSWORD_MAX {
            return Err(AccountError::WrongPassword);
        }
        let stored = self.store.account(username).await?;
        let hash = stored.as_ref().map(|a| a.password_hash.clone());
        if !password::verify(password.to_string(), hash).await {
            return Err(AccountError::WrongPassword);
        }
        let stored = stored.ok_or(AccountError::WrongPassword)?;
        self.open_session(Account::of(stored)).await
    }

    async fn open_session(&self, account: Account) -> Result<Session, AccountError> {
        let token = new_token();
        self.store.create_session(TokenHash::of(&token), account.id, now_ms()).await?;
        Ok(Session { token, account })
    }

    /// The account a session token belongs to; None for an unknown or expired token.
    pub async fn session(&self, token: &str) -> Result<Option<Account>, StoreError> {
        Ok(self.store.session(TokenHash::of(token), now_ms(), SESSION_IDLE_MS).await?.map(Account::of))
    }

    pub async fn log_out(&self, token: &str) -> Result<(), StoreError> {
        self.store.end_session(TokenHash::of(token)).await
    }

    /// True if `name` is some account's username (ignoring case): no one else may use it.
    pub async fn is_registered(&self, name: &str) -> Result<bool, StoreError> {
        if Username::parse(name).is_err() {
            return Ok(false);
        }
        Ok(self.store.account(name).await?.is_some())
    }
}

fn check_password(password: &str) -> Result<(), AccountError> {
    let len = password.chars().count();
    if len < PASSWORD_MIN {
        return Err(AccountError::BadPassword(format!("a password has at least {PASSWORD_MIN} characters")));
    }
    if password.len() > PASSWORD_MAX {
        return Err(AccountError::BadPassword(format!("a password has at most {PASSWORD_MAX} bytes")));
    }
    Ok(())
}

/// Fills `bytes` from the operating system's random source.
fn fill_random(bytes: &mut [u8]) {
    use rand::{Rng, TryRngCore};
    if rand::rngs::OsRng.try_fill_bytes(bytes).is_err() {
        rand::rng().fill(bytes);
    }
}

/// The session token in a `Cookie` header, if there is one.
pub fn session_cookie(headers: &axum::http::HeaderMap) -> Option<String> {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(cookie::Cookie::split_parse)
        .filter_map(Result::ok)
        .find(|c| c.name() == COOKIE)
        .map(|c| c.value().to_string())
        .filter(|v| !v.is_empty() && v.len() <= 64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usernames_are_short_plain_words() {
        for ok in ["bob", "Alice_99", "a-b", "x".repeat(20).as_str()] {
            assert!(Username::parse(ok).is_ok(), "{ok}");
        }
        for bad in ["", "ab", "x".repeat(21).as_str(), "with space", "é-name", "a/b", "<b>"] {
            assert!(Username::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn passwords_have_eight_characters_or_more() {
        assert!(check_password("1234567").is_err());
        assert!(check_password("12345678").is_ok());
        assert!(check_password("ünïcödé!").is_ok(), "characters, not bytes");
        assert!(check_password(&"x".repeat(201)).is_err());
    }

    #[test]
    fn seat_tokens_depend_on_account_and_game() {
        let a = Account { id: 1, username: "a".into(), seat_key: vec![1; 32] };
        let b = Account { id: 2, username: "b".into(), seat_key: vec![2; 32] };
        assert_eq!(a.seat_token("g1"), a.seat_token("g1"));
        assert_eq!(a.seat_token("g1"), Player::of(&a).seat_token("g1"));
        assert_ne!(a.seat_token("g1"), a.seat_token("g2"));
        assert_ne!(a.seat_token("g1"), b.seat_token("g1"));
        assert_eq!(a.seat_token("g1").len(), 32);
        assert_ne!(Player::anonymous(None).seat_token("g1"), Player::anonymous(None).seat_token("g1"));
    }

    #[test]
    fn the_session_cookie_is_found_among_others() {
        let mut headers = axum::http::HeaderMap::new();
        headers.insert(axum::http::header::COOKIE, "a=1; gambit_session=abc; b=2".parse().expect("header"));
        assert_eq!(session_cookie(&headers), Some("abc".into()));
        headers.insert(axum::http::header::COOKIE, "gambit_session=".parse().expect("header"));
        assert_eq!(session_cookie(&headers), None);
    }
}
