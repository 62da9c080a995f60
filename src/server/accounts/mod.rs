//! Accounts: a username and an Argon2id password hash, sessions kept by a cookie, and the
//! pages of the Glicko-2 ratings a rated game changes (the formula is `server::ratings`).
//! Anonymous play stays as it was; an account adds a reserved name, seats that follow the
//! player to any device, and ratings (docs/accounts.md).
//!
//! A logged-in player's seat tokens are derived from a secret of the account and the game, so
//! any device the player is logged in on can compute the token of their seat and resume it:
//! rooms and the cluster keep dealing in seat tokens only.

mod api_tokens;
mod password;
pub mod scopes;

pub use api_tokens::{ApiToken, TokenView};
pub use scopes::{Scope, Scopes};

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use thiserror::Error;

use super::limits::{AccountLimits, LoginLimits, Trust};
use super::store::{now_ms, AccountKey, AccountStore, StoreError, StoredAccount};
use super::token::{new_token, TokenHash};
use crate::protocol::PlayerName;

/// How long a session lasts without being used.
pub const SESSION_IDLE_MS: i64 = 30 * 24 * 3600 * 1000;
/// The cookie that carries a session's token.
pub const COOKIE: &str = "gambit_session";
/// The cookie that marks a browser an account logged in from (see [`Account::device_cookie`]).
pub const DEVICE_COOKIE: &str = "gambit_device";
/// How long a device cookie lasts.
pub const DEVICE_MAX_AGE_SECS: i64 = 365 * 24 * 3600;

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
    /// A bot account: it plays through the Bot API only.
    pub bot: bool,
}

impl Account {
    pub fn of(stored: StoredAccount) -> Account {
        Account { id: stored.id, username: stored.username, seat_key: stored.seat_key, bot: stored.bot }
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

    /// A new device cookie's value for a browser this account just logged in from:
    /// `ID.NONCE.MAC`, the MAC keyed by the account's secret, so the server keeps nothing and
    /// a restart forgets nothing. A later log-in carrying it is trusted (docs/accounts.md).
    pub fn device_cookie(&self) -> String {
        let nonce = new_token();
        format!("{}.{nonce}.{}", self.id, device_mac(&self.seat_key, &nonce))
    }
}

/// The MAC of a device cookie's nonce under an account's secret.
fn device_mac(seat_key: &[u8], nonce: &str) -> String {
    derived_token(seat_key, &format!("device\0{nonce}"))
}

/// The nonce of `cookie` if it is a device cookie `account` issued.
fn device_of(account: &StoredAccount, cookie: &str) -> Option<String> {
    let mut parts = cookie.splitn(3, '.');
    let (id, nonce, mac) = (parts.next()?, parts.next()?, parts.next()?);
    if id.parse::<AccountKey>().ok()? != account.id || nonce.is_empty() || nonce.len() > 64 {
        return None;
    }
    let expected = device_mac(&account.seat_key, nonce);
    // Compared in constant time: the MAC is a secret until it matches.
    let same = expected.len() == mac.len() && expected.bytes().zip(mac.bytes()).fold(0u8, |d, (a, b)| d | (a ^ b)) == 0;
    same.then(|| nonce.to_string())
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
    #[error("that username looks too much like {0}'s; choose another")]
    TooLike(String),
    /// Also the answer for an unknown username: nobody learns which names exist.
    #[error("wrong username or password")]
    WrongPassword,
    #[error("too many attempts; try again in {0} s")]
    RateLimited(u64),
    /// Too many passwords are being checked at once, server-wide.
    #[error("the server is busy checking passwords; try again in {0} s")]
    Busy(u64),
    #[error("{0}")]
    Store(#[from] StoreError),
    #[error("could not hash the password: {0}")]
    Hash(String),
    #[error("not logged in")]
    NotLoggedIn,
    /// A token asked for with a bad description or scopes, or one too many.
    #[error("{0}")]
    BadToken(String),
}

/// Accounts and sessions, over the store.
pub struct Accounts {
    store: Arc<dyn AccountStore>,
    limits: LoginLimits,
    hasher: password::Hasher,
}

/// A new session: its token (for the cookie), whose it is, and the device cookie for the
/// browser that opened it.
pub struct Session {
    pub token: String,
    pub account: Account,
    pub device: String,
}

impl Accounts {
    pub fn new(store: Arc<dyn AccountStore>, limits: AccountLimits) -> Accounts {
        let hasher = password::Hasher::new(limits.hashing_at_once, limits.hashing_wait);
        Accounts { store, limits: LoginLimits::new(limits), hasher }
    }

    pub fn store(&self) -> &Arc<dyn AccountStore> {
        &self.store
    }

    /// Creates an account and logs it in. `ip` is the client's, for the sign-up rate limit.
    pub async fn sign_up(&self, ip: std::net::IpAddr, username: &str, password: &str) -> Result<Session, AccountError> {
        let username = Username::parse(username)?;
        check_password(password)?;
        self.limits.sign_up(ip).map_err(AccountError::RateLimited)?;
        // A username that looks like another ("rnary" beside "mary", as TR39 sees them) would
        // let one player pass for the other.
        if let Some(like) = self.registered_like(username.as_str()).await? {
            return Err(if like.eq_ignore_ascii_case(username.as_str()) {
                AccountError::Taken
            } else {
                AccountError::TooLike(like)
            });
        }
        let hash = self.hasher.hash(password.to_string()).await?;
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
    /// answer after the same work. `device` is the browser's device cookie, if it sent one: a
    /// browser the account logged in from before is not held off by strangers' guesses.
    pub async fn log_in(
        &self,
        ip: std::net::IpAddr,
        username: &str,
        password: &str,
        device: Option<&str>,
    ) -> Result<Session, AccountError> {
        let stored = match Username::parse(username) {
            Ok(name) => self.store.account(name.as_str()).await?,
            Err(_) => None,
        };
        let device = stored.as_ref().zip(device).and_then(|(account, cookie)| device_of(account, cookie));
        // A browser the account knows is limited by its own bucket, wherever it is; everyone
        // else by their address first.
        if device.is_none() {
            self.limits.from_address(ip).map_err(AccountError::RateLimited)?;
        }
        let trust = self.limits.trust(ip, stored.as_ref().map(|a| a.id), device);
        let attempt = self.limits.guess(ip, username, trust).map_err(AccountError::RateLimited)?;
        if password.len() > PASSWORD_MAX {
            return Err(AccountError::WrongPassword);
        }
        let hash = stored.as_ref().map(|a| a.password_hash.clone());
        if !self.hasher.verify(password.to_string(), hash).await? {
            return Err(AccountError::WrongPassword);
        }
        let stored = stored.ok_or(AccountError::WrongPassword)?;
        self.limits.succeeded(attempt, stored.id);
        self.open_session(Account::of(stored)).await
    }

    /// Changes the password of the session `token`'s account, given its current one, and
    /// ends every other session of the account (a password change is how a stolen session is
    /// taken back).
    pub async fn change_password(
        &self,
        ip: std::net::IpAddr,
        token: &str,
        current: &str,
        new: &str,
    ) -> Result<(), AccountError> {
        let account = self.session(token).await?.ok_or(AccountError::NotLoggedIn)?;
        check_password(new)?;
        // The current password is a guess like any log-in's, limited alike.
        let attempt =
            self.limits.guess(ip, &account.username, Trust::KnownAddress).map_err(AccountError::RateLimited)?;
        let stored = self.store.account(&account.username).await?.ok_or(AccountError::NotLoggedIn)?;
        if current.len() > PASSWORD_MAX || !self.hasher.verify(current.to_string(), Some(stored.password_hash)).await? {
            return Err(AccountError::WrongPassword);
        }
        self.limits.succeeded(attempt, account.id);
        let hash = self.hasher.hash(new.to_string()).await?;
        self.store.set_password(account.id, hash, Some(TokenHash::of(token))).await?;
        Ok(())
    }

    /// Ends every session of the session `token`'s account, this one included.
    pub async fn log_out_everywhere(&self, token: &str) -> Result<(), AccountError> {
        let account = self.session(token).await?.ok_or(AccountError::NotLoggedIn)?;
        self.store.end_sessions(account.id, None).await?;
        Ok(())
    }

    async fn open_session(&self, account: Account) -> Result<Session, AccountError> {
        let token = new_token();
        self.store.create_session(TokenHash::of(&token), account.id, now_ms()).await?;
        let device = account.device_cookie();
        Ok(Session { token, account, device })
    }

    /// The account a session token belongs to; None for an unknown or expired token.
    pub async fn session(&self, token: &str) -> Result<Option<Account>, StoreError> {
        Ok(self.store.session(TokenHash::of(token), now_ms(), SESSION_IDLE_MS).await?.map(Account::of))
    }

    pub async fn log_out(&self, token: &str) -> Result<(), StoreError> {
        self.store.end_session(TokenHash::of(token)).await
    }

    /// The username `name` could be taken for, if an account has one: the same ignoring case,
    /// or a look-alike (`protocol::name_key`): no one else may use such a name.
    pub async fn registered_like(&self, name: &str) -> Result<Option<String>, StoreError> {
        self.store.username_like(&crate::protocol::name_key(name)).await
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
    cookie_named(headers, COOKIE, 64)
}

/// The device cookie in a `Cookie` header, if there is one.
pub fn device_cookie(headers: &axum::http::HeaderMap) -> Option<String> {
    cookie_named(headers, DEVICE_COOKIE, 200)
}

/// The value of the cookie `name` in a `Cookie` header: none when empty or over `max` bytes.
fn cookie_named(headers: &axum::http::HeaderMap, name: &str, max: usize) -> Option<String> {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(cookie::Cookie::split_parse)
        .filter_map(Result::ok)
        .find(|c| c.name() == name)
        .map(|c| c.value().to_string())
        .filter(|v| !v.is_empty() && v.len() <= max)
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
        let a = Account { id: 1, username: "a".into(), seat_key: vec![1; 32], bot: false };
        let b = Account { id: 2, username: "b".into(), seat_key: vec![2; 32], bot: false };
        assert_eq!(a.seat_token("g1"), a.seat_token("g1"));
        assert_eq!(a.seat_token("g1"), Player::of(&a).seat_token("g1"));
        assert_ne!(a.seat_token("g1"), a.seat_token("g2"));
        assert_ne!(a.seat_token("g1"), b.seat_token("g1"));
        assert_eq!(a.seat_token("g1").len(), 32);
        assert_ne!(Player::anonymous(None).seat_token("g1"), Player::anonymous(None).seat_token("g1"));
    }

    #[test]
    fn a_device_cookie_is_the_issuing_accounts_only() {
        let key = vec![7; 32];
        let stored = StoredAccount {
            id: 3,
            username: "a".into(),
            password_hash: String::new(),
            seat_key: key.clone(),
            created_ms: 0,
            bot: false,
        };
        let account = Account::of(stored.clone());
        let cookie = account.device_cookie();
        let nonce = device_of(&stored, &cookie).expect("its own cookie");
        assert!(cookie.contains(&nonce));
        assert_ne!(account.device_cookie(), cookie, "a fresh nonce each time");
        let other = StoredAccount { id: 4, seat_key: vec![8; 32], ..stored.clone() };
        assert_eq!(device_of(&other, &cookie), None, "another account's");
        let rekeyed = StoredAccount { seat_key: vec![8; 32], ..stored.clone() };
        assert_eq!(device_of(&rekeyed, &cookie), None, "a MAC under another key");
        let (id_nonce, mac) = cookie.rsplit_once('.').expect("three parts");
        let forged = format!("{id_nonce}.{}", "0".repeat(mac.len()));
        assert_eq!(device_of(&stored, &forged), None, "a made-up MAC");
        for bad in ["", "3", "3.", "3..", "x.y.z", "3.n"] {
            assert_eq!(device_of(&stored, bad), None, "{bad:?}");
        }
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
