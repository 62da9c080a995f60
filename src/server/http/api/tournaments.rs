//! Round robins over HTTP (gambit's own paths: lichess has no round robins; docs/api.md):
//! `POST /api/roundrobin` makes one (fields as a challenge's: `clock.limit` and
//! `clock.increment`, or `days`; `variant`, `rated`; and `name`, `password`),
//! `GET /api/roundrobin` lists them, `GET /api/roundrobin/{id}` shows one with its rounds and
//! crosstable, and `POST /api/roundrobin/{id}/join`, `…/withdraw`, `…/start` enter, leave and
//! (its creator) start it.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use super::challenges::terms;
use super::{lichess, ApiError, Caller, Fields};
use crate::server::accounts::Scope;
use crate::server::state::Shared;
use crate::server::tournaments::{NewRoundRobin, RoundRobin, Stage, TournamentError};

impl From<TournamentError> for ApiError {
    fn from(e: TournamentError) -> ApiError {
        match e {
            TournamentError::NotFound => ApiError::not_found(e.to_string()),
            TournamentError::Refused(message) => ApiError::bad(message),
            TournamentError::Store(e) => e.into(),
        }
    }
}

/// Half-points as points: 1, 0.5, 0.
fn points(half: u32) -> Value {
    if half.is_multiple_of(2) {
        json!(half / 2)
    } else {
        json!(f64::from(half) / 2.0)
    }
}

/// A round robin as the API shows it.
pub fn view(t: &RoundRobin) -> Value {
    let name = |i: usize| t.players.get(i).map(|p| p.name.clone());
    let rounds: Vec<Vec<Value>> = t
        .rounds
        .iter()
        .map(|round| {
            round
                .iter()
                .map(|b| {
                    let result = b.result.map(|w| match w {
                        2 => "1-0",
                        0 => "0-1",
                        _ => "1/2-1/2",
                    });
                    json!({
                        "white": name(b.pairing.white),
                        "black": name(b.pairing.black),
                        "game": b.game,
                        "result": result,
                        "forfeit": b.forfeit,
                    })
                })
                .collect()
        })
        .collect();
    let crosstable: Vec<Value> = t
        .crosstable()
        .iter()
        .map(|row| {
            json!({
                "name": name(row.player),
                "rank": row.rank,
                "points": points(row.points),
                "sonnebornBerger": f64::from(row.sonneborn_berger) / 4.0,
                "results": row.against.iter().map(|h| h.map(|h| points(u32::from(h)))).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "id": t.id,
        "kind": "roundrobin",
        "name": t.name,
        "createdBy": t.created_by,
        "createdAt": t.created_ms,
        "status": t.stage.name(),
        "variant": lichess::variant(t.variant),
        "timeControl": lichess::time_control(t.clock, t.days),
        "rated": t.rated,
        "private": t.password.is_some(),
        "players": t.players.iter().map(|p| p.name.clone()).collect::<Vec<_>>(),
        "round": (t.stage == Stage::Started).then_some(t.round + 1),
        "rounds": rounds,
        "crosstable": crosstable,
    })
}

/// `POST /api/roundrobin`.
pub(super) async fn create(
    State(shared): State<Arc<Shared>>,
    caller: Caller,
    fields: Fields,
) -> Result<Response, ApiError> {
    caller.require(Scope::TournamentWrite)?;
    if shared.cluster.is_some() {
        return Err(ApiError::bad("round robins are not run by a cluster yet; use a single server"));
    }
    let terms = terms(&fields)?;
    let spec = NewRoundRobin {
        name: fields.get("name").unwrap_or_default().to_string(),
        variant: terms.variant,
        clock: terms.clock,
        days: terms.days,
        rated: terms.rated,
        password: fields.get("password").map(str::to_string),
    };
    let t = shared.tournaments.create(&shared, caller.account(), spec).await?;
    Ok((StatusCode::OK, Json(view(&t))).into_response())
}

/// `GET /api/roundrobin`: `{"created": […], "started": […], "finished": […]}`.
pub(super) async fn list(State(shared): State<Arc<Shared>>) -> Result<Response, ApiError> {
    let all = shared.tournaments.list(&shared).await?;
    let of = |stage: Stage| all.iter().filter(|t| t.stage == stage).map(view).collect::<Vec<_>>();
    Ok(Json(json!({ "created": of(Stage::Created), "started": of(Stage::Started), "finished": of(Stage::Finished) }))
        .into_response())
}

/// `GET /api/roundrobin/{id}`.
pub(super) async fn show(State(shared): State<Arc<Shared>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    Ok(Json(view(&shared.tournaments.view(&shared, &id).await?)).into_response())
}

/// `POST /api/roundrobin/{id}/{join|withdraw|start}`: `{"ok": true}`.
pub(super) async fn act(
    State(shared): State<Arc<Shared>>,
    caller: Caller,
    Path((id, action)): Path<(String, String)>,
    fields: Fields,
) -> Result<Response, ApiError> {
    caller.require(Scope::TournamentWrite)?;
    let account = caller.account().clone();
    // Unknown ids are not found, whatever is asked of them.
    shared.tournaments.view(&shared, &id).await?;
    match action.as_str() {
        "join" => shared.tournaments.join(&id, account, fields.get("password").map(str::to_string)).await?,
        "withdraw" => shared.tournaments.withdraw(&id, account.id).await?,
        "start" => shared.tournaments.start(&id, account.id).await?,
        other => return Err(ApiError::not_found(format!("no such tournament action {other:?}"))),
    }
    Ok(Json(json!({ "ok": true })).into_response())
}
