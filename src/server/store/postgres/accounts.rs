//! Accounts, sessions and ratings in the PostgreSQL store: the same tables and formats as
//! SQLite's (`sqlite/accounts.rs`). A rated game's update locks both players' rating rows, in
//! account order so two games ending at once on two nodes cannot deadlock.

use futures::future::BoxFuture;
use futures::FutureExt;
use tokio_postgres::error::SqlState;
use tokio_postgres::{GenericClient, Row};

use super::{games, read_failed, write_failed, PostgresStore};
use crate::server::ratings::Category;
use crate::server::store::accounts::{category_of, ratings_json, ratings_of, session_needs_touch, RESULTS};
use crate::server::store::records::readable;
use crate::server::store::{
    AccountKey, AccountStore, RatedEnd, RatingPoint, RatingStore, RatingsBefore, Results, StoreError, StoredAccount,
    StoredApiToken, StoredGame, StoredRating, StoredRatings,
};
use crate::server::token::TokenHash;

pub(super) fn account_row(row: &Row, first: usize) -> Result<StoredAccount, StoreError> {
    Ok(StoredAccount {
        id: row.try_get(first).map_err(read_failed)?,
        username: row.try_get(first + 1).map_err(read_failed)?,
        password_hash: row.try_get(first + 2).map_err(read_failed)?,
        seat_key: row.try_get(first + 3).map_err(read_failed)?,
        created_ms: row.try_get(first + 4).map_err(read_failed)?,
        bot: row.try_get(first + 5).map_err(read_failed)?,
    })
}

/// An API token from `id, account, description, scopes, created_ms` at `first`.
fn api_token_row(row: &Row, first: usize) -> Result<StoredApiToken, StoreError> {
    Ok(StoredApiToken {
        id: row.try_get(first).map_err(read_failed)?,
        account: row.try_get(first + 1).map_err(read_failed)?,
        description: row.try_get(first + 2).map_err(read_failed)?,
        scopes: row.try_get(first + 3).map_err(read_failed)?,
        created_ms: row.try_get(first + 4).map_err(read_failed)?,
    })
}

/// A `ratings` row from `category, rating, rd, volatility, games, rated_ms` at `first`.
fn rating_row(row: &Row, first: usize) -> Result<StoredRating, StoreError> {
    let category: String = row.try_get(first).map_err(read_failed)?;
    let games: i32 = row.try_get(first + 4).map_err(read_failed)?;
    Ok(StoredRating {
        category: category_of(&category)?,
        rating: row.try_get(first + 1).map_err(read_failed)?,
        rd: row.try_get(first + 2).map_err(read_failed)?,
        volatility: row.try_get(first + 3).map_err(read_failed)?,
        games: u32::try_from(games).unwrap_or(0),
        rated_ms: row.try_get(first + 5).map_err(read_failed)?,
    })
}

const RATING: &str = "category, rating, rd, volatility, games, rated_ms";

async fn rating_of(
    client: &impl GenericClient,
    account: AccountKey,
    category: Category,
) -> Result<Option<StoredRating>, StoreError> {
    let row = client
        .query_opt(
            &format!("SELECT {RATING} FROM ratings WHERE account = $1 AND category = $2 FOR UPDATE"),
            &[&account, &category.name()],
        )
        .await
        .map_err(read_failed)?;
    row.map(|r| rating_row(&r, 0)).transpose()
}

async fn save_rating(
    client: &impl GenericClient,
    account: AccountKey,
    game: &str,
    rating: &StoredRating,
) -> Result<(), StoreError> {
    let games = i32::try_from(rating.games).unwrap_or(i32::MAX);
    client
        .execute(
            "INSERT INTO ratings (account, category, rating, rd, volatility, games, rated_ms)
             VALUES ($1, $2, $3, $4, $5, $6, $7)
             ON CONFLICT (account, category) DO UPDATE SET rating = $3, rd = $4, volatility = $5, games = $6,
                                                            rated_ms = $7",
            &[
                &account,
                &rating.category.name(),
                &rating.rating,
                &rating.rd,
                &rating.volatility,
                &games,
                &rating.rated_ms,
            ],
        )
        .await
        .map_err(write_failed)?;
    client
        .execute(
            "INSERT INTO rating_history (account, category, game, at_ms, rating) VALUES ($1, $2, $3, $4, $5)",
            &[&account, &rating.category.name(), &game, &rating.rated_ms, &rating.rating],
        )
        .await
        .map_err(write_failed)?;
    Ok(())
}

/// Changes both players' ratings by a rated game's result, inside the caller's transaction
/// (the one that stores the game's end). Rating a game again changes nothing and answers the
/// first change (a restart may replay an ending).
pub(super) async fn rate_in(tx: &impl GenericClient, game: &str, end: RatedEnd) -> Result<StoredRatings, StoreError> {
    // The game's row first: a second rating of the same game waits here, then sees the first.
    let row =
        tx.query_opt("SELECT ratings FROM games WHERE id = $1 FOR UPDATE", &[&game]).await.map_err(read_failed)?;
    let done: Option<String> = row.and_then(|r| r.get(0));
    if let Some(done) = ratings_of(done.as_deref()) {
        return Ok(done);
    }
    let RatedEnd { result, update } = end;
    let (first, second) =
        if result.white <= result.black { (result.white, result.black) } else { (result.black, result.white) };
    let first_rating = rating_of(tx, first, result.category).await?;
    let second_rating = if second == first { first_rating } else { rating_of(tx, second, result.category).await? };
    let (white, black) =
        if first == result.white { (first_rating, second_rating) } else { (second_rating, first_rating) };
    let after = update(&result, RatingsBefore { white, black });
    save_rating(tx, result.white, game, &after.white).await?;
    save_rating(tx, result.black, game, &after.black).await?;
    tx.execute("UPDATE games SET ratings = $2 WHERE id = $1", &[&game, &ratings_json(&after.change)])
        .await
        .map_err(write_failed)?;
    Ok(after.change)
}

/// Deletes every session of `account` but `keep`.
async fn end_sessions(
    client: &impl GenericClient,
    account: AccountKey,
    keep: Option<&TokenHash>,
) -> Result<(), StoreError> {
    let keep: &[u8] = keep.map_or(&[], |k| &k.0[..]);
    client
        .execute("DELETE FROM sessions WHERE account = $1 AND token_hash <> $2", &[&account, &keep])
        .await
        .map(drop)
        .map_err(write_failed)
}

impl AccountStore for PostgresStore {
    fn create_account(
        &self,
        username: String,
        password_hash: String,
        seat_key: Vec<u8>,
        now_ms: i64,
    ) -> BoxFuture<'static, Result<Option<StoredAccount>, StoreError>> {
        self.read(move |client| {
            async move {
                let row = client
                    .query_opt(
                        "INSERT INTO accounts (username, username_key, password_hash, seat_key, created_ms, name_key)
                         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (username_key) DO NOTHING RETURNING id",
                        &[
                            &username,
                            &username.to_lowercase(),
                            &password_hash,
                            &seat_key,
                            &now_ms,
                            &crate::protocol::name_key(&username),
                        ],
                    )
                    .await
                    .map_err(|e| match e.code() {
                        Some(&SqlState::UNIQUE_VIOLATION) => StoreError::Write("taken".into()),
                        _ => write_failed(e),
                    })?;
                Ok(row.map(|r| StoredAccount {
                    id: r.get(0),
                    username,
                    password_hash,
                    seat_key,
                    created_ms: now_ms,
                    bot: false,
                }))
            }
            .boxed()
        })
    }

    fn account(&self, username: &str) -> BoxFuture<'static, Result<Option<StoredAccount>, StoreError>> {
        let key = username.to_lowercase();
        self.read(move |client| {
            async move {
                let row = client
                    .query_opt(
                        "SELECT id, username, password_hash, seat_key, created_ms, bot FROM accounts WHERE username_key = $1",
                        &[&key],
                    )
                    .await
                    .map_err(read_failed)?;
                row.map(|r| account_row(&r, 0)).transpose()
            }
            .boxed()
        })
    }

    fn username_like(&self, name_key: &str) -> BoxFuture<'static, Result<Option<String>, StoreError>> {
        let key = name_key.to_string();
        self.read(move |client| {
            async move {
                let row = client
                    .query_opt("SELECT username FROM accounts WHERE name_key = $1 LIMIT 1", &[&key])
                    .await
                    .map_err(read_failed)?;
                Ok(row.map(|r| r.get(0)))
            }
            .boxed()
        })
    }

    fn create_session(
        &self,
        session: TokenHash,
        account: AccountKey,
        now_ms: i64,
    ) -> BoxFuture<'static, Result<(), StoreError>> {
        self.read(move |client| {
            async move {
                client
                    .execute(
                        "INSERT INTO sessions (token_hash, account, created_ms, used_ms) VALUES ($1, $2, $3, $3)",
                        &[&&session.0[..], &account, &now_ms],
                    )
                    .await
                    .map(drop)
                    .map_err(write_failed)
            }
            .boxed()
        })
    }

    fn session(
        &self,
        session: TokenHash,
        now_ms: i64,
        idle_ms: i64,
    ) -> BoxFuture<'static, Result<Option<StoredAccount>, StoreError>> {
        self.read(move |client| {
            async move {
                let hash = &session.0[..];
                let row = client
                    .query_opt(
                        "SELECT s.used_ms, a.id, a.username, a.password_hash, a.seat_key, a.created_ms, a.bot
                         FROM sessions s JOIN accounts a ON a.id = s.account WHERE s.token_hash = $1",
                        &[&hash],
                    )
                    .await
                    .map_err(read_failed)?;
                let Some(row) = row else { return Ok(None) };
                let used_ms: i64 = row.try_get(0).map_err(read_failed)?;
                if now_ms.saturating_sub(used_ms) > idle_ms {
                    client
                        .execute("DELETE FROM sessions WHERE token_hash = $1", &[&hash])
                        .await
                        .map_err(write_failed)?;
                    return Ok(None);
                }
                if session_needs_touch(used_ms, now_ms, idle_ms) {
                    client
                        .execute("UPDATE sessions SET used_ms = $2 WHERE token_hash = $1", &[&hash, &now_ms])
                        .await
                        .map_err(write_failed)?;
                }
                account_row(&row, 1).map(Some)
            }
            .boxed()
        })
    }

    fn end_session(&self, session: TokenHash) -> BoxFuture<'static, Result<(), StoreError>> {
        self.read(move |client| {
            async move {
                client
                    .execute("DELETE FROM sessions WHERE token_hash = $1", &[&&session.0[..]])
                    .await
                    .map(drop)
                    .map_err(write_failed)
            }
            .boxed()
        })
    }

    fn end_sessions(&self, account: AccountKey, keep: Option<TokenHash>) -> BoxFuture<'static, Result<(), StoreError>> {
        self.read(move |client| async move { end_sessions(client, account, keep.as_ref()).await }.boxed())
    }

    fn set_password(
        &self,
        account: AccountKey,
        password_hash: String,
        keep: Option<TokenHash>,
    ) -> BoxFuture<'static, Result<(), StoreError>> {
        self.write(move |client| {
            async move {
                let tx = client.transaction().await.map_err(write_failed)?;
                tx.execute("UPDATE accounts SET password_hash = $2 WHERE id = $1", &[&account, &password_hash])
                    .await
                    .map_err(write_failed)?;
                end_sessions(&tx, account, keep.as_ref()).await?;
                tx.commit().await.map_err(write_failed)
            }
            .boxed()
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
        self.read(move |client| {
            async move {
                let row = client
                    .query_one(
                        "INSERT INTO api_tokens (token_hash, account, description, scopes, created_ms)
                         VALUES ($1, $2, $3, $4, $5) RETURNING id",
                        &[&&token.0[..], &account, &description, &scopes, &now_ms],
                    )
                    .await
                    .map_err(write_failed)?;
                row.try_get(0).map_err(read_failed)
            }
            .boxed()
        })
    }

    fn api_token(
        &self,
        token: TokenHash,
    ) -> BoxFuture<'static, Result<Option<(StoredApiToken, StoredAccount)>, StoreError>> {
        self.read(move |client| {
            async move {
                let row = client
                    .query_opt(
                        "SELECT t.id, t.account, t.description, t.scopes, t.created_ms,
                                a.id, a.username, a.password_hash, a.seat_key, a.created_ms, a.bot
                         FROM api_tokens t JOIN accounts a ON a.id = t.account WHERE t.token_hash = $1",
                        &[&&token.0[..]],
                    )
                    .await
                    .map_err(read_failed)?;
                row.map(|r| Ok((api_token_row(&r, 0)?, account_row(&r, 5)?))).transpose()
            }
            .boxed()
        })
    }

    fn api_tokens(&self, account: AccountKey) -> BoxFuture<'static, Result<Vec<StoredApiToken>, StoreError>> {
        self.read(move |client| {
            async move {
                let rows = client
                    .query(
                        "SELECT id, account, description, scopes, created_ms FROM api_tokens WHERE account = $1
                         ORDER BY id DESC",
                        &[&account],
                    )
                    .await
                    .map_err(read_failed)?;
                rows.iter().map(|r| api_token_row(r, 0)).collect()
            }
            .boxed()
        })
    }

    fn delete_api_token(&self, account: AccountKey, id: i64) -> BoxFuture<'static, Result<bool, StoreError>> {
        self.read(move |client| {
            async move {
                client
                    .execute("DELETE FROM api_tokens WHERE account = $1 AND id = $2", &[&account, &id])
                    .await
                    .map(|n| n > 0)
                    .map_err(write_failed)
            }
            .boxed()
        })
    }

    fn make_bot(&self, account: AccountKey) -> BoxFuture<'static, Result<bool, StoreError>> {
        self.read(move |client| {
            async move {
                client
                    .execute(
                        "UPDATE accounts SET bot = true WHERE id = $1 AND (bot OR NOT EXISTS
                           (SELECT 1 FROM games WHERE white_account = $1 OR black_account = $1))",
                        &[&account],
                    )
                    .await
                    .map(|n| n > 0)
                    .map_err(write_failed)
            }
            .boxed()
        })
    }

    fn bots(&self, limit: u64) -> BoxFuture<'static, Result<Vec<StoredAccount>, StoreError>> {
        self.read(move |client| {
            async move {
                let limit = i64::try_from(limit).unwrap_or(i64::MAX);
                let rows = client
                    .query(
                        "SELECT id, username, password_hash, seat_key, created_ms, bot FROM accounts a WHERE bot
                         ORDER BY (SELECT coalesce(sum(games), 0) FROM ratings r WHERE r.account = a.id) DESC,
                                  username_key
                         LIMIT $1",
                        &[&limit],
                    )
                    .await
                    .map_err(read_failed)?;
                rows.iter().map(|r| account_row(r, 0)).collect()
            }
            .boxed()
        })
    }

    fn playing(&self, account: AccountKey) -> BoxFuture<'static, Result<Vec<String>, StoreError>> {
        self.read(move |client| {
            async move {
                let rows = client
                    .query(
                        "SELECT id FROM games WHERE status <> 'ended' AND (white_account = $1 OR black_account = $1)
                         ORDER BY created_ms DESC",
                        &[&account],
                    )
                    .await
                    .map_err(read_failed)?;
                Ok(rows.iter().map(|r| r.get(0)).collect())
            }
            .boxed()
        })
    }

    fn ratings(&self, account: AccountKey) -> BoxFuture<'static, Result<Vec<StoredRating>, StoreError>> {
        self.read(move |client| {
            async move {
                let rows = client
                    .query(&format!("SELECT {RATING} FROM ratings WHERE account = $1"), &[&account])
                    .await
                    .map_err(read_failed)?;
                rows.iter().map(|r| rating_row(r, 0)).collect()
            }
            .boxed()
        })
    }

    fn rating_history(&self, account: AccountKey) -> BoxFuture<'static, Result<Vec<RatingPoint>, StoreError>> {
        self.read(move |client| {
            async move {
                let rows = client
                    .query(
                        "SELECT category, at_ms, rating FROM rating_history WHERE account = $1 ORDER BY at_ms, seq",
                        &[&account],
                    )
                    .await
                    .map_err(read_failed)?;
                rows.iter()
                    .map(|r| {
                        let category: String = r.try_get(0).map_err(read_failed)?;
                        Ok(RatingPoint {
                            category: category_of(&category)?,
                            at_ms: r.try_get(1).map_err(read_failed)?,
                            rating: r.try_get(2).map_err(read_failed)?,
                        })
                    })
                    .collect()
            }
            .boxed()
        })
    }

    fn results(&self, account: AccountKey) -> BoxFuture<'static, Result<Results, StoreError>> {
        self.read(move |client| {
            async move {
                let sql = RESULTS.replace("?1", "$1");
                let row = client.query_one(&sql, &[&account]).await.map_err(read_failed)?;
                let count = |i: usize| -> Result<u64, StoreError> {
                    let n: Option<i64> = row.try_get(i).map_err(read_failed)?;
                    Ok(n.unwrap_or(0).max(0) as u64)
                };
                Ok(Results { wins: count(0)?, draws: count(1)?, losses: count(2)? })
            }
            .boxed()
        })
    }

    fn games_of(
        &self,
        account: AccountKey,
        offset: u64,
        limit: u64,
    ) -> BoxFuture<'static, Result<(u64, Vec<StoredGame>), StoreError>> {
        let (offset, limit) = (i64::try_from(offset).unwrap_or(i64::MAX), i64::try_from(limit).unwrap_or(i64::MAX));
        self.read(move |client| {
            async move {
                let total: i64 = client
                    .query_one(
                        "SELECT count(*) FROM games WHERE status = 'ended'
                         AND (white_account = $1 OR black_account = $1)",
                        &[&account],
                    )
                    .await
                    .map_err(read_failed)?
                    .get(0);
                let found = games(
                    client,
                    "status = 'ended' AND (white_account = $1 OR black_account = $1)
                     ORDER BY ended_ms DESC, id LIMIT $2 OFFSET $3",
                    &[&account, &limit, &offset],
                )
                .await?;
                Ok((total.max(0) as u64, readable(found)?))
            }
            .boxed()
        })
    }

    fn leaderboard(
        &self,
        category: Category,
        max_rd: f64,
        limit: u64,
    ) -> BoxFuture<'static, Result<Vec<(String, StoredRating)>, StoreError>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.read(move |client| {
            async move {
                let rows = client
                    .query(
                        "SELECT a.username, r.category, r.rating, r.rd, r.volatility, r.games, r.rated_ms
                         FROM ratings r JOIN accounts a ON a.id = r.account
                         WHERE r.category = $1 AND r.rd <= $2 ORDER BY r.rating DESC, a.username_key LIMIT $3",
                        &[&category.name(), &max_rd, &limit],
                    )
                    .await
                    .map_err(read_failed)?;
                rows.iter().map(|r| Ok((r.try_get(0).map_err(read_failed)?, rating_row(r, 1)?))).collect()
            }
            .boxed()
        })
    }
}

impl RatingStore for PostgresStore {
    fn rating_change(&self, game: &str) -> BoxFuture<'static, Result<Option<StoredRatings>, StoreError>> {
        let game = game.to_string();
        self.read(move |client| {
            async move {
                let row =
                    client.query_opt("SELECT ratings FROM games WHERE id = $1", &[&game]).await.map_err(read_failed)?;
                let text: Option<String> = row.and_then(|r| r.get(0));
                Ok(ratings_of(text.as_deref()))
            }
            .boxed()
        })
    }
}
