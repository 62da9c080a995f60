//! Computer analyses of finished games, kept with them: who runs one now (so that one runs per
//! game at a time, across every node of a cluster) and, once done, the engine's view of every
//! position. The row of a running analysis is its claim: the runner touches it as it goes, and
//! a claim nobody touched lately (its server stopped or died) may be taken by the next request.
//! Here: the records and the SQL both stores share; `sqlite/analyses.rs` and
//! `postgres/analyses.rs` run it.

use serde::{Deserialize, Serialize};

use super::StoreError;

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

pub(super) fn encoded(analysis: &StoredAnalysis) -> Result<String, StoreError> {
    serde_json::to_string(analysis).map_err(|e| StoreError::Write(e.to_string()))
}

/// The record from a row's `status`, `progress`, `result`, `updated_ms`; a running claim last
/// touched before `stale_before_ms` counts as none.
pub(super) fn record(
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
pub(super) mod sql {
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
