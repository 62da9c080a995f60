//! The event stream (`GET /api/stream/event`): what a player's program hears of as it
//! happens — each game of theirs starting (the games already in progress first) and finishing,
//! challenges to and from them — as lichess's ndjson, with an empty line every few seconds
//! while nothing happens. The account counts as online while a stream is open. With
//! `?notifications=true` (gambit's own, for its web pages) it also carries each notification as
//! it arrives: `{"type":"notification","notification":{…}}`; lichess's programs never ask for it,
//! so they meet no type they do not know.

use std::collections::HashSet;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::response::Response;
use serde_json::{json, Value};
use tokio::sync::{broadcast, mpsc};

use super::play::{current, keep_alive, line, ndjson};
use super::{lichess, ApiError, Caller};
use crate::protocol::{GameId, GameState, SeatView, ServerMessage, Status};
use crate::server::accounts::Account;
use crate::server::notices::{Notice, Online};
use crate::server::room::Command;
use crate::server::state::Shared;

/// The query of `/api/stream/event`.
#[derive(serde::Deserialize)]
pub(super) struct StreamQuery {
    #[serde(default)]
    notifications: bool,
}

/// `GET /api/stream/event`.
pub(super) async fn stream(
    State(shared): State<Arc<Shared>>,
    caller: Caller,
    headers: HeaderMap,
    Query(query): Query<StreamQuery>,
) -> Result<Response, ApiError> {
    let slot = caller.stream_slot(&shared)?;
    let account = caller.account().clone();
    let (notices, online) = shared.notices.listen(account.id, &account.username, account.bot);
    let base = lichess::base_url(&shared, &headers);
    let (tx, rx) = mpsc::channel(32);
    tokio::spawn(async move {
        events(shared, account, notices, online, tx, base, query.notifications).await;
        drop(slot);
    });
    Ok(ndjson(rx))
}

/// Feeds one event stream until its client goes.
async fn events(
    shared: Arc<Shared>,
    account: Account,
    mut notices: broadcast::Receiver<Notice>,
    online: Online,
    tx: mpsc::Sender<Bytes>,
    base: String,
    with_notifications: bool,
) {
    let _online = online;
    let (finished_tx, mut finished) = mpsc::channel::<Value>(16);
    let mut started: HashSet<GameId> = HashSet::new();
    let playing = shared.accounts.store().playing(account.id).await.unwrap_or_default();
    for game in playing.into_iter().rev() {
        if !game_started(&shared, &account, game, &tx, &finished_tx, &mut started).await {
            return;
        }
    }
    for challenge in shared.challenges.of(account.id).await.map(|(incoming, _)| incoming).unwrap_or_default() {
        let event = json!({
            "type": "challenge",
            "challenge": lichess::challenge(&shared, &base, &challenge, None),
            "compat": { "bot": true, "board": true },
        });
        if tx.send(line(&event)).await.is_err() {
            return;
        }
    }
    let mut quiet = keep_alive();
    loop {
        let sent = tokio::select! {
            _ = tx.closed() => return,
            _ = quiet.tick() => tx.send(Bytes::from_static(b"\n")).await.is_ok(),
            Some(finish) = finished.recv() => tx.send(line(&finish)).await.is_ok(),
            notice = notices.recv() => match notice {
                Ok(Notice::GameStart { game }) => {
                    game_started(&shared, &account, game, &tx, &finished_tx, &mut started).await
                }
                Ok(Notice::Challenge(text)) => tx.send(Bytes::from(format!("{text}\n"))).await.is_ok(),
                Ok(Notice::Notification(text)) if with_notifications => {
                    tx.send(Bytes::from(format!("{{\"type\":\"notification\",\"notification\":{text}}}\n"))).await.is_ok()
                }
                Ok(Notice::Notification(_)) => true,
                Err(broadcast::error::RecvError::Lagged(missed)) => {
                    tracing::warn!(username = %account.username, missed, "an event stream fell behind");
                    true
                }
                Err(broadcast::error::RecvError::Closed) => return,
            },
        };
        if !sent {
            return;
        }
        quiet.reset();
    }
}

/// Where a game came from, as lichess says: against the computer, or a friend's.
fn source(state: &GameState, side: crate::chess::Color) -> &'static str {
    match state.seats[side.other()] {
        SeatView::Bot { .. } | SeatView::Engine(_) => "ai",
        _ => "friend",
    }
}

/// Sends `gameStart` for `game` (once per stream) and follows it to send `gameFinish`; false
/// if the client went.
async fn game_started(
    shared: &Arc<Shared>,
    account: &Account,
    game: GameId,
    tx: &mpsc::Sender<Bytes>,
    finished: &mpsc::Sender<Value>,
    started: &mut HashSet<GameId>,
) -> bool {
    if !started.insert(game.clone()) {
        return true;
    }
    let Ok(state) = current(shared, &game).await else { return true };
    let Some(side) = lichess::side_of(&state, account) else { return true };
    let source = source(&state, side);
    let start = json!({ "type": "gameStart", "game": lichess::game_event(&state, side, source) });
    if tx.send(line(&start)).await.is_err() {
        return false;
    }
    tokio::spawn(watch_to_the_end(shared.clone(), game, side, source, finished.clone()));
    true
}

/// Waits for `game` to end and sends its `gameFinish` (or gives up when the stream closes).
async fn watch_to_the_end(
    shared: Arc<Shared>,
    game: GameId,
    side: crate::chess::Color,
    source: &'static str,
    finished: mpsc::Sender<Value>,
) {
    let ended = |state: &GameState| state.status == Status::Ended;
    let mut sub = match shared.room(&game).await {
        Ok(room) => match room.call(Command::Observe { v: None }).await.and_then(|r| r.into_subscription()) {
            Ok(sub) => sub,
            Err(_) => return,
        },
        Err(_) => return,
    };
    loop {
        let over = tokio::select! {
            _ = finished.closed() => return,
            event = sub.rx.recv() => match event {
                Ok(event) => matches!(serde_json::from_str::<ServerMessage>(&event.text), Ok(ServerMessage::End { .. })),
                // Missed events, or the room went: the game as it is now says.
                Err(_) => match current(&shared, &game).await {
                    Ok(state) if ended(&state) => true,
                    Ok(_) => {
                        match shared.room(&game).await {
                            Ok(room) => match room.call(Command::Observe { v: None }).await.and_then(|r| r.into_subscription()) {
                                Ok(fresh) => sub = fresh,
                                Err(_) => return,
                            },
                            Err(_) => return,
                        }
                        false
                    }
                    Err(_) => return,
                },
            },
        };
        if over {
            if let Ok(state) = current(&shared, &game).await {
                let finish = json!({ "type": "gameFinish", "game": lichess::game_event(&state, side, source) });
                let _ = finished.send(finish).await;
            }
            return;
        }
    }
}
