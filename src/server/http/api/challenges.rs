//! Challenges (lichess's `/api/challenge/…`): to a player by name, accepted, declined or
//! withdrawn; against the server's computer levels (`/api/challenge/ai`); and open to whoever
//! comes with the link (`/api/challenge/open`). Each party hears of it on their event stream.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

use super::{lichess, ApiError, Caller, Fields};
use crate::bots::Level;
use crate::chess::Color;
use crate::protocol::{ClockSpec, NewGame, SeatSpec, VariantName};
use crate::server::accounts::{Account, Player, Scope};
use crate::server::challenges::{Challenge, Decline, Party, Status, Terms};
use crate::server::game_ref::GameRef;
use crate::server::notices::{GameStarted, Notice};
use crate::server::notifications::{Kind, Notification};
use crate::server::room::Command;
use crate::server::state::Shared;
use crate::server::store::Relation;

/// The rating lichess gives each of its eight computer levels (its "Stockfish level N"
/// opponents), by which `level` picks the nearest of gambit's levels (docs/api.md).
pub const LICHESS_AI_RATINGS: [u16; 8] = [800, 1100, 1400, 1700, 2000, 2300, 2700, 3000];

/// The gambit level nearest in rating to lichess's computer level `level` (1–8).
pub fn level_for_lichess(level: u8) -> Option<Level> {
    LICHESS_AI_RATINGS.get(usize::from(level).checked_sub(1)?).map(|&rating| Level::nearest(rating))
}

/// The `color` field: white, black or random (None).
pub fn color_field(fields: &Fields) -> Result<Option<Color>, ApiError> {
    match fields.get("color") {
        None | Some("random") => Ok(None),
        Some("white") => Ok(Some(Color::White)),
        Some("black") => Ok(Some(Color::Black)),
        Some(other) => Err(ApiError::bad(format!("color is white, black or random, not {other:?}"))),
    }
}

/// The game settings of a challenge's fields: `clock.limit` (seconds) and `clock.increment`,
/// or `days`, or neither (unlimited); `variant`, `color`, `rated`, `fen`.
pub(super) fn terms(fields: &Fields) -> Result<Terms, ApiError> {
    let limit = fields.number("clock.limit", 0..=10_800)?;
    let increment = fields.number("clock.increment", 0..=180)?;
    let days = fields.number("days", 1..=14)?;
    let clock = match (limit, increment) {
        (Some(limit), increment) => {
            if limit == 0 && increment.unwrap_or(0) == 0 {
                return Err(ApiError::bad("a clock of 0+0 is no clock: give clock.limit or clock.increment"));
            }
            Some(ClockSpec { initial_ms: limit * 1000, increment_ms: increment.unwrap_or(0) * 1000 })
        }
        (None, Some(_)) => return Err(ApiError::bad("clock.increment needs clock.limit")),
        (None, None) => None,
    };
    if clock.is_some() && days.is_some() {
        return Err(ApiError::bad("give either a clock or days, not both"));
    }
    let variant = match fields.get("variant") {
        None | Some("fromPosition") => VariantName::Standard,
        Some(key) => lichess::variant_of(key).ok_or_else(|| {
            ApiError::bad(format!("this server plays the variants {}, not {key:?}", lichess::VARIANTS))
        })?,
    };
    let fen = fields.get("fen").map(str::to_string);
    let rated = fields.bool("rated")?.unwrap_or(false);
    Ok(Terms { variant, clock, days: days.map(|d| d as u32), color: color_field(fields)?, rated, fen })
}

/// A party to a challenge: the account, as a seat and as lichess shows a user.
async fn party(shared: &Shared, account: &Account, terms: &Terms) -> Result<Party, ApiError> {
    let rating = lichess::rating(shared, account.id, lichess::category(terms.variant, terms.clock, terms.days)).await?;
    Ok(Party { account: account.id, name: account.username.clone(), bot: account.bot, rating })
}

/// Tells both parties of a challenge event (`challenge`, `challengeDeclined`, …).
fn tell_both(shared: &Shared, base: &str, kind: &str, challenge: &Challenge) {
    for account in [challenge.challenger.account, challenge.dest.account] {
        let mut event = json!({ "type": kind, "challenge": lichess::challenge(shared, base, challenge, None) });
        if kind == "challenge" {
            event["compat"] = json!({ "bot": true, "board": true });
        }
        shared.notices.tell(account, Notice::Challenge(Arc::from(event.to_string())));
    }
}

/// `POST /api/challenge/{username}`: challenges a player.
pub(super) async fn create(
    State(shared): State<Arc<Shared>>,
    caller: Caller,
    Path(name): Path<String>,
    headers: HeaderMap,
    fields: Fields,
) -> Result<Response, ApiError> {
    caller.require(Scope::ChallengeWrite)?;
    let terms = terms(&fields)?;
    let me = caller.account();
    let dest = shared.accounts.find(&name).await?.ok_or_else(|| ApiError::not_found("No such user"))?;
    if dest.id == me.id {
        return Err(ApiError::bad("You cannot challenge yourself."));
    }
    if shared.relations.relation(dest.id, me.id).await? == Some(Relation::Block) {
        return Err(ApiError::bad(format!("{} does not accept challenges from you.", dest.username)));
    }
    if terms.rated {
        if terms.clock.is_none() && terms.days.is_none() {
            return Err(ApiError::bad("an untimed game cannot be rated here; give a clock or days"));
        }
        if (me.bot || dest.bot) && !(me.bot && dest.bot) && !shared.config.allow_rated_bots {
            return Err(ApiError::bad("rated games between bots and people are not allowed on this server"));
        }
    }
    // Checked now, so that the challenged player is never asked to accept a game that cannot start.
    crate::server::room::check(&terms.game(Color::White, me.name()))?;
    let challenge = Challenge::new(party(&shared, me, &terms).await?, party(&shared, &dest, &terms).await?, terms);
    shared.challenges.add(&challenge).await?;
    let base = lichess::base_url(&shared, &headers);
    tell_both(&shared, &base, "challenge", &challenge);
    let text = format!("{} challenges you: {}", me.username, challenge.terms.describe());
    shared.notifications.send_or_log(dest.id, Kind::Challenge, Notification { text, url: None }).await;
    tracing::info!(challenge = %challenge.id, from = %me.username, to = %dest.username, "challenge made");
    let mut answer = lichess::challenge(&shared, &base, &challenge, Some("out"));
    // lichess-bot reads the challenge under "id" at the top level or under "challenge".
    answer["challenge"] = lichess::challenge(&shared, &base, &challenge, Some("out"));
    Ok(Json(answer).into_response())
}

/// `GET /api/challenge`: the caller's challenges waiting, to them (`in`) and from them (`out`).
pub(super) async fn list(
    State(shared): State<Arc<Shared>>,
    caller: Caller,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    caller.require(Scope::ChallengeRead)?;
    let base = lichess::base_url(&shared, &headers);
    let (incoming, outgoing) = shared.challenges.of(caller.account().id).await?;
    let show = |list: Vec<Challenge>, direction| {
        list.iter().map(|c| lichess::challenge(&shared, &base, c, Some(direction))).collect::<Vec<_>>()
    };
    Ok(Json(json!({ "in": show(incoming, "in"), "out": show(outgoing, "out") })).into_response())
}

/// `GET /api/challenge/{id}/show`: one challenge the caller is a party to.
pub(super) async fn show(
    State(shared): State<Arc<Shared>>,
    caller: Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    caller.require(Scope::ChallengeRead)?;
    let me = caller.account().id;
    let challenge = shared.challenges.get(&id, me).await?;
    let direction = if challenge.dest.account == me { "in" } else { "out" };
    Ok(Json(lichess::challenge(&shared, &lichess::base_url(&shared, &headers), &challenge, Some(direction)))
        .into_response())
}

/// `POST /api/challenge/{id}/accept`: the game starts, on both players' event streams.
pub(super) async fn accept(
    State(shared): State<Arc<Shared>>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let me = caller.account();
    if !(caller.0.scopes.contains(Scope::ChallengeWrite)
        || caller.0.scopes.contains(Scope::BotPlay)
        || caller.0.scopes.contains(Scope::BoardPlay))
    {
        return Err(ApiError::new(StatusCode::FORBIDDEN, "Missing scope"));
    }
    let mut challenge = shared.challenges.answer(&id, me.id).await?;
    let Some(challenger) = shared.accounts.find(&challenge.challenger.name).await? else {
        return Err(ApiError::not_found("the challenger's account is gone"));
    };
    let side = challenge.final_color;
    let spec = challenge.terms.game(side, challenger.name());
    let (game, created) = match shared.lobby.create_as(challenge.id.clone(), spec, Player::of(&challenger)).await {
        Ok(made) => made,
        Err(refusal) => {
            // The game could not be made (the server is full): the challenge stays answerable.
            let _ = shared.challenges.add(&challenge).await;
            return Err(refusal.into());
        }
    };
    let room = GameRef::Local(created.handle.clone());
    let seated = room.call(Command::Join { color: Some(side.other()), player: Player::of(me) }).await?.into_seated()?;
    // Neither player is connected yet: each is present once their stream takes the seat.
    if let Some((_, token)) = &created.seat {
        room.tell(Command::Leave { token: token.clone() }).await;
    }
    room.tell(Command::Leave { token: seated.token }).await;
    if let Some(dir) = &shared.config.log_dir {
        crate::server::observers::textlog::start(dir.clone(), game.clone(), created.handle);
    }
    // The room tells both players the game started (the join took its last open seat).
    challenge.status = Status::Accepted;
    tracing::info!(challenge = %id, game = %game, "challenge accepted");
    // lichess answers `{"ok":true}`; the game's id is gambit's addition (the web page opens it).
    Ok(Json(json!({ "ok": true, "game": game })).into_response())
}

/// `POST /api/challenge/{id}/decline` (`reason`: one of lichess's keys).
pub(super) async fn decline(
    State(shared): State<Arc<Shared>>,
    caller: Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    fields: Fields,
) -> Result<Response, ApiError> {
    caller.require(Scope::ChallengeWrite).or_else(|_| caller.require(Scope::BotPlay))?;
    let key = fields.get("reason").unwrap_or_default();
    let reason = Decline::parse(key)
        .ok_or_else(|| ApiError::bad(format!("reason {key:?} is none of lichess's: {}", Decline::keys())))?;
    let mut challenge = shared.challenges.answer(&id, caller.account().id).await?;
    challenge.status = Status::Declined;
    challenge.decline = Some(reason);
    tell_both(&shared, &lichess::base_url(&shared, &headers), "challengeDeclined", &challenge);
    Ok(Json(json!({ "ok": true })).into_response())
}

/// `POST /api/challenge/{id}/cancel`: the challenger withdraws it.
pub(super) async fn cancel(
    State(shared): State<Arc<Shared>>,
    caller: Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    caller.require(Scope::ChallengeWrite).or_else(|_| caller.require(Scope::BotPlay))?;
    let mut challenge = shared.challenges.withdraw(&id, caller.account().id).await?;
    challenge.status = Status::Canceled;
    tell_both(&shared, &lichess::base_url(&shared, &headers), "challengeCanceled", &challenge);
    Ok(Json(json!({ "ok": true })).into_response())
}

/// `POST /api/challenge/ai`: a game against the server's computer at once. `level` 1–8 is
/// lichess's scale (the nearest gambit level by rating); gambit's own `gambitLevel` 1–12 and
/// `engine` (an `--engine` by name) are extensions (docs/api.md).
pub(super) async fn ai(
    State(shared): State<Arc<Shared>>,
    caller: Caller,
    fields: Fields,
) -> Result<Response, ApiError> {
    caller.require(Scope::ChallengeWrite).or_else(|_| caller.require(Scope::BoardPlay))?;
    let mut terms = terms(&fields)?;
    // lichess's computer games are never rated.
    terms.rated = false;
    let seat = match (
        fields.get("engine"),
        fields.number("gambitLevel", 1..=u64::from(Level::FULL.get()))?,
        fields.number("level", 1..=8)?,
    ) {
        (Some(engine), None, None) => SeatSpec::Engine { name: engine.to_string(), options: Default::default() },
        (None, Some(level), None) => SeatSpec::Bot { level: level as u8 },
        (None, None, level) => {
            let level = level.unwrap_or(1) as u8;
            let ours = level_for_lichess(level).ok_or_else(|| ApiError::bad("level is 1 to 8"))?;
            SeatSpec::Bot { level: ours.get() }
        }
        _ => return Err(ApiError::bad("give one of level, gambitLevel or engine")),
    };
    let me = caller.account();
    let side = terms.color.unwrap_or_else(|| if rand::random::<bool>() { Color::White } else { Color::Black });
    let mut spec: NewGame = terms.game(side, me.name());
    match side {
        Color::White => spec.black = seat,
        Color::Black => spec.white = seat,
    }
    let (game, created) = shared.lobby.create(spec, None, Player::of(me)).await?;
    let room = GameRef::Local(created.handle.clone());
    if let Some((_, token)) = &created.seat {
        room.tell(Command::Leave { token: token.clone() }).await;
    }
    if let Some(dir) = &shared.config.log_dir {
        crate::server::observers::textlog::start(dir.clone(), game.clone(), created.handle);
    }
    shared.notices.game_started(GameStarted::against_computer(game.clone(), side, me.id, &created.summary));
    let state = room.call(Command::State).await?.into_state()?;
    tracing::info!(game = %game, "AI challenge");
    Ok((StatusCode::CREATED, Json(ai_game(&state, side))).into_response())
}

/// The game an AI challenge made, as lichess answers it.
fn ai_game(state: &crate::protocol::GameState, side: Color) -> serde_json::Value {
    let clock = lichess::time_control_of(state);
    let status = lichess::status(state);
    json!({
        "id": state.game,
        "fullId": state.game,
        "variant": lichess::variant(state.variant),
        "speed": lichess::speed(clock),
        "perf": lichess::perf(state.variant, clock),
        "rated": false,
        "source": "ai",
        "createdAt": crate::server::store::now_ms(),
        "fen": state.fen,
        "turns": state.moves.len(),
        "status": { "id": lichess::status_id(status), "name": status },
        "player": lichess::color_name(side),
    })
}

/// `POST /api/challenge/open`: a game whose two seats go to whoever comes with its link
/// (`urlWhite` and `urlBlack` pick a colour); the caller takes no seat.
pub(super) async fn open(
    State(shared): State<Arc<Shared>>,
    caller: Caller,
    headers: HeaderMap,
    fields: Fields,
) -> Result<Response, ApiError> {
    caller.require(Scope::ChallengeWrite)?;
    let terms = terms(&fields)?;
    let mut spec = terms.game(Color::White, None);
    spec.as_side = None;
    spec.open = true;
    let (game, created) = shared.lobby.create(spec, None, Player::of(caller.account())).await?;
    if let Some(dir) = &shared.config.log_dir {
        crate::server::observers::textlog::start(dir.clone(), game.clone(), created.handle);
    }
    let base = lichess::base_url(&shared, &headers);
    let url = format!("{base}/g/{game}");
    tracing::info!(game = %game, "open challenge");
    Ok(Json(json!({
        "id": game,
        "url": url,
        "status": "created",
        "challenger": null,
        "destUser": null,
        "variant": lichess::variant(terms.variant),
        "rated": terms.rated,
        "speed": lichess::speed(terms.clock),
        "timeControl": lichess::time_control(terms.clock, terms.days),
        "color": "random",
        "finalColor": "white",
        "perf": { "icon": "", "name": lichess::perf_name(terms.variant, terms.clock) },
        "open": {},
        "urlWhite": format!("{url}?color=white"),
        "urlBlack": format!("{url}?color=black"),
    }))
    .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lichess_levels_seat_the_nearest_gambit_level() {
        let picked: Vec<u8> = (1..=8).map(|l| level_for_lichess(l).map_or(0, Level::get)).collect();
        assert_eq!(picked, [5, 6, 8, 10, 11, 12, 12, 12]);
        assert!(level_for_lichess(0).is_none() && level_for_lichess(9).is_none());
    }
}
