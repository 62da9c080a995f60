//! The PostgreSQL store, for servers that outgrow one SQLite file (and for a cluster, whose
//! nodes share it). The contract is SQLite's: a change is committed before the room shows it,
//! changes are applied in the order they are recorded, and reads see every change recorded
//! before them.
//!
//! One writer task takes the changes in order and commits whatever has queued up in one
//! transaction (group commit), each change in a savepoint of its own so that one refused change
//! does not undo the others. Connections come from a pool that replaces broken ones: while the
//! database cannot be reached, changes fail at once with a clear error (the room refuses the
//! move) and nothing is accepted that is not stored; when it is back, writes go on.

mod accounts;
mod analyses;
mod challenges;
mod lease;
mod lock;
mod notifications;
mod relations;
mod schema;
mod tournaments;
mod writer;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use futures::future::BoxFuture;
use tokio::sync::{mpsc, oneshot};
use tokio_postgres::{Client, NoTls, Row};

use super::queue;
use super::records::{chat_lines, readable, the_one, GameRow, COLUMNS};
use super::{GameStore, StoreError, StoreEvent, StoredGame};
use lease::Fence;
use lock::ServerLock;

pub use lease::{NodeInfo, Owner, LEASE, RENEW_EVERY};

/// Connections kept: the writer's, and a few for reads.
const POOL_SIZE: usize = 4;
/// How long a change or a read waits for a connection (or for the database to answer a new
/// one) before it fails: a move is refused rather than left hanging while the database is away.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// What the writer does after committing the changes queued before it.
enum Then {
    /// Answered once every change queued before it is committed (or failed).
    Barrier(oneshot::Sender<()>),
    Close(oneshot::Sender<()>),
}

type Job = queue::Job<Then>;

/// Games in a PostgreSQL database.
pub struct PostgresStore {
    jobs: mpsc::UnboundedSender<Job>,
    pool: Pool,
    /// One server per database: held for as long as the store is open (a single server only;
    /// a cluster's nodes share the database and fence each game by its lease instead).
    lock: Option<ServerLock>,
    /// A cluster node's name and leases, which every write is checked against.
    fence: Option<Arc<Fence>>,
}

impl PostgresStore {
    /// Connects to the database at `url` (`postgres://user@host:port/db`) as its one server
    /// and brings its schema up to date. Must run inside a tokio runtime: the writer is a task
    /// of it.
    pub async fn connect(url: &str) -> Result<PostgresStore, StoreError> {
        PostgresStore::open(url, None).await
    }

    /// Connects as the cluster node `node`: no database lock (the nodes share the database);
    /// instead each game is written only by the node holding its lease (`lease.rs`).
    pub async fn connect_node(url: &str, node: &str) -> Result<PostgresStore, StoreError> {
        PostgresStore::open(url, Some(node)).await
    }

    async fn open(url: &str, node: Option<&str>) -> Result<PostgresStore, StoreError> {
        let shown = redact(url);
        let failed = |e: &dyn std::fmt::Display| StoreError::Open { path: shown.clone(), message: e.to_string() };
        let mut config: tokio_postgres::Config = url.parse().map_err(|e| failed(&e))?;
        config.connect_timeout(CONNECT_TIMEOUT);
        if config.get_application_name().is_none() {
            config.application_name("gambit");
        }
        let manager =
            Manager::from_config(config.clone(), NoTls, ManagerConfig { recycling_method: RecyclingMethod::Fast });
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(CONNECT_TIMEOUT))
            .create_timeout(Some(CONNECT_TIMEOUT))
            .recycle_timeout(Some(CONNECT_TIMEOUT))
            .build()
            .map_err(|e| failed(&e))?;
        let lock = match node {
            None => Some(ServerLock::take(&config, &shown).await?),
            Some(_) => None,
        };
        {
            let mut client = pool.get().await.map_err(|e| failed(&e))?;
            schema::migrate(&mut client).await.map_err(|e| failed(&e))?;
            schema::fill_name_keys(&client).await.map_err(|e| failed(&e))?;
        }
        let (jobs, queue) = mpsc::unbounded_channel();
        let fence = node.map(|node| Arc::new(Fence::new(node.to_string())));
        let held = lock.as_ref().map_or_else(|| Arc::new(AtomicBool::new(true)), ServerLock::flag);
        tokio::spawn(writer::run(pool.clone(), held, fence.clone(), queue));
        let store = PostgresStore { jobs, pool, lock, fence };
        if store.fence.is_some() {
            store.forget_previous().await.map_err(|e| failed(&e))?;
        }
        Ok(store)
    }

    /// Checks that `url` is a PostgreSQL URL this store can use, without connecting.
    pub fn check_url(url: &str) -> Result<(), String> {
        let config: tokio_postgres::Config =
            url.parse().map_err(|e| format!("{} is not a PostgreSQL URL gambit can use: {e}", redact(url)))?;
        if config.get_dbname().is_none() {
            return Err(format!("{}: name the database, e.g. postgres://gambit@localhost/gambit", redact(url)));
        }
        Ok(())
    }

    /// Runs `read` on a pooled connection once every change recorded before it is committed.
    fn read<T: Send + 'static>(
        &self,
        read: impl for<'c> FnOnce(&'c Client) -> BoxFuture<'c, Result<T, StoreError>> + Send + 'static,
    ) -> BoxFuture<'static, Result<T, StoreError>> {
        let connection = self.after_queue(StoreError::Read);
        Box::pin(async move {
            let client = connection.await?;
            read(&client).await
        })
    }

    /// As `read`, with the connection to itself, for work that needs a transaction.
    fn write<T: Send + 'static>(
        &self,
        write: impl for<'c> FnOnce(&'c mut Client) -> BoxFuture<'c, Result<T, StoreError>> + Send + 'static,
    ) -> BoxFuture<'static, Result<T, StoreError>> {
        let connection = self.after_queue(StoreError::Write);
        Box::pin(async move {
            let mut client = connection.await?;
            write(&mut client).await
        })
    }

    /// A pooled connection, once every change recorded before this call is committed; a pool
    /// that cannot connect fails as `failed` says.
    fn after_queue(
        &self,
        failed: fn(String) -> StoreError,
    ) -> impl std::future::Future<Output = Result<deadpool_postgres::Object, StoreError>> + Send + 'static {
        let (reached, barrier) = oneshot::channel();
        let sent = self.jobs.send(Job::Then(Then::Barrier(reached))).is_ok();
        let pool = self.pool.clone();
        async move {
            if !sent || barrier.await.is_err() {
                return Err(StoreError::Closed);
            }
            pool.get().await.map_err(|e| failed(unavailable(&e)))
        }
    }
}

/// The URL as logs and errors may show it: without its password.
pub(super) fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let credentials = &url[scheme + 3..at];
            match credentials.find(':') {
                Some(colon) => format!("{}{}:***{}", &url[..scheme + 3], &credentials[..colon], &url[at..]),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

fn read_failed(e: tokio_postgres::Error) -> StoreError {
    StoreError::Read(e.to_string())
}

fn write_failed(e: tokio_postgres::Error) -> StoreError {
    StoreError::Write(e.to_string())
}

/// Why no connection could be had, worded for a player whose move it refuses.
fn unavailable(e: &dyn std::fmt::Display) -> String {
    format!("the game store (PostgreSQL) is unavailable: {e}")
}

impl GameStore for PostgresStore {
    fn record(&self, game: &str, event: StoreEvent) -> BoxFuture<'static, Result<(), StoreError>> {
        if let (Some(fence), StoreEvent::Created(_)) = (&self.fence, &event) {
            // A node owns the games it creates from the start: epoch 1, set with the insert.
            fence.hold(game, 1);
        }
        queue::record(|job| self.jobs.send(job).is_ok(), game, event)
    }

    fn unfinished(&self) -> BoxFuture<'static, Result<Vec<StoredGame>, StoreError>> {
        self.read(|client| {
            Box::pin(async move { readable(games(client, "status <> 'ended' ORDER BY created_ms, id", &[]).await?) })
        })
    }

    fn finished(&self, limit: usize) -> BoxFuture<'static, Result<Vec<StoredGame>, StoreError>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.read(move |client| {
            Box::pin(async move {
                let filter = "status = 'ended' ORDER BY ended_ms DESC, id LIMIT $1";
                readable(games(client, filter, &[&limit]).await?)
            })
        })
    }

    fn load(&self, game: &str) -> BoxFuture<'static, Result<Option<StoredGame>, StoreError>> {
        let id = game.to_string();
        self.read(move |client| {
            Box::pin(async move {
                let found = games(client, "id = $1", &[&id]).await?;
                the_one(id, found)
            })
        })
    }

    fn close(&self) -> BoxFuture<'static, ()> {
        let (done, closed) = oneshot::channel();
        let sent = self.jobs.send(Job::Then(Then::Close(done))).is_ok();
        let pool = self.pool.clone();
        let release = self.lock.as_ref().map(ServerLock::release);
        Box::pin(async move {
            if sent {
                let _ = closed.await;
            }
            pool.close();
            // The last write is committed: the next server may have the database.
            if let Some(release) = release {
                release.await;
            }
        })
    }
}

/// The games matching `filter` (an SQL condition and order), with their moves; a game whose
/// row or moves cannot be read is there as the reason why, so one bad game fails only itself.
async fn games(
    client: &Client,
    filter: &str,
    args: &[&(dyn tokio_postgres::types::ToSql + Sync)],
) -> Result<Vec<Result<StoredGame, String>>, StoreError> {
    let read = |e: tokio_postgres::Error| StoreError::Read(e.to_string());
    let rows = client.query(&format!("SELECT {COLUMNS} FROM games WHERE {filter}"), args).await.map_err(read)?;
    let mut found: Vec<Result<StoredGame, String>> = rows.iter().map(game_row).collect();
    let ids: Vec<&str> = found.iter().filter_map(|g| g.as_ref().ok()).map(|g| g.id.as_str()).collect();
    if ids.is_empty() {
        return Ok(found);
    }
    // Every game's moves in one query, in order.
    let moves = client
        .query("SELECT game, uci FROM moves WHERE game = ANY($1) ORDER BY game, ply", &[&ids])
        .await
        .map_err(read)?;
    let mut by_game: std::collections::HashMap<String, Vec<String>> = std::collections::HashMap::new();
    for row in moves {
        let (game, uci): (String, String) = (row.get(0), row.get(1));
        by_game.entry(game).or_default().push(uci);
    }
    let chat = client
        .query("SELECT game, room, sender, text, at_ms FROM chat WHERE game = ANY($1) ORDER BY game, seq", &[&ids])
        .await
        .map_err(read)?;
    let mut chat_by_game: std::collections::HashMap<String, Vec<(String, String, String, i64)>> =
        std::collections::HashMap::new();
    for row in chat {
        chat_by_game.entry(row.get(0)).or_default().push((row.get(1), row.get(2), row.get(3), row.get(4)));
    }
    for game in found.iter_mut().flatten() {
        game.moves = by_game.remove(&game.id).unwrap_or_default();
        game.chat = chat_lines(chat_by_game.remove(&game.id).unwrap_or_default());
    }
    Ok(found)
}

/// One `games` row, without its moves.
fn game_row(row: &Row) -> Result<StoredGame, String> {
    let id: String = row.try_get(0).map_err(|e| e.to_string())?;
    let column = |what: &str, e: tokio_postgres::Error| format!("game {id:?}: bad {what}: {e}");
    let record = GameRow {
        variant: row.try_get(1).map_err(|e| column("variant", e))?,
        initial_fen: row.try_get(2).map_err(|e| column("initial_fen", e))?,
        rules: row.try_get(3).map_err(|e| column("rules", e))?,
        white: row.try_get(4).map_err(|e| column("white seat", e))?,
        black: row.try_get(5).map_err(|e| column("black seat", e))?,
        white_token: row.try_get(6).map_err(|e| column("white seat", e))?,
        black_token: row.try_get(7).map_err(|e| column("black seat", e))?,
        clock: row.try_get(8).map_err(|e| column("clock", e))?,
        result: row.try_get(9).map_err(|e| column("result", e))?,
        reason: row.try_get(10).map_err(|e| column("reason", e))?,
        created_ms: row.try_get(11).map_err(|e| column("created_ms", e))?,
        ended_ms: row.try_get(12).map_err(|e| column("ended_ms", e))?,
        v: row.try_get(13).map_err(|e| column("v", e))?,
        white_ms: row.try_get(14).map_err(|e| column("white_ms", e))?,
        black_ms: row.try_get(15).map_err(|e| column("black_ms", e))?,
        white_name: row.try_get(16).map_err(|e| column("white_name", e))?,
        black_name: row.try_get(17).map_err(|e| column("black_name", e))?,
        match_white: row.try_get(18).map_err(|e| column("match_white", e))?,
        match_black: row.try_get(19).map_err(|e| column("match_black", e))?,
        match_games: row.try_get(20).map_err(|e| column("match_games", e))?,
        white_account: row.try_get(21).map_err(|e| column("white_account", e))?,
        black_account: row.try_get(22).map_err(|e| column("black_account", e))?,
        rated: row.try_get(23).map_err(|e| column("rated", e))?,
        ratings: row.try_get(24).map_err(|e| column("ratings", e))?,
        id,
    };
    record.into_game()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_stay_out_of_messages() {
        assert_eq!(redact("postgres://gambit:s3cret@db:5432/gambit"), "postgres://gambit:***@db:5432/gambit");
        assert_eq!(redact("postgres://gambit@db/gambit"), "postgres://gambit@db/gambit");
        assert_eq!(redact("postgres://db/gambit"), "postgres://db/gambit");
    }
}
