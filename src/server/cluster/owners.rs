//! Where a game is held: on this node, at another node (as last found, and which nodes did
//! not answer lately), or nowhere yet, in which case this node takes it from the store.

use std::collections::HashMap;
use std::sync::atomic::Ordering;

use super::{Cluster, Place, CALL_DEADLINE, RETRY};
use crate::protocol::{GameId, Refusal};
use crate::server::room::RoomHandle;
use crate::server::store::Owner;

impl Cluster {
    pub(super) fn owners(&self) -> std::sync::MutexGuard<'_, HashMap<GameId, String>> {
        self.owners.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn silent(&self) -> std::sync::MutexGuard<'_, HashMap<String, tokio::time::Instant>> {
        self.silent.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// True if `node` did not answer lately.
    pub(super) fn is_silent(&self, node: &str) -> bool {
        let mut silent = self.silent();
        match silent.get(node) {
            Some(until) if *until > tokio::time::Instant::now() => true,
            Some(_) => {
                silent.remove(node);
                false
            }
            None => false,
        }
    }

    /// Refused if `game` is no live game of the cluster. An unfinished game nobody holds is
    /// taken by this node on the way.
    pub async fn check(&self, game: &str) -> Result<(), Refusal> {
        self.locate(game).await.map(drop)
    }

    /// The node that holds `game` now, if any node does.
    pub async fn owner_of(&self, game: &str) -> Option<String> {
        match self.locate(game).await.ok()? {
            Place::Here(_) => Some(self.node.clone()),
            Place::There(node) => Some(node),
        }
    }

    /// Finds where `game` is held: here, at another node, or nowhere yet (then this node takes
    /// it, rebuilt from the store).
    pub(super) async fn locate(&self, game: &str) -> Result<Place, Refusal> {
        let deadline = tokio::time::Instant::now() + CALL_DEADLINE;
        loop {
            if let Some(handle) = self.lobby.get(game).await {
                return Ok(Place::Here(handle));
            }
            let cached = self.owners().get(game).cloned();
            if let Some(node) = cached.filter(|node| !self.is_silent(node)) {
                return Ok(Place::There(node));
            }
            let owner = self.store.owner(game).await.map_err(|e| Refusal::server_error(e.to_string()))?;
            match owner {
                Owner::Missing | Owner::Archived => return Err(Refusal::no_such_game(game)),
                // Its node does not answer: wait for its lease to run out.
                Owner::Node(node) if self.is_silent(&node) => {}
                Owner::Node(node) if node != self.node => {
                    self.owners().insert(game.to_string(), node.clone());
                    return Ok(Place::There(node));
                }
                // Nobody holds it, or this node's lease is still on record for a room it no
                // longer has (it is stopping, or it let the room go): take it afresh.
                Owner::Node(_) | Owner::Orphan => {
                    if let Some(handle) = self.take(game).await? {
                        return Ok(Place::Here(handle));
                    }
                }
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(Refusal::server_error(
                    "the game's node does not answer and its lease still runs; try again",
                ));
            }
            tokio::time::sleep(RETRY).await;
        }
    }

    /// Takes `game` (if nobody holds it) and starts its room here.
    pub(super) async fn take(&self, game: &str) -> Result<Option<RoomHandle>, Refusal> {
        if self.stopping.load(Ordering::Acquire) {
            return Err(Refusal::shutting_down());
        }
        let _taking = self.taking.lock().await;
        // Another request, or the lease task, may have taken it while this one waited.
        if let Some(handle) = self.lobby.get(game).await {
            return Ok(Some(handle));
        }
        let Some(stored) = self.store.claim(game).await.map_err(|e| Refusal::server_error(e.to_string()))? else {
            return Ok(None);
        };
        match self.lobby.adopt(stored).await {
            Some(handle) => Ok(Some(handle)),
            None => {
                self.store.release(vec![game.to_string()]).await;
                Err(Refusal::too_many("this node holds all the games it may; try again later"))
            }
        }
    }
}
