//! Players' relations in the SQLite store (`RelationStore`): whom each follows and blocks.

use futures::future::BoxFuture;
use rusqlite::{params, OptionalExtension};

use super::accounts::account_at;
use super::{read_failed, write_failed, SqliteStore};
use crate::server::store::{AccountKey, Relation, RelationStore, StoreError, StoredAccount};

impl RelationStore for SqliteStore {
    fn set_relation(
        &self,
        from: AccountKey,
        to: AccountKey,
        relation: Option<Relation>,
        now_ms: i64,
    ) -> BoxFuture<'static, Result<(), StoreError>> {
        self.read(move |conn| {
            match relation {
                None => conn
                    .prepare_cached("DELETE FROM relations WHERE from_account = ?1 AND to_account = ?2")
                    .and_then(|mut s| s.execute(params![from, to])),
                Some(relation) => conn
                    .prepare_cached(
                        "INSERT INTO relations (from_account, to_account, kind, created_ms) VALUES (?1, ?2, ?3, ?4)
                         ON CONFLICT (from_account, to_account) DO UPDATE SET kind = excluded.kind,
                         created_ms = CASE WHEN relations.kind = excluded.kind THEN relations.created_ms
                                           ELSE excluded.created_ms END",
                    )
                    .and_then(|mut s| s.execute(params![from, to, relation.name(), now_ms])),
            }
            .map_err(write_failed)?;
            Ok(())
        })
    }

    fn relation(&self, from: AccountKey, to: AccountKey) -> BoxFuture<'static, Result<Option<Relation>, StoreError>> {
        self.read(move |conn| {
            let kind: Option<String> = conn
                .prepare_cached("SELECT kind FROM relations WHERE from_account = ?1 AND to_account = ?2")
                .and_then(|mut s| s.query_row(params![from, to], |r| r.get(0)).optional())
                .map_err(read_failed)?;
            kind.as_deref().map(Relation::parse).transpose()
        })
    }

    fn related(
        &self,
        from: AccountKey,
        relation: Relation,
    ) -> BoxFuture<'static, Result<Vec<StoredAccount>, StoreError>> {
        self.read(move |conn| {
            conn.prepare_cached(
                "SELECT a.id, a.username, a.password_hash, a.seat_key, a.created_ms, a.bot
                 FROM relations r JOIN accounts a ON a.id = r.to_account
                 WHERE r.from_account = ?1 AND r.kind = ?2 ORDER BY a.username_key",
            )
            .and_then(|mut s| s.query_map(params![from, relation.name()], |r| account_at(r, 0))?.collect())
            .map_err(read_failed)
        })
    }

    fn relating(&self, to: AccountKey, relation: Relation) -> BoxFuture<'static, Result<Vec<AccountKey>, StoreError>> {
        self.read(move |conn| {
            conn.prepare_cached("SELECT from_account FROM relations WHERE to_account = ?1 AND kind = ?2")
                .and_then(|mut s| s.query_map(params![to, relation.name()], |r| r.get(0))?.collect())
                .map_err(read_failed)
        })
    }
}
