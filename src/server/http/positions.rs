//! `GET /api/position`: checks a position as `create` would, so the board editor can show the
//! server's own reason for an impossible position while it is being set up.

use std::collections::HashMap;

use axum::extract::Query;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

use super::refusal;
use crate::chess::{Game, Variant};
use crate::protocol::{NewGame, RepetitionName, RulesSpec, VariantName};
use crate::server::room;

/// `?variant=standard|chess960|minichess7&fen=FEN[&castling=false][&en_passant=false]`: 200 with
/// `{"ok": true, "fen": …, "legal": n}` for a position a game can start from, or
/// `{"ok": false, "error": …}` saying why not; 400 for a bad query.
pub(super) async fn check(Query(query): Query<HashMap<String, String>>) -> Response {
    let bad = |message: String| refusal(StatusCode::BAD_REQUEST, message);
    if let Some(unknown) = query.keys().find(|k| !matches!(k.as_str(), "variant" | "fen" | "castling" | "en_passant")) {
        return bad(format!("unknown parameter {unknown:?}; use variant, fen, castling, en_passant"));
    }
    let variant = match query.get("variant").map(|v| v.parse::<Variant>()) {
        None => VariantName::Standard,
        Some(Ok(variant)) => VariantName::from(variant),
        Some(Err(e)) => return bad(e.to_string()),
    };
    let flag = |name: &str| match query.get(name).map(String::as_str) {
        None | Some("true") => Ok(true),
        Some("false") => Ok(false),
        Some(other) => Err(format!("{name} must be true or false, not {other:?}")),
    };
    let (castling, en_passant) = match (flag("castling"), flag("en_passant")) {
        (Ok(c), Ok(e)) => (c, e),
        (Err(e), _) | (_, Err(e)) => return bad(e),
    };
    let Some(fen) = query.get("fen") else { return bad("give the position as fen=FEN".into()) };
    let rules = RulesSpec { castling, en_passant, repetition: RepetitionName::default() };
    let spec = NewGame { variant, fen: Some(fen.clone()), rules, ..NewGame::default() };
    if let Err(refusal) = room::check(&spec) {
        return Json(json!({ "ok": false, "error": refusal.message })).into_response();
    }
    match Game::from_fen(Variant::from(variant), fen, rules.into()) {
        Ok(game) => {
            let legal = game.legal_moves().len();
            Json(json!({ "ok": true, "fen": game.position().fen(), "legal": legal })).into_response()
        }
        Err(e) => Json(json!({ "ok": false, "error": format!("bad FEN: {e}") })).into_response(),
    }
}
