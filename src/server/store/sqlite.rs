//! The SQLite store. One thread owns the connection: rooms put changes in its queue and are
//! told when they are committed. The thread commits whatever has queued up in one transaction
//! (group commit), so a thousand moves a second cost a few hundred commits, not a thousand.
//!
//! The file is in WAL mode with `synchronous=NORMAL`: a commit is in the operating system's
//! hands before the room broadcasts it, so a crash of the server loses nothing; only a crash
//! of the whole machine may lose the last moments (docs/operations.md).

use std::sync::mpsc;
use std::thread;

use futures::future::BoxFuture;
use rusqlite::{params, Connection, Row};
use tokio::sync::oneshot;

use super::schema;
use super::StoredClock;
use super::{now_ms, GameStore, StoreError, StoreEvent, StoredGame, StoredSeat, StoredTimes};
use crate::chess::Color;
use crate::chess::{Outcome, Repetition, Rules, Variant};
use crate::server::token::TokenHash;

/// The most changes one transaction commits.
const MAX_BATCH: usize = 512;

/// A change waiting to be committed, and who waits for it.
struct Write {
    game: String,
    event: StoreEvent,
    done: oneshot::Sender<Result<(), StoreError>>,
}

/// Work for the store's thread.
enum Job {
    Write(Write),
    Read(Box<dyn FnOnce(&Connection) + Send>),
    Close(oneshot::Sender<()>),
}

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
        let lock = super::lock::lock(path)?;
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
        let job = Job::Read(Box::new(move |conn| {
            let _ = reply.send(read(conn));
        }));
        let sent = self.jobs.send(job).is_ok();
        Box::pin(async move {
            if !sent {
                return Err(StoreError::Closed);
            }
            answer.await.unwrap_or(Err(StoreError::Closed))
        })
    }
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
    Ok(())
}

impl GameStore for SqliteStore {
    fn record(&self, game: &str, event: StoreEvent) -> BoxFuture<'static, Result<(), StoreError>> {
        let (done, committed) = oneshot::channel();
        let sent = self.jobs.send(Job::Write(Write { game: game.to_string(), event, done })).is_ok();
        Box::pin(async move {
            if !sent {
                return Err(StoreError::Closed);
            }
            committed.await.unwrap_or(Err(StoreError::Closed))
        })
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
        self.read(move |conn| match games(conn, "id = ?1", params![id])?.pop() {
            None => Ok(None),
            Some(Ok(game)) => Ok(Some(game)),
            Some(Err(message)) => Err(StoreError::Damaged { game: id, message }),
        })
    }

    fn close(&self) -> BoxFuture<'static, ()> {
        let (done, closed) = oneshot::channel();
        let sent = self.jobs.send(Job::Close(done)).is_ok();
        Box::pin(async move {
            if sent {
                let _ = closed.await;
            }
        })
    }
}

/// The store's thread: waits for work, commits every change that has queued up in one
/// transaction, then answers the reads that came with them.
fn run(mut conn: Connection, queue: mpsc::Receiver<Job>) {
    let mut writes = Vec::new();
    let mut others = Vec::new();
    while let Ok(first) = queue.recv() {
        let mut next = Some(first);
        while let Some(job) = next.take() {
            match job {
                Job::Write(write) => writes.push(write),
                other => others.push(other),
            }
            if writes.len() < MAX_BATCH {
                next = queue.try_recv().ok();
            }
        }
        if !writes.is_empty() {
            commit(&mut conn, &mut writes);
        }
        for job in others.drain(..) {
            match job {
                Job::Read(read) => read(&conn),
                Job::Close(done) => {
                    drop(conn);
                    let _ = done.send(());
                    return;
                }
                Job::Write(_) => {}
            }
        }
    }
}

/// Commits `writes` in one transaction, each in a savepoint of its own so one refused change
/// (say, for a game that is not there) does not undo the others; tells each writer.
fn commit(conn: &mut Connection, writes: &mut Vec<Write>) {
    let results = apply_all(conn, writes).unwrap_or_else(|e| {
        tracing::error!(error = %e, "store commit failed");
        writes.iter().map(|_| Err(StoreError::Write(e.to_string()))).collect()
    });
    for (write, result) in writes.drain(..).zip(results) {
        if let Err(e) = &result {
            tracing::error!(game = %write.game, error = %e, "change not stored");
        }
        let _ = write.done.send(result);
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
    let must_change = |changed: usize| {
        if changed == 0 {
            Err(format!("there is no game {game:?} in the store"))
        } else {
            Ok(())
        }
    };
    match event {
        StoreEvent::Created(g) => {
            conn.prepare_cached(
                "INSERT INTO games (id, variant, initial_fen, rules, white, black, white_token, black_token, clock,
                                    status, result, reason, created_ms, ended_ms, v, white_ms, black_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
            )
            .and_then(|mut insert| {
                insert.execute(params![
                    g.id,
                    variant_name(g.variant),
                    g.initial_fen,
                    json(&RulesRecord::from(g.rules)),
                    json(&SeatRecord::from(g.white)),
                    json(&SeatRecord::from(g.black)),
                    token(g.white),
                    token(g.black),
                    g.clock.map(|c| json(&ClockRecord { initial_ms: c.initial_ms, increment_ms: c.increment_ms })),
                    if g.outcome.is_some() { "ended" } else { "playing" },
                    g.outcome.map(Outcome::result),
                    g.outcome.map(|o| o.reason.name()),
                    g.created_ms,
                    g.ended_ms,
                    to_i64(g.v),
                    g.times.map(|t| to_i64(t.white_ms)),
                    g.times.map(|t| to_i64(t.black_ms)),
                ])
            })
            .map_err(|e| match e {
                rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::ConstraintViolation => {
                    format!("a game {:?} is already stored", g.id)
                }
                e => e.to_string(),
            })?;
        }
        StoreEvent::Seat { side, token } => {
            let column = match side {
                Color::White => "UPDATE games SET white_token = ?2 WHERE id = ?1 AND status <> 'ended'",
                Color::Black => "UPDATE games SET black_token = ?2 WHERE id = ?1 AND status <> 'ended'",
            };
            must_change(
                conn.prepare_cached(column).and_then(|mut s| s.execute(params![game, &token.0[..]])).map_err(sql)?,
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
        StoreEvent::Ended { outcome, times, v } => {
            let (result, reason) = (outcome.result(), outcome.reason.name());
            let changed = conn
                .prepare_cached(
                    "UPDATE games SET status = 'ended', result = ?2, reason = ?3, ended_ms = ?4 WHERE id = ?1",
                )
                .and_then(|mut s| s.execute(params![game, result, reason, now_ms()]))
                .map_err(sql)?;
            must_change(changed)?;
            set_state(conn, game, Some(*v), *times)?;
        }
        StoreEvent::Times(times) => set_state(conn, game, None, Some(*times))?,
        StoreEvent::Version { v } => set_state(conn, game, Some(*v), None)?,
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

fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

fn token(seat: StoredSeat) -> Option<Vec<u8>> {
    match seat {
        StoredSeat::Human { token: Some(hash) } => Some(hash.0.to_vec()),
        _ => None,
    }
}

fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

const COLUMNS: &str = "id, variant, initial_fen, rules, white, black, white_token, black_token, clock,
                       result, reason, created_ms, ended_ms, v, white_ms, black_ms";

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
    let mut found = Vec::new();
    for row in rows {
        let game = row.map_err(read)?.and_then(|mut game| {
            game.moves = moves
                .query_map(params![game.id], |r| r.get::<_, String>(0))
                .and_then(|ucis| ucis.collect::<rusqlite::Result<Vec<String>>>())
                .map_err(|e| format!("game {:?}: unreadable moves: {e}", game.id))?;
            Ok(game)
        });
        found.push(game);
    }
    Ok(found)
}

/// The games that could be read; the others are logged and left out.
fn readable(games: Vec<Result<StoredGame, String>>) -> Result<Vec<StoredGame>, StoreError> {
    Ok(games
        .into_iter()
        .filter_map(|game| game.map_err(|e| tracing::error!(error = %e, "unreadable game in the store left out")).ok())
        .collect())
}

// ---- the columns' own formats ------------------------------------------------------------
// Written by schema 1 and kept ever since; they are the store's, not the wire's, and happen to
// read as the protocol's JSON did then. Change them only with a migration.

/// The `variant` column.
fn variant_name(variant: Variant) -> &'static str {
    match variant {
        Variant::Standard => "standard",
        Variant::Minichess7 => "minichess7",
    }
}

fn variant_of(name: &str) -> Option<Variant> {
    [Variant::Standard, Variant::Minichess7].into_iter().find(|v| variant_name(*v) == name)
}

/// The `rules` column: `{"castling":true,"en_passant":true,"repetition":"threefold"}`.
#[derive(serde::Serialize, serde::Deserialize)]
struct RulesRecord {
    castling: bool,
    en_passant: bool,
    repetition: String,
}

impl From<Rules> for RulesRecord {
    fn from(rules: Rules) -> RulesRecord {
        let repetition = match rules.repetition {
            Repetition::Threefold => "threefold",
            Repetition::EightMove => "eight_move",
        };
        RulesRecord { castling: rules.castling, en_passant: rules.en_passant, repetition: repetition.into() }
    }
}

impl TryFrom<RulesRecord> for Rules {
    type Error = String;
    fn try_from(record: RulesRecord) -> Result<Rules, String> {
        let repetition = match record.repetition.as_str() {
            "threefold" => Repetition::Threefold,
            "eight_move" => Repetition::EightMove,
            other => return Err(format!("unknown repetition rule {other:?}")),
        };
        Ok(Rules { castling: record.castling, en_passant: record.en_passant, repetition })
    }
}

/// The `white` and `black` columns: `{"kind":"human"}` or `{"kind":"bot","level":3}`.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum SeatRecord {
    Human,
    Bot { level: u8 },
}

impl From<StoredSeat> for SeatRecord {
    fn from(seat: StoredSeat) -> SeatRecord {
        match seat {
            StoredSeat::Human { .. } => SeatRecord::Human,
            StoredSeat::Bot { level } => SeatRecord::Bot { level },
        }
    }
}

/// The `clock` column: `{"initial_ms":300000,"increment_ms":2000}`.
#[derive(serde::Serialize, serde::Deserialize)]
struct ClockRecord {
    initial_ms: u64,
    increment_ms: u64,
}

/// One `games` row, without its moves.
fn game_row(row: &Row<'_>) -> Result<StoredGame, String> {
    let id: String = row.get(0).map_err(|e| e.to_string())?;
    let bad = |what: &str, e: &dyn std::fmt::Display| format!("game {id:?}: bad {what}: {e}");
    let get_text = |i: usize, what: &str| row.get::<_, String>(i).map_err(|e| bad(what, &e));
    let variant = get_text(1, "variant")?;
    let variant = variant_of(&variant).ok_or_else(|| bad("variant", &variant))?;
    let rules: RulesRecord = serde_json::from_str(&get_text(3, "rules")?).map_err(|e| bad("rules", &e))?;
    let rules = Rules::try_from(rules).map_err(|e| bad("rules", &e))?;
    let seat = |spec_at: usize, token_at: usize, what: &str| -> Result<StoredSeat, String> {
        let spec: SeatRecord = serde_json::from_str(&get_text(spec_at, what)?).map_err(|e| bad(what, &e))?;
        let token: Option<Vec<u8>> = row.get(token_at).map_err(|e| bad(what, &e))?;
        Ok(match spec {
            SeatRecord::Bot { level } => StoredSeat::Bot { level },
            SeatRecord::Human => StoredSeat::Human { token: token.as_deref().and_then(TokenHash::from_slice) },
        })
    };
    let clock: Option<String> = row.get(8).map_err(|e| bad("clock", &e))?;
    let clock: Option<ClockRecord> =
        clock.map(|c| serde_json::from_str(&c)).transpose().map_err(|e| bad("clock", &e))?;
    let clock = clock.map(|c| StoredClock { initial_ms: c.initial_ms, increment_ms: c.increment_ms });
    let opt_i64 = |i: usize, what: &str| row.get::<_, Option<i64>>(i).map_err(|e| bad(what, &e));
    let times = match (opt_i64(14, "white_ms")?, opt_i64(15, "black_ms")?) {
        (Some(w), Some(b)) => Some(StoredTimes { white_ms: w.max(0) as u64, black_ms: b.max(0) as u64 }),
        _ => None,
    };
    let result: Option<String> = row.get(9).map_err(|e| bad("result", &e))?;
    let reason: Option<String> = row.get(10).map_err(|e| bad("reason", &e))?;
    let outcome = match (result, reason) {
        (Some(result), Some(reason)) => Some(
            Outcome::from_result(&result, &reason).ok_or_else(|| bad("result", &format!("{result} by {reason}")))?,
        ),
        _ => None,
    };
    Ok(StoredGame {
        variant,
        initial_fen: get_text(2, "initial_fen")?,
        rules,
        white: seat(4, 6, "white seat")?,
        black: seat(5, 7, "black seat")?,
        clock,
        times,
        moves: Vec::new(),
        v: row.get::<_, i64>(13).map_err(|e| bad("v", &e))?.max(0) as u64,
        outcome,
        created_ms: row.get(11).map_err(|e| bad("created_ms", &e))?,
        ended_ms: opt_i64(12, "ended_ms")?,
        id,
    })
}

#[cfg(test)]
mod tests;
