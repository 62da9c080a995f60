//! Tournaments in the SQLite store (`TournamentStore`).

use futures::future::BoxFuture;
use rusqlite::{params, OptionalExtension, Row};

use super::{read_failed, write_failed, SqliteStore};
use crate::server::store::{StoreError, StoredTournament, TournamentStore};

fn tournament_row(row: &Row<'_>) -> rusqlite::Result<StoredTournament> {
    Ok(StoredTournament {
        id: row.get(0)?,
        kind: row.get(1)?,
        status: row.get(2)?,
        body: row.get(3)?,
        created_ms: row.get(4)?,
        epoch: 1,
    })
}

impl TournamentStore for SqliteStore {
    // One server owns every tournament in its database: no epoch to check.
    fn save_tournament(&self, t: StoredTournament) -> BoxFuture<'static, Result<bool, StoreError>> {
        self.read(move |conn| {
            conn.prepare_cached(
                "INSERT INTO tournaments (id, kind, status, body, created_ms) VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (id) DO UPDATE SET status = excluded.status, body = excluded.body",
            )
            .and_then(|mut s| s.execute(params![t.id, t.kind, t.status, t.body, t.created_ms]))
            .map_err(write_failed)?;
            Ok(true)
        })
    }

    fn tournament(&self, id: &str) -> BoxFuture<'static, Result<Option<StoredTournament>, StoreError>> {
        let id = id.to_string();
        self.read(move |conn| {
            conn.prepare_cached("SELECT id, kind, status, body, created_ms FROM tournaments WHERE id = ?1")
                .and_then(|mut s| s.query_row(params![id], tournament_row).optional())
                .map_err(read_failed)
        })
    }

    fn tournaments(&self, finished: u64) -> BoxFuture<'static, Result<Vec<StoredTournament>, StoreError>> {
        self.read(move |conn| {
            let finished = i64::try_from(finished).unwrap_or(i64::MAX);
            conn.prepare_cached(
                "SELECT id, kind, status, body, created_ms FROM tournaments WHERE status <> 'finished'
                 UNION ALL
                 SELECT * FROM (SELECT id, kind, status, body, created_ms FROM tournaments
                                WHERE status = 'finished' ORDER BY created_ms DESC LIMIT ?1)
                 ORDER BY created_ms DESC",
            )
            .and_then(|mut s| s.query_map(params![finished], tournament_row)?.collect())
            .map_err(read_failed)
        })
    }
}
