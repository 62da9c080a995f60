//! Computer analyses of finished games in the SQLite store (the records and their SQL are
//! `store/analyses.rs`): each runs on the store's thread.

use futures::future::BoxFuture;
use rusqlite::{params, Connection, OptionalExtension};

use super::{read_failed, write_failed, SqliteStore};
use crate::server::store::analyses::{encoded, record, sql};
use crate::server::store::{now_ms, AnalysisRecord, AnalysisStore, AnalysisWrite, StoreError};

fn get(conn: &Connection, game: &str, stale_before_ms: i64) -> Result<Option<AnalysisRecord>, StoreError> {
    let row = conn
        .query_row(sql::GET, params![game], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .optional()
        .map_err(read_failed)?;
    row.map_or(Ok(None), |row| record(game, row, stale_before_ms))
}

fn claim(conn: &Connection, game: &str, runner: &str, stale_before_ms: i64) -> Result<bool, StoreError> {
    let changed = conn.execute(sql::CLAIM, params![game, runner, now_ms(), stale_before_ms]).map_err(write_failed)?;
    Ok(changed == 1)
}

fn update(conn: &Connection, game: &str, runner: &str, write: &AnalysisWrite) -> Result<(), StoreError> {
    let done = match write {
        AnalysisWrite::Progress(p) => conn.execute(sql::PROGRESS, params![p, now_ms(), game, runner]),
        AnalysisWrite::Done(analysis) => conn.execute(sql::DONE, params![encoded(analysis)?, now_ms(), game, runner]),
        AnalysisWrite::Abandon => conn.execute(sql::ABANDON, params![game, runner]),
    };
    done.map(|_| ()).map_err(write_failed)
}

impl AnalysisStore for SqliteStore {
    fn analysis(
        &self,
        game: &str,
        stale_before_ms: i64,
    ) -> BoxFuture<'static, Result<Option<AnalysisRecord>, StoreError>> {
        let game = game.to_string();
        self.read(move |conn| get(conn, &game, stale_before_ms))
    }

    fn claim_analysis(
        &self,
        game: &str,
        runner: &str,
        stale_before_ms: i64,
    ) -> BoxFuture<'static, Result<bool, StoreError>> {
        let (game, runner) = (game.to_string(), runner.to_string());
        self.read(move |conn| claim(conn, &game, &runner, stale_before_ms))
    }

    fn write_analysis(
        &self,
        game: &str,
        runner: &str,
        write: AnalysisWrite,
    ) -> BoxFuture<'static, Result<(), StoreError>> {
        let (game, runner) = (game.to_string(), runner.to_string());
        self.read(move |conn| update(conn, &game, &runner, &write))
    }
}
