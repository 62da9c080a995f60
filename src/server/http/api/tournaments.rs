//! Tournaments over HTTP. Arenas at lichess's paths and in its shapes: `POST /api/tournament`
//! (`name`, `clockTime` in minutes, `clockIncrement`, `minutes`, `waitMinutes` or `startDate`,
//! `variant`, `rated`, `berserkable`, `streakable`, `password`, `conditions.bots`; gambit's
//! `seconds` for a duration shorter than lichess offers), `GET /api/tournament` (the current
//! ones), `GET /api/tournament/{id}`, `POST /api/tournament/{id}/join` and `…/withdraw`,
//! `GET /api/tournament/{id}/results` (ndjson); and gambit's `POST /api/tournament/{id}/bot`
//! (`level` or `engine`), by which the creator seats the server's computers.
//!
//! Round robins, which lichess lacks, at gambit's paths in the same style (docs/api.md):
//! `POST /api/roundrobin` (a challenge's fields: `clock.limit` and `clock.increment`, or
//! `days`; `variant`, `rated`; and `name`, `password`), `GET /api/roundrobin`,
//! `GET /api/roundrobin/{id}`, and `POST /api/roundrobin/{id}/join`, `…/withdraw`, `…/start`.

use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Map, Value};

use super::challenges::terms;
use super::{lichess, ApiError, Caller, Fields};
use crate::protocol::{ClockSpec, VariantName};
use crate::server::accounts::{Account, Scope};
use crate::server::state::Shared;
use crate::server::store::now_ms;
use crate::server::tournaments::arena::{self, Played, Who};
use crate::server::tournaments::{
    Arena, ArenaTerms, Call, NewTournament, RoundRobin, Stage, Tournament, TournamentError,
};

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

/// Unix ms as lichess writes a date: ISO 8601 in UTC.
fn iso(ms: i64) -> String {
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_millis(u64::try_from(ms).unwrap_or(0));
    humantime::format_rfc3339_millis(at).to_string()
}

/// The arena's status number, as lichess has it.
fn status_code(stage: Stage) -> u32 {
    match stage {
        Stage::Created => 10,
        Stage::Started => 20,
        Stage::Finished => 30,
    }
}

/// A player's line as the standing shows it.
fn standing_player(p: &arena::ArenaPlayer, rank: usize, sheet: &arena::Sheet) -> Value {
    let mut line = Map::new();
    line.insert("name".into(), json!(p.name));
    line.insert("rank".into(), json!(rank));
    if let Some(rating) = p.rating {
        line.insert("rating".into(), json!(rating));
    }
    line.insert("score".into(), json!(sheet.total));
    // lichess lists the sheet newest first.
    let scores: String = sheet.scores.iter().rev().map(|s| char::from(b'0' + s.min(&9))).collect();
    let mut sheet_json = json!({ "scores": scores });
    if sheet.fire {
        sheet_json["fire"] = json!(true);
    }
    line.insert("sheet".into(), sheet_json);
    if p.withdrawn {
        line.insert("withdraw".into(), json!(true));
    }
    if p.who.is_bot() {
        line.insert("bot".into(), json!(true));
        line.insert("title".into(), json!("BOT"));
    }
    Value::Object(line)
}

/// A performance rating over the player's games: the opponents' average rating plus 400 per
/// game won more than lost (FIDE's rough linear formula), when the opponents are rated.
fn performance(t: &Arena, player: usize) -> Option<i64> {
    let mut total = 0i64;
    let mut n = 0i64;
    let mut margin = 0i64;
    for g in &t.games {
        let (Some(side), Played::Ended { white }) = (g.side_of(player), g.played) else { continue };
        let opponent = g.opponent_of(player)?;
        let rating = t.players.get(opponent)?.rating?;
        let half = if side == 0 { white } else { 2 - white.min(2) };
        total += i64::from(rating);
        margin += i64::from(half) - 1;
        n += 1;
    }
    (n > 0).then(|| total / n + 400 * margin / n)
}

/// An arena as lichess's `GET /api/tournament/{id}` shows it (`full`: with standing, duels,
/// podium and stats; else the list's summary). `viewer`: the account looking, for `me`.
async fn arena_view(shared: &Arc<Shared>, t: &Arena, full: bool, viewer: Option<&Account>) -> Value {
    let sheets = t.sheets();
    let order = arena::standing(&sheets);
    let mut rank = vec![0; t.players.len()];
    for (i, &p) in order.iter().enumerate() {
        rank[p] = i + 1;
    }
    let now = now_ms();
    let clock = json!({ "limit": t.clock.initial_ms / 1000, "increment": t.clock.increment_ms / 1000 });
    let mut v = json!({
        "id": t.about.id,
        "system": "arena",
        "fullName": format!("{} Arena", t.about.name),
        "createdBy": t.about.created_by,
        "minutes": (t.finishes_ms - t.starts_ms) / 60_000,
        "clock": clock,
        "variant": lichess::variant(t.about.variant)["key"],
        "rated": t.about.rated,
        "berserkable": t.berserkable,
        "streakable": t.streakable,
        "botsAllowed": t.about.bots_allowed,
        "private": t.about.password.is_some(),
        "startsAt": iso(t.starts_ms),
        "finishesAt": iso(t.finishes_ms),
        "status": status_code(t.stage),
        "isStarted": t.stage != Stage::Created,
        "isFinished": t.stage == Stage::Finished,
        "nbPlayers": t.players.len(),
        "perf": {
            "key": lichess::speed(Some(t.clock)),
            "name": lichess::perf_name(t.about.variant, Some(t.clock)),
        },
    });
    match t.stage {
        Stage::Created => v["secondsToStart"] = json!((t.starts_ms - now).max(0) / 1000),
        Stage::Started => v["secondsToFinish"] = json!((t.finishes_ms - now).max(0) / 1000),
        Stage::Finished => {}
    }
    if !full {
        return v;
    }
    v["standing"] = json!({
        "page": 1,
        "players": order.iter().map(|&p| standing_player(&t.players[p], rank[p], &sheets[p])).collect::<Vec<_>>(),
    });
    let playing: Vec<&arena::ArenaGame> = t.games.iter().filter(|g| g.played == Played::Playing).collect();
    let side = |p: usize| {
        let mut side = json!({ "name": t.players[p].name, "rank": rank[p] });
        if let Some(rating) = t.players[p].rating {
            side["rating"] = json!(rating);
        }
        side
    };
    v["duels"] = json!(playing
        .iter()
        .map(|g| {
            let p = |i: usize| json!({ "n": t.players[i].name, "r": t.players[i].rating, "k": rank[i] });
            json!({ "id": g.id, "p": [p(g.white), p(g.black)] })
        })
        .collect::<Vec<_>>());
    // The featured game: the one between the best placed players.
    if let Some(g) = playing.iter().min_by_key(|g| rank[g.white] + rank[g.black]) {
        if let Ok(state) = shared.current(&g.id).await {
            v["featured"] = json!({
                "id": g.id,
                "fen": state.fen,
                "color": state.turn,
                "lastMove": state.moves.last(),
                "white": side(g.white),
                "black": side(g.black),
            });
        }
    }
    if t.stage == Stage::Finished {
        v["podium"] = json!(order
            .iter()
            .take(3)
            .map(|&p| {
                let s = &sheets[p];
                let mut line = json!({
                    "name": t.players[p].name,
                    "rank": rank[p],
                    "score": s.total,
                    "nb": { "game": s.games, "berserk": s.berserks, "win": s.wins },
                });
                if let Some(rating) = t.players[p].rating {
                    line["rating"] = json!(rating);
                }
                if let Some(perf) = performance(t, p) {
                    line["performance"] = json!(perf);
                }
                line
            })
            .collect::<Vec<_>>());
    }
    let ended: Vec<u8> = t
        .games
        .iter()
        .filter_map(|g| if let Played::Ended { white } = g.played { Some(white) } else { None })
        .collect();
    v["stats"] = json!({
        "games": ended.len(),
        "whiteWins": ended.iter().filter(|&&w| w == 2).count(),
        "blackWins": ended.iter().filter(|&&w| w == 0).count(),
        "draws": ended.iter().filter(|&&w| w == 1).count(),
        "berserks": t.games.iter().map(|g| g.berserk.iter().filter(|b| **b).count()).sum::<usize>(),
    });
    if let Some(account) = viewer {
        let me = t.players.iter().position(|p| matches!(p.who, Who::Account { id, .. } if id == account.id));
        if let Some(p) = me {
            v["me"] = json!({
                "rank": rank[p],
                "withdraw": t.players[p].withdrawn,
                "gameId": t.playing(p).map(|g| g.id.clone()),
            });
        }
    }
    v
}

/// A round robin as the API shows it.
pub fn round_robin_view(t: &RoundRobin) -> Value {
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
        "id": t.about.id,
        "kind": "roundrobin",
        "name": t.about.name,
        "createdBy": t.about.created_by,
        "createdAt": t.about.created_ms,
        "status": t.stage.name(),
        "variant": lichess::variant(t.about.variant)["key"],
        "timeControl": lichess::time_control(t.clock, t.days),
        "rated": t.about.rated,
        "private": t.about.password.is_some(),
        "botsAllowed": t.about.bots_allowed,
        "players": t.players.iter().map(|p| p.name.clone()).collect::<Vec<_>>(),
        "round": (t.stage == Stage::Started).then_some(t.round + 1),
        "rounds": rounds,
        "crosstable": crosstable,
    })
}

/// `POST /api/roundrobin`.
pub(super) async fn create_round_robin(
    State(shared): State<Arc<Shared>>,
    caller: Caller,
    fields: Fields,
) -> Result<Response, ApiError> {
    caller.require(Scope::TournamentWrite)?;
    let terms = terms(&fields)?;
    let spec = NewTournament {
        name: fields.get("name").unwrap_or_default().to_string(),
        variant: terms.variant,
        clock: terms.clock,
        days: terms.days,
        rated: terms.rated,
        password: fields.get("password").map(str::to_string),
        bots_allowed: fields.bool("conditions.bots")?.unwrap_or(false),
    };
    let t = shared.tournaments.create_round_robin(&shared, caller.account(), spec).await?;
    Ok((StatusCode::OK, Json(round_robin_view(&t))).into_response())
}

/// The lists lichess answers with: `{"created": […], "started": […], "finished": […]}`.
fn by_stage(views: Vec<(Stage, Value)>) -> Value {
    let of = |stage: Stage| views.iter().filter(|(s, _)| *s == stage).map(|(_, v)| v.clone()).collect::<Vec<_>>();
    json!({ "created": of(Stage::Created), "started": of(Stage::Started), "finished": of(Stage::Finished) })
}

/// `GET /api/roundrobin`.
pub(super) async fn list_round_robins(State(shared): State<Arc<Shared>>) -> Result<Response, ApiError> {
    let all = shared.tournaments.list(&shared).await?;
    let views = all
        .iter()
        .filter_map(|t| match t {
            Tournament::RoundRobin(t) => Some((t.stage, round_robin_view(t))),
            Tournament::Arena(_) => None,
        })
        .collect();
    Ok(Json(by_stage(views)).into_response())
}

/// `GET /api/roundrobin/{id}`.
pub(super) async fn show_round_robin(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    match shared.tournaments.view(&shared, &id).await? {
        Tournament::RoundRobin(t) => Ok(Json(round_robin_view(&t)).into_response()),
        Tournament::Arena(_) => Err(TournamentError::NotFound.into()),
    }
}

/// The call a tournament action path names (`join`, `withdraw`, `start`, `bot`), for `account`.
fn call_of(action: &str, account: &Account, fields: &Fields) -> Result<Call, ApiError> {
    Ok(match action {
        "join" => Call::join(account, fields.get("password").map(str::to_string)),
        "withdraw" => Call::Withdraw { account: account.id },
        "start" => Call::Start { account: account.id },
        "bot" => {
            let who = match (fields.number("level", 1..=u64::from(u8::MAX))?, fields.get("engine")) {
                (Some(level), None) => Who::Level { level: level as u8 },
                (None, Some(engine)) => Who::Engine { name: engine.to_string() },
                _ => return Err(ApiError::bad("give a level (a number) or an engine (a name), one of them")),
            };
            Call::AddComputer { account: account.id, who }
        }
        other => return Err(ApiError::not_found(format!("no such tournament action {other:?}"))),
    })
}

/// `POST /api/roundrobin/{id}/{join|withdraw|start}`: `{"ok": true}`.
pub(super) async fn act_round_robin(
    State(shared): State<Arc<Shared>>,
    caller: Caller,
    Path((id, action)): Path<(String, String)>,
    fields: Fields,
) -> Result<Response, ApiError> {
    act(&shared, &caller, (&id, &action), &fields, false).await
}

/// `POST /api/tournament/{id}/{join|withdraw|bot}`: `{"ok": true}`.
pub(super) async fn act_arena(
    State(shared): State<Arc<Shared>>,
    caller: Caller,
    Path((id, action)): Path<(String, String)>,
    fields: Fields,
) -> Result<Response, ApiError> {
    act(&shared, &caller, (&id, &action), &fields, true).await
}

/// Carries out `action` on tournament `id` of its kind (`arena` or a round robin): an id of
/// the other kind is not found there, and an action the kind has not is not found either.
async fn act(
    shared: &Arc<Shared>,
    caller: &Caller,
    (id, action): (&str, &str),
    fields: &Fields,
    arena: bool,
) -> Result<Response, ApiError> {
    caller.require(Scope::TournamentWrite)?;
    let found = shared.tournaments.view(shared, id).await?;
    if matches!(found, Tournament::Arena(_)) != arena {
        return Err(TournamentError::NotFound.into());
    }
    match (action, arena) {
        ("start", true) => return Err(ApiError::not_found("an arena starts at its time by itself")),
        ("bot", false) => {
            return Err(ApiError::not_found("the server's computers play in arenas, not in round robins"))
        }
        _ => {}
    }
    let call = call_of(action, caller.account(), fields)?;
    shared.tournaments.call(shared, id, call).await?;
    Ok(Json(json!({ "ok": true })).into_response())
}

/// lichess's `clockTime` choices, in minutes.
const CLOCK_TIMES: [f64; 20] =
    [0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0, 15.0, 20.0, 25.0, 30.0, 40.0, 60.0];
/// lichess's `waitMinutes` choices.
const WAIT_MINUTES: [u64; 10] = [1, 2, 3, 5, 10, 15, 20, 30, 45, 60];

/// The arena a `POST /api/tournament` asks for.
fn arena_terms(fields: &Fields, account: &Account) -> Result<(NewTournament, ArenaTerms), ApiError> {
    let clock_time = match fields.get("clockTime") {
        None => 3.0,
        Some(text) => text.parse::<f64>().ok().filter(|m| CLOCK_TIMES.contains(m)).ok_or_else(|| {
            ApiError::bad(format!("clockTime is one of 0, 0.25, 0.5, 0.75, 1, 1.5, 2, 3 … 60 minutes, not {text:?}"))
        })?,
    };
    let increment = fields.number("clockIncrement", 0..=60)?.unwrap_or(2);
    let initial_ms = (clock_time * 60_000.0) as u64;
    if initial_ms == 0 && increment == 0 {
        return Err(ApiError::bad("a clock of 0+0 is no clock: give clockTime or clockIncrement"));
    }
    let duration_ms = match (fields.number("minutes", 1..=720)?, fields.number("seconds", 10..=43_200)?) {
        (Some(_), Some(_)) => return Err(ApiError::bad("give minutes or seconds, not both")),
        (Some(m), None) => m * 60_000,
        (None, Some(s)) => s * 1000,
        (None, None) => 45 * 60_000,
    };
    let now = now_ms();
    let starts_ms = match (fields.number("waitMinutes", 0..=60)?, fields.get("startDate")) {
        (Some(_), Some(_)) => return Err(ApiError::bad("give waitMinutes or startDate, not both")),
        (Some(w), None) if w == 0 || WAIT_MINUTES.contains(&w) => now + (w as i64) * 60_000,
        (Some(w), None) => return Err(ApiError::bad(format!("waitMinutes is one of {WAIT_MINUTES:?}, not {w}"))),
        (None, Some(text)) => text
            .parse::<i64>()
            .ok()
            .filter(|ms| *ms > 0)
            .ok_or_else(|| ApiError::bad(format!("startDate is a time in Unix milliseconds, not {text:?}")))?,
        (None, None) => now + 5 * 60_000,
    };
    let variant = match fields.get("variant") {
        None => VariantName::Standard,
        Some(key) => lichess::variant_of(key).ok_or_else(|| {
            ApiError::bad(format!("this server plays the variants {}, not {key:?}", lichess::VARIANTS))
        })?,
    };
    let spec = NewTournament {
        name: fields.get("name").map_or_else(|| account.username.clone(), str::to_string),
        variant,
        clock: Some(ClockSpec { initial_ms, increment_ms: increment * 1000 }),
        days: None,
        rated: fields.bool("rated")?.unwrap_or(true),
        password: fields.get("password").map(str::to_string),
        bots_allowed: fields.bool("conditions.bots")?.unwrap_or(false),
    };
    let terms = ArenaTerms {
        starts_ms,
        duration_ms: duration_ms as i64,
        berserkable: fields.bool("berserkable")?.unwrap_or(true),
        streakable: fields.bool("streakable")?.unwrap_or(true),
    };
    Ok((spec, terms))
}

/// `POST /api/tournament`: the new arena, as `GET /api/tournament/{id}` shows it.
pub(super) async fn create_arena(
    State(shared): State<Arc<Shared>>,
    caller: Caller,
    fields: Fields,
) -> Result<Response, ApiError> {
    caller.require(Scope::TournamentWrite)?;
    let (spec, terms) = arena_terms(&fields, caller.account())?;
    let t = shared.tournaments.create_arena(&shared, caller.account(), spec, terms).await?;
    Ok(Json(arena_view(&shared, &t, true, Some(caller.account())).await).into_response())
}

/// `GET /api/tournament`: the arenas not finished and the last finished.
pub(super) async fn list_arenas(State(shared): State<Arc<Shared>>) -> Result<Response, ApiError> {
    let mut views = Vec::new();
    for t in shared.tournaments.list(&shared).await? {
        if let Tournament::Arena(t) = t {
            views.push((t.stage, arena_view(&shared, &t, false, None).await));
        }
    }
    Ok(Json(by_stage(views)).into_response())
}

/// The arena `id`, or not found.
async fn arena(shared: &Arc<Shared>, id: &str) -> Result<Arena, ApiError> {
    match shared.tournaments.view(shared, id).await? {
        Tournament::Arena(t) => Ok(t),
        Tournament::RoundRobin(_) => Err(TournamentError::NotFound.into()),
    }
}

/// `GET /api/tournament/{id}`.
pub(super) async fn show_arena(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let t = arena(&shared, &id).await?;
    let viewer = super::viewer(&shared, &headers).await?;
    Ok(Json(arena_view(&shared, &t, true, viewer.as_ref()).await).into_response())
}

/// `GET /api/tournament/{id}/results` (`nb`: at most so many; `sheet=true`: with each
/// player's sheet), one player a line in standing order.
pub(super) async fn results(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    Query(query): Query<std::collections::HashMap<String, String>>,
) -> Result<Response, ApiError> {
    let t = arena(&shared, &id).await?;
    let nb = match query.get("nb") {
        None => usize::MAX,
        Some(text) => text.parse::<usize>().map_err(|_| ApiError::bad(format!("nb is a number, not {text:?}")))?,
    };
    let with_sheet = query.get("sheet").is_some_and(|s| s == "true");
    let sheets = t.sheets();
    let mut body = String::new();
    for (i, &p) in arena::standing(&sheets).iter().enumerate().take(nb) {
        let line = standing_player(&t.players[p], i + 1, &sheets[p]);
        let mut out = json!({ "rank": i + 1, "score": sheets[p].total, "username": t.players[p].name });
        if let Some(rating) = t.players[p].rating {
            out["rating"] = json!(rating);
        }
        if let Some(perf) = performance(&t, p) {
            out["performance"] = json!(perf);
        }
        if t.players[p].who.is_bot() {
            out["title"] = json!("BOT");
        }
        if with_sheet {
            out["sheet"] = line["sheet"].clone();
        }
        body.push_str(&out.to_string());
        body.push('\n');
    }
    Ok(([(axum::http::header::CONTENT_TYPE, "application/x-ndjson")], body).into_response())
}
