//! Notifications in the SQLite store (`NotificationStore`), kept until read.

use futures::future::BoxFuture;
use rusqlite::{params, Connection, Row};

use super::{read_failed, write_failed, SqliteStore};
use crate::server::store::{AccountKey, NotificationStore, StoreError, StoredNotification};

fn notification_row(row: &Row<'_>) -> rusqlite::Result<StoredNotification> {
    Ok(StoredNotification {
        id: row.get(0)?,
        account: row.get(1)?,
        kind: row.get(2)?,
        body: row.get(3)?,
        created_ms: row.get(4)?,
        read: row.get(5)?,
    })
}

fn unread(conn: &Connection, account: AccountKey) -> Result<u64, StoreError> {
    let n: i64 = conn
        .prepare_cached("SELECT count(*) FROM notifications WHERE account = ?1 AND read = 0")
        .and_then(|mut s| s.query_row(params![account], |r| r.get(0)))
        .map_err(read_failed)?;
    Ok(u64::try_from(n).unwrap_or(0))
}

impl NotificationStore for SqliteStore {
    fn add_notification(
        &self,
        account: AccountKey,
        kind: String,
        body: String,
        now_ms: i64,
        keep: u64,
    ) -> BoxFuture<'static, Result<i64, StoreError>> {
        self.read(move |conn| {
            let tx = conn.unchecked_transaction().map_err(write_failed)?;
            tx.execute(
                "INSERT INTO notifications (account, kind, body, created_ms) VALUES (?1, ?2, ?3, ?4)",
                params![account, kind, body, now_ms],
            )
            .map_err(write_failed)?;
            let id = tx.last_insert_rowid();
            let keep = i64::try_from(keep).unwrap_or(i64::MAX);
            tx.execute(
                "DELETE FROM notifications WHERE account = ?1 AND id NOT IN
                 (SELECT id FROM notifications WHERE account = ?1 ORDER BY id DESC LIMIT ?2)",
                params![account, keep],
            )
            .map_err(write_failed)?;
            tx.commit().map_err(write_failed)?;
            Ok(id)
        })
    }

    fn notifications(
        &self,
        account: AccountKey,
        limit: u64,
    ) -> BoxFuture<'static, Result<(u64, Vec<StoredNotification>), StoreError>> {
        self.read(move |conn| {
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            let list = conn
                .prepare_cached(
                    "SELECT id, account, kind, body, created_ms, read FROM notifications
                     WHERE account = ?1 ORDER BY id DESC LIMIT ?2",
                )
                .and_then(|mut s| s.query_map(params![account, limit], notification_row)?.collect())
                .map_err(read_failed)?;
            Ok((unread(conn, account)?, list))
        })
    }

    fn read_notifications(
        &self,
        account: AccountKey,
        ids: Option<Vec<i64>>,
    ) -> BoxFuture<'static, Result<u64, StoreError>> {
        self.read(move |conn| {
            match ids {
                None => conn
                    .execute("UPDATE notifications SET read = 1 WHERE account = ?1 AND read = 0", params![account])
                    .map_err(write_failed)?,
                Some(ids) => {
                    let tx = conn.unchecked_transaction().map_err(write_failed)?;
                    for id in ids {
                        tx.execute(
                            "UPDATE notifications SET read = 1 WHERE account = ?1 AND id = ?2",
                            params![account, id],
                        )
                        .map_err(write_failed)?;
                    }
                    tx.commit().map_err(write_failed)?;
                    0
                }
            };
            unread(conn, account)
        })
    }
}
