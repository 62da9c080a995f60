//! Tournaments in the PostgreSQL store (`TournamentStore`): the same table as SQLite's.

use futures::future::BoxFuture;
use futures::FutureExt;
use tokio_postgres::Row;

use super::{read_failed, write_failed, PostgresStore};
use crate::server::store::{StoreError, StoredTournament, TournamentStore};

fn tournament_row(row: &Row) -> Result<StoredTournament, StoreError> {
    Ok(StoredTournament {
        id: row.try_get(0).map_err(read_failed)?,
        kind: row.try_get(1).map_err(read_failed)?,
        status: row.try_get(2).map_err(read_failed)?,
        body: row.try_get(3).map_err(read_failed)?,
        created_ms: row.try_get(4).map_err(read_failed)?,
    })
}

impl TournamentStore for PostgresStore {
    fn save_tournament(&self, t: StoredTournament) -> BoxFuture<'static, Result<(), StoreError>> {
        self.read(move |client| {
            async move {
                client
                    .execute(
                        "INSERT INTO tournaments (id, kind, status, body, created_ms) VALUES ($1, $2, $3, $4, $5)
                         ON CONFLICT (id) DO UPDATE SET status = excluded.status, body = excluded.body",
                        &[&t.id, &t.kind, &t.status, &t.body, &t.created_ms],
                    )
                    .await
                    .map_err(write_failed)?;
                Ok(())
            }
            .boxed()
        })
    }

    fn tournament(&self, id: &str) -> BoxFuture<'static, Result<Option<StoredTournament>, StoreError>> {
        let id = id.to_string();
        self.read(move |client| {
            async move {
                let row = client
                    .query_opt("SELECT id, kind, status, body, created_ms FROM tournaments WHERE id = $1", &[&id])
                    .await
                    .map_err(read_failed)?;
                row.as_ref().map(tournament_row).transpose()
            }
            .boxed()
        })
    }

    fn tournaments(&self, finished: u64) -> BoxFuture<'static, Result<Vec<StoredTournament>, StoreError>> {
        self.read(move |client| {
            async move {
                let finished = i64::try_from(finished).unwrap_or(i64::MAX);
                let rows = client
                    .query(
                        "SELECT id, kind, status, body, created_ms FROM tournaments WHERE status <> 'finished'
                         UNION ALL
                         (SELECT id, kind, status, body, created_ms FROM tournaments
                          WHERE status = 'finished' ORDER BY created_ms DESC LIMIT $1)
                         ORDER BY created_ms DESC",
                        &[&finished],
                    )
                    .await
                    .map_err(read_failed)?;
                rows.iter().map(tournament_row).collect()
            }
            .boxed()
        })
    }
}
