//! Game leases of a cluster node, kept in PostgreSQL next to the games (DESIGN.md §4). A node
//! owns the games whose `owner` it is while its lease runs: its heartbeat row in `nodes`,
//! renewed each second, younger than [`LEASE`] by the database's clock. One row per node, so
//! renewing never locks a game's row (per-game renewals deadlocked with the moves' writes under
//! load). Taking a game raises its epoch, and every write the node makes checks, in the
//! write's own transaction, that the game's owner and epoch are still its own
//! ([`Fence::check`]). A node that was paused or cut off past its lease therefore cannot write
//! a move to a game another node has taken since; it finds out at its next heartbeat
//! ([`PostgresStore::lost`]) and drops the room.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use tokio_postgres::Client;

use super::{games, unavailable, PostgresStore};
use crate::protocol::GameId;
use crate::server::store::{StoreError, StoredGame};

/// How long a node's lease runs unless renewed. Nodes renew every [`RENEW_EVERY`], so a lease
/// outlives a couple of missed renewals, and a dead node's games are taken within this time
/// (plus a scan).
pub const LEASE: Duration = Duration::from_secs(3);
/// How often a node renews its leases and reports itself.
pub const RENEW_EVERY: Duration = Duration::from_millis(1000);

/// The lease as an SQL interval argument, in milliseconds.
pub(super) fn lease_ms() -> i64 {
    i64::try_from(LEASE.as_millis()).unwrap_or(i64::MAX)
}

/// A node's name and the epochs of the games it holds: what its writes are checked against.
pub(super) struct Fence {
    pub(super) node: String,
    /// Epoch of each game this node holds. A plain map under a lock: it is the node's record of
    /// its leases (touched on claim, renewal and release), not game state.
    epochs: Mutex<HashMap<GameId, i64>>,
}

impl Fence {
    pub(super) fn new(node: String) -> Fence {
        Fence { node, epochs: Mutex::new(HashMap::new()) }
    }

    fn epochs(&self) -> std::sync::MutexGuard<'_, HashMap<GameId, i64>> {
        // A poisoned lock only means a panic elsewhere while it was held; the map is still whole.
        self.epochs.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn hold(&self, game: &str, epoch: i64) {
        self.epochs().insert(game.to_string(), epoch);
    }

    pub(super) fn epoch(&self, game: &str) -> Option<i64> {
        self.epochs().get(game).copied()
    }

    fn forget(&self, game: &str) {
        self.epochs().remove(game);
    }

    fn held(&self) -> Vec<(GameId, i64)> {
        self.epochs().iter().map(|(g, e)| (g.clone(), *e)).collect()
    }

    /// Checks, inside the write's transaction, that this node still owns `game` at the epoch it
    /// took it with; the row stays locked until the transaction ends, so no other node can
    /// take the game in between.
    pub(super) async fn check(&self, tx: &deadpool_postgres::Transaction<'_>, game: &str) -> Result<(), String> {
        let lost = || format!("this node ({}) no longer owns game {game:?}; try again", self.node);
        let epoch = self.epoch(game).ok_or_else(lost)?;
        let owned = tx
            .prepare_cached("SELECT 1 FROM games WHERE id = $1 AND owner = $2 AND epoch = $3 FOR UPDATE")
            .await
            .map_err(|e| e.to_string())?;
        match tx.query_opt(&owned, &[&game, &self.node, &epoch]).await.map_err(|e| e.to_string())? {
            Some(_) => Ok(()),
            None => Err(lost()),
        }
    }

    /// Makes a game just inserted this node's, at epoch 1 (in the insert's transaction).
    pub(super) async fn own_new(&self, tx: &deadpool_postgres::Transaction<'_>, game: &str) -> Result<(), String> {
        let own = tx
            .prepare_cached("UPDATE games SET owner = $2, epoch = 1 WHERE id = $1")
            .await
            .map_err(|e| e.to_string())?;
        tx.execute(&own, &[&game, &self.node]).await.map(|_| ()).map_err(|e| e.to_string())
    }
}

/// Who owns a game now, as the database says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Owner {
    /// No such game is stored.
    Missing,
    /// The game has ended and no node holds it: the archive has it.
    Archived,
    /// A node whose lease runs.
    Node(String),
    /// Nobody holds the unfinished game (its node died or let it go): any node may take it.
    Orphan,
}

/// A live node of the cluster, as `/api/cluster` lists it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct NodeInfo {
    pub name: String,
    /// Rooms it holds.
    pub games: i32,
    /// WebSocket connections it has open.
    pub connections: i32,
    /// When it last reported, Unix milliseconds, and how long ago that was (by the database).
    pub heartbeat_ms: i64,
    pub heartbeat_age_ms: i64,
    pub started_ms: i64,
}

/// SQL: true when node `n`'s lease runs (its heartbeat is recent enough); `$lease` is the
/// lease in milliseconds.
pub(super) fn alive(n: &str, lease: &str) -> String {
    format!("({n}.heartbeat_at > now() - {lease}::bigint * interval '1 millisecond')")
}

impl PostgresStore {
    fn fence(&self) -> Result<&Fence, StoreError> {
        self.fence.as_deref().ok_or_else(|| StoreError::Write("this store is not a cluster node's".into()))
    }

    async fn client(&self) -> Result<deadpool_postgres::Object, StoreError> {
        self.pool.get().await.map_err(|e| StoreError::Write(unavailable(&e)))
    }

    /// Who owns `game` now.
    pub async fn owner(&self, game: &str) -> Result<Owner, StoreError> {
        let client = self.client().await?;
        let row = client
            .query_opt(
                &format!(
                    "SELECT g.owner, coalesce({}, false), g.status = 'ended'
                     FROM games g LEFT JOIN nodes n ON n.name = g.owner WHERE g.id = $1",
                    alive("n", "$2")
                ),
                &[&game, &lease_ms()],
            )
            .await
            .map_err(|e| StoreError::Read(e.to_string()))?;
        Ok(match row {
            None => Owner::Missing,
            Some(row) => match (row.get::<_, Option<String>>(0), row.get::<_, bool>(1), row.get::<_, bool>(2)) {
                (Some(node), true, _) => Owner::Node(node),
                (_, _, true) => Owner::Archived,
                _ => Owner::Orphan,
            },
        })
    }

    /// Takes `game` if nobody holds it (its lease ran out, or it was let go), and reads it back
    /// as it is stored now; None if it is held or not there to take.
    pub async fn claim(&self, game: &str) -> Result<Option<StoredGame>, StoreError> {
        let fence = self.fence()?;
        let client = self.client().await?;
        // This node may take a game on record as its own too: its room here is gone (the node
        // restarted, or is stopping), and the new epoch fences any write of the old one.
        let row = client
            .query_opt(
                &format!(
                    "UPDATE games g SET owner = $2, epoch = epoch + 1
                     WHERE g.id = $1 AND g.status <> 'ended'
                       AND (g.owner IS NULL OR g.owner = $2
                            OR NOT EXISTS (SELECT 1 FROM nodes n WHERE n.name = g.owner AND {}))
                     RETURNING epoch",
                    alive("n", "$3")
                ),
                &[&game, &fence.node, &lease_ms()],
            )
            .await
            .map_err(|e| StoreError::Write(e.to_string()))?;
        let Some(row) = row else { return Ok(None) };
        fence.hold(game, row.get(0));
        let mut found = self.read_claimed(&client, &[game.to_string()]).await?;
        Ok(found.pop())
    }

    /// Takes up to `limit` unfinished games whose node's lease ran out (or that were let go),
    /// and reads them back.
    pub async fn claim_orphans(&self, limit: usize) -> Result<Vec<StoredGame>, StoreError> {
        let fence = self.fence()?;
        let client = self.client().await?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        // SKIP LOCKED: nodes scanning at once share the orphans instead of queueing on them.
        let rows = client
            .query(
                &format!(
                    "UPDATE games SET owner = $1, epoch = epoch + 1
                     WHERE id IN (SELECT g.id FROM games g LEFT JOIN nodes n ON n.name = g.owner
                                  WHERE g.status <> 'ended' AND g.owner IS DISTINCT FROM $1
                                    AND (g.owner IS NULL OR n.name IS NULL OR NOT {})
                                  ORDER BY random() LIMIT $3 FOR UPDATE OF g SKIP LOCKED)
                     RETURNING id, epoch",
                    alive("n", "$2")
                ),
                &[&fence.node, &lease_ms(), &limit],
            )
            .await
            .map_err(|e| StoreError::Write(e.to_string()))?;
        let ids: Vec<String> = rows.iter().map(|r| r.get(0)).collect();
        for row in &rows {
            fence.hold(row.get::<_, &str>(0), row.get(1));
        }
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        self.read_claimed(&client, &ids).await
    }

    /// The games just claimed, read back; one that cannot be read is let go again (so it stays
    /// in the store as it is) and logged.
    async fn read_claimed(&self, client: &Client, ids: &[String]) -> Result<Vec<StoredGame>, StoreError> {
        let found = games(client, "id = ANY($1)", &[&ids]).await?;
        let mut good = Vec::new();
        for game in found {
            match game {
                Ok(game) => good.push(game),
                Err(why) => tracing::error!(error = %why, "a claimed game cannot be read"),
            }
        }
        let bad: Vec<String> = ids.iter().filter(|id| !good.iter().any(|g| &g.id == *id)).cloned().collect();
        if !bad.is_empty() {
            self.release(bad).await;
        }
        Ok(good)
    }

    /// The games this node holds that another node has taken since (while this one could not
    /// renew its lease): it must drop their rooms. A plain read: it locks nothing.
    pub async fn lost(&self) -> Result<Vec<GameId>, StoreError> {
        let fence = self.fence()?;
        let held = fence.held();
        if held.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<&str> = held.iter().map(|(g, _)| g.as_str()).collect();
        let client = self.client().await?;
        let rows = client
            .query("SELECT id, owner, epoch FROM games WHERE id = ANY($1)", &[&ids])
            .await
            .map_err(|e| StoreError::Read(e.to_string()))?;
        let now: HashMap<String, (Option<String>, i64)> =
            rows.iter().map(|r| (r.get(0), (r.get(1), r.get(2)))).collect();
        // A game no longer stored (discarded) is not lost to anyone: its room is closing.
        let lost: Vec<GameId> = held
            .into_iter()
            .filter(|(g, e)| {
                now.get(g).is_some_and(|(owner, epoch)| owner.as_deref() != Some(&fence.node) || epoch != e)
            })
            .map(|(g, _)| g)
            .collect();
        for game in &lost {
            fence.forget(game);
        }
        Ok(lost)
    }

    /// A node starting under a name lets go of whatever a previous process of that name held:
    /// those rooms are gone, and the games pass to whichever node takes them first.
    pub(super) async fn forget_previous(&self) -> Result<(), StoreError> {
        let fence = self.fence()?;
        let client = self.client().await?;
        let n = client
            .execute("UPDATE games SET owner = NULL WHERE owner = $1", &[&fence.node])
            .await
            .map_err(|e| StoreError::Write(e.to_string()))?;
        if n > 0 {
            tracing::info!(games = n, "games held by this node's previous run let go");
        }
        client
            .execute("UPDATE tournaments SET owner = NULL WHERE owner = $1", &[&fence.node])
            .await
            .map_err(|e| StoreError::Write(e.to_string()))?;
        Ok(())
    }

    /// Lets go of `games` once every change queued before is committed, so the next owner
    /// reads them whole. A game deleted meanwhile is simply gone.
    pub async fn release(&self, games: Vec<GameId>) {
        let Ok(fence) = self.fence() else { return };
        let epochs: Vec<(GameId, i64)> = games.iter().filter_map(|g| fence.epoch(g).map(|e| (g.clone(), e))).collect();
        for game in &games {
            fence.forget(game);
        }
        if epochs.is_empty() {
            return;
        }
        let node = fence.node.clone();
        let released = self.read(move |client| {
            Box::pin(async move {
                for (game, epoch) in &epochs {
                    client
                        .execute(
                            "UPDATE games SET owner = NULL WHERE id = $1 AND owner = $2 AND epoch = $3",
                            &[game, &node, epoch],
                        )
                        .await
                        .map_err(|e| StoreError::Write(e.to_string()))?;
                }
                Ok(())
            })
        });
        if let Err(e) = released.await {
            // The leases run out by themselves in a few seconds.
            tracing::warn!(error = %e, "could not let go of games; they pass on when their leases run out");
        }
    }

    /// The games this node holds.
    pub fn held(&self) -> Vec<GameId> {
        self.fence.as_ref().map(|f| f.held().into_iter().map(|(g, _)| g).collect()).unwrap_or_default()
    }

    /// Renews this node's lease (on all its games at once) and reports what it holds.
    pub async fn heartbeat(&self, games: usize, connections: usize) -> Result<(), StoreError> {
        let fence = self.fence()?;
        let client = self.client().await?;
        let count = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
        client
            .execute(
                "INSERT INTO nodes (name, started_at, heartbeat_at, games, connections) VALUES ($1, now(), now(), $2, $3)
                 ON CONFLICT (name) DO UPDATE SET heartbeat_at = now(), games = $2, connections = $3",
                &[&fence.node, &count(games), &count(connections)],
            )
            .await
            .map_err(|e| StoreError::Write(e.to_string()))?;
        Ok(())
    }

    /// Says this node is gone (a clean stop), so lists stop showing it at once.
    pub async fn leave_cluster(&self) {
        let (Ok(fence), Ok(client)) = (self.fence(), self.client().await) else { return };
        let _ = client.execute("DELETE FROM nodes WHERE name = $1", &[&fence.node]).await;
    }

    /// The nodes that reported lately, by name.
    pub async fn nodes(&self) -> Result<Vec<NodeInfo>, StoreError> {
        let client = self.pool.get().await.map_err(|e| StoreError::Read(unavailable(&e)))?;
        let rows = client
            .query(
                &format!(
                    "SELECT name, games, connections,
                            (extract(epoch FROM heartbeat_at) * 1000)::bigint,
                            (extract(epoch FROM now() - heartbeat_at) * 1000)::bigint,
                            (extract(epoch FROM started_at) * 1000)::bigint
                     FROM nodes n WHERE {} ORDER BY name",
                    alive("n", "$1")
                ),
                &[&lease_ms()],
            )
            .await
            .map_err(|e| StoreError::Read(e.to_string()))?;
        Ok(rows
            .iter()
            .map(|r| NodeInfo {
                name: r.get(0),
                games: r.get(1),
                connections: r.get(2),
                heartbeat_ms: r.get(3),
                heartbeat_age_ms: r.get(4),
                started_ms: r.get(5),
            })
            .collect())
    }
}
