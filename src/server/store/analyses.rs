//! Computer analyses of finished games, kept with them: who runs one now (so that one runs per
//! game at a time, across every node of a cluster) and, once done, the engine's view of every
//! position. The row of a running analysis is its claim: the runner touches it as it goes, and
//! a claim nobody touched lately (its server stopped or died) may be taken by the next request.

use serde::{Deserialize, Serialize};

use super::{now_ms, StoreError};

/// The engine's view of one position, as the store keeps it (the rules core's moves in UCI).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredEval {
    /// Centipawns from White's side (None when `mate` is given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cp: Option<i32>,
    /// Mate in this many moves, negative when Black mates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mate: Option<i32>,
    /// The engine's move in this position (None when the game is over in it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best: Option<String>,
}

/// A finished analysis: every position of the game, the initial one first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredAnalysis {
    /// The search budget each position had.
    pub movetime_ms: u64,
    pub positions: Vec<StoredEval>,
}

/// What the store has of a game's analysis.
#[derive(Clone, Debug, PartialEq)]
pub enum AnalysisRecord {
    /// Under way; `progress` in 0..=1.
    Running {
        progress: f64,
    },
    Done(StoredAnalysis),
}

/// A change the runner of an analysis makes to its claim.
#[derive(Clone, Debug, PartialEq)]
pub enum AnalysisWrite {
    /// So far done (0..=1); also shows the claim is alive.
    Progress(f64),
    Done(StoredAnalysis),
    /// The analysis failed: let the next request start afresh.
    Abandon,
}

/// A result that cannot be read back is the store's fault to report, not a reason to run again.
fn parsed(game: &str, json: &str) -> Result<StoredAnalysis, StoreError> {
    serde_json::from_str(json)
        .map_err(|e| StoreError::Damaged { game: game.to_string(), message: format!("its analysis: {e}") })
}

fn encoded(analysis: &StoredAnalysis) -> Result<String, StoreError> {
    serde_json::to_string(analysis).map_err(|e| StoreError::Write(e.to_string()))
}

/// The record from a row's `status`, `progress`, `result`, `updated_ms`; a running claim last
/// touched before `stale_before_ms` counts as none.
fn record(
    game: &str,
    (status, progress, result, updated_ms): (String, f64, Option<String>, i64),
    stale_before_ms: i64,
) -> Result<Option<AnalysisRecord>, StoreError> {
    match (status.as_str(), result) {
        ("done", Some(json)) => Ok(Some(AnalysisRecord::Done(parsed(game, &json)?))),
        ("running", _) if updated_ms >= stale_before_ms => Ok(Some(AnalysisRecord::Running { progress })),
        _ => Ok(None),
    }
}

/// The SQL of each operation, in SQLite's and PostgreSQL's shared dialect with `$n` markers.
/// SQLite numbers `$n` markers in the order they first appear, so each statement names them
/// in order.
mod sql {
    pub const GET: &str = "SELECT status, progress, result, updated_ms FROM analyses WHERE game = $1";
    /// Takes the claim unless an analysis is done or a live one runs.
    pub const CLAIM: &str = "INSERT INTO analyses (game, status, runner, progress, result, updated_ms)
         VALUES ($1, 'running', $2, 0, NULL, $3)
         ON CONFLICT (game) DO UPDATE SET status = 'running', runner = excluded.runner, progress = 0,
             result = NULL, updated_ms = excluded.updated_ms
         WHERE analyses.status = 'running' AND analyses.updated_ms < $4";
    pub const PROGRESS: &str = "UPDATE analyses SET progress = $1, updated_ms = $2
         WHERE game = $3 AND runner = $4 AND status = 'running'";
    pub const DONE: &str = "UPDATE analyses SET status = 'done', progress = 1, result = $1, updated_ms = $2
         WHERE game = $3 AND runner = $4 AND status = 'running'";
    pub const ABANDON: &str = "DELETE FROM analyses WHERE game = $1 AND runner = $2 AND status = 'running'";
}

/// The SQLite side: each runs on the store's thread.
pub(super) mod sqlite {
    use rusqlite::{params, Connection, OptionalExtension};

    use super::{encoded, now_ms, record, sql, AnalysisRecord, AnalysisWrite, StoreError};

    fn read_failed(e: rusqlite::Error) -> StoreError {
        StoreError::Read(e.to_string())
    }

    fn write_failed(e: rusqlite::Error) -> StoreError {
        StoreError::Write(e.to_string())
    }

    pub fn get(conn: &Connection, game: &str, stale_before_ms: i64) -> Result<Option<AnalysisRecord>, StoreError> {
        let row = conn
            .query_row(sql::GET, params![game], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .optional()
            .map_err(read_failed)?;
        row.map_or(Ok(None), |row| record(game, row, stale_before_ms))
    }

    pub fn claim(conn: &Connection, game: &str, runner: &str, stale_before_ms: i64) -> Result<bool, StoreError> {
        let changed =
            conn.execute(sql::CLAIM, params![game, runner, now_ms(), stale_before_ms]).map_err(write_failed)?;
        Ok(changed == 1)
    }

    pub fn write(conn: &Connection, game: &str, runner: &str, write: &AnalysisWrite) -> Result<(), StoreError> {
        let done = match write {
            AnalysisWrite::Progress(p) => conn.execute(sql::PROGRESS, params![p, now_ms(), game, runner]),
            AnalysisWrite::Done(analysis) => {
                conn.execute(sql::DONE, params![encoded(analysis)?, now_ms(), game, runner])
            }
            AnalysisWrite::Abandon => conn.execute(sql::ABANDON, params![game, runner]),
        };
        done.map(|_| ()).map_err(write_failed)
    }
}

/// The PostgreSQL side.
pub(super) mod postgres {
    use tokio_postgres::Client;

    use super::{encoded, now_ms, record, sql, AnalysisRecord, AnalysisWrite, StoreError};

    fn read_failed(e: tokio_postgres::Error) -> StoreError {
        StoreError::Read(e.to_string())
    }

    fn write_failed(e: tokio_postgres::Error) -> StoreError {
        StoreError::Write(e.to_string())
    }

    pub async fn get(client: &Client, game: &str, stale_before_ms: i64) -> Result<Option<AnalysisRecord>, StoreError> {
        let row = client.query_opt(sql::GET, &[&game]).await.map_err(read_failed)?;
        row.map_or(Ok(None), |r| record(game, (r.get(0), r.get(1), r.get(2), r.get(3)), stale_before_ms))
    }

    pub async fn claim(client: &Client, game: &str, runner: &str, stale_before_ms: i64) -> Result<bool, StoreError> {
        let changed =
            client.execute(sql::CLAIM, &[&game, &runner, &now_ms(), &stale_before_ms]).await.map_err(write_failed)?;
        Ok(changed == 1)
    }

    pub async fn write(client: &Client, game: &str, runner: &str, write: &AnalysisWrite) -> Result<(), StoreError> {
        let done = match write {
            AnalysisWrite::Progress(p) => client.execute(sql::PROGRESS, &[p, &now_ms(), &game, &runner]).await,
            AnalysisWrite::Done(analysis) => {
                client.execute(sql::DONE, &[&encoded(analysis)?, &now_ms(), &game, &runner]).await
            }
            AnalysisWrite::Abandon => client.execute(sql::ABANDON, &[&game, &runner]).await,
        };
        done.map(|_| ()).map_err(write_failed)
    }
}
