//! Challenges waiting for an answer in the PostgreSQL store (`ChallengeStore`): the same table
//! as SQLite's, shared by every node of a cluster.

use futures::future::BoxFuture;
use futures::FutureExt;
use tokio_postgres::Row;

use super::{read_failed, write_failed, PostgresStore};
use crate::server::store::{AccountKey, ChallengeStore, StoreError, StoredChallenge};

const CHALLENGE: &str = "SELECT id, challenger, dest, body, created_ms FROM challenges";

fn challenge_row(row: &Row) -> Result<StoredChallenge, StoreError> {
    Ok(StoredChallenge {
        id: row.try_get(0).map_err(read_failed)?,
        challenger: row.try_get(1).map_err(read_failed)?,
        dest: row.try_get(2).map_err(read_failed)?,
        body: row.try_get(3).map_err(read_failed)?,
        created_ms: row.try_get(4).map_err(read_failed)?,
    })
}

impl ChallengeStore for PostgresStore {
    fn add_challenge(
        &self,
        challenge: StoredChallenge,
        max_open: u64,
        oldest_ms: i64,
    ) -> BoxFuture<'static, Result<bool, StoreError>> {
        self.read(move |client| {
            async move {
                client
                    .execute("DELETE FROM challenges WHERE created_ms < $1", &[&oldest_ms])
                    .await
                    .map_err(write_failed)?;
                let max = i64::try_from(max_open).unwrap_or(i64::MAX);
                // The count and the insert in one statement; two sent at the very same moment
                // may both pass it, which a limit against floods can afford.
                let added = client
                    .execute(
                        "INSERT INTO challenges (id, challenger, dest, body, created_ms)
                         SELECT $1, $2, $3, $4, $5
                         WHERE (SELECT count(*) FROM challenges WHERE challenger = $2) < $6",
                        &[
                            &challenge.id,
                            &challenge.challenger,
                            &challenge.dest,
                            &challenge.body,
                            &challenge.created_ms,
                            &max,
                        ],
                    )
                    .await
                    .map_err(write_failed)?;
                Ok(added == 1)
            }
            .boxed()
        })
    }

    fn challenges_of(
        &self,
        account: AccountKey,
        oldest_ms: i64,
    ) -> BoxFuture<'static, Result<Vec<StoredChallenge>, StoreError>> {
        self.read(move |client| {
            async move {
                let rows = client
                    .query(
                        &format!(
                            "{CHALLENGE} WHERE (challenger = $1 OR dest = $1) AND created_ms >= $2 ORDER BY created_ms, id"
                        ),
                        &[&account, &oldest_ms],
                    )
                    .await
                    .map_err(read_failed)?;
                rows.iter().map(challenge_row).collect()
            }
            .boxed()
        })
    }

    fn challenge(&self, id: &str, oldest_ms: i64) -> BoxFuture<'static, Result<Option<StoredChallenge>, StoreError>> {
        let id = id.to_string();
        self.read(move |client| {
            async move {
                let row = client
                    .query_opt(&format!("{CHALLENGE} WHERE id = $1 AND created_ms >= $2"), &[&id, &oldest_ms])
                    .await
                    .map_err(read_failed)?;
                row.as_ref().map(challenge_row).transpose()
            }
            .boxed()
        })
    }

    fn take_challenge(&self, id: &str) -> BoxFuture<'static, Result<Option<StoredChallenge>, StoreError>> {
        let id = id.to_string();
        self.read(move |client| {
            async move {
                let row = client
                    .query_opt(
                        "DELETE FROM challenges WHERE id = $1 RETURNING id, challenger, dest, body, created_ms",
                        &[&id],
                    )
                    .await
                    .map_err(write_failed)?;
                row.as_ref().map(challenge_row).transpose()
            }
            .boxed()
        })
    }
}
