//! gambit TV through lichess's API: `GET /api/tv/channels` (each channel's featured game and
//! its top player) and `GET /api/tv/feed` (ndjson: `{"t":"featured","d":{…}}` for each game as
//! it is featured, then `{"t":"fen","d":{"fen","lm","wc","bc"}}` per move). `?channel=bot`
//! follows the bot channel (lichess's feed has only its best channel).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Map, Value};
use tokio::sync::mpsc;

use super::games::fen_line;
use super::play::{apply, keep_alive, line, ndjson, next_message};
use super::{lichess, ApiError};
use crate::chess::Color;
use crate::protocol::{Follower, GameState, GameSummary, SeatView, ServerMessage, TvChannel};
use crate::server::room::Command;
use crate::server::state::Shared;

/// A seat as lichess's TV shows a player: `user` (`name`, `id`, `title`) for an account, or
/// the seat's name; and the rating in the game's category, where there is one.
async fn player(shared: &Shared, seat: &SeatView, category: Option<crate::server::ratings::Category>) -> Value {
    match seat {
        SeatView::Human { name, account: true, .. } => {
            let mut user = json!({ "name": name, "id": lichess::user_id(name) });
            let mut value = json!({});
            if let Ok(Some(account)) = shared.accounts.find(name).await {
                if account.bot {
                    user["title"] = json!("BOT");
                }
                if let Ok(Some((rating, _))) = lichess::rating(shared, account.id, category).await {
                    value["rating"] = json!(rating);
                }
            }
            value["user"] = user;
            value
        }
        other => {
            json!({ "user": { "name": other.shown().unwrap_or("?"), "id": lichess::user_id(other.shown().unwrap_or("?")) } })
        }
    }
}

/// `GET /api/tv/channels`: `{"best": {"user", "rating", "gameId", "color"}, "bot": …}` for the
/// channels with a game (the game's White, as lichess names one player per channel).
pub(super) async fn channels(State(shared): State<Arc<Shared>>) -> Result<Response, ApiError> {
    let featured = shared.tv.now();
    let mut answer = Map::new();
    for channel in TvChannel::ALL {
        let Some(game) = featured.of(channel) else { continue };
        let category = lichess::category(game.variant, game.clock, game.days);
        let mut entry = player(&shared, &game.white, category).await;
        entry["gameId"] = json!(game.game);
        entry["color"] = json!("white");
        answer.insert(channel.name().to_string(), entry);
    }
    Ok(Json(Value::Object(answer)).into_response())
}

/// The query of `/api/tv/feed`.
#[derive(serde::Deserialize)]
pub(super) struct FeedQuery {
    channel: Option<TvChannel>,
}

/// `GET /api/tv/feed`.
pub(super) async fn feed(
    State(shared): State<Arc<Shared>>,
    Query(query): Query<FeedQuery>,
) -> Result<Response, ApiError> {
    let channel = query.channel.unwrap_or(TvChannel::Best);
    let (tx, rx) = mpsc::channel(32);
    tokio::spawn(async move { follow(shared, channel, tx).await });
    Ok(ndjson(rx))
}

/// The `featured` line of a game as it is now.
async fn featured_line(shared: &Shared, state: &GameState, summary: &GameSummary) -> Value {
    let category = lichess::category(summary.variant, summary.clock, summary.days);
    let mut players = Vec::new();
    for color in [Color::White, Color::Black] {
        let mut p = player(shared, &state.seats[color], category).await;
        p["color"] = json!(lichess::color_name(color));
        let ms = state.clock.map(|c| if color == Color::White { c.white_ms } else { c.black_ms });
        p["seconds"] = json!(ms.map_or(0, |ms| ms / 1000));
        players.push(p);
    }
    json!({ "t": "featured", "d": { "id": state.game, "orientation": "white", "players": players, "fen": state.fen } })
}

/// Feeds one TV stream until its client goes: each featured game, then its moves.
async fn follow(shared: Arc<Shared>, channel: TvChannel, tx: mpsc::Sender<Bytes>) {
    let mut featured = shared.tv.follow();
    let mut quiet = keep_alive();
    loop {
        let summary = featured.borrow_and_update().of(channel).cloned();
        let watched = match summary {
            Some(summary) => watch(&shared, channel, &summary, &mut featured, &tx, &mut quiet).await,
            None => tokio::select! {
                _ = tx.closed() => false,
                changed = featured.changed() => changed.is_ok(),
                _ = quiet.tick() => tx.send(Bytes::from_static(b"\n")).await.is_ok(),
            },
        };
        if !watched {
            return;
        }
    }
}

type Featuring = tokio::sync::watch::Receiver<crate::server::tv::Featured>;

/// True while `channel` features `summary`'s game.
fn on_screen(featured: &Featuring, channel: TvChannel, summary: &GameSummary) -> bool {
    featured.borrow().of(channel).map(|g| &g.game) == Some(&summary.game)
}

/// Sends `summary`'s game until the channel features another (true) or the client goes (false).
async fn watch(
    shared: &Shared,
    channel: TvChannel,
    summary: &GameSummary,
    featured: &mut Featuring,
    tx: &mpsc::Sender<Bytes>,
    quiet: &mut tokio::time::Interval,
) -> bool {
    let Ok(room) = shared.room(&summary.game).await else {
        return wait_for_another(channel, summary, featured, tx).await;
    };
    let Ok(sub) = room.call(Command::Watch { v: None, counted: false }).await.and_then(|r| r.into_subscription())
    else {
        return wait_for_another(channel, summary, featured, tx).await;
    };
    let mut follower: Option<Follower> = None;
    for text in &sub.initial {
        if let Ok(message) = serde_json::from_str::<ServerMessage>(text) {
            Follower::follow(&mut follower, &message);
        }
    }
    let Some(mut follower) = follower else { return wait_for_another(channel, summary, featured, tx).await };
    if tx.send(line(&featured_line(shared, follower.state(), summary).await)).await.is_err() {
        return false;
    }
    let mut rx = sub.rx;
    loop {
        tokio::select! {
            changed = featured.changed() => {
                if changed.is_err() {
                    return false;
                }
                if !on_screen(featured, channel, summary) {
                    return true;
                }
            }
            message = next_message(&room, &mut rx, tx, quiet, false) => {
                let Some(message) = message else { return false };
                if !apply(&room, &mut follower, &message).await {
                    return wait_for_another(channel, summary, featured, tx).await;
                }
                let fen = || json!({ "t": "fen", "d": fen_line(follower.state()) });
                if matches!(message, ServerMessage::Move { .. }) && tx.send(line(&fen())).await.is_err() {
                    return false;
                }
            }
        }
    }
}

/// A featured game that cannot be followed (gone meanwhile): waits for the next.
async fn wait_for_another(
    channel: TvChannel,
    summary: &GameSummary,
    featured: &mut Featuring,
    tx: &mpsc::Sender<Bytes>,
) -> bool {
    loop {
        tokio::select! {
            _ = tx.closed() => return false,
            changed = featured.changed() => {
                if changed.is_err() {
                    return false;
                }
                if !on_screen(featured, channel, summary) {
                    return true;
                }
            }
        }
    }
}
