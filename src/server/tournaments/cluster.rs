//! Tournaments in a cluster: each is run by one node, its owner in PostgreSQL (a lease fenced
//! by an epoch, as games are). Every node takes up, each second, the unfinished tournaments
//! whose owner's heartbeat has stopped, and answers other nodes' calls for those it runs; a
//! call made on a node that does not run the tournament is sent to the node that does.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use super::{Answer, Call, TournamentError};
use crate::server::cluster::TournamentCall;
use crate::server::state::Shared;
use crate::server::store::RENEW_EVERY;

/// How long a call keeps looking for the tournament's node (a dead owner's lease must run
/// out and a survivor take the tournament) before it gives up.
const CALL_DEADLINE: Duration = Duration::from_secs(10);
/// The pause between two looks.
const RETRY: Duration = Duration::from_millis(200);

/// A tournament's answer as it travels between nodes.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum Wire {
    Answered { answer: Answer },
    NotFound,
    Refused { message: String },
}

impl From<Result<Answer, TournamentError>> for Wire {
    fn from(result: Result<Answer, TournamentError>) -> Wire {
        match result {
            Ok(answer) => Wire::Answered { answer },
            Err(TournamentError::NotFound) => Wire::NotFound,
            Err(e) => Wire::Refused { message: e.to_string() },
        }
    }
}

impl From<Wire> for Result<Answer, TournamentError> {
    fn from(wire: Wire) -> Self {
        match wire {
            Wire::Answered { answer } => Ok(answer),
            Wire::NotFound => Err(TournamentError::NotFound),
            Wire::Refused { message } => Err(TournamentError::Refused(message)),
        }
    }
}

/// Starts a cluster node's part: the orphan-taking loop and the desk for other nodes' calls.
pub(super) fn start(shared: &Arc<Shared>) {
    let Some(cluster) = shared.cluster.clone() else { return };
    let (desk, mut calls) = mpsc::unbounded_channel::<TournamentCall>();
    cluster.serve_tournaments(desk);
    let weak = Arc::downgrade(shared);
    tokio::spawn(async move {
        while let Some((id, call, reply)) = calls.recv().await {
            let Some(shared) = weak.upgrade() else { return };
            tokio::spawn(async move {
                let answer = shared.tournaments.call_here(&id, call).await.map(Wire::from);
                let _ = reply.send(answer);
            });
        }
    });
    let weak = Arc::downgrade(shared);
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(RENEW_EVERY);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let Some(shared) = weak.upgrade() else { return };
            take_orphans(&shared).await;
        }
    });
}

/// Takes up the tournaments nobody runs.
async fn take_orphans(shared: &Arc<Shared>) {
    let Some(cluster) = &shared.cluster else { return };
    match cluster.store().claim_tournaments().await {
        Ok(claimed) => {
            for stored in claimed {
                shared.tournaments.resume(shared, &stored);
            }
        }
        Err(e) => tracing::warn!(error = %e, "cannot look for tournaments to take over"),
    }
}

/// `call` for tournament `id`, carried out by the node that runs it (taking it up here if
/// nobody does). None: no node runs it (it is finished, or not there at all).
pub(super) async fn route(shared: &Arc<Shared>, id: &str, call: Call) -> Option<Result<Answer, TournamentError>> {
    let cluster = shared.cluster.clone()?;
    let deadline = tokio::time::Instant::now() + CALL_DEADLINE;
    loop {
        if let Some(answer) = shared.tournaments.call_here(id, call.clone()).await {
            return Some(answer);
        }
        let stored = match shared.tournament_store.tournament(id).await {
            Ok(Some(stored)) => stored,
            Ok(None) => return None,
            Err(e) => return Some(Err(e.into())),
        };
        if stored.status == super::Stage::Finished.name() {
            return None;
        }
        match cluster.store().tournament_owner(id).await {
            Ok(Some(node)) if node != cluster.node() => {
                if let Some(wire) = cluster.call_tournament(&node, id, call.clone()).await {
                    return Some(wire.into());
                }
            }
            // Nobody runs it (or this node's record outlived its task): take it up here.
            Ok(_) => take_orphans(shared).await,
            Err(e) => tracing::warn!(tournament = id, error = %e, "cannot find a tournament's node"),
        }
        if tokio::time::Instant::now() >= deadline {
            return Some(Err(TournamentError::Refused("the tournament's node does not answer; try again".into())));
        }
        tokio::time::sleep(RETRY).await;
    }
}
