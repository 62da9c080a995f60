//! Computer analyses of finished games in the SQLite store (the records and their SQL are
//! `store/analyses.rs`): each runs on the store's thread.

use rusqlite::{params, Connection, OptionalExtension};

use super::{read_failed, write_failed};
use crate::server::store::analyses::{encoded, record, sql};
use crate::server::store::{now_ms, AnalysisRecord, AnalysisWrite, StoreError};

pub fn get(conn: &Connection, game: &str, stale_before_ms: i64) -> Result<Option<AnalysisRecord>, StoreError> {
    let row = conn
        .query_row(sql::GET, params![game], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .optional()
        .map_err(read_failed)?;
    row.map_or(Ok(None), |row| record(game, row, stale_before_ms))
}

pub fn claim(conn: &Connection, game: &str, runner: &str, stale_before_ms: i64) -> Result<bool, StoreError> {
    let changed = conn.execute(sql::CLAIM, params![game, runner, now_ms(), stale_before_ms]).map_err(write_failed)?;
    Ok(changed == 1)
}

pub fn write(conn: &Connection, game: &str, runner: &str, write: &AnalysisWrite) -> Result<(), StoreError> {
    let done = match write {
        AnalysisWrite::Progress(p) => conn.execute(sql::PROGRESS, params![p, now_ms(), game, runner]),
        AnalysisWrite::Done(analysis) => conn.execute(sql::DONE, params![encoded(analysis)?, now_ms(), game, runner]),
        AnalysisWrite::Abandon => conn.execute(sql::ABANDON, params![game, runner]),
    };
    done.map(|_| ()).map_err(write_failed)
}
