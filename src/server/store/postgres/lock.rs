//! One server per PostgreSQL database, as the SQLite file's lock does for a file: the server
//! holds an advisory lock on a connection of its own. PostgreSQL lets go of the lock when that
//! connection ends, so a killed server does not keep it; and when the database itself went
//! away and came back, the server takes the lock again before it writes again.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{watch, Notify};
use tokio::task::JoinHandle;
use tokio_postgres::{Client, Config, NoTls};

use crate::server::store::StoreError;

/// The advisory lock key ("gambit-1" in ASCII).
const KEY: i64 = 0x67_61_6d_62_69_74_2d_31;
/// How often a lost lock is tried again.
const RETRY: Duration = Duration::from_secs(1);

/// The database's lock, held by a task for as long as the store is open.
pub(super) struct ServerLock {
    held: Arc<AtomicBool>,
    /// Asks the task to let go.
    release: Arc<Notify>,
    /// True once it has.
    released: watch::Receiver<bool>,
    task: JoinHandle<()>,
}

/// What taking the lock came to.
enum Taken {
    /// Held, on this connection (which must stay open).
    Held(Client, tokio::task::JoinHandle<()>),
    /// Another server holds it.
    Busy,
}

impl ServerLock {
    /// Takes the lock, or says who has it (`shown`: the database as messages name it).
    pub(super) async fn take(config: &Config, shown: &str) -> Result<ServerLock, StoreError> {
        let failed = |e: &dyn std::fmt::Display| StoreError::Open { path: shown.to_string(), message: e.to_string() };
        let (client, connection) = match try_take(config).await.map_err(|e| failed(&e))? {
            Taken::Held(client, connection) => (client, connection),
            Taken::Busy => return Err(StoreError::Locked { path: shown.to_string(), pid: None }),
        };
        let held = Arc::new(AtomicBool::new(true));
        let release = Arc::new(Notify::new());
        let (done, released) = watch::channel(false);
        let holder = Holder { config: config.clone(), held: held.clone(), release: release.clone(), done };
        let task = tokio::spawn(holder.hold(client, connection));
        Ok(ServerLock { held, release, released, task })
    }

    /// Whether this server holds the lock, for the writer: while it does not, nothing may be
    /// written.
    pub(super) fn flag(&self) -> Arc<AtomicBool> {
        self.held.clone()
    }

    /// Lets go of the lock when awaited (its connection closes); done when the database has
    /// let go of it too.
    pub(super) fn release(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let release = self.release.clone();
        let mut released = self.released.clone();
        async move {
            release.notify_one();
            let _ = released.wait_for(|done| *done).await;
        }
    }
}

impl Drop for ServerLock {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Connects and tries the lock once.
async fn try_take(config: &Config) -> Result<Taken, tokio_postgres::Error> {
    let (client, connection) = config.connect(NoTls).await?;
    let connection = tokio::spawn(async move {
        let _ = connection.await;
    });
    let row = client.query_one("SELECT pg_try_advisory_lock($1)", &[&KEY]).await?;
    if row.get::<_, bool>(0) {
        Ok(Taken::Held(client, connection))
    } else {
        connection.abort();
        Ok(Taken::Busy)
    }
}

/// The task that keeps the lock.
struct Holder {
    config: Config,
    held: Arc<AtomicBool>,
    release: Arc<Notify>,
    done: watch::Sender<bool>,
}

impl Holder {
    /// Keeps the lock's connection open; when it ends (the database went away), the lock is
    /// not held until it is taken again. Ends when asked to let go.
    async fn hold(self, mut client: Client, mut connection: JoinHandle<()>) {
        loop {
            tokio::select! {
                _ = &mut connection => {}
                () = self.release.notified() => break,
            }
            self.held.store(false, Ordering::Release);
            tracing::warn!("lost the connection that holds the database's lock; changes wait until it is taken again");
            let mut told = false;
            (client, connection) = loop {
                tokio::select! {
                    () = tokio::time::sleep(RETRY) => {}
                    () = self.release.notified() => {
                        let _ = self.done.send(true);
                        return;
                    }
                }
                match try_take(&self.config).await {
                    Ok(Taken::Held(client, connection)) => break (client, connection),
                    Ok(Taken::Busy) if !told => {
                        told = true;
                        tracing::error!(
                            "another gambit server took this database while it was away; this one refuses changes"
                        );
                    }
                    Ok(Taken::Busy) | Err(_) => {}
                }
            };
            self.held.store(true, Ordering::Release);
            tracing::info!("took the database's lock again; changes are stored again");
        }
        self.held.store(false, Ordering::Release);
        // The connection ends once its client is gone; the database then lets go of the lock.
        drop(client);
        let _ = connection.await;
        let _ = self.done.send(true);
    }
}
