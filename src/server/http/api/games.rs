//! Games as lichess exports and streams them: one game as PGN or JSON
//! (`/game/export/{id}`), a player's games as PGN or ndjson (`/api/games/user/{name}`), and a
//! game followed live by anyone (`/api/stream/game/{id}`: the position, then each move).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};
use tokio::sync::{broadcast, mpsc};

use super::play::{apply, keep_alive, line, ndjson, next_message};
use super::{lichess, ApiError};
use crate::protocol::{Follower, GameState, ServerMessage, Status};
use crate::server::room::Command;
use crate::server::state::Shared;

/// True if the request asks for JSON (or ndjson) rather than PGN.
fn wants_json(headers: &HeaderMap) -> bool {
    headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()).is_some_and(|a| a.contains("json"))
}

/// A game as lichess's JSON export shows it (GameJson, the parts gambit has).
fn game_json(state: &GameState, created_ms: i64) -> Value {
    let clock = lichess::time_control_of(state);
    let player = |seat: &crate::protocol::SeatView| match seat {
        crate::protocol::SeatView::Human { name, account: true, .. } => {
            json!({ "user": { "name": name, "id": lichess::user_id(name) } })
        }
        crate::protocol::SeatView::Bot { level, .. } => json!({ "aiLevel": level }),
        other => json!({ "name": other.shown() }),
    };
    let mut value = json!({
        "id": state.game,
        "rated": state.rated,
        "variant": lichess::variant(state.variant)["key"],
        "speed": lichess::speed(clock),
        "perf": lichess::perf(state.variant, clock),
        "createdAt": created_ms,
        "status": lichess::status(state),
        "players": { "white": player(&state.seats.white), "black": player(&state.seats.black) },
        "moves": state.san.join(" "),
        "initialFen": state.initial_fen,
    });
    if let Some(winner) = lichess::winner(state) {
        value["winner"] = json!(winner);
    }
    if let Some(c) = clock {
        value["clock"] = json!({ "initial": c.initial_ms / 1000, "increment": c.increment_ms / 1000 });
    }
    value
}

/// One game's state, PGN and creation time: from its room, or from the archive.
async fn game(shared: &Shared, id: &str) -> Result<(GameState, String, i64), ApiError> {
    let stored = shared.store.load(id).await?;
    let created = stored.as_ref().map_or(0, |g| g.created_ms);
    if let Ok(room) = shared.room(id).await {
        let state = room.call(Command::State).await?.into_state()?;
        let pgn = room.call(Command::Pgn).await?.into_pgn()?;
        return Ok((state, pgn, created));
    }
    let stored = stored.ok_or_else(|| ApiError::not_found("No such game"))?;
    let (state, pgn) = crate::server::room::archived(&stored)?;
    Ok((state, pgn, created))
}

/// `GET /game/export/{id}`: PGN, or JSON with `Accept: application/json`.
pub(super) async fn export(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (state, pgn, created) = game(&shared, &id).await?;
    if wants_json(&headers) {
        return Ok(Json(game_json(&state, created)).into_response());
    }
    Ok(([(header::CONTENT_TYPE, "application/x-chess-pgn")], pgn).into_response())
}

/// The query of `/api/games/user/{name}`.
#[derive(serde::Deserialize)]
pub(super) struct UserGames {
    max: Option<u64>,
}

/// The most games one export sends.
const EXPORT_MAX: u64 = 1000;

/// `GET /api/games/user/{name}`: the player's finished games, newest first, as PGN or (with
/// `Accept: application/x-ndjson`) one JSON game per line; `max` limits how many.
pub(super) async fn of_user(
    State(shared): State<Arc<Shared>>,
    Path(name): Path<String>,
    Query(query): Query<UserGames>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let account = shared.accounts.find(&name).await?.ok_or_else(|| ApiError::not_found("No such user"))?;
    let max = query.max.unwrap_or(EXPORT_MAX).min(EXPORT_MAX);
    let (_, games) = shared.accounts.store().games_of(account.id, 0, max).await?;
    let json = wants_json(&headers);
    let mut out = String::new();
    for stored in &games {
        // A damaged game is left out of the export rather than failing all of it.
        let Ok((state, pgn)) = crate::server::room::archived(stored) else { continue };
        if json {
            out.push_str(&game_json(&state, stored.created_ms).to_string());
            out.push('\n');
        } else {
            out.push_str(&pgn);
            out.push_str("\n\n");
        }
    }
    let content_type = if json { "application/x-ndjson" } else { "application/x-chess-pgn" };
    Ok(([(header::CONTENT_TYPE, content_type)], out).into_response())
}

/// The line that starts (and ends) a spectator's game stream: the game and its position.
fn game_line(state: &GameState, created_ms: i64) -> Value {
    let mut value = game_json(state, created_ms);
    value["fen"] = json!(state.fen);
    value["turns"] = json!(state.moves.len());
    value["player"] = json!(lichess::color_name(state.turn));
    value["lastMove"] = json!(state.moves.last().cloned().unwrap_or_default());
    value
}

/// A move as a game's and TV's streams tell it: `{"fen", "lm", "wc", "bc"}` (seconds left).
pub(super) fn fen_line(state: &GameState) -> Value {
    let (wc, bc) = state.clock.map_or((0, 0), |c| (c.white_ms / 1000, c.black_ms / 1000));
    json!({ "fen": state.fen, "lm": state.moves.last(), "wc": wc, "bc": bc })
}

/// `GET /api/stream/game/{id}`: anyone may follow a game: the game first, then
/// `{"fen","lm","wc","bc"}` per move, then the game again when it ends.
pub(super) async fn stream(State(shared): State<Arc<Shared>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let room = shared.room(&id).await?;
    let sub = room.call(Command::Watch { v: None, counted: true }).await?.into_subscription()?;
    let created = shared.store.load(&id).await?.map_or(0, |g| g.created_ms);
    let (tx, rx) = mpsc::channel(32);
    tokio::spawn(async move {
        let mut follower: Option<Follower> = None;
        for text in &sub.initial {
            if let Ok(message) = serde_json::from_str::<ServerMessage>(text) {
                Follower::follow(&mut follower, &message);
            }
        }
        if let Some(mut follower) = follower {
            if tx.send(line(&game_line(follower.state(), created))).await.is_ok()
                && follower.state().status != Status::Ended
            {
                spectate(&room, sub.rx, &mut follower, &tx, created).await;
            }
        }
        room.tell(Command::Unwatch).await;
    });
    Ok(ndjson(rx))
}

/// Forwards a spectator's lines until the game ends, the feed closes or the client goes.
async fn spectate(
    room: &crate::server::game_ref::GameRef,
    mut rx: broadcast::Receiver<crate::server::room::Broadcast>,
    follower: &mut Follower,
    tx: &mpsc::Sender<Bytes>,
    created: i64,
) {
    let mut quiet = keep_alive();
    while let Some(message) = next_message(room, &mut rx, tx, &mut quiet, false).await {
        if !apply(room, follower, &message).await {
            return;
        }
        let state = follower.state();
        let out = match &message {
            ServerMessage::Move { .. } => Some(fen_line(state)),
            ServerMessage::State(_) | ServerMessage::End { .. } => Some(game_line(state, created)),
            _ => None,
        };
        if let Some(out) = out {
            if tx.send(line(&out)).await.is_err() {
                return;
            }
        }
        if state.status == Status::Ended {
            return;
        }
    }
}
