//! What the lobby lists and shares: the games list and the open seeks it broadcasts to `list`
//! subscribers, this node's share of both for the other nodes of a cluster, theirs as received,
//! and taking a seek out for whoever accepts it first.

use std::sync::Arc;

use tokio::time::Instant;

use super::seeks::Seek;
use super::task::LobbyTask;
use super::{Taken, Taker, SHARE_PERIOD};
use crate::protocol::{ErrorCode, GameId, GameResult, GameSummary, Refusal, SeekView, ServerMessage};

/// What a node shares with the others: its games and its open seeks.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NodeList {
    pub games: Vec<GameSummary>,
    #[serde(default)]
    pub seeks: Vec<SeekView>,
}

impl LobbyTask {
    /// Another node's games and seeks.
    pub(super) fn remote(&mut self, node: String, list: NodeList) {
        // Nodes share their lists every few seconds, changed or not; only a change is
        // worth a new `games` (or `seeks`) message to every socket that follows them.
        let old = self.remote.get(&node).map(|(old, _)| old);
        self.dirty |= old.is_none_or(|old| old.games != list.games);
        self.seeks_dirty |= old.is_none_or(|old| old.seeks != list.seeks);
        self.remote.insert(node, (list, Instant::now()));
    }

    /// This node's seeks changed: broadcast, and shared with the other nodes.
    pub(super) fn seeks_changed(&mut self) {
        self.seeks_dirty = true;
        self.changed = true;
    }

    /// Takes a seek out for `by`, or says where it is. A seek `by` may not play stays open.
    pub(super) fn take_seek(&mut self, id: &str, by: &Taker) -> Result<Seek, Taken> {
        if let Some(seek) = self.seeks.take(id) {
            let own = by.connection.is_some_and(|c| c == seek.seeker.connection)
                || by.account.is_some_and(|a| Some(a) == seek.seeker.player.account_id());
            let refusal = if own {
                Some(Refusal::bad_request("that is your own seek; wait for someone to accept it"))
            } else if seek.spec.rated && by.account.is_none() {
                Some(Refusal::login_required("that seek is for a rated game: log in to accept it"))
            } else {
                None
            };
            if let Some(refusal) = refusal {
                self.seeks.put_back(seek);
                return Err(Taken::Refused(refusal));
            }
            self.seeks_changed();
            return Ok(seek);
        }
        let by = by.connection;
        let holder = self.remote.iter().find(|(_, (list, _))| list.seeks.iter().any(|s| s.seek == id));
        match holder {
            // Asked by another node: it is gone from here already.
            Some((node, _)) if by.is_some() => Err(Taken::Elsewhere(node.clone())),
            _ => Err(Taken::Refused(Refusal::new(
                ErrorCode::NoSuchSeek,
                format!("there is no open seek {id:?}: someone else accepted it, or it was withdrawn"),
            ))),
        }
    }

    /// Every open seek: this node's and, in a cluster, the others'.
    pub(super) fn seek_views(&self) -> Vec<SeekView> {
        let mut views = self.seeks.views();
        for (list, _) in self.remote.values() {
            views.extend(list.seeks.iter().cloned());
        }
        views.sort_by(|a, b| a.seek.cmp(&b.seek));
        views
    }

    /// This node's own list changed.
    pub(super) fn touched(&mut self) {
        self.dirty = true;
        self.changed = true;
    }

    pub(super) fn flush(&mut self) {
        if let Some(hooks) = &self.hooks {
            if self.changed || self.shared_at.elapsed() >= SHARE_PERIOD {
                let games: Vec<GameSummary> = self.games.values().map(|e| e.summary.clone()).collect();
                let _ = hooks.share.send(NodeList { games, seeks: self.seeks.views() });
                self.changed = false;
                self.shared_at = Instant::now();
            }
        }
        if self.dirty && self.list_tx.receiver_count() > 0 {
            let text: Arc<str> = ServerMessage::Games { games: self.summaries() }.to_json().into();
            let _ = self.list_tx.send(text);
        }
        if self.seeks_dirty && self.list_tx.receiver_count() > 0 {
            let text: Arc<str> = ServerMessage::Seeks { seeks: self.seek_views() }.to_json().into();
            let _ = self.list_tx.send(text);
        }
        self.dirty = false;
        self.seeks_dirty = false;
    }

    /// The games list, ordered by id so it reads the same each time.
    /// In a cluster, other nodes' games are in it too (a game seen twice while it changes
    /// hands is listed once, as this node has it if it holds it).
    pub(super) fn summaries(&self) -> Vec<GameSummary> {
        let mut list: Vec<GameSummary> = self.games.values().map(|e| e.summary.clone()).collect();
        let mut seen: std::collections::HashSet<GameId> = self.games.keys().cloned().collect();
        for (remote, _) in self.remote.values() {
            list.extend(remote.games.iter().filter(|g| seen.insert(g.game.clone())).cloned());
        }
        // An aborted game leaves the lobby at once: there is nothing in it to look at.
        list.retain(|g| g.result != Some(GameResult::NoResult));
        list.sort_by(|a, b| a.game.cmp(&b.game));
        list
    }
}
