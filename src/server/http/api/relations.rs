//! Relations between players (lichess's `/api/rel/…`): following and blocking, and the friends
//! panel (`/api/friends`, gambit's own): the players one follows, whether they are online and
//! what they are doing. Blocking someone ends following them; a blocked player can no longer
//! challenge the one who blocked them, nor be read in their chat.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use super::{ApiError, Caller};
use crate::server::accounts::{Account, Scope};
use crate::server::state::Shared;
use crate::server::store::{now_ms, Relation};

/// What `POST /api/rel/{action}/{name}` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    Follow,
    Unfollow,
    Block,
    Unblock,
}

impl Action {
    fn parse(text: &str) -> Option<Action> {
        match text {
            "follow" => Some(Action::Follow),
            "unfollow" => Some(Action::Unfollow),
            "block" => Some(Action::Block),
            "unblock" => Some(Action::Unblock),
            _ => None,
        }
    }

    /// The relation after the action, from the one before it: unfollowing someone one blocks
    /// leaves the block, unblocking someone one follows leaves the follow.
    fn apply(self, before: Option<Relation>) -> Option<Relation> {
        match (self, before) {
            (Action::Follow, _) => Some(Relation::Follow),
            (Action::Block, _) => Some(Relation::Block),
            (Action::Unfollow, Some(Relation::Follow)) | (Action::Unblock, Some(Relation::Block)) => None,
            (Action::Unfollow | Action::Unblock, other) => other,
        }
    }
}

/// `POST /api/rel/follow/{name}`, `…/unfollow/…`, `…/block/…`, `…/unblock/…`: `{"ok":true}`.
pub(super) async fn relate(
    State(shared): State<Arc<Shared>>,
    caller: Caller,
    Path((action, name)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let action =
        Action::parse(&action).ok_or_else(|| ApiError::not_found(format!("no such relation action {action:?}")))?;
    caller.require(Scope::FollowWrite)?;
    let me = caller.account();
    let other = shared.accounts.find(&name).await?.ok_or_else(|| ApiError::not_found("No such user"))?;
    if other.id == me.id {
        return Err(ApiError::bad("You cannot follow or block yourself."));
    }
    let before = shared.relations.relation(me.id, other.id).await?;
    let after = action.apply(before);
    if after != before {
        shared.relations.set_relation(me.id, other.id, after, now_ms()).await?;
        tracing::info!(from = %me.username, to = %other.username, ?action, "relation changed");
    }
    Ok(Json(json!({ "ok": true })).into_response())
}

/// `GET /api/rel/following`: the players the caller follows, as ndjson of lichess's users.
pub(super) async fn following(
    State(shared): State<Arc<Shared>>,
    caller: Caller,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    caller.require(Scope::FollowRead)?;
    let mut lines = String::new();
    for stored in shared.relations.related(caller.account().id, Relation::Follow).await? {
        let user = super::account::user_json(&shared, &headers, &Account::of(stored), None).await?;
        lines.push_str(&user.to_string());
        lines.push('\n');
    }
    Ok(([(header::CONTENT_TYPE, "application/x-ndjson")], lines).into_response())
}

/// `GET /api/friends`: `{"friends": [{"name", "bot", "online", "playing", "seeking"}]}`, everyone
/// the caller follows, those online first, then by name.
pub(super) async fn friends(State(shared): State<Arc<Shared>>, caller: Caller) -> Result<Response, ApiError> {
    caller.require(Scope::FollowRead)?;
    let seeks = shared.lobby.seeks().await;
    let mut friends: Vec<Value> = Vec::new();
    for friend in shared.relations.related(caller.account().id, Relation::Follow).await? {
        let online = shared.notices.is_online(friend.id);
        let playing = if online { shared.accounts.store().playing(friend.id).await?.into_iter().next() } else { None };
        let seeking = online && seeks.iter().any(|s| s.name.eq_ignore_ascii_case(&friend.username));
        friends.push(json!({
            "name": friend.username,
            "bot": friend.bot,
            "online": online,
            "playing": playing,
            "seeking": seeking,
        }));
    }
    // Stable: names stay in the store's order (by name) within each group.
    friends.sort_by_key(|f| !f["online"].as_bool().unwrap_or(false));
    Ok(Json(json!({ "friends": friends })).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_action_leaves_the_relation_it_names() {
        use Relation::{Block, Follow};
        assert_eq!(Action::Follow.apply(Some(Block)), Some(Follow));
        assert_eq!(Action::Block.apply(Some(Follow)), Some(Block), "blocking ends following");
        assert_eq!(Action::Unfollow.apply(Some(Follow)), None);
        assert_eq!(Action::Unfollow.apply(Some(Block)), Some(Block), "unfollowing keeps a block");
        assert_eq!(Action::Unblock.apply(Some(Follow)), Some(Follow));
        assert_eq!(Action::Unblock.apply(Some(Block)), None);
        assert_eq!(Action::parse("befriend"), None);
    }
}
