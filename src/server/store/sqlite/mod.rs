//! The SQLite store. One thread owns the connection: rooms put changes in its queue and are
//! told when they are committed. The thread commits whatever has queued up in one transaction
//! (group commit), so a thousand moves a second cost a few hundred commits, not a thousand.
//!
//! The file is in WAL mode with `synchronous=NORMAL`: a commit is in the operating system's
//! hands before the room broadcasts it, so a crash of the server loses nothing; only a crash
//! of the whole machine may lose the last moments (docs/operations.md).

mod accounts;
mod analyses;
mod challenges;
mod lock;
mod notifications;
mod relations;
pub mod schema;
mod tournaments;

use std::sync::mpsc;
use std::thread;

use futures::future::BoxFuture;
use rusqlite::{params, Connection, Row};
use tokio::sync::oneshot;

use super::queue::{self, Write};
use super::records::{chat_lines, chat_room, must_change, readable, the_one, to_i64, GameRow, COLUMNS};
use super::{now_ms, GameStore, StoreError, StoreEvent, StoredGame, StoredTimes, CHAT_KEPT};
use crate::chess::Color;

/// What the store's thread does after committing the changes queued before it.
enum Then {
    Read(Box<dyn FnOnce(&Connection) + Send>),
    Close(oneshot::Sender<()>),
}

type Job = queue::Job<Then>;

/// Games in an SQLite database, written by a thread of their own.
pub struct SqliteStore {
    jobs: mpsc::Sender<Job>,
}

impl SqliteStore {
    /// Opens (or creates) the database at `path`, `":memory:"` for one that lives only as long
    /// as the server, and brings its schema up to date.
    pub fn open(path: &str) -> Result<SqliteStore, StoreError> {
        let failed = |e: &dyn std::fmt::Display| StoreError::Open { path: path.to_string(), message: e.to_string() };
        // Before anything touches the file: another server may be using it.
        let lock = lock::lock(path)?;
        let mut conn = if path == ":memory:" { Connection::open_in_memory() } else { Connection::open(path) }
            .map_err(|e| failed(&e))?;
        prepare(&mut conn).map_err(|e| failed(&e))?;
        let (jobs, queue) = mpsc::channel();
        thread::Builder::new()
            .name("gambit-store".into())
            .spawn(move || {
                // Held by the thread that owns the connection, so it is let go only once the
                // last write is committed and the file closed.
                let _lock = lock;
                run(conn, queue)
            })
            .map_err(|e| failed(&e))?;
        Ok(SqliteStore { jobs })
    }

    /// Runs `read` on the store's thread (after the changes queued before it).
    fn read<T: Send + 'static>(
        &self,
        read: impl FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    ) -> BoxFuture<'static, Result<T, StoreError>> {
        let (reply, answer) = oneshot::channel();
        let job = Job::Then(Then::Read(Box::new(move |conn| {
            let _ = reply.send(read(conn));
        })));
        let sent = self.jobs.send(job).is_ok();
        Box::pin(async move {
            if !sent {
                return Err(StoreError::Closed);
            }
            answer.await.unwrap_or(Err(StoreError::Closed))
        })
    }
}

fn read_failed(e: rusqlite::Error) -> StoreError {
    StoreError::Read(e.to_string())
}

fn write_failed(e: rusqlite::Error) -> StoreError {
    StoreError::Write(e.to_string())
}

/// Settings of the connection, then the migrations.
fn prepare(conn: &mut Connection) -> Result<(), Box<dyn std::error::Error>> {
    // An in-memory database answers "memory" here; that is fine.
    let _mode: String = conn.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    schema::migrations().to_latest(conn).map_err(|e| match e {
        rusqlite_migration::Error::MigrationDefinition(
            rusqlite_migration::MigrationDefinitionError::DatabaseTooFarAhead,
        ) => format!("it was written by a newer gambit (this one knows schema version {})", schema::LATEST).into(),
        e => Box::<dyn std::error::Error>::from(e.to_string()),
    })?;
    // Accounts made before schema 7 get their name key (computed here, not in SQL).
    let unkeyed: Vec<(i64, String)> = conn
        .prepare("SELECT id, username FROM accounts WHERE name_key IS NULL")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    for (id, username) in unkeyed {
        conn.execute(
            "UPDATE accounts SET name_key = ?2 WHERE id = ?1",
            params![id, crate::protocol::name_key(&username)],
        )?;
    }
    Ok(())
}

impl GameStore for SqliteStore {
    fn record(&self, game: &str, event: StoreEvent) -> BoxFuture<'static, Result<(), StoreError>> {
        queue::record(|job| self.jobs.send(job).is_ok(), game, event)
    }

    fn unfinished(&self) -> BoxFuture<'static, Result<Vec<StoredGame>, StoreError>> {
        self.read(|conn| readable(games(conn, "status <> 'ended' ORDER BY created_ms", params![])?))
    }

    fn finished(&self, limit: usize) -> BoxFuture<'static, Result<Vec<StoredGame>, StoreError>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.read(move |conn| {
            readable(games(conn, "status = 'ended' ORDER BY ended_ms DESC, id LIMIT ?1", params![limit])?)
        })
    }

    fn load(&self, game: &str) -> BoxFuture<'static, Result<Option<StoredGame>, StoreError>> {
        let id = game.to_string();
        self.read(move |conn| {
            let found = games(conn, "id = ?1", params![id])?;
            the_one(id, found)
        })
    }

    fn close(&self) -> BoxFuture<'static, ()> {
        let (done, closed) = oneshot::channel();
        let sent = self.jobs.send(Job::Then(Then::Close(done))).is_ok();
        Box::pin(async move {
            if sent {
                let _ = closed.await;
            }
        })
    }
}

/// The store's thread: waits for work, commits every change that has queued up in one
/// transaction, then answers the reads that came with them.
fn run(mut conn: Connection, jobs: mpsc::Receiver<Job>) {
    let mut writes = Vec::new();
    let mut then = Vec::new();
    while let Ok(first) = jobs.recv() {
        queue::gather(first, || jobs.try_recv().ok(), &mut writes, &mut then);
        if !writes.is_empty() {
            let results = apply_all(&mut conn, &writes).map_err(|e| e.to_string());
            queue::answer(&mut writes, results);
        }
        for job in then.drain(..) {
            match job {
                Then::Read(read) => read(&conn),
                Then::Close(done) => {
                    drop(conn);
                    let _ = done.send(());
                    return;
                }
            }
        }
    }
}

fn apply_all(conn: &mut Connection, writes: &[Write]) -> rusqlite::Result<Vec<Result<(), StoreError>>> {
    let mut tx = conn.transaction()?;
    let mut results = Vec::with_capacity(writes.len());
    for write in writes {
        let savepoint = tx.savepoint()?;
        match apply(&savepoint, &write.game, &write.event) {
            Ok(()) => {
                savepoint.commit()?;
                results.push(Ok(()));
            }
            // Dropping the savepoint rolls this change back.
            Err(message) => results.push(Err(StoreError::Write(message))),
        }
    }
    tx.commit()?;
    Ok(results)
}

/// Makes one change; an error says why it could not be made.
fn apply(conn: &Connection, game: &str, event: &StoreEvent) -> Result<(), String> {
    let sql = |e: rusqlite::Error| e.to_string();
    let must_change = |changed: usize| must_change(game, changed as u64);
    match event {
        StoreEvent::Created(g) => {
            let row = GameRow::of(g);
            conn.prepare_cached(
                "INSERT INTO games (id, variant, initial_fen, rules, white, black, white_token, black_token, clock,
                                    status, result, reason, created_ms, ended_ms, v, white_ms, black_ms,
                                    white_name, black_name, match_white, match_black, match_games,
                                    white_account, black_account, rated, ratings)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19,
                         ?20, ?21, ?22, ?23, ?24, ?25, ?26)",
            )
            .and_then(|mut insert| {
                insert.execute(params![
                    row.id,
                    row.variant,
                    row.initial_fen,
                    row.rules,
                    row.white,
                    row.black,
                    row.white_token,
                    row.black_token,
                    row.clock,
                    row.status(),
                    row.result,
                    row.reason,
                    row.created_ms,
                    row.ended_ms,
                    row.v,
                    row.white_ms,
                    row.black_ms,
                    row.white_name,
                    row.black_name,
                    row.match_white,
                    row.match_black,
                    row.match_games,
                    row.white_account,
                    row.black_account,
                    row.rated,
                    row.ratings,
                ])
            })
            .map_err(|e| match e {
                rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::ConstraintViolation => {
                    format!("a game {:?} is already stored", g.id)
                }
                e => e.to_string(),
            })?;
        }
        StoreEvent::Seat { side, token, name, account } => {
            let column = match side {
                Color::White => {
                    "UPDATE games SET white_token = ?2, white_name = ?3, white_account = ?4
                     WHERE id = ?1 AND status <> 'ended'"
                }
                Color::Black => {
                    "UPDATE games SET black_token = ?2, black_name = ?3, black_account = ?4
                     WHERE id = ?1 AND status <> 'ended'"
                }
            };
            must_change(
                conn.prepare_cached(column)
                    .and_then(|mut s| s.execute(params![game, &token.0[..], name, account]))
                    .map_err(sql)?,
            )?;
        }
        StoreEvent::Move { ply, uci, times, v } => {
            conn.prepare_cached("INSERT INTO moves (game, ply, uci, played_ms) VALUES (?1, ?2, ?3, ?4)")
                .and_then(|mut s| s.execute(params![game, to_i64(*ply as u64), uci, now_ms()]))
                .map_err(sql)?;
            set_state(conn, game, Some(*v), *times)?;
        }
        StoreEvent::Undo { ply, times, v } => {
            conn.prepare_cached("DELETE FROM moves WHERE game = ?1 AND ply > ?2")
                .and_then(|mut s| s.execute(params![game, to_i64(*ply as u64)]))
                .map_err(sql)?;
            set_state(conn, game, Some(*v), *times)?;
        }
        StoreEvent::Ended { outcome, times, v, rated } => {
            let (result, reason) = (outcome.result(), outcome.reason.name());
            let changed = conn
                .prepare_cached(
                    "UPDATE games SET status = 'ended', result = ?2, reason = ?3, ended_ms = ?4 WHERE id = ?1",
                )
                .and_then(|mut s| s.execute(params![game, result, reason, now_ms()]))
                .map_err(sql)?;
            must_change(changed)?;
            set_state(conn, game, Some(*v), *times)?;
            // In the same savepoint: the end and the ratings are kept together or not at all.
            if let Some(rated) = rated {
                accounts::rate_in(conn, game, *rated).map_err(|e| e.to_string())?;
            }
        }
        StoreEvent::Times(times) => set_state(conn, game, None, Some(*times))?,
        StoreEvent::Version { v } => set_state(conn, game, Some(*v), None)?,
        StoreEvent::Chat(line) => {
            let room = chat_room(line);
            conn.prepare_cached("INSERT INTO chat (game, room, sender, text, at_ms) VALUES (?1, ?2, ?3, ?4, ?5)")
                .and_then(|mut s| s.execute(params![game, room, line.from, line.text, line.at_ms]))
                .map_err(sql)?;
            // Only the last lines of each room are kept.
            conn.prepare_cached(
                "DELETE FROM chat WHERE game = ?1 AND room = ?2 AND rowid NOT IN
                    (SELECT rowid FROM chat WHERE game = ?1 AND room = ?2 ORDER BY rowid DESC LIMIT ?3)",
            )
            .and_then(|mut s| s.execute(params![game, room, CHAT_KEPT as i64]))
            .map_err(sql)?;
        }
        StoreEvent::Discarded => {
            conn.prepare_cached("DELETE FROM games WHERE id = ?1")
                .and_then(|mut s| s.execute(params![game]))
                .map_err(sql)?;
        }
    }
    Ok(())
}

/// Raises the stored event version to `v` (it never goes down) and sets the clock's times, each
/// if given, in one statement.
fn set_state(conn: &Connection, game: &str, v: Option<u64>, times: Option<StoredTimes>) -> Result<(), String> {
    let (white, black) = (times.map(|t| to_i64(t.white_ms)), times.map(|t| to_i64(t.black_ms)));
    conn.prepare_cached(
        "UPDATE games SET v = max(v, coalesce(?2, v)), white_ms = coalesce(?3, white_ms),
                          black_ms = coalesce(?4, black_ms) WHERE id = ?1",
    )
    .and_then(|mut s| s.execute(params![game, v.map(to_i64), white, black]))
    .map(|_| ())
    .map_err(|e| e.to_string())
}

/// The games matching `filter` (an SQL condition and order), with their moves; a game whose
/// row or moves cannot be read is there as the reason why, so one bad game fails only itself.
fn games(
    conn: &Connection,
    filter: &str,
    args: &[&dyn rusqlite::ToSql],
) -> Result<Vec<Result<StoredGame, String>>, StoreError> {
    let read = |e: rusqlite::Error| StoreError::Read(e.to_string());
    let mut select = conn.prepare(&format!("SELECT {COLUMNS} FROM games WHERE {filter}")).map_err(read)?;
    let rows = select.query_map(args, |row| Ok(game_row(row))).map_err(read)?;
    let mut moves = conn.prepare_cached("SELECT uci FROM moves WHERE game = ?1 ORDER BY ply").map_err(read)?;
    let mut chat = conn
        .prepare_cached("SELECT room, sender, text, at_ms FROM chat WHERE game = ?1 ORDER BY rowid")
        .map_err(read)?;
    let mut found = Vec::new();
    for row in rows {
        let game = row.map_err(read)?.and_then(|mut game| {
            game.moves = moves
                .query_map(params![game.id], |r| r.get::<_, String>(0))
                .and_then(|ucis| ucis.collect::<rusqlite::Result<Vec<String>>>())
                .map_err(|e| format!("game {:?}: unreadable moves: {e}", game.id))?;
            game.chat = chat
                .query_map(params![game.id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
                .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
                .map(chat_lines)
                .map_err(|e| format!("game {:?}: unreadable chat: {e}", game.id))?;
            Ok(game)
        });
        found.push(game);
    }
    Ok(found)
}

/// One `games` row, without its moves.
fn game_row(row: &Row<'_>) -> Result<StoredGame, String> {
    let id: String = row.get(0).map_err(|e| e.to_string())?;
    let column = |what: &str, e: rusqlite::Error| format!("game {id:?}: bad {what}: {e}");
    let record = GameRow {
        variant: row.get(1).map_err(|e| column("variant", e))?,
        initial_fen: row.get(2).map_err(|e| column("initial_fen", e))?,
        rules: row.get(3).map_err(|e| column("rules", e))?,
        white: row.get(4).map_err(|e| column("white seat", e))?,
        black: row.get(5).map_err(|e| column("black seat", e))?,
        white_token: row.get(6).map_err(|e| column("white seat", e))?,
        black_token: row.get(7).map_err(|e| column("black seat", e))?,
        clock: row.get(8).map_err(|e| column("clock", e))?,
        result: row.get(9).map_err(|e| column("result", e))?,
        reason: row.get(10).map_err(|e| column("reason", e))?,
        created_ms: row.get(11).map_err(|e| column("created_ms", e))?,
        ended_ms: row.get(12).map_err(|e| column("ended_ms", e))?,
        v: row.get(13).map_err(|e| column("v", e))?,
        white_ms: row.get(14).map_err(|e| column("white_ms", e))?,
        black_ms: row.get(15).map_err(|e| column("black_ms", e))?,
        white_name: row.get(16).map_err(|e| column("white_name", e))?,
        black_name: row.get(17).map_err(|e| column("black_name", e))?,
        match_white: row.get(18).map_err(|e| column("match_white", e))?,
        match_black: row.get(19).map_err(|e| column("match_black", e))?,
        match_games: row.get(20).map_err(|e| column("match_games", e))?,
        white_account: row.get(21).map_err(|e| column("white_account", e))?,
        black_account: row.get(22).map_err(|e| column("black_account", e))?,
        rated: row.get(23).map_err(|e| column("rated", e))?,
        ratings: row.get(24).map_err(|e| column("ratings", e))?,
        id,
    };
    record.into_game()
}

#[cfg(test)]
mod tests;
