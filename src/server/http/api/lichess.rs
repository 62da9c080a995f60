//! lichess's JSON shapes for gambit's values: variants, speeds and perfs, game statuses, users,
//! challenges, and the game objects of the event and game streams (lichess-org/api,
//! doc/specs/schemas). Only shaping here: no I/O but the account lookups a user object needs.

use axum::http::{header, HeaderMap};
use serde_json::{json, Value};

use crate::chess::{Color, EndReason};
use crate::protocol::{ClockSpec, GameResult, GameState, OfferKind, SeatView, Status, VariantName};
use crate::server::accounts::Account;
use crate::server::challenges::Challenge;
use crate::server::ratings::{self, Category};
use crate::server::state::Shared;
use crate::server::store::{now_ms, AccountKey, StoreError};

/// What lichess sends as the time left of an untimed game (its correspondence games' value).
pub const UNTIMED_MS: u64 = 2_147_483_647;

/// `{"key","name","short"}` of a variant.
pub fn variant(v: VariantName) -> Value {
    match v {
        VariantName::Standard => json!({ "key": "standard", "name": "Standard", "short": "Std" }),
        VariantName::Minichess7 => json!({ "key": "minichess7", "name": "Minichess 7x7", "short": "Mini7" }),
        VariantName::Chess960 => json!({ "key": "chess960", "name": "Chess960", "short": "960" }),
    }
}

/// The variant a lichess key names (gambit's own `minichess7` among them).
pub fn variant_of(key: &str) -> Option<VariantName> {
    match key {
        "standard" => Some(VariantName::Standard),
        "minichess7" => Some(VariantName::Minichess7),
        "chess960" => Some(VariantName::Chess960),
        _ => None,
    }
}

/// The time control of a game's clock (None: untimed, or days per move).
pub fn time_control_of(state: &GameState) -> Option<ClockSpec> {
    state
        .clock
        .filter(|c| c.days.is_none())
        .map(|c| ClockSpec { initial_ms: c.initial_ms, increment_ms: c.increment_ms })
}

/// A correspondence game's days per move.
pub fn days_of(state: &GameState) -> Option<u32> {
    state.clock.and_then(|c| c.days)
}

/// lichess's speed of a time control (its estimate: initial + 40 × increment).
pub fn speed(clock: Option<ClockSpec>) -> &'static str {
    let Some(clock) = clock else { return "correspondence" };
    let estimated = clock.initial_ms.saturating_add(clock.increment_ms.saturating_mul(40));
    match estimated {
        e if e < 30_000 => "ultraBullet",
        e if e < 180_000 => "bullet",
        e if e < 480_000 => "blitz",
        e if e < 1_500_000 => "rapid",
        _ => "classical",
    }
}

/// The rating category of a game on `clock` or by `days` per move (None: untimed, which is
/// never rated).
pub fn category(v: VariantName, clock: Option<ClockSpec>, days: Option<u32>) -> Option<Category> {
    match (clock, days) {
        (Some(c), _) => Some(Category::of(v.into(), c.initial_ms, c.increment_ms)),
        (None, Some(_)) => Some(Category::of_game(v.into(), None)),
        (None, None) => None,
    }
}

/// What the variants this server plays are, for errors that name a variant it does not.
pub const VARIANTS: &str = "standard, chess960 and minichess7";

/// The perf's key: the variant's for a variant with its own rating (`chess960`), else the speed.
pub fn perf(v: VariantName, clock: Option<ClockSpec>) -> &'static str {
    match v {
        VariantName::Standard => speed(clock),
        VariantName::Chess960 => "chess960",
        VariantName::Minichess7 => "minichess7",
    }
}

/// The perf's name lichess shows ("Blitz", "Correspondence", "Chess960"; gambit's "Minichess7").
pub fn perf_name(v: VariantName, clock: Option<ClockSpec>) -> &'static str {
    match v {
        VariantName::Minichess7 => return "Minichess7",
        VariantName::Chess960 => return "Chess960",
        VariantName::Standard => {}
    }
    match speed(clock) {
        "ultraBullet" => "UltraBullet",
        "bullet" => "Bullet",
        "blitz" => "Blitz",
        "rapid" => "Rapid",
        "classical" => "Classical",
        _ => "Correspondence",
    }
}

/// lichess's `timeControl` object.
pub fn time_control(clock: Option<ClockSpec>, days: Option<u32>) -> Value {
    match (clock, days) {
        (Some(c), _) => {
            let (limit, increment) = (c.initial_ms / 1000, c.increment_ms / 1000);
            let show = if c.initial_ms % 60_000 == 0 {
                format!("{}+{increment}", c.initial_ms / 60_000)
            } else {
                format!("{}+{increment}", c.initial_ms as f64 / 60_000.0)
            };
            json!({ "type": "clock", "limit": limit, "increment": increment, "show": show })
        }
        (None, Some(days)) => json!({ "type": "correspondence", "daysPerTurn": days }),
        (None, None) => json!({ "type": "unlimited" }),
    }
}

/// lichess's status name of a game (GameStatusName).
pub fn status(state: &GameState) -> &'static str {
    match state.status {
        Status::Waiting => "created",
        Status::Ongoing => "started",
        Status::Ended => match state.reason {
            Some(EndReason::Checkmate) => "mate",
            Some(EndReason::Resignation) => "resign",
            Some(EndReason::Stalemate) => "stalemate",
            Some(EndReason::Timeout) => "outoftime",
            Some(EndReason::Abandoned) => "timeout",
            Some(EndReason::Aborted) => "aborted",
            Some(EndReason::OutOfMoves | EndReason::NoMoves) => "variantEnd",
            Some(EndReason::RulesInfraction) => "cheat",
            Some(
                EndReason::ThreefoldRepetition
                | EndReason::EightMoveRepetition
                | EndReason::FiftyMoves
                | EndReason::InsufficientMaterial
                | EndReason::Agreement
                | EndReason::Adjudication,
            ) => "draw",
            None => "unknownFinish",
        },
    }
}

/// lichess's numeric status id for `status`'s name.
pub fn status_id(name: &str) -> u32 {
    match name {
        "created" => 10,
        "started" => 20,
        "aborted" => 25,
        "mate" => 30,
        "resign" => 31,
        "stalemate" => 32,
        "timeout" => 33,
        "draw" => 34,
        "outoftime" => 35,
        "cheat" => 36,
        "noStart" => 37,
        "variantEnd" => 60,
        _ => 38,
    }
}

/// "white" or "black".
pub fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// The winner's colour name, once a game has one.
pub fn winner(state: &GameState) -> Option<&'static str> {
    match state.result {
        Some(GameResult::WhiteWins) => Some("white"),
        Some(GameResult::BlackWins) => Some("black"),
        _ => None,
    }
}

/// lichess's user id: the name in lower case.
pub fn user_id(name: &str) -> String {
    name.to_lowercase()
}

/// The side `account` holds in `state`'s game, if any (an account's seat shows its username).
pub fn side_of(state: &GameState, account: &Account) -> Option<Color> {
    [Color::White, Color::Black].into_iter().find(|side| {
        matches!(&state.seats[*side], SeatView::Human { name, account: true, .. } if name.eq_ignore_ascii_case(&account.username))
    })
}

/// An account's rating in `category` as of now, and whether it is provisional.
pub async fn rating(
    shared: &Shared,
    account: AccountKey,
    category: Option<Category>,
) -> Result<Option<(i64, bool)>, StoreError> {
    let Some(category) = category else { return Ok(None) };
    let ratings = shared.accounts.store().ratings(account).await?;
    let now = now_ms();
    Ok(Some(match ratings.iter().find(|r| r.category == category) {
        Some(stored) => {
            let r = ratings::current(stored, now);
            (r.rating.round() as i64, r.provisional())
        }
        None => {
            let r = ratings::current(&ratings::first(category, now), now);
            (r.rating.round() as i64, true)
        }
    }))
}

/// A player of a game as the game stream's `gameFull` shows them (GameEventPlayer).
pub async fn game_player(shared: &Shared, seat: &SeatView, category: Option<Category>) -> Result<Value, StoreError> {
    Ok(match seat {
        SeatView::Human { name, account: true, .. } => match shared.accounts.find(name).await? {
            Some(account) => {
                let rating = rating(shared, account.id, category).await?;
                json!({
                    "id": user_id(&account.username),
                    "name": account.username,
                    "title": account.bot.then_some("BOT"),
                    "rating": rating.map(|r| r.0),
                    "provisional": rating.map(|r| r.1),
                })
            }
            None => json!({ "id": null, "name": name, "title": null }),
        },
        SeatView::Human { name, .. } => json!({ "id": null, "name": name, "title": null }),
        SeatView::Bot { level, label, .. } => json!({ "aiLevel": level, "name": label }),
        SeatView::Engine(engine) => json!({ "id": null, "name": engine.label, "title": null }),
        SeatView::Open => json!({ "id": null, "name": null, "title": null }),
    })
}

/// The opponent as the event stream's game objects show them (GameEventOpponent).
pub fn opponent(seat: &SeatView) -> Value {
    match seat {
        SeatView::Human { name, account, .. } => {
            json!({ "id": account.then(|| user_id(name)), "username": name })
        }
        SeatView::Bot { level, label, .. } => json!({ "id": null, "username": label, "ai": level }),
        SeatView::Engine(engine) => json!({ "id": null, "username": engine.label }),
        SeatView::Open => json!({ "id": null, "username": "?" }),
    }
}

/// Where the server is reached, for the links in challenges: its public URL, or the host the
/// request named.
pub fn base_url(shared: &Shared, headers: &HeaderMap) -> String {
    if let Some(url) = &shared.config.public_url {
        return url.trim_end_matches('/').to_string();
    }
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("127.0.0.1");
    format!("http://{host}")
}

/// A game as the event stream's `gameStart` and `gameFinish` show it (GameEventInfo), for the
/// player on `side`.
pub fn game_event(state: &GameState, side: Color, source: &str) -> Value {
    let status = status(state);
    let my_turn = state.status == Status::Ongoing && state.turn == side;
    let seconds_left = state.clock.map(|c| match side {
        Color::White => c.white_ms / 1000,
        Color::Black => c.black_ms / 1000,
    });
    json!({
        "fullId": state.game,
        "gameId": state.game,
        "id": state.game,
        "fen": state.fen,
        "color": color_name(side),
        "lastMove": state.moves.last().cloned().unwrap_or_default(),
        "source": source,
        "status": { "id": status_id(status), "name": status },
        "variant": { "key": variant(state.variant)["key"], "name": variant(state.variant)["name"] },
        "speed": speed(time_control_of(state)),
        "perf": perf(state.variant, time_control_of(state)),
        "rated": state.rated,
        "hasMoved": state.moves.len() >= if first_mover(state) == side { 1 } else { 2 },
        "opponent": opponent(&state.seats[side.other()]),
        "isMyTurn": my_turn,
        "secondsLeft": seconds_left,
        "winner": winner(state),
        "compat": { "bot": true, "board": true },
    })
}

/// The side that made the game's first move (Black when its position starts with Black to move).
fn first_mover(state: &GameState) -> Color {
    if state.initial_fen.split_whitespace().nth(1) == Some("b") {
        Color::Black
    } else {
        Color::White
    }
}

/// A game's state as the game stream's `gameState` shows it.
pub fn game_state(state: &GameState) -> Value {
    let (wtime, btime, winc, binc) = match state.clock {
        Some(c) => (c.white_ms, c.black_ms, c.increment_ms, c.increment_ms),
        None => (UNTIMED_MS, UNTIMED_MS, 0, 0),
    };
    let offer = |kind: OfferKind, by: Color| state.offer.is_some_and(|o| o.kind == kind && o.by == by);
    let mut value = json!({
        "type": "gameState",
        "moves": state.moves.join(" "),
        "wtime": wtime,
        "btime": btime,
        "winc": winc,
        "binc": binc,
        "status": status(state),
        "wdraw": offer(OfferKind::Draw, Color::White),
        "bdraw": offer(OfferKind::Draw, Color::Black),
        "wtakeback": offer(OfferKind::Undo, Color::White),
        "btakeback": offer(OfferKind::Undo, Color::Black),
    });
    if let Some(winner) = winner(state) {
        value["winner"] = json!(winner);
    }
    value
}

/// A challenge party as lichess shows one (ChallengeUser).
fn challenge_user(shared: &Shared, party: &crate::server::challenges::Party) -> Value {
    json!({
        "id": user_id(&party.name),
        "name": party.name,
        "title": party.bot.then_some("BOT"),
        "rating": party.rating.map(|r| r.0),
        "provisional": party.rating.map(|r| r.1),
        "online": shared.notices.is_online(party.account),
    })
}

/// A challenge as lichess shows it (ChallengeJson); `direction` from the caller's side.
pub fn challenge(shared: &Shared, base: &str, c: &Challenge, direction: Option<&str>) -> Value {
    let mut value = json!({
        "id": c.id,
        "url": format!("{base}/challenge/{}", c.id),
        "status": c.status.name(),
        "challenger": challenge_user(shared, &c.challenger),
        "destUser": challenge_user(shared, &c.dest),
        "variant": variant(c.terms.variant),
        "rated": c.terms.rated,
        "speed": speed(c.terms.clock),
        "timeControl": time_control(c.terms.clock, c.terms.days),
        "color": c.terms.color.map_or("random", color_name),
        "finalColor": color_name(c.final_color),
        "perf": { "icon": "", "name": perf_name(c.terms.variant, c.terms.clock) },
    });
    if let Some(direction) = direction {
        value["direction"] = json!(direction);
    }
    if let Some(fen) = &c.terms.fen {
        value["initialFen"] = json!(fen);
    }
    if let Some(reason) = c.decline {
        value["declineReason"] = json!(reason.words());
        value["declineReasonKey"] = json!(reason.key());
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speeds_and_time_controls_are_lichess_names() {
        let clock = |m: u64, s: u64| Some(ClockSpec { initial_ms: m * 60_000, increment_ms: s * 1000 });
        assert_eq!(speed(None), "correspondence");
        assert_eq!(speed(Some(ClockSpec { initial_ms: 15_000, increment_ms: 0 })), "ultraBullet");
        assert_eq!(speed(clock(1, 0)), "bullet");
        assert_eq!(speed(clock(3, 2)), "blitz");
        assert_eq!(speed(clock(10, 0)), "rapid");
        assert_eq!(speed(clock(30, 0)), "classical");
        assert_eq!(perf_name(VariantName::Standard, clock(3, 2)), "Blitz");
        assert_eq!(perf_name(VariantName::Minichess7, clock(3, 2)), "Minichess7");
        assert_eq!(time_control(clock(3, 2), None)["show"], "3+2");
        assert_eq!(time_control(Some(ClockSpec { initial_ms: 30_000, increment_ms: 0 }), None)["show"], "0.5+0");
        assert_eq!(time_control(None, Some(3))["daysPerTurn"], 3);
        assert_eq!(time_control(None, None)["type"], "unlimited");
        assert_eq!(variant_of("minichess7"), Some(VariantName::Minichess7));
        assert_eq!(variant_of("chess960"), Some(VariantName::Chess960));
        assert_eq!(perf_name(VariantName::Chess960, clock(3, 2)), "Chess960");
        assert_eq!(perf(VariantName::Chess960, clock(3, 2)), "chess960");
        assert_eq!(variant_of("crazyhouse"), None);
        assert_eq!(status_id("mate"), 30);
    }
}
