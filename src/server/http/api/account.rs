//! Who is who: the caller's account (`/api/account`) and its games in progress
//! (`/api/account/playing`), any player's public data (`/api/user/{name}`), who is online
//! (`/api/users/status`, `/api/bot/online`), and the upgrade to a bot account.

use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Map, Value};

use super::{lichess, ApiError, Caller};
use crate::server::accounts::{Account, Scope};
use crate::server::ratings;
use crate::server::state::Shared;
use crate::server::store::{now_ms, Relation};

/// An account's ratings as lichess's `perfs`: per category, `games`, `rating`, `rd`, `prog`,
/// `prov` (matchmaking programs such as lichess-bot's read them).
async fn perfs(shared: &Shared, account: &Account) -> Result<Map<String, Value>, ApiError> {
    let now = now_ms();
    let mut perfs = Map::new();
    for stored in shared.accounts.store().ratings(account.id).await? {
        let r = ratings::current(&stored, now);
        perfs.insert(
            stored.category.name().to_string(),
            json!({
                "games": stored.games,
                "rating": r.rating.round() as i64,
                "rd": r.rd.round() as i64,
                "prog": 0,
                "prov": r.provisional(),
            }),
        );
    }
    Ok(perfs)
}

/// A player's public data as lichess shows a user (UserExtended, the parts gambit has); to a
/// `viewer` other than themselves, also how the two stand (`following`, `blocking`,
/// `followsYou`).
pub(super) async fn user_json(
    shared: &Shared,
    headers: &HeaderMap,
    account: &Account,
    viewer: Option<&Account>,
) -> Result<Value, ApiError> {
    let store = shared.accounts.store();
    let now = now_ms();
    let perfs = perfs(shared, account).await?;
    let created = store.account(&account.username).await?.map_or(0, |a| a.created_ms);
    let results = store.results(account.id).await?;
    let playing = store.playing(account.id).await?;
    let base = lichess::base_url(shared, headers);
    let mut value = json!({
        "id": lichess::user_id(&account.username),
        "username": account.username,
        "perfs": perfs,
        "createdAt": created,
        "seenAt": now,
        "url": format!("{base}/@/{}", account.username),
        "online": shared.notices.is_online(account.id),
        "count": {
            "all": results.wins + results.draws + results.losses,
            "win": results.wins,
            "draw": results.draws,
            "loss": results.losses,
        },
    });
    if account.bot {
        value["title"] = json!("BOT");
    }
    if let Some(game) = playing.first() {
        value["playing"] = json!(format!("{base}/g/{game}"));
    }
    if let Some(viewer) = viewer.filter(|v| v.id != account.id) {
        let mine = shared.relations.relation(viewer.id, account.id).await?;
        let theirs = shared.relations.relation(account.id, viewer.id).await?;
        value["following"] = json!(mine == Some(Relation::Follow));
        value["blocking"] = json!(mine == Some(Relation::Block));
        value["followsYou"] = json!(theirs == Some(Relation::Follow));
    }
    Ok(value)
}

/// `GET /api/account`: the caller's own data.
pub(super) async fn account(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    caller: Caller,
) -> Result<Response, ApiError> {
    Ok(Json(user_json(&shared, &headers, caller.account(), None).await?).into_response())
}

/// `GET /api/user/{name}`: a player's public data.
pub(super) async fn user(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    let account = shared.accounts.find(&name).await?.ok_or_else(|| ApiError::not_found("No such user"))?;
    let viewer = super::viewer(&shared, &headers).await?;
    Ok(Json(user_json(&shared, &headers, &account, viewer.as_ref()).await?).into_response())
}

/// `GET /api/account/playing`: the caller's games in progress, as `nowPlaying`.
pub(super) async fn playing(State(shared): State<Arc<Shared>>, caller: Caller) -> Result<Response, ApiError> {
    let account = caller.account();
    let mut now_playing = Vec::new();
    for game in shared.accounts.store().playing(account.id).await? {
        // A game whose room is gone (ended meanwhile) is no longer being played.
        let Ok(state) = super::play::current(&shared, &game).await else { continue };
        if let Some(side) = lichess::side_of(&state, account) {
            now_playing.push(lichess::game_event(&state, side, "friend"));
        }
    }
    Ok(Json(json!({ "nowPlaying": now_playing })).into_response())
}

/// The query of `/api/users/status`.
#[derive(serde::Deserialize)]
pub(super) struct StatusQuery {
    #[serde(default)]
    ids: String,
}

/// `GET /api/users/status?ids=a,b`: whether each named player is online (up to 100 names;
/// names that are no player's are left out, as lichess does).
pub(super) async fn status(
    State(shared): State<Arc<Shared>>,
    Query(query): Query<StatusQuery>,
) -> Result<Response, ApiError> {
    let ids: Vec<&str> = query.ids.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
    if ids.len() > 100 {
        return Err(ApiError::bad("at most 100 ids at once"));
    }
    let mut answer = Vec::new();
    for id in ids {
        if let Some(account) = shared.accounts.find(id).await? {
            let mut user = json!({
                "id": lichess::user_id(&account.username),
                "name": account.username,
            });
            if shared.notices.is_online(account.id) {
                user["online"] = json!(true);
            }
            if account.bot {
                user["title"] = json!("BOT");
            }
            answer.push(user);
        }
    }
    Ok(Json(Value::Array(answer)).into_response())
}

/// The query of `/api/bot/online`.
#[derive(serde::Deserialize)]
pub(super) struct OnlineQuery {
    nb: Option<usize>,
}

/// The most bots `/api/bot/online` lists.
const ONLINE_BOTS_MAX: usize = 512;

/// `GET /api/bot/online`: the bot accounts online now, as ndjson, with their `perfs`.
pub(super) async fn online_bots(
    State(shared): State<Arc<Shared>>,
    Query(query): Query<OnlineQuery>,
) -> Result<Response, ApiError> {
    let limit = query.nb.unwrap_or(ONLINE_BOTS_MAX).min(ONLINE_BOTS_MAX);
    let mut lines = String::new();
    for online in shared.notices.everyone().into_iter().filter(|a| a.bot).take(limit) {
        let Some(account) = shared.accounts.find(&online.name).await? else { continue };
        let user = json!({
            "id": lichess::user_id(&account.username),
            "username": account.username,
            "title": "BOT",
            "online": true,
            "perfs": perfs(&shared, &account).await?,
        });
        lines.push_str(&user.to_string());
        lines.push('\n');
    }
    Ok(([(header::CONTENT_TYPE, "application/x-ndjson")], lines).into_response())
}

/// `POST /api/bot/account/upgrade`: the caller's account becomes a bot account, for good
/// (lichess's rule: only an account that has played no game).
pub(super) async fn upgrade(State(shared): State<Arc<Shared>>, caller: Caller) -> Result<Response, ApiError> {
    caller.require(Scope::BotPlay)?;
    let account = caller.account();
    if !shared.accounts.make_bot(account).await? {
        return Err(ApiError::bad("This account has played games: only an account with no games can become a bot."));
    }
    tracing::info!(username = %account.username, "account upgraded to a bot account");
    Ok((StatusCode::OK, Json(json!({ "ok": true }))).into_response())
}
