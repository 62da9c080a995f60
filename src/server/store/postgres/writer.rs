//! The PostgreSQL store's writer: one task takes the changes in the order they were recorded
//! and commits whatever has queued up in one transaction, each change in a savepoint of its own
//! (and, on a cluster node, checked against the game's lease in that same transaction).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use deadpool_postgres::Pool;
use tokio::sync::mpsc;
use tokio_postgres::error::SqlState;

use super::lease::Fence;
use super::{unavailable, Job, Then};
use crate::chess::Color;
use crate::server::store::queue::{self, Write};
use crate::server::store::records::{chat_room, must_change, to_i64, GameRow};
use crate::server::store::{now_ms, StoreError, StoreEvent, StoredTimes, CHAT_KEPT};

/// The writer: waits for work, commits every change that has queued up in one transaction,
/// then answers the barriers that came with them.
pub(super) async fn run(
    pool: Pool,
    held: Arc<AtomicBool>,
    fence: Option<Arc<Fence>>,
    mut jobs: mpsc::UnboundedReceiver<Job>,
) {
    let mut writes = Vec::new();
    let mut then = Vec::new();
    while let Some(first) = jobs.recv().await {
        queue::gather(first, || jobs.try_recv().ok(), &mut writes, &mut then);
        if !writes.is_empty() {
            let results = if held.load(Ordering::Acquire) {
                apply_all(&pool, fence.as_deref(), &writes).await
            } else {
                Err(unavailable(
                    &"this server does not hold the database's lock now (lost while the database was away)",
                ))
            };
            queue::answer(&mut writes, results);
        }
        for job in then.drain(..) {
            match job {
                Then::Barrier(reached) => {
                    let _ = reached.send(());
                }
                Then::Close(done) => {
                    // Later jobs find the queue closed: their senders see `Closed`.
                    jobs.close();
                    let _ = done.send(());
                    return;
                }
            }
        }
    }
}

async fn apply_all(
    pool: &Pool,
    fence: Option<&Fence>,
    writes: &[Write],
) -> Result<Vec<Result<(), StoreError>>, String> {
    let mut client = pool.get().await.map_err(|e| unavailable(&e))?;
    let sql = |e: tokio_postgres::Error| e.to_string();
    let mut tx = client.transaction().await.map_err(sql)?;
    let mut results = Vec::with_capacity(writes.len());
    for write in writes {
        let savepoint = tx.savepoint("change").await.map_err(sql)?;
        match apply(&savepoint, fence, &write.game, &write.event).await {
            Ok(()) => {
                savepoint.commit().await.map_err(sql)?;
                results.push(Ok(()));
            }
            Err(message) => {
                savepoint.rollback().await.map_err(sql)?;
                results.push(Err(StoreError::Write(message)));
            }
        }
    }
    tx.commit().await.map_err(sql)?;
    Ok(results)
}

/// Makes one change; an error says why it could not be made.
async fn apply(
    tx: &deadpool_postgres::Transaction<'_>,
    fence: Option<&Fence>,
    game: &str,
    event: &StoreEvent,
) -> Result<(), String> {
    let sql = |e: tokio_postgres::Error| e.to_string();
    let must_change = |changed| must_change(game, changed);
    // A cluster node writes only to games it still owns, checked in this same transaction.
    if let Some(fence) = fence {
        if !matches!(event, StoreEvent::Created(_)) {
            fence.check(tx, game).await?;
        }
    }
    match event {
        StoreEvent::Created(g) => {
            let row = GameRow::of(g);
            let insert = tx
                .prepare_cached(
                    "INSERT INTO games (id, variant, initial_fen, rules, white, black, white_token, black_token,
                                        clock, status, result, reason, created_ms, ended_ms, v, white_ms, black_ms,
                                        white_name, black_name, match_white, match_black, match_games,
                                        white_account, black_account, rated, ratings)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19,
                             $20, $21, $22, $23, $24, $25, $26)",
                )
                .await
                .map_err(sql)?;
            tx.execute(
                &insert,
                &[
                    &row.id,
                    &row.variant,
                    &row.initial_fen,
                    &row.rules,
                    &row.white,
                    &row.black,
                    &row.white_token,
                    &row.black_token,
                    &row.clock,
                    &row.status(),
                    &row.result,
                    &row.reason,
                    &row.created_ms,
                    &row.ended_ms,
                    &row.v,
                    &row.white_ms,
                    &row.black_ms,
                    &row.white_name,
                    &row.black_name,
                    &row.match_white,
                    &row.match_black,
                    &row.match_games,
                    &row.white_account,
                    &row.black_account,
                    &row.rated,
                    &row.ratings,
                ],
            )
            .await
            .map_err(|e| match e.code() {
                Some(&SqlState::UNIQUE_VIOLATION) => format!("a game {:?} is already stored", g.id),
                _ => e.to_string(),
            })?;
            if let Some(fence) = fence {
                fence.own_new(tx, game).await?;
            }
        }
        StoreEvent::Seat { side, token, name, account } => {
            let update = match side {
                Color::White => {
                    "UPDATE games SET white_token = $2, white_name = $3, white_account = $4
                     WHERE id = $1 AND status <> 'ended'"
                }
                Color::Black => {
                    "UPDATE games SET black_token = $2, black_name = $3, black_account = $4
                     WHERE id = $1 AND status <> 'ended'"
                }
            };
            let update = tx.prepare_cached(update).await.map_err(sql)?;
            must_change(tx.execute(&update, &[&game, &&token.0[..], name, account]).await.map_err(sql)?)?;
        }
        StoreEvent::Move { ply, uci, times, v } => {
            let insert = tx
                .prepare_cached("INSERT INTO moves (game, ply, uci, played_ms) VALUES ($1, $2, $3, $4)")
                .await
                .map_err(sql)?;
            tx.execute(&insert, &[&game, &ply_column(*ply), uci, &now_ms()]).await.map_err(sql)?;
            set_state(tx, game, Some(*v), *times).await?;
        }
        StoreEvent::Undo { ply, times, v } => {
            let delete = tx.prepare_cached("DELETE FROM moves WHERE game = $1 AND ply > $2").await.map_err(sql)?;
            tx.execute(&delete, &[&game, &ply_column(*ply)]).await.map_err(sql)?;
            set_state(tx, game, Some(*v), *times).await?;
        }
        StoreEvent::Ended { outcome, times, v, rated } => {
            let (result, reason) = (outcome.result(), outcome.reason.name());
            let update = tx
                .prepare_cached(
                    "UPDATE games SET status = 'ended', result = $2, reason = $3, ended_ms = $4 WHERE id = $1",
                )
                .await
                .map_err(sql)?;
            must_change(tx.execute(&update, &[&game, &result, &reason, &now_ms()]).await.map_err(sql)?)?;
            set_state(tx, game, Some(*v), *times).await?;
            // In the same savepoint: the end and the ratings are kept together or not at all.
            if let Some(rated) = rated {
                super::accounts::rate_in(&**tx, game, *rated).await.map_err(|e| e.to_string())?;
            }
        }
        StoreEvent::Times(times) => set_state(tx, game, None, Some(*times)).await?,
        StoreEvent::Version { v } => set_state(tx, game, Some(*v), None).await?,
        StoreEvent::Chat(line) => {
            let room = chat_room(line);
            let insert = tx
                .prepare_cached("INSERT INTO chat (game, room, sender, text, at_ms) VALUES ($1, $2, $3, $4, $5)")
                .await
                .map_err(sql)?;
            tx.execute(&insert, &[&game, &room, &line.from, &line.text, &line.at_ms]).await.map_err(sql)?;
            // Only the last lines of each room are kept.
            let prune = tx
                .prepare_cached(
                    "DELETE FROM chat WHERE game = $1 AND room = $2 AND seq NOT IN
                        (SELECT seq FROM chat WHERE game = $1 AND room = $2 ORDER BY seq DESC LIMIT $3)",
                )
                .await
                .map_err(sql)?;
            tx.execute(&prune, &[&game, &room, &(CHAT_KEPT as i64)]).await.map_err(sql)?;
        }
        StoreEvent::Discarded => {
            let delete = tx.prepare_cached("DELETE FROM games WHERE id = $1").await.map_err(sql)?;
            tx.execute(&delete, &[&game]).await.map_err(sql)?;
        }
    }
    Ok(())
}

/// The `ply` column is an INTEGER (a game has far fewer moves than that holds).
fn ply_column(ply: usize) -> i32 {
    i32::try_from(ply).unwrap_or(i32::MAX)
}

/// Raises the stored event version to `v` (it never goes down) and sets the clock's times, each
/// if given, in one statement.
async fn set_state(
    tx: &deadpool_postgres::Transaction<'_>,
    game: &str,
    v: Option<u64>,
    times: Option<StoredTimes>,
) -> Result<(), String> {
    let (white, black) = (times.map(|t| to_i64(t.white_ms)), times.map(|t| to_i64(t.black_ms)));
    let update = tx
        .prepare_cached(
            "UPDATE games SET v = greatest(v, coalesce($2, v)), white_ms = coalesce($3, white_ms),
                              black_ms = coalesce($4, black_ms) WHERE id = $1",
        )
        .await
        .map_err(|e| e.to_string())?;
    tx.execute(&update, &[&game, &v.map(to_i64), &white, &black]).await.map(|_| ()).map_err(|e| e.to_string())
}
