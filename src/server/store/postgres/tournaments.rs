//! Tournaments in the PostgreSQL store (`TournamentStore`): the same table as SQLite's, plus,
//! for a cluster, each tournament's owner and the epoch of its lease. A node owns the
//! tournaments whose `owner` it is while its heartbeat runs (`lease.rs`, as for games); taking
//! one over raises its epoch, and a write under an older epoch changes nothing, so a node that
//! lost a tournament finds out at its next write and stops running it.

use futures::future::BoxFuture;
use futures::FutureExt;
use tokio_postgres::Row;

use super::lease::{alive, lease_ms};
use super::{read_failed, unavailable, write_failed, PostgresStore};
use crate::server::store::{StoreError, StoredTournament, TournamentStore};

/// The columns `tournament_row` reads, in order.
const COLUMNS: &str = "id, kind, status, body, created_ms, epoch";

fn tournament_row(row: &Row) -> Result<StoredTournament, StoreError> {
    Ok(StoredTournament {
        id: row.try_get(0).map_err(read_failed)?,
        kind: row.try_get(1).map_err(read_failed)?,
        status: row.try_get(2).map_err(read_failed)?,
        body: row.try_get(3).map_err(read_failed)?,
        created_ms: row.try_get(4).map_err(read_failed)?,
        epoch: row.try_get(5).map_err(read_failed)?,
    })
}

impl TournamentStore for PostgresStore {
    fn save_tournament(&self, t: StoredTournament) -> BoxFuture<'static, Result<bool, StoreError>> {
        let owner = self.fence.as_ref().map(|f| f.node.clone());
        self.read(move |client| {
            async move {
                // A cluster's node writes only under its own lease; a single server owns all.
                let n = client
                    .execute(
                        "INSERT INTO tournaments (id, kind, status, body, created_ms, owner, epoch)
                         VALUES ($1, $2, $3, $4, $5, $6, $7)
                         ON CONFLICT (id) DO UPDATE SET status = excluded.status, body = excluded.body
                         WHERE $6::text IS NULL
                            OR (tournaments.owner = excluded.owner AND tournaments.epoch = excluded.epoch)",
                        &[&t.id, &t.kind, &t.status, &t.body, &t.created_ms, &owner, &t.epoch],
                    )
                    .await
                    .map_err(write_failed)?;
                Ok(n == 1)
            }
            .boxed()
        })
    }

    fn tournament(&self, id: &str) -> BoxFuture<'static, Result<Option<StoredTournament>, StoreError>> {
        let id = id.to_string();
        self.read(move |client| {
            async move {
                let row = client
                    .query_opt(&format!("SELECT {COLUMNS} FROM tournaments WHERE id = $1"), &[&id])
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
                        &format!(
                            "SELECT {COLUMNS} FROM tournaments WHERE status <> 'finished'
                             UNION ALL
                             (SELECT {COLUMNS} FROM tournaments
                              WHERE status = 'finished' ORDER BY created_ms DESC LIMIT $1)
                             ORDER BY created_ms DESC"
                        ),
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

impl PostgresStore {
    /// A cluster node takes every unfinished tournament whose owner is gone (its heartbeat ran
    /// out, or it let go), raising each one's epoch, and reads them back.
    pub async fn claim_tournaments(&self) -> Result<Vec<StoredTournament>, StoreError> {
        let Some(fence) = &self.fence else { return Ok(Vec::new()) };
        let client = self.pool.get().await.map_err(|e| StoreError::Write(unavailable(&e)))?;
        let rows = client
            .query(
                &format!(
                    "UPDATE tournaments SET owner = $1, epoch = epoch + 1
                     WHERE id IN (SELECT t.id FROM tournaments t LEFT JOIN nodes n ON n.name = t.owner
                                  WHERE t.status <> 'finished' AND t.owner IS DISTINCT FROM $1
                                    AND (t.owner IS NULL OR n.name IS NULL OR NOT {})
                                  FOR UPDATE OF t SKIP LOCKED)
                     RETURNING {COLUMNS}",
                    alive("n", "$2")
                ),
                &[&fence.node, &lease_ms()],
            )
            .await
            .map_err(write_failed)?;
        rows.iter().map(tournament_row).collect()
    }

    /// The node running tournament `id`, if its heartbeat runs.
    pub async fn tournament_owner(&self, id: &str) -> Result<Option<String>, StoreError> {
        let client = self.pool.get().await.map_err(|e| StoreError::Read(unavailable(&e)))?;
        let row = client
            .query_opt(
                &format!(
                    "SELECT t.owner FROM tournaments t JOIN nodes n ON n.name = t.owner WHERE t.id = $1 AND {}",
                    alive("n", "$2")
                ),
                &[&id, &lease_ms()],
            )
            .await
            .map_err(read_failed)?;
        Ok(row.and_then(|r| r.get(0)))
    }
}
