//! The games: `/api/games` (the games held now, or the archive of finished ones), one game's
//! state at `/api/games/{id}` and its PGN at `/api/games/{id}/pgn` (from its room, or replayed
//! from the store once no room holds it), and the computer levels a seat may have.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

use super::{error, store_failed};
use crate::bots::Level;
use crate::chess::EndReason;
use crate::protocol::{
    ClockSpec, ErrorCode, GameId, GameResult, GameState, PlayerName, Refusal, SeatView, VariantName,
};
use crate::server::room::{self, Command, Reply};
use crate::server::state::Shared;
use crate::server::store::{StoreError, StoredGame, StoredSeat};

fn not_found(game: &str) -> Response {
    error(StatusCode::NOT_FOUND, ErrorCode::NoSuchGame, format!("there is no game {game:?} on this server"))
}

fn bad_query(message: String) -> Response {
    error(StatusCode::BAD_REQUEST, ErrorCode::BadRequest, message)
}

/// The most finished games one `/api/games?status=finished` answer lists.
const MAX_LIMIT: usize = 1000;

/// `/api/games`: the games held now (`status=live`, the default), or the archive of finished
/// games from the store, newest first (`status=finished&limit=N`, N from 1 to 1000, default 50).
pub(super) async fn games(Query(query): Query<HashMap<String, String>>, State(shared): State<Arc<Shared>>) -> Response {
    if let Some(unknown) = query.keys().find(|k| !matches!(k.as_str(), "status" | "limit")) {
        return bad_query(format!("unknown parameter {unknown:?}; use status=live|finished and limit=N"));
    }
    let limit = match query.get("limit").map(|l| l.parse::<usize>()) {
        None => 50,
        Some(Ok(n)) if (1..=MAX_LIMIT).contains(&n) => n,
        Some(_) => return bad_query(format!("limit must be a number from 1 to {MAX_LIMIT}")),
    };
    match query.get("status").map(String::as_str) {
        None | Some("live") => Json(shared.lobby.list().await).into_response(),
        Some("finished") => match shared.store.finished(limit).await {
            Ok(games) => Json(games.into_iter().map(FinishedGame::from).collect::<Vec<_>>()).into_response(),
            Err(e) => store_failed(e),
        },
        Some(other) => bad_query(format!("unknown status {other:?}; use live or finished")),
    }
}

/// One game of the archive, as `/api/games?status=finished` lists it.
#[derive(serde::Serialize)]
struct FinishedGame {
    game: GameId,
    variant: VariantName,
    white: SeatView,
    black: SeatView,
    plies: usize,
    result: Option<GameResult>,
    reason: Option<EndReason>,
    clock: Option<ClockSpec>,
    /// Unix times in milliseconds.
    created_ms: i64,
    ended_ms: Option<i64>,
}

impl From<StoredGame> for FinishedGame {
    fn from(g: StoredGame) -> FinishedGame {
        let view = |seat: StoredSeat| match seat {
            StoredSeat::Human { token: Some(_), name, account } => {
                SeatView::human(false, PlayerName::from_stored(name).as_ref(), account.is_some())
            }
            StoredSeat::Human { token: None, .. } => SeatView::Open,
            StoredSeat::Bot { level } => SeatView::bot(level),
            StoredSeat::Engine { name, options } => SeatView::engine(&name, &options),
        };
        FinishedGame {
            plies: g.moves.len(),
            white: view(g.white),
            black: view(g.black),
            game: g.id,
            variant: g.variant.into(),
            result: g.outcome.map(GameResult::from),
            reason: g.outcome.map(|o| o.reason),
            clock: g.clock.and_then(|c| c.spec()),
            created_ms: g.created_ms,
            ended_ms: g.ended_ms,
        }
    }
}

/// The state and PGN of a game the server no longer holds in memory, from the store.
async fn archived(shared: &Shared, id: &str) -> Result<Option<(GameState, String)>, Response> {
    let stored = match shared.store.load(id).await {
        Ok(Some(stored)) => stored,
        Ok(None) => return Ok(None),
        Err(StoreError::Damaged { message, .. }) => return Err(damaged(id, message)),
        Err(e) => return Err(store_failed(e)),
    };
    room::archived(&stored).map(Some).map_err(|e| damaged(id, e.to_string()))
}

/// The PGN of a stored game: a projection of its record, with no room made.
pub(super) fn stored_pgn(stored: &StoredGame) -> Result<String, Refusal> {
    room::archived(stored).map(|(_, pgn)| pgn)
}

/// One game's bad record is that game's problem, not the server's: a 422 that says what it is.
fn damaged(id: &str, why: String) -> Response {
    tracing::error!(game = %id, error = %why, "stored game cannot be shown");
    let message = format!("game {id:?} is damaged in the store and cannot be shown: {why}");
    error(StatusCode::UNPROCESSABLE_ENTITY, ErrorCode::DamagedGame, message)
}

/// `/api/games/{id}`: the game's state; in a cluster, with the node that holds it.
pub(super) async fn game(Path(id): Path<String>, State(shared): State<Arc<Shared>>) -> Response {
    if let Ok(room) = shared.room(&id).await {
        if let Ok(state) = room.call(Command::State).await.and_then(Reply::into_state) {
            let Some(cluster) = &shared.cluster else { return Json(state).into_response() };
            // In a cluster: which node holds the game now.
            let mut value = serde_json::to_value(state).unwrap_or_default();
            if let (Some(fields), Some(node)) = (value.as_object_mut(), cluster.owner_of(&id).await) {
                fields.insert("node".into(), node.into());
            }
            return Json(value).into_response();
        }
    }
    match archived(&shared, &id).await {
        Ok(Some((state, _))) => Json(state).into_response(),
        Ok(None) => not_found(&id),
        Err(response) => response,
    }
}

/// `/api/games/{id}/pgn`: the game's PGN as text.
pub(super) async fn pgn(Path(id): Path<String>, State(shared): State<Arc<Shared>>) -> Response {
    let text = |text: String| ([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response();
    if let Ok(room) = shared.room(&id).await {
        if let Ok(pgn) = room.call(Command::Pgn).await.and_then(Reply::into_pgn) {
            return text(pgn);
        }
    }
    match archived(&shared, &id).await {
        Ok(Some((_, pgn))) => text(pgn),
        Ok(None) => not_found(&id),
        Err(response) => response,
    }
}

/// `/api/levels`: the computer levels a seat may have, each with its calibrated rating and the
/// label the lobby shows ("Level 6 · ~1000"), weakest first.
pub(super) async fn levels() -> Json<serde_json::Value> {
    let levels: Vec<serde_json::Value> = Level::ALL
        .iter()
        .map(|l| serde_json::json!({ "level": l.get(), "rating": l.rating(), "label": l.label(), "searches": l.searches() }))
        .collect();
    Json(serde_json::Value::Array(levels))
}
