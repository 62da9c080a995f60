//! Notifications in the PostgreSQL store (`NotificationStore`), kept until read.

use futures::future::BoxFuture;
use futures::FutureExt;
use tokio_postgres::{GenericClient, Row};

use super::{read_failed, write_failed, PostgresStore};
use crate::server::store::{AccountKey, NotificationStore, StoreError, StoredNotification};

fn notification_row(row: &Row) -> Result<StoredNotification, StoreError> {
    Ok(StoredNotification {
        id: row.try_get(0).map_err(read_failed)?,
        account: row.try_get(1).map_err(read_failed)?,
        kind: row.try_get(2).map_err(read_failed)?,
        body: row.try_get(3).map_err(read_failed)?,
        created_ms: row.try_get(4).map_err(read_failed)?,
        read: row.try_get(5).map_err(read_failed)?,
    })
}

async fn unread(client: &impl GenericClient, account: AccountKey) -> Result<u64, StoreError> {
    let row = client
        .query_one("SELECT count(*) FROM notifications WHERE account = $1 AND NOT read", &[&account])
        .await
        .map_err(read_failed)?;
    let n: i64 = row.try_get(0).map_err(read_failed)?;
    Ok(u64::try_from(n).unwrap_or(0))
}

impl NotificationStore for PostgresStore {
    fn add_notification(
        &self,
        account: AccountKey,
        kind: String,
        body: String,
        now_ms: i64,
        keep: u64,
    ) -> BoxFuture<'static, Result<i64, StoreError>> {
        self.write(move |client| {
            async move {
                let tx = client.transaction().await.map_err(write_failed)?;
                let row = tx
                    .query_one(
                        "INSERT INTO notifications (account, kind, body, created_ms) VALUES ($1, $2, $3, $4) RETURNING id",
                        &[&account, &kind, &body, &now_ms],
                    )
                    .await
                    .map_err(write_failed)?;
                let id: i64 = row.try_get(0).map_err(write_failed)?;
                let keep = i64::try_from(keep).unwrap_or(i64::MAX);
                tx.execute(
                    "DELETE FROM notifications WHERE account = $1 AND id NOT IN
                     (SELECT id FROM notifications WHERE account = $1 ORDER BY id DESC LIMIT $2)",
                    &[&account, &keep],
                )
                .await
                .map_err(write_failed)?;
                tx.commit().await.map_err(write_failed)?;
                Ok(id)
            }
            .boxed()
        })
    }

    fn notifications(
        &self,
        account: AccountKey,
        limit: u64,
    ) -> BoxFuture<'static, Result<(u64, Vec<StoredNotification>), StoreError>> {
        self.read(move |client| {
            async move {
                let limit = i64::try_from(limit).unwrap_or(i64::MAX);
                let rows = client
                    .query(
                        "SELECT id, account, kind, body, created_ms, read FROM notifications
                         WHERE account = $1 ORDER BY id DESC LIMIT $2",
                        &[&account, &limit],
                    )
                    .await
                    .map_err(read_failed)?;
                let list = rows.iter().map(notification_row).collect::<Result<Vec<_>, _>>()?;
                Ok((unread(client, account).await?, list))
            }
            .boxed()
        })
    }

    fn read_notifications(
        &self,
        account: AccountKey,
        ids: Option<Vec<i64>>,
    ) -> BoxFuture<'static, Result<u64, StoreError>> {
        self.read(move |client| {
            async move {
                match ids {
                    None => {
                        client
                            .execute(
                                "UPDATE notifications SET read = TRUE WHERE account = $1 AND NOT read",
                                &[&account],
                            )
                            .await
                    }
                    Some(ids) => {
                        client
                            .execute(
                                "UPDATE notifications SET read = TRUE WHERE account = $1 AND id = ANY($2)",
                                &[&account, &ids],
                            )
                            .await
                    }
                }
                .map_err(write_failed)?;
                unread(client, account).await
            }
            .boxed()
        })
    }
}
