//! Accounts, sessions and ratings in the SQLite store. Every call runs on the store's one
//! thread, after the game changes queued before it, so a rating never reads a game older than
//! what the room has recorded.

use futures::future::BoxFuture;
use rusqlite::{params, Connection, OptionalExtension, Row};

use super::{games, read_failed, write_failed, SqliteStore};
use crate::server::ratings::Category;
use crate::server::store::accounts::{category_of, ratings_json, ratings_of, session_needs_touch, RESULTS};
use crate::server::store::records::readable;
use crate::server::store::{
    AccountKey, AccountStore, RatedEnd, RatingPoint, RatingStore, RatingsBefore, Results, StoreError, StoredAccount,
    StoredApiToken, StoredGame, StoredRating, StoredRatings,
};
use crate::server::token::TokenHash;

const ACCOUNT: &str = "SELECT id, username, password_hash, seat_key, created_ms, bot FROM accounts";

fn account_row(row: &Row<'_>) -> rusqlite::Result<StoredAccount> {
    account_at(row, 0)
}

/// An account from `id, username, password_hash, seat_key, created_ms, bot` at `first`.
pub(super) fn account_at(row: &Row<'_>, first: usize) -> rusqlite::Result<StoredAccount> {
    Ok(StoredAccount {
        id: row.get(first)?,
        username: row.get(first + 1)?,
        password_hash: row.get(first + 2)?,
        seat_key: row.get(first + 3)?,
        created_ms: row.get(first + 4)?,
        bot: row.get(first + 5)?,
    })
}

/// An API token from `id, account, description, scopes, created_ms` at `first`.
fn api_token_at(row: &Row<'_>, first: usize) -> rusqlite::Result<StoredApiToken> {
    Ok(StoredApiToken {
        id: row.get(first)?,
        account: row.get(first + 1)?,
        description: row.get(first + 2)?,
        scopes: row.get(first + 3)?,
        created_ms: row.get(first + 4)?,
    })
}

/// A `ratings` row from `category, rating, rd, volatility, games, rated_ms` at `first`.
fn rating_row(row: &Row<'_>, first: usize) -> rusqlite::Result<(String, StoredRating)> {
    let category: String = row.get(first)?;
    let rating = StoredRating {
        category: Category::Blitz,
        rating: row.get(first + 1)?,
        rd: row.get(first + 2)?,
        volatility: row.get(first + 3)?,
        games: row.get(first + 4)?,
        rated_ms: row.get(first + 5)?,
    };
    Ok((category, rating))
}

fn with_category((name, mut rating): (String, StoredRating)) -> Result<StoredRating, StoreError> {
    rating.category = category_of(&name)?;
    Ok(rating)
}

fn rating_of(conn: &Connection, account: AccountKey, category: Category) -> Result<Option<StoredRating>, StoreError> {
    conn.prepare_cached(
        "SELECT category, rating, rd, volatility, games, rated_ms FROM ratings WHERE account = ?1 AND category = ?2",
    )
    .and_then(|mut s| s.query_row(params![account, category.name()], |r| rating_row(r, 0)).optional())
    .map_err(read_failed)?
    .map(with_category)
    .transpose()
}

fn save_rating(
    conn: &Connection,
    account: AccountKey,
    game: &str,
    rating: &StoredRating,
) -> Result<(), rusqlite::Error> {
    conn.prepare_cached(
        "INSERT INTO ratings (account, category, rating, rd, volatility, games, rated_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
         ON CONFLICT (account, category) DO UPDATE SET rating = ?3, rd = ?4, volatility = ?5, games = ?6,
                                                        rated_ms = ?7",
    )?
    .execute(params![
        account,
        rating.category.name(),
        rating.rating,
        rating.rd,
        rating.volatility,
        rating.games,
        rating.rated_ms
    ])?;
    conn.prepare_cached(
        "INSERT INTO rating_history (account, category, game, at_ms, rating) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![account, rating.category.name(), game, rating.rated_ms, rating.rating])?;
    Ok(())
}

/// The rating change of `game`, if one was applied.
fn applied(conn: &Connection, game: &str) -> Result<Option<StoredRatings>, StoreError> {
    let text: Option<Option<String>> = conn
        .prepare_cached("SELECT ratings FROM games WHERE id = ?1")
        .and_then(|mut s| s.query_row(params![game], |r| r.get(0)).optional())
        .map_err(read_failed)?;
    Ok(ratings_of(text.flatten().as_deref()))
}

/// Changes both players' ratings by a rated game's result, inside the caller's transaction
/// (the one that stores the game's end). Rating a game again changes nothing and answers the
/// first change (a restart may replay an ending).
pub(super) fn rate_in(conn: &Connection, game: &str, end: RatedEnd) -> Result<StoredRatings, StoreError> {
    if let Some(done) = applied(conn, game)? {
        return Ok(done);
    }
    let RatedEnd { result, update } = end;
    let white = rating_of(conn, result.white, result.category)?;
    let black = rating_of(conn, result.black, result.category)?;
    let after = update(&result, RatingsBefore { white, black });
    save_rating(conn, result.white, game, &after.white).map_err(write_failed)?;
    save_rating(conn, result.black, game, &after.black).map_err(write_failed)?;
    conn.prepare_cached("UPDATE games SET ratings = ?2 WHERE id = ?1")
        .and_then(|mut s| s.execute(params![game, ratings_json(&after.change)]))
        .map_err(write_failed)?;
    Ok(after.change)
}

/// Deletes every session of `account` but `keep`.
fn end_sessions(conn: &Connection, account: AccountKey, keep: Option<&TokenHash>) -> Result<(), StoreError> {
    let keep: &[u8] = keep.map_or(&[], |k| &k.0[..]);
    conn.prepare_cached("DELETE FROM sessions WHERE account = ?1 AND token_hash <> ?2")
        .and_then(|mut s| s.execute(params![account, keep]))
        .map(drop)
        .map_err(write_failed)
}

impl AccountStore for SqliteStore {
    fn create_account(
        &self,
        username: String,
        password_hash: String,
        seat_key: Vec<u8>,
        now_ms: i64,
    ) -> BoxFuture<'static, Result<Option<StoredAccount>, StoreError>> {
        self.read(move |conn| {
            let inserted = conn
                .prepare_cached(
                    "INSERT INTO accounts (username, username_key, password_hash, seat_key, created_ms, name_key)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (username_key) DO NOTHING",
                )
                .and_then(|mut s| {
                    let key = crate::protocol::name_key(&username);
                    s.execute(params![username, username.to_lowercase(), password_hash, seat_key, now_ms, key])
                })
                .map_err(write_failed)?;
            if inserted == 0 {
                return Ok(None);
            }
            let id = conn.last_insert_rowid();
            Ok(Some(StoredAccount { id, username, password_hash, seat_key, created_ms: now_ms, bot: false }))
        })
    }

    fn account(&self, username: &str) -> BoxFuture<'static, Result<Option<StoredAccount>, StoreError>> {
        let key = username.to_lowercase();
        self.read(move |conn| {
            conn.prepare_cached(&format!("{ACCOUNT} WHERE username_key = ?1"))
                .and_then(|mut s| s.query_row(params![key], account_row).optional())
                .map_err(read_failed)
        })
    }

    fn username_like(&self, name_key: &str) -> BoxFuture<'static, Result<Option<String>, StoreError>> {
        let key = name_key.to_string();
        self.read(move |conn| {
            conn.prepare_cached("SELECT username FROM accounts WHERE name_key = ?1 LIMIT 1")
                .and_then(|mut s| s.query_row(params![key], |r| r.get(0)).optional())
                .map_err(read_failed)
        })
    }

    fn create_session(
        &self,
        session: TokenHash,
        account: AccountKey,
        now_ms: i64,
    ) -> BoxFuture<'static, Result<(), StoreError>> {
        self.read(move |conn| {
            conn.prepare_cached(
                "INSERT INTO sessions (token_hash, account, created_ms, used_ms) VALUES (?1, ?2, ?3, ?3)",
            )
            .and_then(|mut s| s.execute(params![&session.0[..], account, now_ms]))
            .map(drop)
            .map_err(write_failed)
        })
    }

    fn session(
        &self,
        session: TokenHash,
        now_ms: i64,
        idle_ms: i64,
    ) -> BoxFuture<'static, Result<Option<StoredAccount>, StoreError>> {
        self.read(move |conn| {
            let found: Option<(i64, StoredAccount)> = conn
                .prepare_cached(
                    "SELECT s.used_ms, a.id, a.username, a.password_hash, a.seat_key, a.created_ms, a.bot
                     FROM sessions s JOIN accounts a ON a.id = s.account WHERE s.token_hash = ?1",
                )
                .and_then(|mut s| {
                    s.query_row(params![&session.0[..]], |r| Ok((r.get(0)?, account_at(r, 1)?))).optional()
                })
                .map_err(read_failed)?;
            let Some((used_ms, account)) = found else { return Ok(None) };
            if now_ms.saturating_sub(used_ms) > idle_ms {
                conn.prepare_cached("DELETE FROM sessions WHERE token_hash = ?1")
                    .and_then(|mut s| s.execute(params![&session.0[..]]))
                    .map_err(write_failed)?;
                return Ok(None);
            }
            if session_needs_touch(used_ms, now_ms, idle_ms) {
                conn.prepare_cached("UPDATE sessions SET used_ms = ?2 WHERE token_hash = ?1")
                    .and_then(|mut s| s.execute(params![&session.0[..], now_ms]))
                    .map_err(write_failed)?;
            }
            Ok(Some(account))
        })
    }

    fn end_session(&self, session: TokenHash) -> BoxFuture<'static, Result<(), StoreError>> {
        self.read(move |conn| {
            conn.prepare_cached("DELETE FROM sessions WHERE token_hash = ?1")
                .and_then(|mut s| s.execute(params![&session.0[..]]))
                .map(drop)
                .map_err(write_failed)
        })
    }

    fn end_sessions(&self, account: AccountKey, keep: Option<TokenHash>) -> BoxFuture<'static, Result<(), StoreError>> {
        self.read(move |conn| end_sessions(conn, account, keep.as_ref()))
    }

    fn set_password(
        &self,
        account: AccountKey,
        password_hash: String,
        keep: Option<TokenHash>,
    ) -> BoxFuture<'static, Result<(), StoreError>> {
        self.read(move |conn| {
            let tx = conn.unchecked_transaction().map_err(write_failed)?;
            tx.prepare_cached("UPDATE accounts SET password_hash = ?2 WHERE id = ?1")
                .and_then(|mut s| s.execute(params![account, password_hash]))
                .map_err(write_failed)?;
            end_sessions(&tx, account, keep.as_ref())?;
            tx.commit().map_err(write_failed)
        })
    }

    fn create_api_token(
        &self,
        token: TokenHash,
        account: AccountKey,
        description: String,
        scopes: String,
        now_ms: i64,
    ) -> BoxFuture<'static, Result<i64, StoreError>> {
        self.read(move |conn| {
            conn.prepare_cached(
                "INSERT INTO api_tokens (token_hash, account, description, scopes, created_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )
            .and_then(|mut s| s.execute(params![&token.0[..], account, description, scopes, now_ms]))
            .map_err(write_failed)?;
            Ok(conn.last_insert_rowid())
        })
    }

    fn api_token(
        &self,
        token: TokenHash,
    ) -> BoxFuture<'static, Result<Option<(StoredApiToken, StoredAccount)>, StoreError>> {
        self.read(move |conn| {
            conn.prepare_cached(
                "SELECT t.id, t.account, t.description, t.scopes, t.created_ms,
                        a.id, a.username, a.password_hash, a.seat_key, a.created_ms, a.bot
                 FROM api_tokens t JOIN accounts a ON a.id = t.account WHERE t.token_hash = ?1",
            )
            .and_then(|mut s| {
                s.query_row(params![&token.0[..]], |r| Ok((api_token_at(r, 0)?, account_at(r, 5)?))).optional()
            })
            .map_err(read_failed)
        })
    }

    fn api_tokens(&self, account: AccountKey) -> BoxFuture<'static, Result<Vec<StoredApiToken>, StoreError>> {
        self.read(move |conn| {
            conn.prepare_cached(
                "SELECT id, account, description, scopes, created_ms FROM api_tokens WHERE account = ?1
                 ORDER BY id DESC",
            )
            .and_then(|mut s| s.query_map(params![account], |r| api_token_at(r, 0))?.collect())
            .map_err(read_failed)
        })
    }

    fn delete_api_token(&self, account: AccountKey, id: i64) -> BoxFuture<'static, Result<bool, StoreError>> {
        self.read(move |conn| {
            conn.prepare_cached("DELETE FROM api_tokens WHERE account = ?1 AND id = ?2")
                .and_then(|mut s| s.execute(params![account, id]))
                .map(|n| n > 0)
                .map_err(write_failed)
        })
    }

    fn make_bot(&self, account: AccountKey) -> BoxFuture<'static, Result<bool, StoreError>> {
        self.read(move |conn| {
            conn.prepare_cached(
                "UPDATE accounts SET bot = 1 WHERE id = ?1 AND (bot = 1 OR NOT EXISTS
                   (SELECT 1 FROM games WHERE white_account = ?1 OR black_account = ?1))",
            )
            .and_then(|mut s| s.execute(params![account]))
            .map(|n| n > 0)
            .map_err(write_failed)
        })
    }

    fn bots(&self, limit: u64) -> BoxFuture<'static, Result<Vec<StoredAccount>, StoreError>> {
        self.read(move |conn| {
            conn.prepare_cached(&format!(
                "{ACCOUNT} WHERE bot = 1 ORDER BY
                   (SELECT coalesce(sum(games), 0) FROM ratings r WHERE r.account = accounts.id) DESC, username_key
                 LIMIT ?1"
            ))
            .and_then(|mut s| s.query_map(params![limit as i64], account_row)?.collect())
            .map_err(read_failed)
        })
    }

    fn playing(&self, account: AccountKey) -> BoxFuture<'static, Result<Vec<String>, StoreError>> {
        self.read(move |conn| {
            conn.prepare_cached(
                "SELECT id FROM games WHERE status <> 'ended' AND (white_account = ?1 OR black_account = ?1)
                 ORDER BY created_ms DESC",
            )
            .and_then(|mut s| s.query_map(params![account], |r| r.get(0))?.collect())
            .map_err(read_failed)
        })
    }

    fn ratings(&self, account: AccountKey) -> BoxFuture<'static, Result<Vec<StoredRating>, StoreError>> {
        self.read(move |conn| {
            let rows: Vec<(String, StoredRating)> = conn
                .prepare_cached(
                    "SELECT category, rating, rd, volatility, games, rated_ms FROM ratings WHERE account = ?1",
                )
                .and_then(|mut s| s.query_map(params![account], |r| rating_row(r, 0))?.collect())
                .map_err(read_failed)?;
            rows.into_iter().map(with_category).collect()
        })
    }

    fn rating_history(&self, account: AccountKey) -> BoxFuture<'static, Result<Vec<RatingPoint>, StoreError>> {
        self.read(move |conn| {
            let rows: Vec<(String, i64, f64)> = conn
                .prepare_cached(
                    "SELECT category, at_ms, rating FROM rating_history WHERE account = ?1 ORDER BY at_ms, rowid",
                )
                .and_then(|mut s| s.query_map(params![account], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect())
                .map_err(read_failed)?;
            rows.into_iter()
                .map(|(category, at_ms, rating)| Ok(RatingPoint { category: category_of(&category)?, at_ms, rating }))
                .collect()
        })
    }

    fn results(&self, account: AccountKey) -> BoxFuture<'static, Result<Results, StoreError>> {
        self.read(move |conn| {
            conn.prepare_cached(RESULTS)
                .and_then(|mut s| {
                    s.query_row(params![account], |r| {
                        let count = |i: usize| r.get::<_, Option<i64>>(i).map(|n| n.unwrap_or(0).max(0) as u64);
                        Ok(Results { wins: count(0)?, draws: count(1)?, losses: count(2)? })
                    })
                })
                .map_err(read_failed)
        })
    }

    fn games_of(
        &self,
        account: AccountKey,
        offset: u64,
        limit: u64,
    ) -> BoxFuture<'static, Result<(u64, Vec<StoredGame>), StoreError>> {
        let (offset, limit) = (i64::try_from(offset).unwrap_or(i64::MAX), i64::try_from(limit).unwrap_or(i64::MAX));
        self.read(move |conn| {
            let total: i64 = conn
                .prepare_cached(
                    "SELECT count(*) FROM games WHERE status = 'ended' AND (white_account = ?1 OR black_account = ?1)",
                )
                .and_then(|mut s| s.query_row(params![account], |r| r.get(0)))
                .map_err(read_failed)?;
            let found = games(
                conn,
                "status = 'ended' AND (white_account = ?1 OR black_account = ?1)
                 ORDER BY ended_ms DESC, id LIMIT ?2 OFFSET ?3",
                params![account, limit, offset],
            )?;
            Ok((total.max(0) as u64, readable(found)?))
        })
    }

    fn leaderboard(
        &self,
        category: Category,
        max_rd: f64,
        limit: u64,
    ) -> BoxFuture<'static, Result<Vec<(String, StoredRating)>, StoreError>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.read(move |conn| {
            let rows: Vec<(String, (String, StoredRating))> = conn
                .prepare_cached(
                    "SELECT a.username, r.category, r.rating, r.rd, r.volatility, r.games, r.rated_ms
                     FROM ratings r JOIN accounts a ON a.id = r.account
                     WHERE r.category = ?1 AND r.rd <= ?2 ORDER BY r.rating DESC, a.username_key LIMIT ?3",
                )
                .and_then(|mut s| {
                    s.query_map(params![category.name(), max_rd, limit], |r| Ok((r.get(0)?, rating_row(r, 1)?)))?
                        .collect()
                })
                .map_err(read_failed)?;
            rows.into_iter().map(|(name, rating)| Ok((name, with_category(rating)?))).collect()
        })
    }
}

impl RatingStore for SqliteStore {
    fn rating_change(&self, game: &str) -> BoxFuture<'static, Result<Option<StoredRatings>, StoreError>> {
        let game = game.to_string();
        self.read(move |conn| applied(conn, &game))
    }
}
