//! Challenges waiting for an answer in the SQLite store (`ChallengeStore`).

use futures::future::BoxFuture;
use rusqlite::{params, OptionalExtension, Row};

use super::{read_failed, write_failed, SqliteStore};
use crate::server::store::{AccountKey, ChallengeStore, StoreError, StoredChallenge};

const CHALLENGE: &str = "SELECT id, challenger, dest, body, created_ms FROM challenges";

fn challenge_row(row: &Row<'_>) -> rusqlite::Result<StoredChallenge> {
    Ok(StoredChallenge {
        id: row.get(0)?,
        challenger: row.get(1)?,
        dest: row.get(2)?,
        body: row.get(3)?,
        created_ms: row.get(4)?,
    })
}

impl ChallengeStore for SqliteStore {
    fn add_challenge(
        &self,
        challenge: StoredChallenge,
        max_open: u64,
        oldest_ms: i64,
    ) -> BoxFuture<'static, Result<bool, StoreError>> {
        self.read(move |conn| {
            let tx = conn.unchecked_transaction().map_err(write_failed)?;
            tx.execute("DELETE FROM challenges WHERE created_ms < ?1", params![oldest_ms]).map_err(write_failed)?;
            let open: i64 = tx
                .query_row(
                    "SELECT count(*) FROM challenges WHERE challenger = ?1",
                    params![challenge.challenger],
                    |r| r.get(0),
                )
                .map_err(read_failed)?;
            if u64::try_from(open).unwrap_or(0) >= max_open {
                return Ok(false);
            }
            tx.execute(
                "INSERT INTO challenges (id, challenger, dest, body, created_ms) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![challenge.id, challenge.challenger, challenge.dest, challenge.body, challenge.created_ms],
            )
            .map_err(write_failed)?;
            tx.commit().map_err(write_failed)?;
            Ok(true)
        })
    }

    fn challenges_of(
        &self,
        account: AccountKey,
        oldest_ms: i64,
    ) -> BoxFuture<'static, Result<Vec<StoredChallenge>, StoreError>> {
        self.read(move |conn| {
            conn.prepare_cached(&format!(
                "{CHALLENGE} WHERE (challenger = ?1 OR dest = ?1) AND created_ms >= ?2 ORDER BY created_ms, id"
            ))
            .and_then(|mut s| s.query_map(params![account, oldest_ms], challenge_row)?.collect())
            .map_err(read_failed)
        })
    }

    fn challenge(&self, id: &str, oldest_ms: i64) -> BoxFuture<'static, Result<Option<StoredChallenge>, StoreError>> {
        let id = id.to_string();
        self.read(move |conn| {
            conn.prepare_cached(&format!("{CHALLENGE} WHERE id = ?1 AND created_ms >= ?2"))
                .and_then(|mut s| s.query_row(params![id, oldest_ms], challenge_row).optional())
                .map_err(read_failed)
        })
    }

    fn take_challenge(&self, id: &str) -> BoxFuture<'static, Result<Option<StoredChallenge>, StoreError>> {
        let id = id.to_string();
        self.read(move |conn| {
            conn.prepare_cached("DELETE FROM challenges WHERE id = ?1 RETURNING id, challenger, dest, body, created_ms")
                .and_then(|mut s| s.query_row(params![id], challenge_row).optional())
                .map_err(write_failed)
        })
    }
}
