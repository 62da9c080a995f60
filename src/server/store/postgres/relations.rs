//! Players' relations in the PostgreSQL store (`RelationStore`): the same table as SQLite's.

use futures::future::BoxFuture;
use futures::FutureExt;

use super::accounts::account_row;
use super::{read_failed, write_failed, PostgresStore};
use crate::server::store::{AccountKey, Relation, RelationStore, StoreError, StoredAccount};

impl RelationStore for PostgresStore {
    fn set_relation(
        &self,
        from: AccountKey,
        to: AccountKey,
        relation: Option<Relation>,
        now_ms: i64,
    ) -> BoxFuture<'static, Result<(), StoreError>> {
        self.read(move |client| {
            async move {
                match relation {
                    None => {
                        client
                            .execute("DELETE FROM relations WHERE from_account = $1 AND to_account = $2", &[&from, &to])
                            .await
                    }
                    Some(relation) => client
                        .execute(
                            "INSERT INTO relations (from_account, to_account, kind, created_ms) VALUES ($1, $2, $3, $4)
                                 ON CONFLICT (from_account, to_account) DO UPDATE SET kind = excluded.kind,
                                 created_ms = CASE WHEN relations.kind = excluded.kind THEN relations.created_ms
                                                   ELSE excluded.created_ms END",
                            &[&from, &to, &relation.name(), &now_ms],
                        )
                        .await,
                }
                .map_err(write_failed)?;
                Ok(())
            }
            .boxed()
        })
    }

    fn relation(&self, from: AccountKey, to: AccountKey) -> BoxFuture<'static, Result<Option<Relation>, StoreError>> {
        self.read(move |client| {
            async move {
                let row = client
                    .query_opt("SELECT kind FROM relations WHERE from_account = $1 AND to_account = $2", &[&from, &to])
                    .await
                    .map_err(read_failed)?;
                let kind: Option<String> = row.map(|r| r.try_get(0)).transpose().map_err(read_failed)?;
                kind.as_deref().map(Relation::parse).transpose()
            }
            .boxed()
        })
    }

    fn related(
        &self,
        from: AccountKey,
        relation: Relation,
    ) -> BoxFuture<'static, Result<Vec<StoredAccount>, StoreError>> {
        self.read(move |client| {
            async move {
                let rows = client
                    .query(
                        "SELECT a.id, a.username, a.password_hash, a.seat_key, a.created_ms, a.bot
                         FROM relations r JOIN accounts a ON a.id = r.to_account
                         WHERE r.from_account = $1 AND r.kind = $2 ORDER BY a.username_key",
                        &[&from, &relation.name()],
                    )
                    .await
                    .map_err(read_failed)?;
                rows.iter().map(|r| account_row(r, 0)).collect()
            }
            .boxed()
        })
    }

    fn relating(&self, to: AccountKey, relation: Relation) -> BoxFuture<'static, Result<Vec<AccountKey>, StoreError>> {
        self.read(move |client| {
            async move {
                let rows = client
                    .query(
                        "SELECT from_account FROM relations WHERE to_account = $1 AND kind = $2",
                        &[&to, &relation.name()],
                    )
                    .await
                    .map_err(read_failed)?;
                rows.iter().map(|r| r.try_get(0).map_err(read_failed)).collect()
            }
            .boxed()
        })
    }
}
