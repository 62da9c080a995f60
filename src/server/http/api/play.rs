//! Playing through the API: the Bot API (`/api/bot/game/…`, bot accounts) and the Board API
//! (`/api/board/game/…`, people's accounts), the same handlers for both. A game's stream
//! (`gameFull`, then `gameState`, `chatLine`, `opponentGone` as they happen) is the room's own
//! feed, followed with the protocol's one follower and written in lichess's shapes; each
//! action is the room's `Act` command with the seat token the caller's account derives for
//! that game. `POST /api/board/seek` posts a seek to the lobby and holds the request open
//! until someone takes it.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use futures::StreamExt;
use serde_json::{json, Value};
use tokio::sync::{broadcast, mpsc};

use super::{lichess, ApiError, Caller, Fields};
use crate::protocol::{
    Action, ChatRoom, ChatText, ClaimKind, ClockSpec, Follower, GameState, NewSeek, ServerMessage, Status,
};
use crate::server::accounts::{Account, Scope};
use crate::server::game_ref::GameRef;
use crate::server::lobby::seeks::Seeker;
use crate::server::room::{Command, Seated};
use crate::server::state::Shared;
use crate::server::store::Relation;

/// How often a quiet stream sends an empty line, so clients and proxies know it is alive
/// (lichess-bot gives up on a stream silent for 15 s).
pub const KEEP_ALIVE: Duration = Duration::from_secs(6);

/// Which of lichess's two playing APIs a request came through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayApi {
    Bot,
    Board,
}

impl PlayApi {
    /// Where its routes start.
    pub fn base(self) -> &'static str {
        match self {
            PlayApi::Bot => "/api/bot",
            PlayApi::Board => "/api/board",
        }
    }

    /// Refuses a caller that may not use this API: the Bot API is for bot accounts with
    /// `bot:play`, the Board API for people's accounts with `board:play` (lichess's rules).
    fn admit(self, caller: &Caller) -> Result<(), ApiError> {
        match self {
            PlayApi::Bot => {
                caller.require(Scope::BotPlay)?;
                if !caller.account().bot {
                    return Err(ApiError::bad("This endpoint can only be used with a Bot account."));
                }
            }
            PlayApi::Board => {
                caller.require(Scope::BoardPlay)?;
                if caller.account().bot {
                    return Err(ApiError::bad("This endpoint cannot be used with a Bot account."));
                }
            }
        }
        Ok(())
    }
}

/// The game's state now: from its room, or from the archive once it has ended and gone.
pub async fn current(shared: &Shared, game: &str) -> Result<GameState, ApiError> {
    Ok(shared.current(game).await?)
}

/// `{"ok":true}`, lichess's answer to an action.
fn ok() -> Response {
    Json(json!({ "ok": true })).into_response()
}

/// Carries out `action` for the caller's seat in `game`.
async fn act_as(shared: &Shared, account: &Account, game: &str, action: Action) -> Result<(), ApiError> {
    let room = shared.room(game).await?;
    room.call(Command::act(account.seat_token(game), action)).await?.into_done()?;
    Ok(())
}

/// `POST …/game/{id}/move/{uci}` (with `offeringDraw=true` to offer or accept a draw too).
pub(super) async fn make_move(
    State(shared): State<Arc<Shared>>,
    Extension(api): Extension<PlayApi>,
    caller: Caller,
    Path((game, uci)): Path<(String, String)>,
    fields: Fields,
) -> Result<Response, ApiError> {
    api.admit(&caller)?;
    let offering_draw = fields.bool("offeringDraw")?.unwrap_or(false);
    act_as(&shared, caller.account(), &game, Action::play(uci)).await?;
    if offering_draw {
        // The move is made either way; an offer the game no longer takes (it ended) is moot.
        let _ = act_as(&shared, caller.account(), &game, Action::Draw).await;
    }
    Ok(ok())
}

/// The action a path names: `abort`, `resign`, `claim-victory`, `claim-draw`, or an answer to
/// an offer, `draw/yes|no` and `takeback/yes|no` (`yes` offers or accepts, `no` declines).
fn action_of(action: &str, answer: Option<&str>) -> Result<Action, ApiError> {
    let yes = match answer {
        None => None,
        Some("yes" | "true") => Some(true),
        Some("no" | "false") => Some(false),
        Some(other) => return Err(ApiError::bad(format!("answer yes or no, not {other:?}"))),
    };
    Ok(match (action, yes) {
        ("abort", None) => Action::Abort,
        ("resign", None) => Action::Resign,
        ("claim-victory", None) => Action::Claim { result: ClaimKind::Win },
        ("claim-draw", None) => Action::Claim { result: ClaimKind::Draw },
        ("berserk", None) => Action::Berserk,
        ("draw", Some(true)) => Action::Draw,
        ("takeback", Some(true)) => Action::Undo,
        ("draw" | "takeback", Some(false)) => Action::Decline,
        (other, _) => return Err(ApiError::not_found(format!("no game action {other:?}"))),
    })
}

/// `POST …/game/{id}/{action}` and `…/game/{id}/{offer}/{answer}` (see [`action_of`]).
pub(super) async fn act(
    State(shared): State<Arc<Shared>>,
    Extension(api): Extension<PlayApi>,
    caller: Caller,
    Path(params): Path<Vec<(String, String)>>,
) -> Result<Response, ApiError> {
    api.admit(&caller)?;
    let param = |name: &str| params.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
    let game = param("id").unwrap_or_default();
    let action = action_of(param("action").unwrap_or_default(), param("answer"))?;
    act_as(&shared, caller.account(), game, action).await?;
    Ok(ok())
}

/// `POST …/game/{id}/chat` (`room` player or spectator, `text`).
pub(super) async fn chat(
    State(shared): State<Arc<Shared>>,
    Extension(api): Extension<PlayApi>,
    caller: Caller,
    ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
    Path(game): Path<String>,
    headers: HeaderMap,
    fields: Fields,
) -> Result<Response, ApiError> {
    api.admit(&caller)?;
    let room = match fields.get("room") {
        Some("player") => ChatRoom::Players,
        Some("spectator") => ChatRoom::Spectators,
        Some(other) => return Err(ApiError::bad(format!("room is player or spectator, not {other:?}"))),
        None => return Err(ApiError::bad("room is missing: player or spectator")),
    };
    let text = ChatText::parse(fields.get("text").unwrap_or_default()).map_err(|e| ApiError::bad(e.to_string()))?;
    let ip = crate::server::limits::client_ip(peer.ip(), &headers, &shared.config.trusted_proxies);
    if !shared.limits.may_chat(ip) {
        return Err(crate::protocol::Refusal::rate_limited("your address is writing too fast").into());
    }
    let account = caller.account();
    let handle = shared.room(&game).await?;
    let blocked_by = shared.relations.relating(account.id, Relation::Block).await?;
    let command =
        Command::Chat { token: Some(account.seat_token(&game)), name: account.name(), room, text, blocked_by };
    handle.call(command).await?.into_done()?;
    Ok(ok())
}

/// `GET …/game/{id}/chat`: the players' chat so far, oldest first (as kept in the store).
pub(super) async fn chat_lines(
    State(shared): State<Arc<Shared>>,
    Extension(api): Extension<PlayApi>,
    caller: Caller,
    Path(game): Path<String>,
) -> Result<Response, ApiError> {
    api.admit(&caller)?;
    let state = current(&shared, &game).await?;
    if lichess::side_of(&state, caller.account()).is_none() {
        return Err(ApiError::not_found("No such game"));
    }
    let stored = shared.store.load(&game).await?.ok_or_else(|| ApiError::not_found("No such game"))?;
    let lines: Vec<Value> =
        stored.chat.iter().filter(|l| l.players).map(|l| json!({ "text": l.text, "user": l.from })).collect();
    Ok(Json(Value::Array(lines)).into_response())
}

/// An ndjson response fed by `rx`.
pub fn ndjson(rx: mpsc::Receiver<Bytes>) -> Response {
    let body = Body::from_stream(tokio_stream::wrappers::ReceiverStream::new(rx).map(Ok::<_, Infallible>));
    ([(header::CONTENT_TYPE, "application/x-ndjson")], body).into_response()
}

/// One ndjson line.
pub fn line(value: &Value) -> Bytes {
    Bytes::from(value.to_string() + "\n")
}

/// `GET …/game/stream/{id}`: the caller's game as it happens. Opening it takes the seat back
/// (the player is present, as with a WebSocket); closing it leaves.
pub(super) async fn stream(
    State(shared): State<Arc<Shared>>,
    Extension(api): Extension<PlayApi>,
    caller: Caller,
    Path(game): Path<String>,
) -> Result<Response, ApiError> {
    api.admit(&caller)?;
    let slot = caller.stream_slot(&shared)?;
    let account = caller.account().clone();
    let room = shared.room(&game).await?;
    let token = account.seat_token(&game);
    let seated = room.call(Command::Resume { token, account: Some(account.id), v: None }).await?.into_seated()?;
    let (tx, rx) = mpsc::channel(32);
    tokio::spawn(async move {
        follow(shared, room, seated, tx).await;
        drop(slot);
    });
    Ok(ndjson(rx))
}

/// Feeds one game stream until the game ends or the client goes; then leaves the seat.
async fn follow(shared: Arc<Shared>, room: GameRef, seated: Seated, tx: mpsc::Sender<Bytes>) {
    let Seated { color: side, token, sub } = seated;
    let mut follower: Option<Follower> = None;
    for text in &sub.initial {
        if let Ok(message) = serde_json::from_str::<ServerMessage>(text) {
            Follower::follow(&mut follower, &message);
        }
    }
    let follower = match follower {
        Some(f) => Some(f),
        None => room.call(Command::State).await.and_then(|r| r.into_state()).ok().map(Follower::from_state),
    };
    if let Some(mut follower) = follower {
        let full = game_full(&shared, follower.state()).await;
        if tx.send(line(&full)).await.is_ok() && follower.state().status != Status::Ended {
            feed(&room, side, sub.rx, &mut follower, &tx).await;
        }
    }
    room.tell(Command::Leave { token }).await;
}

/// Waits for the game's next message for a player (`player`) or a spectator, sending an
/// empty line whenever it has been quiet for [`KEEP_ALIVE`]; a follower that fell behind gets
/// the game as it is now, as a `state`. None when the stream should end: the client went, or
/// the game's feed closed.
pub async fn next_message(
    room: &GameRef,
    rx: &mut broadcast::Receiver<crate::server::room::Broadcast>,
    tx: &mpsc::Sender<Bytes>,
    quiet: &mut tokio::time::Interval,
    player: bool,
) -> Option<ServerMessage> {
    loop {
        let event = tokio::select! {
            _ = tx.closed() => return None,
            _ = quiet.tick() => {
                tx.send(Bytes::from_static(b"\n")).await.ok()?;
                continue;
            }
            event = rx.recv() => event,
        };
        match event {
            Ok(event) if event.audience.reaches(player) => {
                if let Ok(message) = serde_json::from_str::<ServerMessage>(&event.text) {
                    quiet.reset();
                    return Some(message);
                }
            }
            Ok(_) => {}
            Err(broadcast::error::RecvError::Lagged(_)) => {
                let state = room.call(Command::State).await.and_then(|r| r.into_state()).ok()?;
                return Some(ServerMessage::State(Box::new(state)));
            }
            Err(broadcast::error::RecvError::Closed) => return None,
        }
    }
}

/// Applies `message` to `follower`; when it does not follow on, starts again from the game as
/// it is now. False if the game cannot be read.
pub async fn apply(room: &GameRef, follower: &mut Follower, message: &ServerMessage) -> bool {
    if follower.apply(message) != crate::protocol::Applied::Resync {
        return true;
    }
    match room.call(Command::State).await.and_then(|r| r.into_state()) {
        Ok(state) => {
            *follower = Follower::from_state(state);
            true
        }
        Err(_) => false,
    }
}

/// A quiet-stream timer: the first tick after [`KEEP_ALIVE`].
pub fn keep_alive() -> tokio::time::Interval {
    tokio::time::interval_at(tokio::time::Instant::now() + KEEP_ALIVE, KEEP_ALIVE)
}

/// Forwards the game's events as lichess lines until it ends, the feed closes or the client goes.
async fn feed(
    room: &GameRef,
    side: crate::chess::Color,
    mut rx: broadcast::Receiver<crate::server::room::Broadcast>,
    follower: &mut Follower,
    tx: &mpsc::Sender<Bytes>,
) {
    let mut gone = false;
    let mut quiet = keep_alive();
    while let Some(message) = next_message(room, &mut rx, tx, &mut quiet, true).await {
        let out = match &message {
            ServerMessage::Chat { line, .. } => Some(json!({
                "type": "chatLine",
                "room": if line.room == ChatRoom::Players { "player" } else { "spectator" },
                "username": line.from,
                "text": line.text,
            })),
            ServerMessage::Seats { claim, .. } => {
                follower.apply(&message);
                let now_gone = claim.is_some_and(|c| c.by == side);
                (now_gone != gone).then(|| {
                    gone = now_gone;
                    let mut value = json!({ "type": "opponentGone", "gone": gone });
                    if let Some(c) = claim.filter(|_| gone) {
                        value["claimWinInSeconds"] = json!(c.in_ms.div_ceil(1000));
                    }
                    value
                })
            }
            ServerMessage::State(_)
            | ServerMessage::Move { .. }
            | ServerMessage::End { .. }
            | ServerMessage::Offer { .. }
            | ServerMessage::Declined { .. } => {
                if !apply(room, follower, &message).await {
                    return;
                }
                Some(lichess::game_state(follower.state()))
            }
            _ => None,
        };
        if let Some(out) = out {
            if tx.send(line(&out)).await.is_err() {
                return;
            }
        }
        if follower.state().status == Status::Ended {
            return;
        }
    }
}

/// The `gameFull` line that opens a game stream.
pub async fn game_full(shared: &Shared, state: &GameState) -> Value {
    let clock = lichess::time_control_of(state);
    let category = lichess::category(state.variant, clock, lichess::days_of(state));
    let player = |seat| lichess::game_player(shared, seat, category);
    let white = player(&state.seats.white).await.unwrap_or(Value::Null);
    let black = player(&state.seats.black).await.unwrap_or(Value::Null);
    let created = shared.store.load(&state.game).await.ok().flatten().map_or(0, |g| g.created_ms);
    // A Chess960 game always names its start: lichess programs set their board up from it.
    let standard_start = state.variant == crate::protocol::VariantName::Standard
        && state.initial_fen == crate::chess::Variant::Standard.initial_fen();
    json!({
        "type": "gameFull",
        "id": state.game,
        "variant": lichess::variant(state.variant),
        "clock": clock.map(|c| json!({ "initial": c.initial_ms, "increment": c.increment_ms })),
        "speed": lichess::speed(clock),
        "perf": { "name": lichess::perf_name(state.variant, clock) },
        "rated": state.rated,
        "createdAt": created,
        "white": white,
        "black": black,
        "initialFen": if standard_start { "startpos".to_string() } else { state.initial_fen.clone() },
        "state": lichess::game_state(state),
    })
}

/// `POST /api/board/seek`: a seek in the lobby (`time` minutes and `increment` seconds, or
/// untimed; `variant`, `color`, `rated`), the request held open (an empty line now and then)
/// until someone takes it; the game then starts on the caller's event stream. Closing the
/// request withdraws the seek.
pub(super) async fn seek(
    State(shared): State<Arc<Shared>>,
    caller: Caller,
    ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
    headers: HeaderMap,
    fields: Fields,
) -> Result<Response, ApiError> {
    PlayApi::Board.admit(&caller)?;
    let slot = caller.stream_slot(&shared)?;
    let variant = match fields.get("variant") {
        None => crate::protocol::VariantName::Standard,
        Some(key) => lichess::variant_of(key).ok_or_else(|| ApiError::bad(format!("unknown variant {key:?}")))?,
    };
    let minutes =
        fields.get("time").map(|t| t.parse::<f64>()).transpose().map_err(|_| ApiError::bad("time is minutes"))?;
    let increment = fields.number("increment", 0..=180)?;
    let clock = match minutes {
        Some(m) if (0.0..=180.0).contains(&m) => {
            Some(ClockSpec { initial_ms: (m * 60_000.0) as u64, increment_ms: increment.unwrap_or(0) * 1000 })
        }
        Some(_) => return Err(ApiError::bad("time is 0 to 180 minutes")),
        None => None,
    };
    let color = super::challenges::color_field(&fields)?;
    let account = caller.account().clone();
    let spec = NewSeek {
        variant,
        clock,
        color,
        rated: fields.bool("rated")?.unwrap_or(false),
        name: account.name(),
        ..NewSeek::default()
    };
    crate::server::room::check(&spec.game(crate::chess::Color::White))?;
    let ip = crate::server::limits::client_ip(peer.ip(), &headers, &shared.config.trusted_proxies);
    if !shared.limits.may_create(ip) {
        return Err(crate::protocol::Refusal::rate_limited("your address creates games too fast").into());
    }
    let connection = shared.next_connection.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let (matched_tx, mut matched) = mpsc::unbounded_channel();
    let player = crate::server::accounts::Player::of(&account);
    let seeker = Seeker { connection, ip, matched: matched_tx, player };
    shared.lobby.post_seek(spec, seeker).await?;
    let (tx, rx) = mpsc::channel(4);
    tokio::spawn(async move {
        let _slot = slot;
        let mut quiet = keep_alive();
        loop {
            tokio::select! {
                _ = tx.closed() => break,
                _ = quiet.tick() => {
                    if tx.send(Bytes::from_static(b"\n")).await.is_err() {
                        break;
                    }
                }
                found = matched.recv() => {
                    if let Some(found) = found {
                        // The seat is the account's; its game stream takes it up. (The room
                        // tells the players the game started.)
                        if let Ok(room) = shared.room(&found.game).await {
                            room.tell(Command::Leave { token: found.token }).await;
                        }
                        let _ = tx.send(line(&json!({ "id": found.game }))).await;
                    }
                    return;
                }
            }
        }
        shared.lobby.cancel_seek(connection).await;
    });
    Ok(ndjson(rx))
}
