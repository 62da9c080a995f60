//! Notifications: what a player is told that waits until they have read it (lichess's
//! notifications) — a challenge to them, a game of a player they follow starting, their move in
//! a correspondence game, a tournament of theirs starting. Each is stored first, then told at
//! once to the player's pages wherever they are connected (the event stream's `notification`
//! lines, [`Notice::Notification`]); a page opened later reads them from the store.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio::sync::mpsc;

use crate::server::notices::{GameStarted, Happening, Notice, Notices};
use crate::server::store::{
    now_ms, AccountKey, NotificationStore, Relation, RelationStore, StoreError, StoredNotification,
};

/// How many notifications a player keeps: the oldest go beyond that.
pub const KEPT: u64 = 100;

/// How many a page is shown.
pub const SHOWN: u64 = 50;

/// What a notification is about (its `kind` on the wire).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Someone challenged the player.
    Challenge,
    /// A game of a player they follow has started.
    FriendGame,
    /// It is their move in a correspondence game.
    CorresMove,
    /// A tournament they joined is starting.
    Tournament,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Challenge => "challenge",
            Kind::FriendGame => "friendGame",
            Kind::CorresMove => "corresMove",
            Kind::Tournament => "tournament",
        }
    }
}

/// A notification's words and where it leads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Notification {
    pub text: String,
    /// The page it is about (`/g/ID`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// Players' notifications, over the store, told at once through the notices.
pub struct Notifications {
    store: Arc<dyn NotificationStore>,
    notices: Arc<Notices>,
}

impl Notifications {
    pub fn new(store: Arc<dyn NotificationStore>, notices: Arc<Notices>) -> Notifications {
        Notifications { store, notices }
    }

    /// Stores `notification` for `account` and tells their pages.
    pub async fn send(&self, account: AccountKey, kind: Kind, notification: Notification) -> Result<(), StoreError> {
        let body = serde_json::to_string(&notification).map_err(|e| StoreError::Write(e.to_string()))?;
        let at = now_ms();
        let id = self.store.add_notification(account, kind.name().to_string(), body.clone(), at, KEPT).await?;
        let stored =
            StoredNotification { id, account, kind: kind.name().to_string(), body, created_ms: at, read: false };
        self.notices.tell(account, Notice::Notification(Arc::from(view(&stored).to_string())));
        Ok(())
    }

    /// As [`send`](Self::send), logging a failure rather than returning it: for notifications
    /// that come beside something else that has already happened (a challenge made).
    pub async fn send_or_log(&self, account: AccountKey, kind: Kind, notification: Notification) {
        if let Err(e) = self.send(account, kind, notification).await {
            tracing::warn!(account, kind = kind.name(), error = %e, "could not store a notification");
        }
    }

    /// `{"unread": n, "notifications": […]}`: the account's newest, newest first.
    pub async fn list(&self, account: AccountKey) -> Result<Value, StoreError> {
        let (unread, list) = self.store.notifications(account, SHOWN).await?;
        Ok(json!({ "unread": unread, "notifications": list.iter().map(view).collect::<Vec<_>>() }))
    }

    /// Marks the account's notifications `ids` read (all with None); how many are still unread.
    pub async fn read(&self, account: AccountKey, ids: Option<Vec<i64>>) -> Result<u64, StoreError> {
        self.store.read_notifications(account, ids).await
    }
}

/// A stored notification as pages read it: `{"id", "kind", "text", "url", "at", "read"}`.
pub fn view(stored: &StoredNotification) -> Value {
    // A body this server did not write is shown as what it is rather than dropped.
    let body: Notification =
        serde_json::from_str(&stored.body).unwrap_or_else(|_| Notification { text: stored.kind.clone(), url: None });
    json!({
        "id": stored.id,
        "kind": stored.kind,
        "text": body.text,
        "url": body.url,
        "at": stored.created_ms,
        "read": stored.read,
    })
}

/// The words of a friend's game starting, for a follower of `names` (the players they follow
/// in it) in a game between `players`.
fn friend_game_text(followed: &[&str], players: &[(Option<AccountKey>, String); 2]) -> String {
    match followed {
        [one] => {
            let opponent = players.iter().map(|(_, name)| name.as_str()).find(|name| name != one).unwrap_or("?");
            format!("{one} started a game against {opponent}")
        }
        _ => format!("{} and {} started a game", players[0].1, players[1].1),
    }
}

/// Makes notifications of what happens in the games here, until the server stops: a
/// correspondence player's move, and a game's start for its players' followers.
pub async fn from_games(
    mut happenings: mpsc::UnboundedReceiver<Happening>,
    relations: Arc<dyn RelationStore>,
    notifications: Arc<Notifications>,
) {
    while let Some(happening) = happenings.recv().await {
        match happening {
            Happening::Started(game) => tell_followers(game, relations.as_ref(), &notifications).await,
            Happening::YourMove { game, account, opponent } => {
                let text = format!("Your move against {opponent}");
                let url = Some(format!("/g/{game}"));
                notifications.send_or_log(account, Kind::CorresMove, Notification { text, url }).await;
            }
        }
    }
}

/// Tells the followers of a game's players that it started: one notification per follower,
/// however many of its players they follow.
async fn tell_followers(game: GameStarted, relations: &dyn RelationStore, notifications: &Notifications) {
    let mut followers: BTreeMap<AccountKey, Vec<&str>> = BTreeMap::new();
    let players: Vec<AccountKey> = game.players.iter().filter_map(|(account, _)| *account).collect();
    for (account, name) in &game.players {
        let Some(account) = account else { continue };
        match relations.relating(*account, Relation::Follow).await {
            Ok(list) => {
                for follower in list.into_iter().filter(|f| !players.contains(f)) {
                    followers.entry(follower).or_default().push(name);
                }
            }
            Err(e) => tracing::warn!(error = %e, "could not read a player's followers"),
        }
    }
    for (follower, followed) in followers {
        let text = friend_game_text(&followed, &game.players);
        let url = Some(format!("/g/{}", game.game));
        notifications.send_or_log(follower, Kind::FriendGame, Notification { text, url }).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_friends_game_names_who_they_follow_and_the_opponent() {
        let players = [(Some(1), "Ann".to_string()), (None, "Level 3 · ~500".to_string())];
        assert_eq!(friend_game_text(&["Ann"], &players), "Ann started a game against Level 3 · ~500");
        let players = [(Some(1), "Ann".to_string()), (Some(2), "Bo".to_string())];
        assert_eq!(friend_game_text(&["Bo"], &players), "Bo started a game against Ann");
        assert_eq!(friend_game_text(&["Ann", "Bo"], &players), "Ann and Bo started a game");
    }

    #[test]
    fn a_body_it_cannot_read_shows_as_its_kind() {
        let stored = StoredNotification {
            id: 3,
            account: 1,
            kind: "tournament".into(),
            body: "{not json".into(),
            created_ms: 5,
            read: true,
        };
        assert_eq!(
            view(&stored),
            json!({"id":3,"kind":"tournament","text":"tournament","url":null,"at":5,"read":true})
        );
    }
}
